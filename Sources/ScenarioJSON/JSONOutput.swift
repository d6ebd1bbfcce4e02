/// A JSON value to write: the tree a report builds and ``JSONWriter`` renders.
///
/// Objects are lists of members, written in the order given (no sorting, no
/// de-duplication), so the output is whatever the report decides, every time.
/// Integers and doubles are separate cases, so `2` and `2.0` stay distinct.
///
/// ```swift
/// let summary: JSONOutput = .object([
///     ("scenario", .string("walk-away")),
///     ("trials", .int(200)),
///     ("p95Seconds", .double(0.84)),
///     ("failures", .array([])),
/// ])
/// print(summary.render(pretty: false))
/// // {"scenario":"walk-away","trials":200,"p95Seconds":0.84,"failures":[]}
/// ```
package enum JSONOutput: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer, written in decimal.
    case int(Int64)
    /// A double, written as its shortest round-trip form (`2.0`, `0.1`,
    /// `1e-05`); NaN and ±infinity are written as `null`.
    case double(Double)
    /// A string, escaped per RFC 8259.
    case string(String)
    /// An array's elements, in order.
    case array([JSONOutput])
    /// An object's members, in the order given.
    case object([(key: String, value: JSONOutput)])

    /// Whether two trees are the same: same cases, same members in the same
    /// order, doubles compared with `==` (so `0.0 == -0.0` and NaN differs
    /// from itself), strings compared by Unicode scalars.
    package static func == (lhs: JSONOutput, rhs: JSONOutput) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case let (.bool(left), .bool(right)):
            return left == right
        case let (.int(left), .int(right)):
            return left == right
        case let (.double(left), .double(right)):
            return left == right
        case let (.string(left), .string(right)):
            return left.unicodeScalars.elementsEqual(right.unicodeScalars)
        case let (.array(left), .array(right)):
            return left == right
        case let (.object(left), .object(right)):
            return left.count == right.count
                && zip(left, right).allSatisfy { l, r in
                    l.key.unicodeScalars.elementsEqual(r.key.unicodeScalars) && l.value == r.value
                }
        case (.null, _), (.bool, _), (.int, _), (.double, _), (.string, _), (.array, _), (.object, _):
            return false
        }
    }

    /// The JSON text of this value; see ``JSONWriter``.
    ///
    /// - Parameter pretty: 2-space indentation and a final newline when true;
    ///   no whitespace at all when false.
    /// - Complexity: O(*n*) in the size of the output.
    package func render(pretty: Bool = true) -> String {
        JSONWriter(pretty: pretty).render(self)
    }
}
