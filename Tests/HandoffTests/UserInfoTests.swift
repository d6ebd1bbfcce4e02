import Foundation
import Handoff
import Testing

/// Tests of `UserInfoValue`, `UserInfo` and `BinaryPlistSize`, grouped so
/// that `swift test --filter UserInfoTests` runs them all.
@Suite("UserInfo")
enum UserInfoTests {}

extension UserInfoTests {
    /// A payload as a `UserInfo`, and the same payload built independently as
    /// Foundation values for `PropertyListSerialization`.
    struct PlistSizeFixture: Sendable, CustomTestStringConvertible {
        let name: String
        let userInfo: UserInfo
        let foundation: @Sendable () -> Any

        var testDescription: String { name }

        /// The size CoreFoundation's binary writer gives the Foundation value.
        func referenceSize() throws -> Int {
            try PropertyListSerialization.data(fromPropertyList: foundation(), format: .binary, options: 0).count
        }
    }
}

// MARK: - Fixtures

// The fixtures contain no repeated equal strings, dates, data or numbers
// other than CoreFoundation's shared numbers (-1...12, 0.0, 1.0, ±inf, NaN):
// CoreFoundation uniques objects by identity, and on Apple platforms tagged
// pointers give some equal values one identity (see BinaryPlistSize). The
// uniquing suite below covers repetition.
private typealias Fixture = UserInfoTests.PlistSizeFixture

private let sizeFixtures: [Fixture] = [
    Fixture(name: "empty dictionary", userInfo: UserInfo()) { [String: Any]() },
    Fixture(name: "MonkeyBrowser payload", userInfo: ["Url": "https://www.xamarin.com"]) {
        ["Url": "https://www.xamarin.com"]
    },
    Fixture(
        name: "nested arrays and dictionaries",
        userInfo: [
            "outer": ["inner": [1, 2, ["deep": "value", "list": [true, false, []]]], "none": [:]],
            "top": [[], [[3]]],
        ]
    ) {
        let deep: [String: Any] = ["deep": "value", "list": [true, false, [Any]()]]
        let outer: [String: Any] = ["inner": [1, 2, deep] as [Any], "none": [String: Any]()]
        return ["outer": outer, "top": [[Any](), [[3]]] as [Any]] as [String: Any]
    },
    Fixture(
        name: "integers of every width, negatives included",
        userInfo: [
            "ints": .array(integerSamples.map(UserInfoValue.integer)),
            "small": 7,
            "byte": 200,
            "short": 40_000,
            "word": 3_000_000_000,
            "long": .integer(Int64.max),
            "negative": -5,
        ]
    ) {
        [
            "ints": integerSamples, "small": Int64(7), "byte": Int64(200), "short": Int64(40_000),
            "word": Int64(3_000_000_000), "long": Int64.max, "negative": Int64(-5),
        ] as [String: Any]
    },
    Fixture(
        name: "reals",
        userInfo: ["reals": [0.0, 1.0, 1.5, -2.25, 1e300, -0.0, .real(.infinity), 3.141_592_653_589_793]]
    ) {
        ["reals": [0.0, 1.0, 1.5, -2.25, 1e300, -0.0, Double.infinity, 3.141_592_653_589_793]]
    },
    Fixture(name: "booleans", userInfo: ["yes": true, "no": false, "also": true]) {
        ["yes": true, "no": false, "also": true]
    },
    Fixture(
        name: "dates",
        userInfo: [
            "epoch": .date(Date(timeIntervalSinceReferenceDate: 0)),
            "later": .date(Date(timeIntervalSince1970: 1_700_000_000.5)),
        ]
    ) {
        [
            "epoch": Date(timeIntervalSinceReferenceDate: 0),
            "later": Date(timeIntervalSince1970: 1_700_000_000.5),
        ]
    },
    Fixture(
        name: "non-ASCII strings",
        userInfo: [
            "é": "café",
            "emoji": "😀",
            "flag": "🇫🇷 drapeau tricolore",
            "combining": "e\u{301}",
            "long": "naïve résumé, déjà vu encore",
            "ascii but long": "an ASCII string longer than fifteen characters",
        ]
    ) {
        [
            "é": "café",
            "emoji": "😀",
            "flag": "🇫🇷 drapeau tricolore",
            "combining": "e\u{301}",
            "long": "naïve résumé, déjà vu encore",
            "ascii but long": "an ASCII string longer than fifteen characters",
        ]
    },
    Fixture(
        name: "dictionary with more than 15 keys",
        userInfo: UserInfo(
            Dictionary(uniqueKeysWithValues: (0..<20).map { (wideKey($0), UserInfoValue.integer(100 + Int64($0))) })
        )
    ) {
        Dictionary(uniqueKeysWithValues: (0..<20).map { (wideKey($0), Int64(100 + $0)) })
    },
    Fixture(
        name: "array with more than 255 elements (2-byte references)",
        userInfo: ["many": .array((0..<300).map { .integer(1_000 + Int64($0)) })]
    ) {
        ["many": (0..<300).map { Int64(1_000 + $0) }]
    },
    Fixture(
        name: "array with more than 65535 elements (4-byte references and offsets)",
        userInfo: ["many": .array((0..<70_000).map { .integer(1_000 + Int64($0)) })]
    ) {
        ["many": (0..<70_000).map { Int64(1_000 + $0) }]
    },
    Fixture(name: "deeply nested arrays", userInfo: ["deep": nestedArray(depth: 500)]) {
        var value: Any = [Any]()
        for _ in 0..<500 { value = [value] }
        return ["deep": value]
    },
] + [0, 14, 15, 240, 300, 70_000].map { count in
    // 240 bytes: every object starts below offset 256 (at 8, 11 and 19), but
    // the offset table starts at 262 and CoreFoundation sizes offsets from
    // that, so they take 2 bytes each (300 bytes in all, not 297).
    Fixture(
        name: "data of \(count) bytes",
        userInfo: ["payload": .data(Data(repeating: 0xAB, count: count))]
    ) {
        ["payload": Data(count: count)]
    }
}

