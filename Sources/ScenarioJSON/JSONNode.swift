/// A JSON value together with where it starts in the document.
///
/// Objects keep their members in document order, duplicates included, so
/// the reader of a scenario file can report a duplicate key with both
/// positions.
///
/// ```swift
/// let node = try JSONParser.parse("{\"name\": \"Mac\", \"x\": 2.5}")
/// if let name = node.member("name"), case .string(let text) = name.value.value {
///     print(text, name.keyPosition, name.value.position)  // Mac line 1, column 2 line 1, column 10
/// }
/// ```
package struct JSONNode: Hashable, Sendable {
    /// The kinds of JSON value.
    package indirect enum Value: Hashable, Sendable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number, kept as written.
        case number(JSONNumber)
        /// A string, with its escapes decoded.
        case string(String)
        /// An array's elements, in order.
        case array([JSONNode])
        /// An object's members, in document order, duplicate keys included.
        case object([JSONMember])
    }

    /// The value.
    package let value: Value

    /// Where the value starts: its first character (the quote of a string,
    /// the bracket of an array).
    package let position: SourcePosition

    /// Creates a node from its parts, as given.
    package init(value: Value, position: SourcePosition) {
        self.value = value
        self.position = position
    }

    /// The kind of value with its article, for error messages such as
    /// "expected a string, found an array": "null", "a boolean", "a number",
    /// "a string", "an array" or "an object".
    package var kindName: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The first member whose key is `key`, or `nil` when there is none or
    /// this is not an object.
    ///
    /// Keys compare by Unicode scalars, as JSON does.
    ///
    /// - Complexity: O(*m*) in the number of members.
    package func member(_ key: String) -> JSONMember? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) }
    }

    /// The string member `key`, or `nil` when there is none or it is not a
    /// string.
    package func string(_ key: String) -> String? {
        if case let .string(text)? = member(key)?.value.value { return text }
        return nil
    }

    /// The whole-number member `key` (its number's ``JSONNumber/int64Value``),
    /// or `nil` when there is none or it is not an integer literal within
    /// `Int64` range.
    package func integer(_ key: String) -> Int64? {
        if case let .number(number)? = member(key)?.value.value { return number.int64Value }
        return nil
    }
}

/// One member of a JSON object: a key, where the key is, and the value.
///
/// ```swift
/// let member = JSONMember(key: "x", keyPosition: SourcePosition(line: 1, column: 2, offset: 1),
///                         value: JSONNode(value: .null, position: SourcePosition(line: 1, column: 7, offset: 6)))
/// ```
package struct JSONMember: Hashable, Sendable {
    /// The key, with its escapes decoded.
    package let key: String

    /// Where the key starts (its opening quote).
    package let keyPosition: SourcePosition

    /// The value.
    package let value: JSONNode

    /// Creates a member from its parts, as given.
    package init(key: String, keyPosition: SourcePosition, value: JSONNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}
