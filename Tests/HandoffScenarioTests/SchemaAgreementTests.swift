import Foundation
import Handoff
@testable import HandoffScenario
import HandoffWorld
import Testing

/// The patterns in schema/scenario.schema.json and the decoder's readers
/// (Sources/HandoffScenario/Text/Quantities.swift and the readers of Team
/// IDs and OS versions) say yes and no to the same strings, so an editor
/// that checks a file against the schema flags what `handoff-sim validate`
/// would, and nothing else.
///
/// Each kind's pattern is read from the schema file as written and run with
/// Swift Regex, by Unicode scalar: like ECMA-262 regular expressions, which
/// JSON Schema specifies, its `$` matches only at the very end. (Python's
/// `re`, which .ci/run's jsonschema check uses, and ICU's
/// NSRegularExpression also let `$` match before a final "\n", so there
/// `"5ms\n"` matches the duration pattern while the decoder refuses it.)
///
/// Where a pattern cannot express a bound — a duration of at most 7 days or
/// without a part finer than a nanosecond, a size of whole bytes up to
/// 1 GiB, a rate of at least 10 kbit/s — only the form is compared: the
/// decoder's "right form, value out of range" (`ScenarioError.isOutOfRange`)
/// counts as a match. Percentages (0 to 100 %), Team IDs and OS versions are
/// compared in full.
@Suite("JSON Schema patterns agree with the decoder")
struct SchemaAgreementTests {
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case duration, size, rate, fraction, teamID, osVersion

        var description: String { rawValue }

        /// Where the kind's pattern is in the schema (a JSON pointer).
        var pointer: String {
            switch self {
            case .duration: return "/$defs/duration/oneOf/0/pattern"
            case .size: return "/$defs/size/oneOf/0/pattern"
            case .rate: return "/$defs/rate/pattern"
            case .fraction: return "/$defs/fraction/oneOf/0/pattern"
            case .teamID: return "/properties/apps/items/properties/teamID/pattern"
            case .osVersion: return "/properties/devices/items/properties/os/pattern"
            }
        }

