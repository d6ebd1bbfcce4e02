import SimKernel

// One toolkit for the words every report prints: numbers, percentages,
// durations, seconds of wall time and byte sizes, each with one rounding
// rule, so the same figure reads the same in every format. Never by locale.

/// How reports write numbers, percentages, durations and byte sizes.
enum Format {
    // MARK: Numbers

    /// A number as people write it in a label: `95` as `"95"`, `99.9` as
    /// `"99.9"`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// A percentile's label: `95` as `"p95"`, `99.9` as `"p99.9"`.
    static func percentile(_ value: Double) -> String { "p" + number(value) }

    /// `value` rounded half away from zero to at most two decimals, trailing
    /// zeros dropped, never `-0`: `12.346` → `"12.35"`, `-0.001` → `"0"`,
    /// `3.10` → `"3.1"`. Not finite, or beyond ±10¹³, prints `0`. For
    /// coordinates and values drawn in a chart.
    static func decimal(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        guard hundredths.isFinite, hundredths.magnitude < 1e15 else { return "0" }
        let whole = Int64(hundredths)
        let text = decimalText(whole.magnitude, scale: 100)
        return whole < 0 ? "-" + text : text
    }

    /// `value` with exactly `digits` decimals: `fixed(2.5, 2)` is `"2.50"`;
    /// `—` when not finite; past 2⁵³ the shortest text that reads back as
    /// the value.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "—" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        // Past 2⁵³ a double has no fraction to show, and past 2⁶³ no Int64
        // holds it.
        guard scaled < 0x1p53 else { return String(value) }
        let whole = Int64(scaled / scale)
        var text = (value < 0 && scaled > 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let fraction = String(Int64(scaled) - whole * Int64(scale))
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        return text
    }

    /// `value / scale` in decimal, `scale` a power of ten, trailing zeros
    /// (and a bare point) dropped: `decimalText(987_500, scale: 1_000_000)`
    /// is `"0.9875"`.
    static func decimalText(_ value: UInt64, scale: UInt64) -> String {
        let whole = value / scale
        var fraction = value % scale
        guard fraction != 0 else { return String(whole) }
        var digits = String(scale).count - 1
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        return "\(whole)." + String(repeating: "0", count: digits - text.count) + text
    }

    /// Digits in groups of three separated by a space: `49152` as
    /// `"49 152"`.
    static func groupedDigits(_ value: Int) -> String {
        var digits = Array(String(value))
        var index = digits.count - 3
        while index > 0 && digits[index - 1] != "-" {
            digits.insert(" ", at: index)
            index -= 3
        }
        return String(digits)
    }

    // MARK: Percentages

    /// A fraction as a percentage with up to `decimals` decimals, trailing
    /// zeros dropped: `0.995` as `"99.5%"`, `1` as `"100%"`; three decimals
    /// for shares of trials, one in sentences (`0.9876` as `"98.8%"`).
    static func percent(_ fraction: Double, decimals: Int = 3) -> String {
        var scale: UInt64 = 1
        for _ in 0..<max(0, min(decimals, 6)) { scale *= 10 }
        let scaled = (fraction * Double(100 * scale)).rounded()
        guard scaled.isFinite, scaled.magnitude < 9e15 else { return "\(fraction * 100)%" }
        let value = Int64(scaled)
        let text = decimalText(value.magnitude, scale: scale) + "%"
        return value < 0 ? "-" + text : text
    }

    /// ``percent(_:decimals:)`` with one decimal: for success rates in
    /// sentences.
    static func percentOneDecimal(_ fraction: Double) -> String { percent(fraction, decimals: 1) }

    /// A share as a whole percentage, or `<1%`: for a phase's share of a
    /// latency.
    static func wholePercent(_ share: Double) -> String {
        let value = (share * 100).rounded()
        guard value.isFinite, value.magnitude < 9e15 else { return "\(share * 100)%" }
        return value < 1 ? "<1%" : "\(Int64(value))%"
    }

    // MARK: Durations

    /// A duration to three significant digits, in the notation of
    /// `SimDuration.description` (`430ms`, `1.23s`, `12.5us`).
    static func duration(_ duration: SimDuration) -> String {
        duration.rounded(toSignificantDigits: 3).description
    }

    /// A latency in nanoseconds as ``duration(_:)`` does; `—` for nil.
    static func duration(nanoseconds: Int64?) -> String {
        guard let nanoseconds else { return "—" }
        return duration(SimDuration(nanoseconds: nanoseconds))
    }

    /// Wall-clock seconds with `decimals` decimals and a `.`: `7.30s`
    /// (with `unit`), `0.140` (without).
    static func seconds(_ seconds: Double, decimals: Int, unit: Bool = true) -> String {
        fixed(max(0, seconds), decimals) + (unit ? "s" : "")
    }

    /// Milliseconds measured or fitted (a real number), to two decimals
    /// under 10 ms, one under 1 s, none above: `2.35ms`, `871.5ms`,
    /// `1204ms`.
    static func measuredMilliseconds(_ value: Double) -> String {
        fixed(value, value < 10 ? 2 : (value < 1000 ? 1 : 0)) + "ms"
    }

    /// A simulated instant in seconds with nine decimals: `2.728755271s`.
    static func seconds(_ instant: SimInstant) -> String {
        let nanoseconds = instant.sinceStart.nanoseconds
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        let fraction = String(magnitude % 1_000_000_000)
        return "\(sign)\(magnitude / 1_000_000_000).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)s"
    }

    /// Nanoseconds as milliseconds with three decimals: `2728.755`.
    static func milliseconds(_ nanoseconds: Int64) -> String {
        let microseconds = (nanoseconds + (nanoseconds >= 0 ? 500 : -500)) / 1000
        let sign = microseconds < 0 ? "-" : ""
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    // MARK: Sizes

    /// A byte count, short: whole KiB and MiB as such (`12 KiB`, `1 MiB`),
    /// other sizes from 1 KiB up in KiB to one decimal, rounded half up
    /// (6 100 B as `6.0 KiB`), smaller ones in bytes (`300 B`). The one
    /// rounding rule of every table, chart and sentence.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        if bytes >= 1 << 10 {
            let tenths = bytes / 1024 * 10 + ((bytes % 1024) * 10 + 512) / 1024
            return "\(tenths / 10).\(tenths % 10) KiB"
        }
        return "\(bytes) B"
    }

    /// A byte count with its exact value: `48 KiB (49 152 bytes)`,
    /// `6.0 KiB (6 100 bytes)`, `1 000 bytes`.
    static func sizeWithBytes(_ bytes: Int) -> String {
        bytes >= 1024 ? "\(size(bytes)) (\(groupedDigits(bytes)) bytes)" : "\(groupedDigits(bytes)) bytes"
    }

    /// 2^exponent bytes as `256 B`, `4 KiB`, `1 MiB`.
    static func size(exponent: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        let unit = min(max(exponent, 0) / 10, units.count - 1)
        return "\(1 << (max(exponent, 0) - unit * 10)) \(units[unit])"
    }
}
