import Foundation

/// A value allowed in an activity's userInfo: property-list types plus URL and UUID.
///
/// Property-list types are array, data, date, dictionary (string keys), null,
/// number (integer, real, boolean), set and string; `NSUserActivity` also
/// accepts URL and UUID values. Untyped values (from app code or decoded JSON)
/// become `UserInfoValue`s through ``init(validating:keyPath:)``, which rejects
/// anything else.
///
/// ``description`` is deterministic: dictionary keys are sorted and set
/// elements are sorted by their rendering, so `Dictionary`/`Set` iteration
/// order (randomised per process) never reaches it.
public enum UserInfoValue: Hashable, Sendable {
    /// A string.
    case string(String)
    /// An integer; integer types wider than `Int64` are rejected when validating.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// A boolean.
    case boolean(Bool)
    /// Raw bytes.
    case data(Data)
    /// A point in time.
    case date(Date)
    /// A URL (not a property-list type, but allowed in userInfo).
    case url(URL)
    /// A UUID (not a property-list type, but allowed in userInfo).
    case uuid(UUID)
    /// The null value (`NSNull`, or an absent optional).
    case null
    /// An ordered list of values.
    case array([UserInfoValue])
    /// An unordered collection of distinct values.
    case set(Set<UserInfoValue>)
    /// A dictionary with string keys.
    case dictionary([String: UserInfoValue])

    /// Converts an untyped value, rejecting any type that is not allowed.
    ///
    /// `keyPath` names the value in errors (for example
    /// `userInfo.items[2].price`): dictionary keys are appended as `.key`,
    /// array elements as `[i]`, set elements as `[*]`.
    ///
    /// Accepted: `String`, `Substring`, `NSString`; `Bool` and boolean
    /// `NSNumber`s; `Int` and every fixed-width integer type (values outside
    /// `Int64` are rejected as invalid values); `Float`, `Double`, `CGFloat`
    /// and other `NSNumber`s; `Data`, `Date`, `URL`, `UUID` (and their `NS`
    /// counterparts); `NSNull` and `Optional.none` (both become ``null``);
    /// arrays (`[Any]`, `NSArray`); sets (`Set<AnyHashable>`, `NSSet`);
    /// dictionaries (`[String: Any]`, `[AnyHashable: Any]`, `NSDictionary`)
    /// whose keys are all strings; `AnyHashable` and `Optional.some` wrapping
    /// any of these; and `UserInfoValue` and ``UserInfo`` themselves.
    ///
    /// - Throws: ``HandoffError/invalidUserInfoValue(keyPath:type:)`` naming
    ///   the offending value's path and `String(describing: type(of:))`, or
    ///   ``HandoffError/invalidUserInfoKey(keyPath:type:)`` for a dictionary
    ///   with a non-string key (the path is the dictionary's). When several
    ///   values in one dictionary or set are invalid, the error whose message
    ///   sorts first is thrown, so the error does not depend on hashing; in
    ///   an array, the first invalid element's.
    public init(validating value: Any, keyPath: String) throws(HandoffError) {
        var converter = UserInfoConverter(root: keyPath)
        self = try converter.convert(value)
    }

    /// The value as a Foundation property-list value (`Int` for integers,
    /// `NSNull` for null, `[Any]`, `Set<AnyHashable>` and `[String: Any]`
    /// for collections).
    public var propertyListValue: Any {
        switch self {
        case let .string(value): return value
        case let .integer(value): return Int(value)
        case let .real(value): return value
        case let .boolean(value): return value
        case let .data(value): return value
        case let .date(value): return value
        case let .url(value): return value
        case let .uuid(value): return value
        case .null: return NSNull()
        case let .array(values): return values.map(\.propertyListValue)
        case let .set(values): return Set(values.map { $0.propertyListValue as? AnyHashable ?? AnyHashable("\($0)") })
        case let .dictionary(values): return values.mapValues(\.propertyListValue)
        }
    }

