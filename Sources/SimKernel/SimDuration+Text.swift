// Reading and writing durations as people write them: "250ms", "1.5s", "2m".

extension SimDuration {
    /// A unit a duration can be written in.
    @usableFromInline
    struct TextUnit: Sendable {
        let symbol: String
        let nanoseconds: Int64
    }

    /// Units accepted by the parser, longest symbol first so that "ms" is not
    /// read as "m" followed by garbage.
    static let parsedUnits: [TextUnit] = [
        TextUnit(symbol: "min", nanoseconds: 60_000_000_000),
        TextUnit(symbol: "ns", nanoseconds: 1),
        TextUnit(symbol: "us", nanoseconds: 1_000),
        TextUnit(symbol: "µs", nanoseconds: 1_000),  // U+00B5 MICRO SIGN
        TextUnit(symbol: "μs", nanoseconds: 1_000),  // U+03BC GREEK SMALL LETTER MU
        TextUnit(symbol: "ms", nanoseconds: 1_000_000),
        TextUnit(symbol: "s", nanoseconds: 1_000_000_000),
        TextUnit(symbol: "m", nanoseconds: 60_000_000_000),
        TextUnit(symbol: "h", nanoseconds: 3_600_000_000_000),
    ]

    static let unitList = "ns, us, ms, s, m, h"

    /// Reads a duration written as people write it.
    ///
    /// A duration is one or more components, each a decimal number followed
    /// directly by a unit: `ns`, `us` (or `µs`), `ms`, `s`, `m` (or `min`),
    /// `h`. Components add up, so `"1m30s"` is ninety seconds. A bare `"0"`
    /// is the empty duration. Arithmetic is exact: `"1.5s"` is exactly
    /// 1 500 000 000 ns, and a value finer than one nanosecond (`"0.5ns"`) is
    /// rejected rather than rounded.
    ///
    /// ```swift
    /// try SimDuration(parsing: "250ms")   // 250_000_000 ns
    /// try SimDuration(parsing: "900us")   // 900_000 ns
    /// ```
    ///
    /// - Parameter text: the duration, without surrounding spaces.
    /// - Throws: ``SimKernelError/malformedDuration(input:problem:)`` when the
    ///   text is not a duration (empty, negative, no unit, unknown unit, stray
    ///   characters, finer than a nanosecond), and
    ///   ``SimKernelError/durationOverflow(input:)`` when it is longer than
    ///   ``SimDuration/max``. The whole text is read before any value is
    ///   worked out, so a text that is not a duration is reported as
    ///   malformed even if a number in it is also too long or too fine.
    public init(parsing text: String) throws(SimKernelError) {
        func malformed(_ problem: String) -> SimKernelError {
            .malformedDuration(input: text, problem: problem)
        }
        if text.isEmpty {
            throw malformed("the text is empty; expected a number followed by a unit (\(Self.unitList)), e.g. \"250ms\" or \"1.5s\"")
        }
        if text == "0" {
            self = .zero
            return
        }
        let scalars = Array(text.unicodeScalars)
        var index = 0
        // The form first (every component read), then the value: a text
        // that is not a duration is reported as such even when a number in
        // it is also too long.
        var components: [(integerDigits: [UInt8], fractionDigits: [UInt8], unit: TextUnit)] = []
        while index < scalars.count {
            // Number: digits, optionally "." and more digits.
            let numberStart = index
            var integerDigits: [UInt8] = []
            var fractionDigits: [UInt8] = []
            var sawPoint = false
            while index < scalars.count {
                let scalar = scalars[index]
                if let digit = Self.digitValue(scalar) {
                    if sawPoint { fractionDigits.append(digit) } else { integerDigits.append(digit) }
                } else if scalar == "." && !sawPoint {
                    sawPoint = true
                } else {
                    break
                }
                index += 1
            }
            if index == numberStart {
                let found = String(scalars[index])
                if found == "-" {
                    throw malformed("a duration cannot be negative")
                }
                if found == " " || found == "\t" {
                    throw malformed("unexpected space; write the number and unit together, e.g. \"250ms\"")
                }
                throw malformed("expected a number at \"\(Self.rest(scalars, from: index))\", e.g. \"250ms\" or \"1.5s\"")
            }
            if integerDigits.isEmpty && fractionDigits.isEmpty {
                throw malformed("\".\" is not a number; write e.g. \"0.5s\"")
            }
            // Unit: the longest known symbol at this position.
            guard index < scalars.count else {
                throw malformed("missing unit after \"\(Self.rest(scalars, from: numberStart))\"; expected one of \(Self.unitList)")
            }
            guard let unit = Self.parsedUnits.first(where: { Self.hasPrefix(scalars, at: index, $0.symbol) }) else {
                if scalars[index] == "." {
                    throw malformed("a number has more than one decimal point")
                }
                if scalars[index] == " " || scalars[index] == "\t" {
                    throw malformed("unexpected space; write the number and unit together, e.g. \"250ms\"")
                }
                let word = Self.word(scalars, from: index)
                throw malformed("unknown unit \"\(word)\"; expected one of \(Self.unitList)")
            }
            index += unit.symbol.unicodeScalars.count
            components.append((integerDigits, fractionDigits, unit))
        }
        var total: Int64 = 0
        for (integerDigits, fractionDigits, unit) in components {
            let component = try Self.componentNanoseconds(
                integerDigits: integerDigits, fractionDigits: fractionDigits, unit: unit, input: text)
            let (sum, overflow) = total.addingReportingOverflow(component)
            if overflow { throw .durationOverflow(input: text) }
            total = sum
        }
        self.init(nanoseconds: total)
    }