        /// Whether the decoder's reader takes `text` as this kind: the form
        /// only for durations, sizes and rates (see the suite's comment).
        func decoderAccepts(_ text: String) -> Bool {
            func form<Value>(_ result: Result<Value, ScenarioError>) -> Bool {
                switch result {
                case .success: return true
                case let .failure(error): return error.isOutOfRange
                }
            }
            switch self {
            case .duration: return form(Quantities.duration(text))
            case .size: return form(Quantities.bytes(text))
            case .rate: return form(Quantities.bandwidth(text))
            case .fraction: return (try? Quantities.percentage(text).get()) != nil
            case .teamID: return (try? TeamID(text)) != nil
            case .osVersion: return (try? OSVersion(parsing: text)) != nil
            }
        }
    }

    // MARK: The schema's patterns

    static func schema() -> [String: Any] {
        let path = packageRoot() + "/schema/scenario.schema.json"
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    /// The value at a JSON pointer (RFC 6901) in the schema.
    static func value(at pointer: String) -> Any? {
        var node: Any? = schema()
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let array = node as? [Any], let index = Int(key), array.indices.contains(index) {
                node = array[index]
            } else {
                node = (node as? [String: Any])?[key]
            }
        }
        return node
    }

    /// The schema's pattern for `kind`, compiled as written.
    static func pattern(_ kind: Kind) throws -> Regex<AnyRegexOutput> {
        let text = try #require(value(at: kind.pointer) as? String, "no pattern at \(kind.pointer)")
        return try Regex(text).matchingSemantics(.unicodeScalar)
    }

    /// Whether `pattern` matches `text` (JSON Schema's `pattern` searches;
    /// ours are anchored).
    static func matches(_ pattern: Regex<AnyRegexOutput>, _ text: String) -> Bool {
        (try? pattern.firstMatch(in: text)) != nil
    }

    // MARK: The strings compared

    /// Edge cases, tried as every kind.
    static let edgeCases: [String] = [
        "", " ", "0", "00", "0s", "0 s", "0 ", " 0", "-0", "+0",
        "5", "5 ", " 5ms", "5ms ", "5 ms", "5  ms", "5\tms", "5\u{A0}ms", "5MS", "5Ms", "5ms\n", "5ms\r\n", "\n5ms",
        "-1s", "+1s", "1_000ms", "1,5s", "1,000ms", "1e-10s", "1e3ms", "1E3ms", "0x10ms", "1.5ms", ".5s", "5.", "5.s",
        "5..5s", "1.2.3s", "1h30m", "1h 30m", "1 h30m", "1h30 m", "1m30s", "1min30s", "1mins", "5sec", "5 sec", "1s1s",
        "90min", "2562047h47m16s854775807ns", "2562047h47m16s854775808ns", "99999999999999999999s", "168h", "169h",
        "0.5ns", "1.0000000001s", "1.5ns", "900us", "900µs", "900μs", "900 µs", "900uS",
        "٥ms", "５ms", "𝟓ms", "5ｍs", "5\u{301}ms",
        "99.5 %", "99.5%", "99.5%%", "100%", "100.0%", "100.0001%", "100.0000000000000000001%", "101%", "1000%",
        "0%", "00%", "0100%", "0.%", ".5%", "5.%", "-1%", "1e2%", "50 %", "50  %", "%", " %", "50% ",
        "0.5B", "1.5KiB", "1.3KiB", "3KiB", "64 KiB", "64KIB", "64kib", "1kB", "1KB", "1kb", "256B", "256 B", "1GiB",
        "2GiB", "4294967295GiB", "16MiB", "1.5", "1024", "1e3B", "B", "KiB",
        "10kbit/s", "1 Mbit/s", "54Mbit/s", "1Gbit/s", "0bit/s", "0.5bit/s", "1.5bit/s", "1bit/s", "1 bit/s",
        "1kbps", "1Kbit/s", "1kbit", "1kbit/ s", "1 kbit /s", "9223372036854775807bit/s", "10kbit/s/s",
        "ABCDE12345", "abcde12345", "ABCDE1234", "ABCDE123456", "ABCDE 2345", "ÄBCDE12345", "ABCDE1234５",
        "17", "17.4", "17.4.1", "17.4.1.2", "17.", ".4", "17..4", "1234567", "123456.123456.123456", "17.4a", "v17",
        "-17", "17,4",
    ]

    /// Strings of digits, signs, points, exponents, spaces and unit tokens,
    /// from a fixed seed, so every run tries the same ones.
    static func generated(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let digits = ["0", "1", "5", "9", "00", "10", "100", "123", "0100", "999999999999999999999"]
        let units = [
            "ns", "us", "µs", "μs", "ms", "s", "m", "min", "h", "B", "kB", "KB", "MB", "GB", "KiB", "MiB", "GiB",
            "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "%",
        ]
        let noise = [
            " ", "  ", "\t", ".", "..", "-", "+", "e", "E", "e-", "e+3", "_", ",", "/", "/s", "x", "S", "MS", "Ki", "\n",
            "٥", "５", "µ", "%", "",
        ]
        func pick(_ list: [String]) -> String { list[Int(random.next() % UInt64(list.count))] }
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        func number() -> String {
            var text = chance(90) ? pick(digits) : ""
            if chance(30) { text += "." + (chance(85) ? pick(digits) : "") }
            if chance(5) { text += pick(["e3", "E-2", "e+1"]) }
            if chance(5) { text = pick(["-", "+"]) + text }
            return text
        }
        var result: [String] = []
        for _ in 0..<count {
            var text = ""
            let components = chance(70) ? 1 : Int(random.next() % 3) + 2
            for _ in 0..<components {
                text += number()
                if chance(20) { text += " " }
                text += pick(units)
            }
            for _ in 0..<Int(random.next() % 3) where chance(40) {
                let token = pick(noise)
                var scalars = Array(text.unicodeScalars)
                let at = scalars.isEmpty ? 0 : Int(random.next() % UInt64(scalars.count + 1))
                switch random.next() % 3 {
                case 0: scalars.insert(contentsOf: token.unicodeScalars, at: at)
                case 1: if at < scalars.count { scalars.remove(at: at) }
                default: if at < scalars.count { scalars.replaceSubrange(at...at, with: token.unicodeScalars) }
                }
                text = String(String.UnicodeScalarView(scalars))
            }
            result.append(text)
        }
        return result
    }

    /// Team IDs (ten capitals and digits) and OS versions (numbers and
    /// points), most of them near the form and some mutated.
    static func generatedIdentifiers(_ kind: Kind, count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        func pick(_ list: [String]) -> String { list[Int(random.next() % UInt64(list.count))] }
        let noise = ["a", "z", ".", "..", " ", "-", "Ä", "٥", "５", "\n", "1234567", ""]
        return (0..<count).map { _ in
            var text: String
            if kind == .teamID {
                let length = random.next() % 4 == 0 ? Int(random.next() % 13) : 10
                text = (0..<length).map { _ in pick(["A", "K", "Z", "0", "5", "9"]) }.joined()
            } else {
                let parts = Int(random.next() % 4) + 1
                text = (0..<parts).map { _ in pick(["0", "4", "17", "123456", "1234567", "00"]) }.joined(separator: ".")
            }
            if random.next() % 3 == 0 {
                var scalars = Array(text.unicodeScalars)
                let at = Int(random.next() % UInt64(scalars.count + 1))
                scalars.insert(contentsOf: pick(noise).unicodeScalars, at: at)
                text = String(String.UnicodeScalarView(scalars))
            }
            return text
        }
    }

    /// The strings on which the pattern and the decoder disagree.
    static func disagreements(_ kind: Kind, _ texts: [String]) throws -> [String] {
        let pattern = try pattern(kind)
        var found: [String] = []
        for text in texts {
            let schema = matches(pattern, text)
            let decoder = kind.decoderAccepts(text)
            if schema != decoder {
                found.append("\(text.debugDescription): schema \(schema ? "accepts" : "refuses"), decoder \(decoder ? "accepts" : "refuses")")
            }
        }
        return found
    }

    // MARK: Tests

    @Test("every kind's pattern is in the schema and compiles", arguments: Kind.allCases)
    func patternExists(kind: Kind) throws {
        _ = try Self.pattern(kind)
    }

    @Test("the edge cases get the same verdict from the pattern and the decoder", arguments: Kind.allCases)
    func edgeCases(kind: Kind) throws {
        let found = try Self.disagreements(kind, Self.edgeCases)
        #expect(found.isEmpty, "\(kind): \(found.joined(separator: "; "))")
    }

    @Test("a few thousand generated strings get the same verdict", arguments: Kind.allCases)
    func generatedStrings(kind: Kind) throws {
        let texts = [.teamID, .osVersion].contains(kind)
            ? Self.generatedIdentifiers(kind, count: 3000, seed: 16)
            : Self.generated(count: 3000, seed: 16)
        let found = try Self.disagreements(kind, texts)
        #expect(found.isEmpty, "\(kind): \(found.count) of \(texts.count): \(found.prefix(20).joined(separator: "; "))")
        // The generator reaches both verdicts, so agreement means something.
        let accepted = texts.filter { kind.decoderAccepts($0) }.count
        #expect(accepted > 20 && accepted < texts.count - 20, "\(kind): \(accepted) of \(texts.count) accepted")
    }

    /// The decisions where the two once disagreed, pinned: the decoder's
    /// documented format (docs/scenario-format.md, `SimDuration(parsing:)`)
    /// is the reference.
    @Test("the settled cases", arguments: [
        // SimDuration reads a bare "0", a point with no digits on one side,
        // and the Greek mu as well as the micro sign.
        (Kind.duration, "0", true), (.duration, ".5s", true), (.duration, "5.s", true), (.duration, "900μs", true),
        // One space only before the unit of a duration of one component.
        (.duration, "250 ms", true), (.duration, "1 m30s", false), (.duration, "1m30 s", false), (.duration, "0 ", false),
        // One space is allowed before "%" as before any other unit.
        (.fraction, "99.5 %", true),
        // 100 % is the bound, however the number is written.
        (.fraction, "00100.000%", true), (.fraction, "100.0000000000000000001%", false),
        // OS version components have at most six digits.
        (.osVersion, "123456.1", true), (.osVersion, "1234567.1", false),
    ])
    func settled(kind: Kind, text: String, accepted: Bool) throws {
        #expect(Self.matches(try Self.pattern(kind), text) == accepted, "schema, \(kind) \(text.debugDescription)")
        #expect(kind.decoderAccepts(text) == accepted, "decoder, \(kind) \(text.debugDescription)")
    }

    // MARK: Generator

    /// SplitMix64 (Steele, Lea and Flood 2014): the test's own small generator,
    /// with a fixed sequence for each seed.
    struct SplitMix64 {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