    /// A short name of the case for messages: "string", "integer", ...
    ///
    /// One of "string", "integer", "real", "boolean", "data", "date", "url",
    /// "uuid", "null", "array", "set" and "dictionary".
    public var typeName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .boolean: return "boolean"
        case .data: return "data"
        case .date: return "date"
        case .url: return "url"
        case .uuid: return "uuid"
        case .null: return "null"
        case .array: return "array"
        case .set: return "set"
        case .dictionary: return "dictionary"
        }
    }
}

// MARK: - Literals

extension UserInfoValue: ExpressibleByStringLiteral {
    /// Creates a ``string(_:)`` value from a string literal.
    ///
    /// Lets `"text"` stand for `.string("text")`.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension UserInfoValue: ExpressibleByIntegerLiteral {
    /// Creates an ``integer(_:)`` value from an integer literal.
    ///
    /// Lets `42` stand for `.integer(42)`.
    public init(integerLiteral value: Int64) {
        self = .integer(value)
    }
}

extension UserInfoValue: ExpressibleByFloatLiteral {
    /// Creates a ``real(_:)`` value from a floating-point literal.
    ///
    /// Lets `1.5` stand for `.real(1.5)`.
    public init(floatLiteral value: Double) {
        self = .real(value)
    }
}

extension UserInfoValue: ExpressibleByBooleanLiteral {
    /// Creates a ``boolean(_:)`` value from a boolean literal.
    ///
    /// Lets `true` stand for `.boolean(true)`.
    public init(booleanLiteral value: Bool) {
        self = .boolean(value)
    }
}

extension UserInfoValue: ExpressibleByArrayLiteral {
    /// Creates an ``array(_:)`` value from an array literal.
    ///
    /// Lets `[1, "a"]` stand for `.array([.integer(1), .string("a")])`.
    public init(arrayLiteral elements: UserInfoValue...) {
        self = .array(elements)
    }
}

