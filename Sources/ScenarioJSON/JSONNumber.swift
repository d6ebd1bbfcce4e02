/// A JSON number, kept exactly as written.
///
/// JSON does not say how wide numbers are, so the literal is kept and read on
/// demand: as an exact `Int64` when it is an integer literal in range, and as
/// the nearest `Double` otherwise.
///
/// ```swift
/// let count = JSONNumber("12")      // isInteger, int64Value 12, doubleValue 12.0
/// let ratio = JSONNumber("3.50")    // text "3.50", int64Value nil, doubleValue 3.5
/// let large = JSONNumber("1e3")     // not an integer literal: int64Value nil
/// let wrong = JSONNumber("01")      // nil: not a JSON number
/// ```
package struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// The literal exactly as written, for example "-12", "3.50" or "1e3".
    ///
    /// Two numbers are equal when their texts are equal, so "1.0" and "1"
    /// differ; compare `doubleValue` or `int64Value` to compare magnitudes.
    package let text: String

    /// Creates a number from a literal, or returns `nil` when `text` is not a
    /// JSON number (RFC 8259 §6: an optional minus, no leading zeros, an
    /// optional fraction and an optional exponent).
    ///
    /// - Complexity: O(*n*) in the length of `text`.
    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, JSONNumber.problem(in: bytes[...]) == nil else { return nil }
        self.text = text
    }

    /// Creates a number from a literal the parser has already checked.
    init(validatedText text: String) {
        self.text = text
    }

    /// Whether the literal has neither a fraction nor an exponent ("12", "-0",
    /// but not "12.0" or "1e3").
    package var isInteger: Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The exact value of an integer literal within `Int64` range; `nil` for
    /// any other literal ("1e3", "3.0", "9223372036854775808").
    package var int64Value: Int64? {
        isInteger ? Int64(text) : nil
    }

    /// The `Double` nearest the literal (correctly rounded).
    ///
    /// Finite for every literal whose magnitude fits in a `Double`; ±infinity
    /// beyond (for example "1e400"), and ±0 for magnitudes below the smallest
    /// subnormal.
    package var doubleValue: Double {
        // Every validated literal is accepted by Double(_:); NaN is unreachable.
        Double(text) ?? .nan
    }

    /// The literal as written.
    package var description: String { text }

    /// What is wrong with `token` as a JSON number, or `nil` when it is one.
    ///
    /// The reasons are phrased to follow "invalid number \"…\": ".
    static func problem(in token: ArraySlice<UInt8>) -> String? {
        let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
        func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }

        var unsigned = token
        if let first = unsigned.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            unsigned = unsigned.dropFirst()
        }
        if unsigned.elementsEqual("NaN".utf8) || unsigned.elementsEqual("Infinity".utf8) {
            return "NaN and Infinity are not allowed in JSON"
        }

        var index = token.startIndex
        let end = token.endIndex
        if index < end && token[index] == UInt8(ascii: "+") {
            return "a leading '+' is not allowed"
        }
        if index < end && token[index] == UInt8(ascii: "-") {
            index += 1
        }
        // The integer part: 0, or a nonzero digit and more digits.
        guard index < end else { return "expected a digit after '-'" }
        if token[index] == UInt8(ascii: ".") {
            return "a digit is required before the decimal point"
        }
        if token[index] == zero {
            index += 1
            if index < end && isDigit(token[index]) { return "leading zeros are not allowed" }
        } else if isDigit(token[index]) {
            while index < end && isDigit(token[index]) { index += 1 }
        } else {
            return "expected a digit after '-'"
        }
        // The fraction.
        if index < end && token[index] == UInt8(ascii: ".") {
            index += 1
            guard index < end && isDigit(token[index]) else { return "expected a digit after the decimal point" }
            while index < end && isDigit(token[index]) { index += 1 }
        }
        // The exponent.
        if index < end && (token[index] == UInt8(ascii: "e") || token[index] == UInt8(ascii: "E")) {
            index += 1
            if index < end && (token[index] == UInt8(ascii: "+") || token[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard index < end && isDigit(token[index]) else { return "expected a digit in the exponent" }
            while index < end && isDigit(token[index]) { index += 1 }
        }
        guard index == end else {
            let valid = String(decoding: token[token.startIndex..<index], as: UTF8.self)
            let character = String(decoding: token[index...index], as: UTF8.self)
            return "unexpected '\(character)' after \"\(valid)\""
        }
        return nil
    }
}