/// `value` written by Foundation as a binary property list.
private func binaryPlist(_ value: Any) throws -> Data {
    try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
}

private let integerSamples: [Int64] = [
    0, 12, 13, 127, 128, 255, 256, 32_767, 65_535, 65_536, 2_147_483_647, 4_294_967_295, 4_294_967_296,
    Int64.max - 1, -2, -128, -129, -32_768, -2_147_483_648, Int64.min,
]

private func wideKey(_ index: Int) -> String {
    "key\(index < 10 ? "0" : "")\(index)"
}

private func nestedArray(depth: Int) -> UserInfoValue {
    var value: UserInfoValue = []
    for _ in 0..<depth { value = [value] }
    return value
}

// MARK: - Size

extension UserInfoTests {
    @Suite("Binary property list size")
    struct Size {
        @Test("estimatedEncodedSize equals CoreFoundation's binary plist size", arguments: sizeFixtures)
        func sizeMatchesCoreFoundation(fixture: PlistSizeFixture) throws {
            #expect(fixture.userInfo.estimatedEncodedSize == (try fixture.referenceSize()))
        }

        @Test("The MonkeyBrowser payload encodes to 76 bytes")
        func monkeyBrowserSize() {
            // 8 header + dict 3 + "Url" 4 + URL string 25 + 3 offsets + 32 trailer.
            let info: UserInfo = ["Url": "https://www.xamarin.com"]
            #expect(info.estimatedEncodedSize == 76)
        }

        @Test("A URL is estimated as its absoluteString written as a string")
        func urlEstimate() throws {
            let url = try #require(URL(string: "https://example.com/path?q=1"))
            #expect(BinaryPlistSize.of(["u": .url(url)]) == BinaryPlistSize.of(["u": .string(url.absoluteString)]))
            #expect(BinaryPlistSize.of(.url(url)) == 8 + 1 + 2 + 28 + 1 + 32)
        }

        @Test("A UUID is estimated as a 16-byte data object")
        func uuidEstimate() throws {
            let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            #expect(BinaryPlistSize.of(["id": .uuid(uuid)]) == BinaryPlistSize.of(["id": .data(Data(count: 16))]))
            #expect(BinaryPlistSize.of(.uuid(uuid)) == 8 + 1 + 2 + 16 + 1 + 32)
        }

        @Test("Null is estimated as the one-byte null marker")
        func nullEstimate() {
            #expect(BinaryPlistSize.of(.null) == 8 + 1 + 1 + 32)
            #expect(BinaryPlistSize.of(["n": nil]) == BinaryPlistSize.of(["n": true]))
        }