extension UserInfoValue: ExpressibleByDictionaryLiteral {
    /// Creates a ``dictionary(_:)`` value from a dictionary literal.
    ///
    /// Lets `["k": 1]` stand for `.dictionary(["k": .integer(1)])`. A key
    /// repeated in the literal keeps its last value.
    public init(dictionaryLiteral elements: (String, UserInfoValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension UserInfoValue: ExpressibleByNilLiteral {
    /// Creates the ``null`` value from `nil`.
    ///
    /// Where the context is `UserInfoValue?` (for example ``UserInfo``'s
    /// subscript), `nil` still means "no value".
    public init(nilLiteral: ()) {
        self = .null
    }
}

// MARK: - Description

extension UserInfoValue: CustomStringConvertible {
    /// A deterministic rendering, JSON-like.
    ///
    /// Strings are quoted and escaped; reals keep a fractional part (`2.0`);
    /// data renders as its byte count (`<14 bytes>`); dates as ISO 8601 in UTC
    /// with milliseconds; URLs as `<absoluteString>`; UUIDs as
    /// `uuid(...)`; sets as `set([...])` with elements sorted by their
    /// rendering; dictionaries as `["key": value, ...]` with keys sorted.
    public var description: String {
        var output = ""
        render(into: &output)
        return output
    }

    /// Appends this value's rendering to `output`.
    fileprivate func render(into output: inout String) {
        switch self {
        case let .string(string):
            Self.renderQuoted(string, into: &output)
        case let .integer(integer):
            output += String(integer)
        case let .real(real):
            output += real.description
        case let .boolean(boolean):
            output += boolean ? "true" : "false"
        case let .data(data):
            output += "<\(data.count) bytes>"
        case let .date(date):
            output += date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case let .url(url):
            output += "<\(url.absoluteString)>"
        case let .uuid(uuid):
            output += "uuid(\(uuid.uuidString))"
        case .null:
            output += "null"
        case let .array(elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += ", " }
                element.render(into: &output)
            }
            output += "]"
        case let .set(elements):
            let rendered = elements.map(\.description).sorted()
            output += "set([" + rendered.joined(separator: ", ") + "])"
        case let .dictionary(entries):
            Self.renderDictionary(entries, into: &output)
        }
    }

    /// Appends `["key": value, ...]` with keys in ascending order.
    fileprivate static func renderDictionary(_ entries: [String: UserInfoValue], into output: inout String) {
        if entries.isEmpty {
            output += "[:]"
            return
        }
        output += "["
        for (index, key) in entries.keys.sorted().enumerated() {
            if index > 0 { output += ", " }
            renderQuoted(key, into: &output)
            output += ": "
            entries[key]?.render(into: &output)
        }
        output += "]"
    }

    /// Appends `string` in double quotes, escaping quotes, backslashes and
    /// control characters.
    fileprivate static func renderQuoted(_ string: String, into output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    output += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}

// MARK: - UserInfo

/// An activity's userInfo dictionary.
///
/// Keys are strings; values are ``UserInfoValue``s. Everything that lists
/// keys (``keys``, ``missingKeys(of:)``, ``description``) sorts them, so the
/// dictionary's iteration order never reaches output.
public struct UserInfo: Hashable, Sendable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The entries, unordered.
    ///
    /// Iterate ``keys`` instead when order matters.
    public private(set) var entries: [String: UserInfoValue]

    /// Creates an empty userInfo.
    ///
    /// Equivalent to `[:]`.
    public init() {
        entries = [:]
    }

    /// Creates a userInfo holding `entries`.
    ///
    /// The values are already typed, so nothing is validated.
    public init(_ entries: [String: UserInfoValue]) {
        self.entries = entries
    }

    /// Validates an untyped dictionary; key paths start at "userInfo".
    ///
    /// Every key must be a string and every value an allowed type, as
    /// ``UserInfoValue/init(validating:keyPath:)`` describes; an error names
    /// the offending value, for example `userInfo.items[2].price`.
    public init(validating dictionary: [AnyHashable: Any]) throws(HandoffError) {
        var converter = UserInfoConverter(root: "userInfo")
        entries = try converter.convertDictionary(dictionary)
    }

    /// Creates a userInfo from a dictionary literal.
    ///
    /// A key repeated in the literal keeps its last value.
    public init(dictionaryLiteral elements: (String, UserInfoValue)...) {
        entries = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// The entries as the property-list dictionary an app's
    /// `NSUserActivity.userInfo` holds (`String`, `Int`, `Double`, `Bool`,
    /// `Data`, `Date`, `URL`, `UUID`, `NSNull`, arrays, sets and
    /// dictionaries), to hand to app code written against Foundation: the
    /// inverse of ``init(validating:)``.
    public var propertyList: [String: Any] { entries.mapValues(\.propertyListValue) }

    /// The value for `key`; assigning `nil` removes the key.
    ///
    /// To store the null value, assign ``UserInfoValue/null``.
    public subscript(key: String) -> UserInfoValue? {
        get { entries[key] }
        set { entries[key] = newValue }
    }

    /// Keys in ascending order.
    ///
    /// Sorted with `String`'s `<`, which does not depend on hashing.
    public var keys: [String] {
        entries.keys.sorted()
    }

    /// The number of entries.
    ///
    /// Nested values are not counted.
    public var count: Int {
        entries.count
    }

    /// Whether there are no entries.
    ///
    /// An activity sent with an empty userInfo carries no payload beyond the
    /// empty dictionary.
    public var isEmpty: Bool {
        entries.isEmpty
    }

    /// addUserInfoEntries: merges `other` in; its values win on equal keys.
    ///
    /// Keys only in `self` are kept.
    public mutating func addEntries(_ other: UserInfo) {
        entries.merge(other.entries, uniquingKeysWith: { _, theirs in theirs })
    }

    /// Removes every entry.
    ///
    /// Used when the system clears a responder-managed activity's userInfo
    /// before asking responders to fill it in again.
    public mutating func removeAll() {
        entries.removeAll()
    }

    /// The keys of `required` that are missing, in ascending order.
    ///
    /// A key holding ``UserInfoValue/null`` is present, not missing.
    public func missingKeys(of required: Set<String>) -> [String] {
        if required.isEmpty { return [] }
        return required.filter { entries[$0] == nil }.sorted()
    }

    /// The size in bytes of this dictionary encoded as a binary property list (see BinaryPlistSize).
    ///
    /// Exact for property-list values as CoreFoundation writes them; URL,
    /// UUID, null and set values are estimated as ``BinaryPlistSize``
    /// documents.
    public var estimatedEncodedSize: Int {
        BinaryPlistSize.of(.dictionary(entries))
    }

    /// A deterministic rendering: `["key": value, ...]` with keys sorted.
    ///
    /// The same as the description of ``UserInfoValue/dictionary(_:)`` with
    /// these entries; `[:]` when empty.
    public var description: String {
        var output = ""
        UserInfoValue.renderDictionary(entries, into: &output)
        return output
    }
}

// MARK: - Validation

/// Lets the converter see through an `Optional` hidden in an `Any`.
private protocol UserInfoOptionalBox {
    /// The wrapped value, or `nil` for `Optional.none`.
    var userInfoWrappedValue: Any? { get }
}

extension Optional: UserInfoOptionalBox {
    fileprivate var userInfoWrappedValue: Any? {
        switch self {
        case let .some(wrapped): return wrapped
        case .none: return nil
        }
    }
}

/// The class of boolean `NSNumber`s (`__NSCFBoolean` on Apple platforms and
/// in swift-corelibs-foundation), which sets them apart from integer 0 and 1.
private let booleanNumberClass = ObjectIdentifier(type(of: NSNumber(value: true)))

/// Converts untyped values to ``UserInfoValue``s, tracking the key path
/// without building a string per element (the path is rendered only for an
/// error).
private struct UserInfoConverter {
    /// One step of a key path.
    enum Component {
        case key(String)
        case index(Int)
        case setElement
    }

    let root: String
    var path: [Component] = []

    init(root: String) {
        self.root = root
    }

    /// The current key path, e.g. `userInfo.items[2].price`.
    var keyPath: String {
        var rendered = root
        for component in path {
            switch component {
            case let .key(key): rendered += "." + key
            case let .index(index): rendered += "[\(index)]"
            case .setElement: rendered += "[*]"
            }
        }
        return rendered
    }

    func invalidValue(_ value: Any) -> HandoffError {
        .invalidUserInfoValue(keyPath: keyPath, type: String(describing: type(of: value)))
    }

    mutating func convert(_ value: Any) throws(HandoffError) -> UserInfoValue {
        // Already typed. (Checked first: none of these bridge.)
        if let typed = value as? UserInfoValue { return typed }
        if let userInfo = value as? UserInfo { return .dictionary(userInfo.entries) }
        if let box = value as? any UserInfoOptionalBox {
            guard let wrapped = box.userInfoWrappedValue else { return .null }
            return try convert(wrapped)
        }
        let dynamicType = type(of: value)
        if dynamicType == AnyHashable.self, let hashable = value as? AnyHashable {
            return try convert(hashable.base)
        }
        // An NSNumber instance. Checked on the metatype, because `as? NSNumber`
        // would also bridge Swift numbers (and `as? Int` would bridge NSNumbers).
        if dynamicType is NSNumber.Type, let number = value as? NSNumber {
            return try convertNumber(number)
        }
        if let scalar = try convertScalar(value) { return scalar }
        if value is NSNull { return .null }
        if let array = value as? [Any] { return try convertArray(array) }
        if let set = value as? Set<AnyHashable> { return try convertSet(set) }
        if let dictionary = value as? [AnyHashable: Any] { return .dictionary(try convertDictionary(dictionary)) }
        throw invalidValue(value)
    }

    /// Strings, Swift numbers, data, dates, URLs and UUIDs; `nil` for other types.
    func convertScalar(_ value: Any) throws(HandoffError) -> UserInfoValue? {
        switch value {
        case let string as String: return .string(string)
        case let substring as Substring: return .string(String(substring))
        case let boolean as Bool: return .boolean(boolean)
        case let integer as Int: return .integer(Int64(integer))
        case let integer as Int8: return .integer(Int64(integer))
        case let integer as Int16: return .integer(Int64(integer))
        case let integer as Int32: return .integer(Int64(integer))
        case let integer as Int64: return .integer(integer)
        case let integer as UInt8: return .integer(Int64(integer))
        case let integer as UInt16: return .integer(Int64(integer))
        case let integer as UInt32: return .integer(Int64(integer))
        case let integer as UInt:
            guard let exact = Int64(exactly: integer) else { throw invalidValue(value) }
            return .integer(exact)
        case let integer as UInt64:
            guard let exact = Int64(exactly: integer) else { throw invalidValue(value) }
            return .integer(exact)
        case let real as Double: return .real(real)
        case let real as Float: return .real(Double(real))
        case let real as CGFloat: return .real(Double(real))
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let url as URL: return .url(url)
        case let uuid as UUID: return .uuid(uuid)
        default: return nil
        }
    }

    /// A boolean, integer or real `NSNumber`.
    func convertNumber(_ number: NSNumber) throws(HandoffError) -> UserInfoValue {
        if ObjectIdentifier(type(of: number)) == booleanNumberClass {
            return .boolean(number.boolValue)
        }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "B"):
            return .boolean(number.boolValue)
        case UInt8(ascii: "f"), UInt8(ascii: "d"):
            return .real(number.doubleValue)
        case UInt8(ascii: "L"), UInt8(ascii: "Q"):
            guard let exact = Int64(exactly: number.uint64Value) else { throw invalidValue(number) }
            return .integer(exact)
        case UInt8(ascii: "c"), UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"),
            UInt8(ascii: "C"), UInt8(ascii: "S"), UInt8(ascii: "I"):
            return .integer(number.int64Value)
        default:
            // Other encodings (for example NSDecimalNumber's) hold a number
            // that is not an integer type: treat it as a real.
            return .real(number.doubleValue)
        }
    }

    mutating func convertArray(_ array: [Any]) throws(HandoffError) -> UserInfoValue {
        var converted: [UserInfoValue] = []
        converted.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            path.append(.index(index))
            defer { path.removeLast() }
            converted.append(try convert(element))
        }
        return .array(converted)
    }

