import HandoffScenario
import ScenarioJSON

/// Writes a pretty-printed JSON object member by member, an array member
/// element by element, byte for byte as ``JSONWriter`` (pretty) writes the
/// whole tree: so a trace of millions of records is never held as one tree
/// or one string.
///
/// ```swift
/// var stream = JSONObjectStream()
/// stream.member("format", .int(1), to: &output)
/// stream.beginArray("records", to: &output)
/// for record in records { stream.element(record, to: &output) }
/// stream.endArray(to: &output)
/// stream.end(to: &output)
/// ```
///
/// Not guaranteed: arrays nest one level only (members of the top-level
/// object); a deeper value is written whole with ``member(_:_:to:)``.
struct JSONObjectStream {
    private var members = 0
    private var elements = 0
    private let writer = JSONWriter(pretty: true)

    /// A member whose value is written whole.
    mutating func member<Output: TextOutputStream>(_ key: String, _ value: JSONOutput, to output: inout Output) {
        open(key, to: &output)
        output.write(writer.render(value, depth: 1))
    }

    /// Starts a member whose value is an array written element by element.
    mutating func beginArray<Output: TextOutputStream>(_ key: String, to output: inout Output) {
        open(key, to: &output)
        output.write("[")
        elements = 0
    }

    /// One element of the array begun last.
    mutating func element<Output: TextOutputStream>(_ value: JSONOutput, to output: inout Output) {
        output.write(elements == 0 ? "\n    " : ",\n    ")
        output.write(writer.render(value, depth: 2))
        elements += 1
    }

    /// Ends the array begun last (`[]` when it had no element).
    func endArray<Output: TextOutputStream>(to output: inout Output) {
        output.write(elements == 0 ? "]" : "\n  ]")
    }

    /// Ends the object and the document (with the final newline).
    func end<Output: TextOutputStream>(to output: inout Output) {
        output.write(members == 0 ? "{}\n" : "\n}\n")
    }

    private mutating func open<Output: TextOutputStream>(_ key: String, to output: inout Output) {
        output.write(members == 0 ? "{\n  " : ",\n  ")
        output.write(JSONWriter.quoted(key))
        output.write(": ")
        members += 1
    }
}
