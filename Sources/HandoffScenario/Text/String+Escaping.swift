extension String {
    /// The text with every control character written as an escape, so a
    /// value quoted in a message cannot start a new line, move the cursor
    /// or forge another diagnostic: `\n`, `\r`, `\t` as themselves, any
    /// other C0 or C1 control, DEL, and the Unicode line and paragraph
    /// separators as `\u{…}`. Escapes are made scalar by scalar, so a CR LF
    /// pair (one `Character` in Swift) becomes `\r\n`.
    ///
    /// - Complexity: O(n).
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.needsEscaping) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            guard scalar.needsEscaping else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is a control character or a line or paragraph
    /// separator.
    fileprivate var needsEscaping: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }
}