    mutating func convertSet(_ set: Set<AnyHashable>) throws(HandoffError) -> UserInfoValue {
        var converted = Set<UserInfoValue>(minimumCapacity: set.count)
        var firstError: HandoffError?
        for element in set {
            path.append(.setElement)
            defer { path.removeLast() }
            do {
                converted.insert(try convert(element.base))
            } catch {
                firstError = Self.earlier(firstError, error)
            }
        }
        if let firstError { throw firstError }
        return .set(converted)
    }

    mutating func convertDictionary(_ dictionary: [AnyHashable: Any]) throws(HandoffError) -> [String: UserInfoValue] {
        var badKeyType: String?
        for key in dictionary.keys where !(key.base is String) {
            let name = String(describing: type(of: key.base))
            if badKeyType.map({ name < $0 }) ?? true { badKeyType = name }
        }
        if let badKeyType { throw .invalidUserInfoKey(keyPath: keyPath, type: badKeyType) }

        var converted: [String: UserInfoValue] = Dictionary(minimumCapacity: dictionary.count)
        var firstError: HandoffError?
        for (key, value) in dictionary {
            guard let name = key.base as? String else { continue }
            path.append(.key(name))
            defer { path.removeLast() }
            do {
                converted[name] = try convert(value)
            } catch {
                firstError = Self.earlier(firstError, error)
            }
        }
        if let firstError { throw firstError }
        return converted
    }

    /// Of two errors, the one whose message sorts first (so the choice does
    /// not depend on hashing order).
    static func earlier(_ current: HandoffError?, _ candidate: HandoffError) -> HandoffError {
        guard let current else { return candidate }
        return candidate.description < current.description ? candidate : current
    }
}
