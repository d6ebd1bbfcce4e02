/// Why a JSON document could not be read, and where.
///
/// The message is plain English starting in lower case, and is the same on
/// every platform; `description` puts the position in front of it:
///
/// ```swift
/// do {
///     _ = try JSONParser.parse("{\"a\": 1 \"b\": 2}")
/// } catch {
///     print(error)  // line 1, column 9: expected ',' or '}' after an object member
/// }
/// ```
package struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the problem is: the offending character, or the end of the input.
    ///
    /// For an unterminated string it is the opening quote; for a trailing
    /// comma it is the comma.
    package let position: SourcePosition

    /// What is wrong, for example "expected ',' or '}' after an object member".
    package let message: String

    /// Creates an error from its parts, as given.
    package init(position: SourcePosition, message: String) {
        self.position = position
        self.message = message
    }

    /// "line 3, column 7: expected ',' or '}' after an object member".
    package var description: String { "\(position): \(message)" }
}