        @Test("A set is estimated like an array of its elements")
        func setEstimate() {
            let elements: [UserInfoValue] = (0..<20).map { .string("element \($0)") }
            #expect(BinaryPlistSize.of(.set(Set(elements))) == BinaryPlistSize.of(.array(elements)))
            #expect(BinaryPlistSize.of(.set([])) == 8 + 1 + 1 + 32)
        }
    }
}

// MARK: - Uniquing

extension UserInfoTests {
    @Suite("Binary property list uniquing")
    struct Uniquing {
        @Test("Equal strings that are distinct objects are written once per occurrence")
        func equalStringsAreNotUniqued() throws {
            let info: UserInfo = ["a": ["same", "same", "same"], "b": "same"]
            // NSMutableString instances are distinct objects on every platform
            // (no tagged pointers), as freshly bridged Swift strings are on Linux.
            let foundation: [String: Any] = [
                "a": (0..<3).map { _ in NSMutableString(string: "same") },
                "b": NSMutableString(string: "same"),
            ]
            let reference = try binaryPlist(foundation)
            #expect(info.estimatedEncodedSize == reference.count)
            // 8 + dict 5 + keys 2 + 2 + array 4 + 4 x "same" 5 + 8 offsets + 32.
            #expect(info.estimatedEncodedSize == 81)
        }

        @Test("CoreFoundation writes the same string object once, by identity")
        func sameObjectIsUniqued() throws {
            let shared = NSString(string: "one string object, repeated")
            let sameObject: [String: Any] = ["a": [shared, shared, shared]]
            let text = "one string object, repeated"
            let info: UserInfo = ["a": [.string(text), .string(text), .string(text)]]
            let reference = try binaryPlist(sameObject)
            // The value model has no identity, so it counts every occurrence:
            // two extra 30-byte string objects (27 characters) and their offsets.
            #expect(info.estimatedEncodedSize == reference.count + 2 * 30 + 2)
        }

        @Test("CoreFoundation's shared numbers are written once however often they occur")
        func sharedNumbersAreUniqued() throws {
            let info: UserInfo = [
                "ints": [5, 5, 5, -1, -1, 12, 12, 0, 0],
                "reals": [0.0, 0.0, 1.0, 1.0, .real(.infinity), .real(.infinity), .real(-.infinity), .real(-.infinity)],
            ]
            let foundation: [String: Any] = [
                "ints": [5, 5, 5, -1, -1, 12, 12, 0, 0] as [Int64],
                "reals": [0.0, 0.0, 1.0, 1.0, Double.infinity, Double.infinity, -Double.infinity, -Double.infinity],
            ]
            let reference = try binaryPlist(foundation)
            #expect(info.estimatedEncodedSize == reference.count)
            // 8 + dict 5 + keys 5 + 6 + arrays 10 + 9 + ints 5, 12, 0 (2 each)
            // and -1 (9) + reals 4 x 9 + 13 offsets + 32.
            #expect(info.estimatedEncodedSize == 8 + 5 + 5 + 6 + 10 + 9 + 3 * 2 + 9 + 4 * 9 + 13 + 32)
        }

        @Test("NaN is a shared number: repeated NaNs are written once")
        func nanIsShared() throws {
            let info: UserInfo = ["nan": [.real(.nan), .real(.nan), .real(.nan)]]
            let foundation: [String: Any] = ["nan": [Double.nan, Double.nan, Double.nan]]
            let reference = try binaryPlist(foundation)
            #expect(info.estimatedEncodedSize == reference.count)
            #expect(info.estimatedEncodedSize == 8 + 3 + 4 + 4 + 9 + 4 + 32)
        }

        @Test("Repeated numbers outside the shared ones are written once per occurrence")
        func otherNumbersAreNotUniqued() throws {
            let info: UserInfo = ["n": [1_000, 1_000, 1_000], "r": [2.5, 2.5], "z": [-0.0, -0.0]]
            // The value model's count, independent of any platform.
            // 8 + dict 7 + keys 3 x 2 + arrays 4 + 3 + 3 + ints 3 x 3 + reals
            // 4 x 9 + 14 offsets + 32.
            #expect(info.estimatedEncodedSize == 8 + 7 + 3 * 2 + (4 + 3 + 3) + 3 * 3 + 4 * 9 + 14 + 32)
            #if !canImport(Darwin)
                // On Linux every bridged number outside CoreFoundation's caches is
                // a distinct object. (On Apple platforms tagged-pointer NSNumbers
                // give equal values one identity, so CoreFoundation writes them
                // once there and this model over-estimates.)
                let foundation: [String: Any] = [
                    "n": [1_000, 1_000, 1_000] as [Int64], "r": [2.5, 2.5], "z": [-0.0, -0.0],
                ]
                let reference = try binaryPlist(foundation)
                #expect(info.estimatedEncodedSize == reference.count)
            #endif
        }

