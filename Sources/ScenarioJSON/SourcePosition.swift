/// A place in a JSON document: 1-based line and column, plus the 0-based
/// UTF-8 byte offset.
///
/// The column counts Unicode scalars from the start of the line, so "é" and
/// "😀" each take one column whatever their length in bytes, and a tab takes
/// one column. LF, CR and CRLF each end a line. A leading byte order mark is
/// not counted: the first character after it is at line 1, column 1 (offset 3).
///
/// Positions compare by offset (then line, then column), which is document
/// order for positions taken from the same document.
///
/// ```swift
/// let position = SourcePosition(line: 3, column: 7, offset: 40)
/// print(position)  // line 3, column 7
/// ```
package struct SourcePosition: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 1-based line number.
    package let line: Int

    /// The 1-based column, in Unicode scalars from the start of the line.
    package let column: Int

    /// The 0-based offset in UTF-8 bytes from the start of the input
    /// (including any byte order mark).
    package let offset: Int

    /// Creates a position from its parts, as given.
    package init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// "line 3, column 7".
    package var description: String { "line \(line), column \(column)" }

    /// Whether `lhs` comes before `rhs`: by offset, then line, then column.
    package static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        (lhs.offset, lhs.line, lhs.column) < (rhs.offset, rhs.line, rhs.column)
    }
}
