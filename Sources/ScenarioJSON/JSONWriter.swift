/// Builds deterministic JSON text: members in the order given, 2-space
/// indentation (or compact), "\n" line ends, a final newline for pretty
/// output.
///
/// The same ``JSONOutput`` gives byte-identical text on every run and every
/// platform:
/// - strings are escaped per RFC 8259: `"` and `\` with a backslash, U+0000–
///   U+001F as `\b \f \n \r \t` or `\u00XX` (lower-case hex); DEL, the C1
///   controls and U+2028/U+2029 as `\u007f`, `\u0085`, `\u2028` (so no
///   control character is written raw); `/` and other non-ASCII characters
///   are written as they are;
/// - integers in decimal; doubles with Swift's shortest round-trip
///   `description` (`2.0`, `0.1`, `1e-05`, `-0.0`), which the standard
///   library computes itself rather than through the C library;
/// - NaN and ±infinity, which JSON cannot express, are written as `null`
///   (a report computing a mean of no samples should not stop the process);
/// - empty arrays and objects as `[]` and `{}`; pretty output puts every
///   element and member on its own line and a space after each colon.
///
/// ```swift
/// let text = JSONWriter(pretty: true).render(.object([("a", .int(1)), ("b", .array([.bool(true)]))]))
/// // {
/// //   "a": 1,
/// //   "b": [
/// //     true
/// //   ]
/// // }
/// ```
///
/// Not guaranteed: nesting is rendered recursively, so trees thousands of
/// levels deep (which no report builds) could exhaust the stack.
package struct JSONWriter: Sendable {
    /// Whether to indent (2 spaces per level, a final newline) rather than
    /// write everything on one line without spaces.
    var pretty: Bool

    /// Creates a writer.
    ///
    /// - Parameter pretty: indented output with a final newline (the
    ///   default), or compact output.
    package init(pretty: Bool = true) {
        self.pretty = pretty
    }

    /// The JSON text of `value`.
    ///
    /// - Complexity: O(*n*) in the size of the output.
    package func render(_ value: JSONOutput) -> String {
        var output: [UInt8] = []
        write(value, depth: 0, into: &output)
        if pretty { output.append(.lineFeed) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The JSON text of `value` as it appears nested `depth` levels deep in
    /// a larger document (indented for that depth, no final newline): what
    /// a report streaming a document member by member writes for one
    /// member's value or one array element.
    ///
    /// - Complexity: O(*n*) in the size of the output.
    package func render(_ value: JSONOutput, depth: Int) -> String {
        var output: [UInt8] = []
        write(value, depth: depth, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(_ value: JSONOutput, depth: Int, into output: inout [UInt8]) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number):
            output.append(contentsOf: String(number).utf8)
        case .double(let number):
            output.append(contentsOf: (number.isFinite ? number.description : "null").utf8)
        case .string(let text):
            Self.appendQuoted(text, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(.openBracket)
            for (number, element) in elements.enumerated() {
                if number > 0 { output.append(.comma) }
                newLine(depth: depth + 1, into: &output)
                write(element, depth: depth + 1, into: &output)
            }
            newLine(depth: depth, into: &output)
            output.append(.closeBracket)
        case .object(let members):
            guard !members.isEmpty else {
                output.append(contentsOf: "{}".utf8)
                return
            }
            output.append(.openBrace)
            for (number, member) in members.enumerated() {
                if number > 0 { output.append(.comma) }
                newLine(depth: depth + 1, into: &output)
                Self.appendQuoted(member.key, to: &output)
                output.append(.colon)
                if pretty { output.append(.space) }
                write(member.value, depth: depth + 1, into: &output)
            }
            newLine(depth: depth, into: &output)
            output.append(.closeBrace)
        }
    }

    private func newLine(depth: Int, into output: inout [UInt8]) {
        guard pretty else { return }
        output.append(.lineFeed)
        output.append(contentsOf: repeatElement(UInt8.space, count: 2 * depth))
    }

    /// `text` as a JSON string literal, quotes included.
    package static func quoted(_ text: String) -> String {
        var output: [UInt8] = []
        appendQuoted(text, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        output.append(.quote)
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case .quote, .backslash:
                output.append(.backslash)
                output.append(byte)
            case 0x00 ..< 0x20:
                output.append(contentsOf: escape(forControl: byte).utf8)
            case 0x7F:
                output.append(contentsOf: "\\u007f".utf8)
            case 0xC2 where index < bytes.count && (0x80...0x9F).contains(bytes[index]):
                // A C1 control, U+0080–U+009F.
                output.append(contentsOf: ("\\u00" + hex(bytes[index])).utf8)
                index += 1
            case 0xE2 where index + 1 < bytes.count && bytes[index] == 0x80 && (bytes[index + 1] == 0xA8 || bytes[index + 1] == 0xA9):
                // U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR.
                output.append(contentsOf: (bytes[index + 1] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                index += 2
            default:
                output.append(byte)
            }
        }
        output.append(.quote)
    }

    /// Two lower-case hex digits.
    private static func hex(_ byte: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }

    /// The escape for a control character U+0000–U+001F: `\n`, `\t`, `\r`,
    /// `\b`, `\f` or `\u00XX` with lower-case hex.
    static func escape(forControl byte: UInt8) -> String {
        switch byte {
        case .lineFeed: return "\\n"
        case .tab: return "\\t"
        case .carriageReturn: return "\\r"
        case 0x08: return "\\b"
        case 0x0C: return "\\f"
        default:
            let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
            return "\\u00" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
        }
    }
}