        @Test("Booleans are never uniqued")
        func booleansAreNotUniqued() throws {
            let info: UserInfo = ["b": [true, true, true, true]]
            let foundation: [String: Any] = ["b": [true, true, true, true]]
            let reference = try binaryPlist(foundation)
            #expect(info.estimatedEncodedSize == reference.count)
            #expect(info.estimatedEncodedSize == 8 + 3 + 2 + 5 + 4 + 7 + 32)
        }
    }
}

// MARK: - Validation

private struct Price: Hashable {
    var cents: Int
}

private final class Widget: Hashable {
    static func == (lhs: Widget, rhs: Widget) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension UserInfoTests {
    @Suite("userInfo validation")
    struct Validation {
        @Test("A custom struct deep in arrays and dictionaries is rejected with its key path")
        func customStructRejected() {
            let payload: [AnyHashable: Any] = [
                "title": "Cart",
                "items": [["price": 1], ["price": 2], ["price": Price(cents: 3)]] as [Any],
            ]
            #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "userInfo.items[2].price", type: "Price")) {
                try UserInfo(validating: payload)
            }
        }

        @Test("A class instance is rejected with its type name")
        func classInstanceRejected() {
            #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "userInfo.widget", type: "Widget")) {
                try UserInfo(validating: ["widget": Widget()])
            }
        }