    /// Converts one "number unit" component to nanoseconds, exactly.
    private static func componentNanoseconds(
        integerDigits: [UInt8], fractionDigits: [UInt8], unit: TextUnit, input: String
    ) throws(SimKernelError) -> Int64 {
        var whole: Int64 = 0
        for digit in integerDigits {
            let (times10, o1) = whole.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.addingReportingOverflow(Int64(digit))
            if o1 || o2 { throw .durationOverflow(input: input) }
            whole = next
        }
        let (wholeNanos, o3) = whole.multipliedReportingOverflow(by: unit.nanoseconds)
        if o3 { throw .durationOverflow(input: input) }

        var fraction = fractionDigits
        while let last = fraction.last, last == 0 { fraction.removeLast() }
        if fraction.isEmpty { return wholeNanos }
        let tooFine = SimKernelError.malformedDuration(
            input: input, problem: "finer than one nanosecond; simulated time is whole nanoseconds")
        // value = numerator * unit / 10^k must be a whole number of nanoseconds.
        guard fraction.count <= 18 else { throw tooFine }
        var numerator: Int64 = 0
        var denominator: Int64 = 1
        for digit in fraction {
            numerator = numerator * 10 + Int64(digit)
            denominator *= 10
        }
        let (scaled, o4) = numerator.multipliedReportingOverflow(by: unit.nanoseconds)
        if o4 { throw tooFine }
        guard scaled % denominator == 0 else { throw tooFine }
        let (sum, o5) = wholeNanos.addingReportingOverflow(scaled / denominator)
        if o5 { throw .durationOverflow(input: input) }
        return sum
    }

    private static func digitValue(_ scalar: Unicode.Scalar) -> UInt8? {
        guard scalar.value >= 48 && scalar.value <= 57 else { return nil }
        return UInt8(scalar.value - 48)
    }

    private static func hasPrefix(_ scalars: [Unicode.Scalar], at index: Int, _ symbol: String) -> Bool {
        var position = index
        for scalar in symbol.unicodeScalars {
            guard position < scalars.count, scalars[position] == scalar else { return false }
            position += 1
        }
        // A unit must not run on into more letters ("5sec" is not "5s" + "ec").
        if position < scalars.count, scalars[position].properties.isAlphabetic { return false }
        return true
    }

    private static func word(_ scalars: [Unicode.Scalar], from index: Int) -> String {
        var end = index
        while end < scalars.count, digitValue(scalars[end]) == nil, scalars[end] != "." { end += 1 }
        return String(String.UnicodeScalarView(scalars[index..<end]))
    }

    private static func rest(_ scalars: [Unicode.Scalar], from index: Int) -> String {
        String(String.UnicodeScalarView(scalars[index...]))
    }
}

extension SimDuration: CustomStringConvertible {
    /// The duration as people write it, exactly: `"250ms"`, `"1.5s"`, `"2m"`,
    /// `"900us"`, `"17ns"`.
    ///
    /// Whole hours and whole minutes print as `h` and `m`; anything else uses
    /// the largest of `s`, `ms`, `us`, `ns` that is not more than the value,
    /// with as many decimals as needed (never rounded). Reading the text back
    /// with ``init(parsing:)`` gives the same duration for every non-negative
    /// value.
    public var description: String {
        if nanoseconds < 0 {
            // -Int64.min does not exist; print its magnitude through UInt64.
            return "-" + Self.format(magnitude: nanoseconds.magnitude)
        }
        return Self.format(magnitude: UInt64(nanoseconds))
    }

    private static func format(magnitude value: UInt64) -> String {
        if value == 0 { return "0s" }
        let hour: UInt64 = 3_600_000_000_000
        let minute: UInt64 = 60_000_000_000
        if value % hour == 0 { return "\(value / hour)h" }
        if value % minute == 0 { return "\(value / minute)m" }
        let scales: [(UInt64, String, Int)] = [
            (1_000_000_000, "s", 9), (1_000_000, "ms", 6), (1_000, "us", 3),
        ]
        for (scale, symbol, digits) in scales where value >= scale {
            return decimal(value / scale, fraction: value % scale, digits: digits) + symbol
        }
        return "\(value)ns"
    }

    private static func decimal(_ whole: UInt64, fraction: UInt64, digits: Int) -> String {
        if fraction == 0 { return "\(whole)" }
        var text = String(fraction)
        text = String(repeating: "0", count: digits - text.count) + text
        while text.hasSuffix("0") { text.removeLast() }
        return "\(whole).\(text)"
    }
}

extension SimDuration {
    /// The duration rounded half up (half away from zero) to
    /// `significantDigits` decimal digits of nanoseconds, for reports:
    /// 430.251040 ms → 430 ms, 999.6 us → 1 ms (at 3 digits).
    ///
    /// - Precondition: `significantDigits >= 1`.
    public func rounded(toSignificantDigits significantDigits: Int) -> SimDuration {
        precondition(significantDigits >= 1, "significantDigits must be at least 1, got \(significantDigits)")
        let magnitude = nanoseconds.magnitude
        var digits = 0
        var remaining = magnitude
        while remaining > 0 {
            digits += 1
            remaining /= 10
        }
        guard digits > significantDigits else { return self }
        var scale: UInt64 = 1
        for _ in 0..<(digits - significantDigits) { scale *= 10 }
        let remainder = magnitude % scale
        let (roundedMagnitude, overflow) = (magnitude / scale + (remainder >= scale - remainder ? 1 : 0))
            .multipliedReportingOverflow(by: scale)
        let clamped = overflow ? Int64.max : Int64(min(roundedMagnitude, UInt64(Int64.max)))
        return SimDuration(nanoseconds: nanoseconds < 0 ? -clamped : clamped)
    }
}
