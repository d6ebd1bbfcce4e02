import Foundation
import ScenarioJSON
import Testing

/// SplitMix64, written out here so the generated values depend on nothing
/// but the seed.
struct SeededGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (bound > 0; the modulo bias is irrelevant here).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

/// Random JSON output trees: every case, nested up to `maxDepth`, with
/// strings drawn from control characters, quotes, backslashes, slashes,
/// non-ASCII and astral scalars, and edge-case numbers.
struct OutputGenerator {
    var random: SeededGenerator
    let maxDepth = 4

    init(seed: UInt64) {
        random = SeededGenerator(state: seed)
    }

    mutating func value(depth: Int = 0) -> JSONOutput {
        let kinds = depth >= maxDepth ? 5 : 7
        switch random.below(kinds) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2: return .int(integer())
        case 3: return .double(double())
        case 4: return .string(string())
        case 5: return .array((0..<random.below(5)).map { _ in value(depth: depth + 1) })
        default: return .object((0..<random.below(5)).map { _ in (key: string(), value: value(depth: depth + 1)) })
        }
    }

    mutating func integer() -> Int64 {
        switch random.below(4) {
        case 0: return [Int64.min, Int64.max, 0, -1, 1][random.below(5)]
        case 1: return Int64(random.below(2001)) - 1000
        default: return Int64(bitPattern: random.next())
        }
    }

    mutating func double() -> Double {
        switch random.below(4) {
        case 0:
            return [0.0, -0.0, 2.0, 0.1, 1e16, 1e-5, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, -1.5][random.below(9)]
        case 1:
            return Double(random.below(2001) - 1000) / 8
        default:
            while true {
                let candidate = Double(bitPattern: random.next())
                if candidate.isFinite { return candidate }
            }
        }
    }

    mutating func string() -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<random.below(8) {
            scalars.append(scalar())
        }
        return String(scalars)
    }

    mutating func scalar() -> Unicode.Scalar {
        let value: UInt32
        switch random.below(6) {
        case 0: value = UInt32(random.below(0x20))
        case 1: value = [0x22, 0x5C, 0x2F, 0x7F, 0xFEFF, 0x2028, 0x301][random.below(7)]
        case 2: value = 0x20 + UInt32(random.below(0x5F))
        case 3: value = 0x80 + UInt32(random.below(0xD800 - 0x80))
        case 4: value = 0xE000 + UInt32(random.below(0x10000 - 0xE000))
        default: value = 0x10000 + UInt32(random.below(0x110000 - 0x10000))
        }
        return Unicode.Scalar(value) ?? "?"
    }
}

/// The output tree a parsed node stands for: integer literals as `.int`,
/// other numbers as `.double`.
func output(from node: JSONNode) -> JSONOutput? {
    switch node.value {
    case .null:
        return .null
    case .bool(let flag):
        return .bool(flag)
    case .number(let number):
        if number.isInteger {
            return number.int64Value.map { .int($0) }
        }
        return .double(number.doubleValue)
    case .string(let text):
        return .string(text)
    case .array(let elements):
        var values: [JSONOutput] = []
        for element in elements {
            guard let value = output(from: element) else { return nil }
            values.append(value)
        }
        return .array(values)
    case .object(let members):
        var values: [(key: String, value: JSONOutput)] = []
        for member in members {
            guard let value = output(from: member.value) else { return nil }
            values.append((member.key, value))
        }
        return .object(values)
    }
}

@Suite("JSON writer")
struct JSONWriterTests {
    static let example: JSONOutput = .object([
        ("name", .string("walk \"away\"")),
        ("trials", .int(200)),
        ("ratio", .double(2.0)),
        ("tags", .array([.string("a/b"), .string("é😀"), .null, .bool(false)])),
        ("empty", .object([])),
        ("none", .array([])),
        ("nested", .object([("x", .double(0.1)), ("y", .array([.int(-1)]))])),
    ])

    @Test("pretty output: 2-space indentation, members in order, a final newline")
    func prettyExample() {
        let expected = """
            {
              "name": "walk \\"away\\"",
              "trials": 200,
              "ratio": 2.0,
              "tags": [
                "a/b",
                "é😀",
                null,
                false
              ],
              "empty": {},
              "none": [],
              "nested": {
                "x": 0.1,
                "y": [
                  -1
                ]
              }
            }

            """
        #expect(Self.example.render(pretty: true) == expected)
        #expect(JSONWriter().render(Self.example) == expected)
    }

    @Test("compact output: no whitespace and no final newline")
    func compactExample() {
        let expected = #"{"name":"walk \"away\"","trials":200,"ratio":2.0,"tags":["a/b","é😀",null,false],"empty":{},"none":[],"nested":{"x":0.1,"y":[-1]}}"#
        #expect(Self.example.render(pretty: false) == expected)
        #expect(JSONWriter(pretty: false).render(Self.example) == expected)
    }