        @Test("A Character is rejected although a String is accepted")
        func characterRejected() throws {
            let character: Character = "x"
            #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "userInfo.letter", type: "Character")) {
                try UserInfo(validating: ["letter": character])
            }
            #expect(try UserInfo(validating: ["letter": "x"])["letter"] == "x")
        }

        @Test("A non-string dictionary key is rejected at the dictionary's key path")
        func intKeyRejected() {
            let payload: [AnyHashable: Any] = ["meta": ["ok": 1, 7: "seven"] as [AnyHashable: Any]]
            #expect(throws: HandoffError.invalidUserInfoKey(keyPath: "userInfo.meta", type: "Int")) {
                try UserInfo(validating: payload)
            }
            #expect(throws: HandoffError.invalidUserInfoKey(keyPath: "userInfo", type: "Int")) {
                try UserInfo(validating: [1: "one"])
            }
        }

        @Test("A bad value inside a set is reported at [*]")
        func badValueInSet() {
            let tags: Set<AnyHashable> = ["a", "b", AnyHashable(Price(cents: 1))]
            #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "userInfo.tags[*]", type: "Price")) {
                try UserInfo(validating: ["tags": tags])
            }
        }

        @Test("A bad value nested through arrays, dictionaries and sets names the full path")
        func deeplyNestedBadValue() {
            let inner: Set<AnyHashable> = [AnyHashable([AnyHashable(1), AnyHashable(Price(cents: 2))])]
            let payload: [AnyHashable: Any] = ["a": [["b": inner] as [String: Any]] as [Any]]
            #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "userInfo.a[0].b[*][1]", type: "Price")) {
                try UserInfo(validating: payload)
            }
        }

        @Test("With several bad values in a set or dictionary the reported one does not depend on hashing")
        func severalBadValuesDeterministic() {
            // "Price" sorts before "Widget" in the message, whatever the set's order.
            let mixed: Set<AnyHashable> = [AnyHashable(Widget()), AnyHashable(Price(cents: 1)), AnyHashable(Widget())]
            for _ in 0..<20 {
                #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "userInfo.s[*]", type: "Price")) {
                    try UserInfo(validating: ["s": mixed])
                }
            }
            let keys = (0..<40).map { "k\($0 + 10)" }
            let payload = Dictionary(uniqueKeysWithValues: keys.map { ($0 as AnyHashable, Widget() as Any) })
            #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "userInfo.k10", type: "Widget")) {
                try UserInfo(validating: payload)
            }
        }

        @Test("Integers outside Int64 are rejected as invalid values")
        func outOfRangeIntegersRejected() {
            #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "userInfo.big", type: "UInt64")) {
                try UserInfo(validating: ["big": UInt64.max])
            }
            #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "userInfo.big", type: "UInt")) {
                try UserInfo(validating: ["big": UInt.max])
            }
            let number = NSNumber(value: UInt64.max)
            let numberType = String(describing: type(of: number))
            #expect(throws: HandoffError.invalidUserInfoValue(keyPath: "n", type: numberType)) {
                try UserInfoValue(validating: number, keyPath: "n")
            }
            #expect(throws: Never.self) { try UserInfo(validating: ["fits": UInt64(Int64.max)]) }
        }

        @Test("Every allowed type is accepted and converted to its case")
        func allowedTypesAccepted() throws {
            let date = Date(timeIntervalSinceReferenceDate: 12_345)
            let url = try #require(URL(string: "https://www.xamarin.com"))
            let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            let none: Int? = nil
            let some: Int? = 4
            let typed: UserInfoValue = ["k": 1]
            let info: UserInfo = ["x": "y"]
            let cases: [(String, Any, UserInfoValue)] = [
                ("String", "text", .string("text")),
                ("Substring", "a text".dropFirst(2), .string("text")),
                ("NSString", NSString(string: "ns"), .string("ns")),
                ("Bool", true, .boolean(true)),
                ("NSNumber bool", NSNumber(value: false), .boolean(false)),
                ("Int", 42, .integer(42)),
                ("Int8", Int8(-8), .integer(-8)),
                ("Int16", Int16(-16), .integer(-16)),
                ("Int32", Int32(-32), .integer(-32)),
                ("Int64", Int64.min, .integer(Int64.min)),
                ("UInt", UInt(7), .integer(7)),
                ("UInt8", UInt8(255), .integer(255)),
                ("UInt16", UInt16(65_535), .integer(65_535)),
                ("UInt32", UInt32.max, .integer(Int64(UInt32.max))),
                ("UInt64", UInt64(9), .integer(9)),
                ("NSNumber int", NSNumber(value: 1), .integer(1)),
                ("NSNumber Int8 one", NSNumber(value: Int8(1)), .integer(1)),
                ("Float", Float(1.5), .real(1.5)),
                ("Double", 2.25, .real(2.25)),
                ("NSNumber double", NSNumber(value: 0.5), .real(0.5)),
                ("Data", Data([1, 2, 3]), .data(Data([1, 2, 3]))),
                ("NSData", NSData(data: Data([4])), .data(Data([4]))),
                ("Date", date, .date(date)),
                ("URL", url, .url(url)),
                ("UUID", uuid, .uuid(uuid)),
                ("NSNull", NSNull(), .null),
                ("Optional.none", none as Any, .null),
                ("Optional.some", some as Any, .integer(4)),
                ("[Any]", [1, "a", nil] as [Any?], [1, "a", nil]),
                ("NSArray", NSArray(array: [1, "b"]), [1, "b"]),
                ("Set<AnyHashable>", Set<AnyHashable>([1, "c"]), .set([1, "c"])),
                ("Set<Int>", Set([3, 4]), .set([3, 4])),
                ("[String: Any]", ["k": [true]] as [String: Any], ["k": [true]]),
                ("[AnyHashable: Any]", ["k": 2.5] as [AnyHashable: Any], ["k": 2.5]),
                ("NSDictionary", NSDictionary(dictionary: ["k": "v"]), ["k": "v"]),
                ("UserInfoValue", typed, typed),
                ("UserInfo", info, ["x": "y"]),
            ]
            for (name, value, expected) in cases {
                let converted = try UserInfoValue(validating: value, keyPath: name)
                #expect(converted == expected, "\(name)")
            }
        }

        @Test("Validating a dictionary keeps every entry")
        func validatedDictionaryKeepsEntries() throws {
            let payload: [AnyHashable: Any] = ["Url": "https://www.xamarin.com", "count": 3, "tags": ["a", "b"]]
            let info = try UserInfo(validating: payload)
            #expect(info == ["Url": "https://www.xamarin.com", "count": 3, "tags": ["a", "b"]])
        }

        @Test("typeName names each case")
        func typeNames() throws {
            let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            let url = try #require(URL(string: "https://a.example"))
            let values: [UserInfoValue] = [
                "s", 1, 1.5, true, .data(Data()), .date(Date(timeIntervalSinceReferenceDate: 0)),
                .url(url), .uuid(uuid), nil, [], .set([]), [:],
            ]
            #expect(values.map(\.typeName) == [
                "string", "integer", "real", "boolean", "data", "date",
                "url", "uuid", "null", "array", "set", "dictionary",
            ])
        }
    }
}

