import HandoffWorld
import SimKernel

/// Sizes, rates, fractions and durations as people write them in scenario
/// files: a decimal number, then the unit, with at most one space between
/// (`"64 KiB"`, `"54 Mbit/s"`, `"99.5 %"`, `"250 ms"`; a duration of
/// several components, such as `"1m30s"`, has none).
///
/// Each reader returns the value or a ``ScenarioError`` (a bad value) whose
/// message says what was expected and what was found; the scenario decoder
/// adds the file, the JSON path and the position.
/// schema/scenario.schema.json gives the same forms as patterns, and
/// SchemaAgreementTests checks that the two agree.
package enum Quantities {
    /// Byte units: decimal (1 kB = 1 000 B) and binary (1 KiB = 1 024 B).
    static let byteUnits: [(symbol: String, bytes: Int64)] = [
        ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
        ("GB", 1_000_000_000), ("MB", 1_000_000), ("kB", 1_000), ("KB", 1_000), ("B", 1),
    ]

    /// Rate units, in bits per second.
    static let rateUnits: [(symbol: String, bitsPerSecond: Int64)] = [
        ("Gbit/s", 1_000_000_000), ("Mbit/s", 1_000_000), ("kbit/s", 1_000), ("bit/s", 1),
    ]

    /// Reads a byte count: `"3KiB"`, `"64 KiB"`, `"1.5MB"`, `"256B"`.
    ///
    /// The number may have a fraction if the result is a whole number of
    /// bytes (`"1.5KiB"` is 1 536; `"1.3KiB"` is an error).
    package static func bytes(_ text: String) -> Result<Int, ScenarioError> {
        let expected = "a size such as \"3KiB\", \"64 KiB\" or \"256B\" (units B, kB, MB, GB, KiB, MiB, GiB)"
        guard let (number, unit) = splitNumber(text) else { return .failure(.quantity(text, expected: expected)) }
        guard let multiplier = byteUnits.first(where: { $0.symbol == unit })?.bytes else {
            return .failure(.quantity(text, expected: expected))
        }
        guard let value = number.scaled(by: multiplier) else {
            return .failure(.quantity(
                text, expected: "\(expected), a whole number of bytes up to 2⁶² bytes", outOfRange: true))
        }
        return .success(Int(value))
    }

    /// Reads a link rate: `"54Mbit/s"`, `"256 kbit/s"`, `"1Gbit/s"`.
    package static func bandwidth(_ text: String) -> Result<Bandwidth, ScenarioError> {
        let expected = "a rate such as \"54Mbit/s\" or \"256kbit/s\" (units bit/s, kbit/s, Mbit/s, Gbit/s)"
        guard let (number, unit) = splitNumber(text),
            let multiplier = rateUnits.first(where: { $0.symbol == unit })?.bitsPerSecond
        else { return .failure(.quantity(text, expected: expected)) }
        guard let value = number.scaled(by: multiplier), value > 0,
            let bandwidth = try? Bandwidth(bitsPerSecond: value)
        else { return .failure(.quantity(text, expected: expected, outOfRange: true)) }
        return .success(bandwidth)
    }

    /// Reads a fraction written as a percentage: `"99%"`, `"99.9%"`, `"0%"`,
    /// `"99.5 %"`.
    ///
    /// The bound is checked on the number as written, so `"100.0000000000000000001%"`
    /// is over 100 % even though it rounds to 1.
    package static func percentage(_ text: String) -> Result<Double, ScenarioError> {
        let expected = "a percentage from \"0%\" to \"100%\", such as \"99.5%\""
        guard text.hasSuffix("%"), let (number, unit) = splitNumber(String(text.dropLast())), unit.isEmpty else {
            return .failure(.quantity(text, expected: expected))
        }
        guard !number.exceeds(100), let value = Double(number.movingPoint(left: 2)), value >= 0, value <= 1 else {
            return .failure(.quantity(text, expected: expected, outOfRange: true))
        }
        // Read as a decimal fraction ("99.9%" is 0.999, correctly rounded),
        // not as a percentage divided by 100.
        return .success(value)
    }

    /// Reads a duration: `"250ms"`, `"1.5s"`, `"1m30s"` (see
    /// `SimDuration.init(parsing:)`), allowing one space between the number
    /// and the unit of a duration of one component (`"250 ms"`, not
    /// `"1m 30s"` or `"1m30 s"`).
    package static func duration(_ text: String) -> Result<SimDuration, ScenarioError> {
        let expected = "a duration such as \"250ms\", \"1.5s\" or \"2min\" (units ns, us, ms, s, min, h)"
        var compact = text
        if let space = text.firstIndex(of: " ") {
            let number = text[..<space]
            let unit = text[text.index(after: space)...]
            if !number.isEmpty, number.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
                !unit.isEmpty, unit.allSatisfy(\.isLetter) {
                compact.remove(at: space)
            }
        }
        do {
            return .success(try SimDuration(parsing: compact))
        } catch {
            // Too long, or finer than a nanosecond: the form is right, the
            // value is not.
            switch error {
            case .durationOverflow:
                return .failure(.quantity(text, expected: expected, outOfRange: true))
            case let .malformedDuration(_, problem) where problem.hasPrefix("finer than one nanosecond"):
                return .failure(.quantity(text, expected: expected, outOfRange: true))
            case .malformedDuration, .scheduledInThePast, .invalidWeights, .invalidParameter, .invalidHistogramConfiguration,
                .malformedHistogram:
                return .failure(.quantity(text, expected: expected))
            }
        }
    }

    /// A decimal number as written and the unit after it (leading and
    /// trailing spaces not allowed; one space between is).
    static func splitNumber(_ text: String) -> (DecimalText, String)? {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var digits = ""
        var sawDigit = false
        var sawPoint = false
        while index < scalars.count {
            let scalar = scalars[index]
            if ("0"..."9").contains(scalar) {
                sawDigit = true
            } else if scalar == ".", !sawPoint {
                sawPoint = true
            } else {
                break
            }
            digits.unicodeScalars.append(scalar)
            index += 1
        }
        guard sawDigit, digits.last != ".", digits.first != "." else { return nil }
        if index < scalars.count, scalars[index] == " " { index += 1 }
        var unit = ""
        unit.unicodeScalars.append(contentsOf: scalars[index...])
        guard !unit.hasPrefix(" ") else { return nil }
        return (DecimalText(text: digits), unit)
    }
}