    @Test("top-level scalars", arguments: [
        (JSONOutput.null, "null"),
        (.bool(true), "true"),
        (.int(Int64.min), "-9223372036854775808"),
        (.int(Int64.max), "9223372036854775807"),
        (.string(""), "\"\""),
        (.array([]), "[]"),
        (.object([]), "{}"),
    ])
    func scalars(value: JSONOutput, text: String) {
        #expect(value.render(pretty: false) == text)
        #expect(value.render(pretty: true) == text + "\n")
    }

    @Test("doubles use the shortest round-trip form; NaN and infinities become null", arguments: [
        (2.0, "2.0"),
        (-0.0, "-0.0"),
        (0.1, "0.1"),
        (-1.5, "-1.5"),
        (1e16, "1e+16"),
        (1e-5, "1e-05"),
        (123_456.789, "123456.789"),
        (Double.leastNonzeroMagnitude, "5e-324"),
        (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
        (Double.nan, "null"),
        (Double.infinity, "null"),
        (-Double.infinity, "null"),
    ])
    func doubles(value: Double, text: String) {
        #expect(JSONOutput.double(value).render(pretty: false) == text)
    }

    @Test("strings escape quotes, backslashes and control characters (C0, DEL, C1, U+2028, U+2029) only")
    func stringEscapes() throws {
        let text = "\"\\/é😀\u{7F}\u{2028}\u{0}\u{1}\u{8}\t\n\u{B}\u{C}\r\u{1B}\u{1F} \u{80}\u{85}\u{9F}\u{A0}\u{2029}\u{2027}"
        let expected = #""\"\\/é😀\u007f\u2028\u0000\u0001\b\t\n\u000b\f\r\u001b\u001f \u0080\u0085\u009f"# + "\u{A0}"
            + #"\u2029"# + "\u{2027}\""
        #expect(JSONOutput.string(text).render(pretty: false) == expected)
        let decoded = try JSONSerialization.jsonObject(with: Data(("[" + expected + "]").utf8)) as? [String]
        #expect(decoded == [text])
        #expect(JSONOutput.string(text).render(pretty: false) == expected)
        let keyed = JSONOutput.object([(key: "a\"\n", value: .null)])
        #expect(keyed.render(pretty: false) == #"{"a\"\n":null}"#)
    }

    @Test("every control character has exactly one escape, and it reads back", arguments: 0..<0x20)
    func controlCharacters(code: Int) throws {
        let scalar = try #require(Unicode.Scalar(code))
        let rendered = JSONOutput.string(String(Character(scalar))).render(pretty: false)
        let named: [Int: String] = [0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"]
        let hexDigits = Array("0123456789abcdef")
        let escape = named[code] ?? "\\u00\(hexDigits[code >> 4])\(hexDigits[code & 0xF])"
        #expect(rendered == "\"\(escape)\"")
        #expect(try JSONParser.parse(rendered).value == .string(String(Character(scalar))))
    }

    @Test("output is byte-identical across renders")
    func deterministic() {
        var generator = OutputGenerator(seed: 7)
        let value = JSONOutput.array((0..<50).map { _ in generator.value() })
        let first = value.render(pretty: true)
        #expect(first == value.render(pretty: true))
        var again = OutputGenerator(seed: 7)
        #expect(JSONOutput.array((0..<50).map { _ in again.value() }).render(pretty: true) == first)
    }

    @Test("generated values round-trip through the reader, pretty and compact", arguments: [UInt64(1), 2, 3])
    func roundTrip(seed: UInt64) throws {
        var generator = OutputGenerator(seed: seed)
        for _ in 0..<150 {
            let value = generator.value()
            for pretty in [true, false] {
                let text = value.render(pretty: pretty)
                let node = try JSONParser.parse(text)
                let back = output(from: node)
                #expect(back == value, "\(text)")
                #expect(back?.render(pretty: pretty) == text)
            }
        }
    }

    @Test("the documentation examples render as documented")
    func documentationExamples() {
        let summary: JSONOutput = .object([
            ("scenario", .string("walk-away")),
            ("trials", .int(200)),
            ("p95Seconds", .double(0.84)),
            ("failures", .array([])),
        ])
        #expect(summary.render(pretty: false)
            == #"{"scenario":"walk-away","trials":200,"p95Seconds":0.84,"failures":[]}"#)
        let text = JSONWriter(pretty: true).render(.object([("a", .int(1)), ("b", .array([.bool(true)]))]))
        #expect(text == "{\n  \"a\": 1,\n  \"b\": [\n    true\n  ]\n}\n")
    }

    @Test("trees compare member by member, in order")
    func equality() {
        #expect(JSONOutput.object([("a", .int(1)), ("b", .null)]) != .object([("b", .null), ("a", .int(1))]))
        #expect(JSONOutput.int(2) != .double(2))
        #expect(JSONOutput.double(.nan) != .double(.nan))
        #expect(JSONOutput.string("e\u{301}") != .string("\u{E9}"))
        #expect(JSONOutput.array([.bool(true)]) == .array([.bool(true)]))
    }
}