// MARK: - Dictionary behaviour

extension UserInfoTests {
    @Suite("UserInfo dictionary")
    struct Entries {
        @Test("addEntries merges, the other side winning on equal keys")
        func addEntriesOtherWins() {
            var info: UserInfo = ["x": 1, "y": 2]
            info.addEntries(["y": 20, "z": 30])
            #expect(info == ["x": 1, "y": 20, "z": 30])
        }

        @Test("missingKeys lists the absent required keys in ascending order; null counts as present")
        func missingKeys() {
            let info: UserInfo = ["a": 1, "c": nil]
            #expect(info.missingKeys(of: ["d", "c", "b", "a"]) == ["b", "d"])
            #expect(info.missingKeys(of: []) == [])
        }

        @Test("keys are sorted ascending")
        func keysSorted() {
            let info: UserInfo = ["b": 1, "a": 2, "C": 3, "aa": 4]
            #expect(info.keys == ["C", "a", "aa", "b"])
        }

        @Test("Assigning nil through the subscript removes the key; assigning .null keeps it")
        func subscriptNilRemoves() {
            var info: UserInfo = ["a": 1, "b": 2]
            info["a"] = nil
            info["b"] = .null
            #expect(info.keys == ["b"])
            #expect(info["b"] == .null)
            #expect(info.count == 1)
        }

        @Test("removeAll empties the dictionary")
        func removeAllEmpties() {
            var info: UserInfo = ["a": 1]
            #expect(!info.isEmpty)
            info.removeAll()
            #expect(info.isEmpty)
            #expect(info.count == 0)
            #expect(info.estimatedEncodedSize == 42)
        }

        @Test("description is deterministic: equal values built in different orders render the same")
        func descriptionDeterministic() {
            var ascending = UserInfo()
            var descending = UserInfo()
            let keys = (0..<50).map { "key\($0)" }
            for key in keys { ascending[key] = .string(key) }
            for key in keys.reversed() { descending[key] = .string(key) }
            #expect(ascending == descending)
            #expect(ascending.description == descending.description)
            let expected = "[" + keys.sorted().map { "\"\($0)\": \"\($0)\"" }.joined(separator: ", ") + "]"
            #expect(ascending.description == expected)
        }

        @Test("description renders every case, sorting dictionary keys and set elements")
        func descriptionRendering() throws {
            let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            let url = try #require(URL(string: "https://a.example/x"))
            let info: UserInfo = [
                "z": .set(["b", "a", 3]),
                "a": ["s\"q", 1, 2.0, false, nil],
                "m": ["k2": .data(Data(count: 14)), "k1": .date(Date(timeIntervalSinceReferenceDate: 0.25))],
                "u": .url(url),
                "id": .uuid(uuid),
            ]
            #expect(info.description == """
                ["a": ["s\\"q", 1, 2.0, false, null], "id": uuid(E621E1F8-C36C-495A-93FC-0C247A3E6E5F), \
                "m": ["k1": 2001-01-01T00:00:00.250Z, "k2": <14 bytes>], "u": <https://a.example/x>, \
                "z": set(["a", "b", 3])]
                """)
            #expect(UserInfo().description == "[:]")
        }
    }
}

/// The Foundation view of a userInfo.
@Suite("UserInfo as a property list")
struct UserInfoPropertyListTests {
    @Test("propertyList gives back what init(validating:) took, as Foundation values")
    func propertyListRoundTrip() throws {
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let url = URL(string: "https://example.com/a")!
        let given: [AnyHashable: Any] = [
            "noteID": "groceries", "cursor": 12, "ratio": 0.5, "pinned": true, "when": date, "link": url,
            "tags": ["a", "b"], "nested": ["depth": 2],
        ]
        let info = try UserInfo(validating: given)
        let list = info.propertyList
        #expect(list["noteID"] as? String == "groceries")
        #expect(list["cursor"] as? Int == 12)
        #expect(list["ratio"] as? Double == 0.5)
        #expect(list["pinned"] as? Bool == true)
        #expect(list["when"] as? Date == date)
        #expect(list["link"] as? URL == url)
        #expect(list["tags"] as? [String] == ["a", "b"])
        #expect((list["nested"] as? [String: Any])?["depth"] as? Int == 2)
        // And back again: the same userInfo.
        #expect(try UserInfo(validating: list) == info)
    }
}