extension ScenarioError {
    /// A quantity that does not read as one: "expected EXPECTED, found
    /// "TEXT"", a bad value. `outOfRange` when the text has the quantity's
    /// form but a value out of range (too large, zero, over 100 %, finer
    /// than a nanosecond, not a whole number of bytes): except for
    /// percentages, what the JSON Schema's patterns do not check.
    static func quantity(_ text: String, expected: String, outOfRange: Bool = false) -> ScenarioError {
        ScenarioError(
            .badValue, "expected \(expected), found \"\(text)\"", value: text, detail: "expected \(expected)",
            isOutOfRange: outOfRange)
    }
}

/// A non-negative decimal number kept as text, for exact scaling.
struct DecimalText {
    let text: String

    /// The number divided by 10^places, as decimal text ("99.9" moved 2
    /// places is "0.999").
    func movingPoint(left places: Int) -> String {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var whole = String(parts[0])
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        while whole.count <= places { whole = "0" + whole }
        let split = whole.index(whole.endIndex, offsetBy: -places)
        return String(whole[..<split]) + "." + String(whole[split...]) + fraction
    }

    /// Whether the number is more than `limit`, exactly (no rounding).
    func exceeds(_ limit: Int) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let whole = parts[0].drop(while: { $0 == "0" })
        let limitText = String(limit)
        if whole.count != limitText.count { return whole.count > limitText.count }
        if whole != limitText[...] { return whole > limitText[...] }
        return parts.count > 1 && parts[1].contains(where: { $0 != "0" })
    }

    /// The number times `multiplier`, if that is a whole number that fits
    /// in 62 bits.
    func scaled(by multiplier: Int64) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        guard whole.count <= 18, fraction.count <= 18 else { return nil }
        guard let wholeValue = Int64(whole) else { return nil }
        let (product, overflow) = wholeValue.multipliedReportingOverflow(by: multiplier)
        guard !overflow, product < 1 << 62 else { return nil }
        guard !fraction.isEmpty, let fractionValue = Int64(fraction) else { return fraction.isEmpty ? product : nil }
        var scale: Int64 = 1
        for _ in 0..<fraction.count { scale *= 10 }
        // fractionValue / scale × multiplier must be whole.
        let (numerator, overflow2) = fractionValue.multipliedReportingOverflow(by: multiplier)
        guard !overflow2, numerator % scale == 0 else { return nil }
        let (sum, overflow3) = product.addingReportingOverflow(numerator / scale)
        guard !overflow3, sum < 1 << 62 else { return nil }
        return sum
    }
}
