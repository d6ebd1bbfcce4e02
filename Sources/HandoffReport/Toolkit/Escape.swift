import HandoffScenario

// One toolkit for escaping: every name and value a report prints passes
// through one of these, chosen by where it goes.

/// How reports make text safe where they put it (package-wide: the
/// command-line tool's own tables use it too).
package enum Escape {
    /// Control characters written as escapes (`\n`, `\u{1B}`), so a value
    /// cannot start a line of its own or move the cursor: for text output.
    static func controlCharacters(_ text: String) -> String { text.escapingControlCharacters }

    /// Text for XML (and SVG) attributes and content; characters XML 1.0
    /// cannot carry become U+FFFD, and the control characters it can (tab,
    /// CR, LF, DEL, C1, the line and paragraph separators) are written as
    /// character references, so none reaches the file raw.
    static func xml(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\n": result += "&#10;"
            case "\t": result += "&#9;"
            case "\r": result += "&#13;"
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    result += "\u{FFFD}"
                } else if (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    result += "&#x" + String(scalar.value, radix: 16, uppercase: true) + ";"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// Text for HTML text and double-quoted attributes: `&`, `<`, `>`, `"`
    /// and `'` as references, control characters written as escapes.
    static func html(_ text: String) -> String {
        replacing(text.escapingControlCharacters) { scalar in
            scalar == "&" ? "&amp;" : scalar == "<" ? "&lt;" : scalar == ">" ? "&gt;"
                : scalar == "\"" ? "&quot;" : scalar == "'" ? "&#39;" : nil
        }
    }

    /// Text for a Markdown table cell: pipes escaped, control characters
    /// written as escapes.
    package static func markdownCell(_ text: String) -> String {
        replacing(text.escapingControlCharacters) { $0 == "|" ? "\\|" : nil }
    }

    /// A GitHub Actions workflow command's message: `%`, CR and LF encoded
    /// as the runner expects (`%25`, `%0D`, `%0A`).
    static func workflowMessage(_ text: String) -> String {
        replacing(text) { $0 == "%" ? "%25" : $0 == "\r" ? "%0D" : $0 == "\n" ? "%0A" : nil }
    }

    /// A workflow command's property value: as a message, and `:` and `,`
    /// encoded too.
    static func workflowProperty(_ text: String) -> String {
        replacing(workflowMessage(text)) { $0 == ":" ? "%3A" : $0 == "," ? "%2C" : nil }
    }

    /// `text` with each scalar `replacement` maps written as what it maps
    /// to, the others as they are. By Unicode scalar: Swift reads "\r\n"
    /// as one Character, which would match no single-scalar rule.
    private static func replacing(_ text: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if let replaced = replacement(scalar) { result += replaced } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// One CSV field: control characters written as escapes (a line feed
    /// as `\n`), then quoted when it holds a comma or a double quote.
    static func csvField(_ value: String) -> String {
        let text = value.escapingControlCharacters
        guard text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" }) else { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\"" { quoted += "\"\"" } else { quoted.unicodeScalars.append(scalar) }
        }
        return quoted + "\""
    }

    /// `text` as one word of a POSIX shell: as it is when it needs no
    /// quoting, in single quotes, or, when it holds a control character,
    /// in ANSI-C quotes (`$'a\nb'`, which bash, zsh, ksh and POSIX.1-2024
    /// `sh` read) so that a command stays on one line.
    static func shell(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
        }
        if text.unicodeScalars.contains(where: isControl) {
            var quoted = "$'"
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\\": quoted += "\\\\"
                case "'": quoted += "\\'"
                case "\n": quoted += "\\n"
                case "\t": quoted += "\\t"
                case "\r": quoted += "\\r"
                default:
                    if isControl(scalar) {
                        // Each UTF-8 byte as \xHH.
                        for byte in String(scalar).utf8 {
                            quoted += (byte < 0x10 ? "\\x0" : "\\x") + String(byte, radix: 16, uppercase: true)
                        }
                    } else {
                        quoted.unicodeScalars.append(scalar)
                    }
                }
            }
            return quoted + "'"
        }
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "-_./+=:,@%".unicodeScalars.contains($0)
        }
        if plain { return text }
        var quoted = "'"
        for character in text {
            if character == "'" { quoted += "'\\''" } else { quoted.append(character) }
        }
        return quoted + "'"
    }
}
