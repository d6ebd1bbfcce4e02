/// A strict JSON reader (RFC 8259) that keeps the position of every value
/// and key, and reports the first problem with its line and column in
/// messages that are the same on every platform.
///
/// What it accepts: exactly one JSON value, with optional whitespace (space,
/// tab, LF, CR) around it and one optional leading UTF-8 byte order mark.
/// Nothing else: no comments, trailing commas, single quotes, unquoted keys,
/// NaN or Infinity, leading zeros, raw control characters in strings, unpaired
/// surrogate escapes, or invalid UTF-8. Containers may nest at most
/// ``maximumDepth`` deep.
///
/// ```swift
/// let node = try JSONParser.parse("[1, 2,]")
/// // throws: line 1, column 6: trailing comma before ']'
/// ```
///
/// Not guaranteed: duplicate keys are not reported (objects keep them all, in
/// order); numbers are not range-checked (see ``JSONNumber``).
package enum JSONParser {
    /// The deepest nesting of arrays and objects accepted; the top-level
    /// container is level 1.
    package static let maximumDepth = 256

    /// Reads one JSON document from UTF-8 bytes.
    ///
    /// - Parameter bytes: the document, optionally starting with a UTF-8 byte
    ///   order mark.
    /// - Returns: the top-level value, with positions.
    /// - Throws: ``JSONSyntaxError`` at the first problem.
    /// - Complexity: O(*n*) time in the length of `bytes`; the nesting depth is
    ///   bounded, so hostile input cannot exhaust the stack.
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var reader = JSONReader(bytes: bytes)
        return try reader.readDocument()
    }

    /// Reads one JSON document from a string.
    ///
    /// Positions are those of the string's UTF-8 encoding.
    ///
    /// - Parameter text: the document.
    /// - Returns: the top-level value, with positions.
    /// - Throws: ``JSONSyntaxError`` at the first problem.
    /// - Complexity: O(*n*) in the length of `text`.
    package static func parse(_ text: String) throws(JSONSyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }
}
