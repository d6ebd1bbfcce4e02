// One toolkit for the words every report prints: numbers, percentages,
// durations and sizes, each with one rounding rule, so the same figure reads
// the same in every format.

/// How reports write numbers, percentages, durations and byte sizes.
enum Format {
    /// A fraction as a percentage, up to three decimals with no trailing
    /// zeros: `0.995` as `"99.5%"`, `1` as `"100%"`.
    static func percent(_ fraction: Double) -> String {
        let thousandths = (fraction * 100_000).rounded()
        guard thousandths.isFinite, abs(thousandths) < 9e15 else { return "\(fraction * 100)%" }
        let whole = Int64(thousandths) / 1000
        var decimals = abs(Int64(thousandths) % 1000)
        guard decimals != 0 else { return "\(whole)%" }
        var digits = 3
        while decimals % 10 == 0 {
            decimals /= 10
            digits -= 1
        }
        var fractionText = String(decimals)
        while fractionText.count < digits { fractionText = "0" + fractionText }
        return "\(thousandths < 0 && whole == 0 ? "-" : "")\(whole).\(fractionText)%"
    }

    /// A number as people write it in a label: `95` as `"95"`, `99.9` as
    /// `"99.9"`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// A percentile's label: `95` as `"p95"`, `99.9` as `"p99.9"`.
    static func percentile(_ value: Double) -> String { "p" + number(value) }
}
