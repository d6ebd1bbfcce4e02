import HandoffScenario

extension Array where Element == String {
    /// The lines as one text, each followed by `\n`, every control
    /// character inside a line written as an escape
    /// (`Swift/String/escapingControlCharacters`): a name or value holding a line
    /// feed cannot start a line of its own (a forged `PASS`, a forged GitHub
    /// workflow command) or move the cursor.
    ///
    /// - Complexity: O(*n*) in the size of the text.
    var escapedLines: String {
        map(\.escapingControlCharacters).joined(separator: "\n") + "\n"
    }
}
