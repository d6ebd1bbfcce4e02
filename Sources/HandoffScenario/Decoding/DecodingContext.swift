import ScenarioJSON
import SimKernel

/// Collects the problems of one file while it is decoded, and reads JSON
/// values with a path, so every problem names where it is and what was
/// expected.
package final class DecodingContext {
    package let file: String
    package private(set) var problems: [ScenarioProblem] = []
    /// Problems found after the first ``maximumProblems``, counted only.
    private(set) var omittedProblems = 0

    /// The most problems reported for one file; past them, validation
    /// only counts (and skips working out suggestions), so a file of a
    /// million mistakes is still read in time linear in its size.
    static let maximumProblems = 100

    /// Where keys of other objects belong, in words (`"fetchPath"` →
    /// `the "network" object`), for the hint on an unknown key that is
    /// another object's: a scenario file's (``ScenarioKeys/homes``), or
    /// none.
    var keyHomes: [(keys: [String], home: String)] = []

    package init(file: String) { self.file = file }

    /// Whether further problems are only counted.
    var isSaturated: Bool { problems.count >= Self.maximumProblems }

    /// The problems in document order (by line and column; problems
    /// without a position last), ties in the order found.
    package var sortedProblems: [ScenarioProblem] {
        problems.enumerated().sorted { left, right in
            switch (left.element.position, right.element.position) {
            case let (l?, r?): return (l.line, l.column, left.offset) < (r.line, r.column, right.offset)
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return left.offset < right.offset
            }
        }.map(\.element) + omittedSummary
    }

    /// The line that says how many problems were not listed, if any.
    private var omittedSummary: [ScenarioProblem] {
        guard omittedProblems > 0 else { return [] }
        return [ScenarioProblem(
            file: file, path: "$", position: nil,
            message: "\(omittedProblems) more problem\(omittedProblems == 1 ? "" : "s") not listed (only the first \(Self.maximumProblems) are)")]
    }

    /// " (did you mean …?)" for `word` among `candidates`, or nothing once
    /// the problem list is full.
    package func didYouMean(_ word: String, among candidates: [String]) -> String {
        isSaturated ? "" : HandoffScenario.didYouMean(word, among: candidates)
    }

    /// Records a problem at `path` (the value at `position`).
    package func report(_ path: JSONPath, at position: SourcePosition?, _ message: String) {
        guard !isSaturated else {
            omittedProblems += 1
            return
        }
        problems.append(ScenarioProblem(file: file, path: path.description, position: position, message: message))
    }

    /// Warnings: what does not make the file invalid but will likely make
    /// it fail (``Scenario/warnings``), in the order found.
    package private(set) var warnings: [ScenarioProblem] = []

    /// Records a warning at `path` (the value at `position`).
    func warn(_ path: JSONPath, at position: SourcePosition?, _ message: String) {
        guard warnings.count < Self.maximumProblems else { return }
        warnings.append(ScenarioProblem(
            file: file, path: path.description, position: position, message: message, severity: .warning))
    }

    /// Records "expected …, found …" for `node`.
    package func mismatch(_ node: JSONNode, _ path: JSONPath, expected: String) {
        report(path, at: node.position, "expected \(expected), found \(found(node))")
    }

    /// How a value appears in a message: short literals as written, the
    /// rest by kind.
    package func found(_ node: JSONNode) -> String {
        switch node.value {
        case .null: return "null"
        case let .bool(value): return value ? "true" : "false"
        case let .number(number): return number.text.count <= 24 ? number.text : "a number"
        case let .string(text): return text.count <= 40 ? "\"\(text)\"" : "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    // MARK: Objects

    /// The members of `node` if it is an object (reporting otherwise), with
    /// unknown and duplicate keys reported against `allowed`.
    package func object(_ node: JSONNode, _ path: JSONPath, what: String, allowed: [String]) -> ObjectReader? {
        guard case let .object(members) = node.value else {
            mismatch(node, path, expected: what)
            return nil
        }
        var seen = Set<String>()
        for member in members {
            let memberPath = path.key(member.key)
            guard seen.insert(member.key).inserted else {
                report(memberPath, at: member.keyPosition, "duplicate key \"\(member.key)\"")
                continue
            }
            if !allowed.contains(member.key) {
                report(
                    memberPath, at: member.keyPosition,
                    "unknown key \"\(member.key)\" in \(what); expected one of \(allowed.joined(separator: ", "))"
                        + keyHint(member.key, among: allowed))
            }
        }
        return ObjectReader(context: self, node: node, members: members, path: path)
    }

    /// " (did you mean …?)" for an unknown `key`: the allowed key it is a
    /// likely typo of; else the one allowed key that contains it or that it
    /// contains (`"network"` → `"wifiNetwork"`, four letters at least);
    /// else where it belongs when it is the key of one other object
    /// (``keyHomes``).
    func keyHint(_ key: String, among allowed: [String]) -> String {
        guard !isSaturated else { return "" }
        let typo = didYouMean(key, among: allowed)
        if !typo.isEmpty { return typo }
        let lowered = key.lowercased()
        if lowered.count >= 4 {
            let containing = allowed.filter {
                let candidate = $0.lowercased()
                return candidate.count >= 4 && (candidate.contains(lowered) || lowered.contains(candidate))
            }
            if containing.count == 1 { return " (did you mean \"\(containing[0])\"?)" }
        }
        let homes = keyHomes.filter { $0.keys.contains(key) }
        if homes.count == 1 { return " (\"\(key)\" is a key of \(homes[0].home))" }
        return ""
    }

    // MARK: Scalars

    func string(_ node: JSONNode, _ path: JSONPath, expected: String = "a string") -> String? {
        guard case let .string(text) = node.value else {
            mismatch(node, path, expected: expected)
            return nil
        }
        return text
    }

    package func nonEmptyString(_ node: JSONNode, _ path: JSONPath, expected: String = "a non-empty string") -> String? {
        guard let text = string(node, path, expected: expected) else { return nil }
        guard !text.isEmpty else {
            report(path, at: node.position, "expected \(expected), found \"\"")
            return nil
        }
        return text
    }

    /// A boolean; for a string in its place, `stringHint` (given the
    /// string as ``found(_:)`` shows it) may say which other key takes one.
    func bool(_ node: JSONNode, _ path: JSONPath, stringHint: ((String) -> String)? = nil) -> Bool? {
        guard case let .bool(value) = node.value else {
            if case .string = node.value, let stringHint {
                report(path, at: node.position, "expected true or false, found \(found(node)); \(stringHint(found(node)))")
            } else {
                mismatch(node, path, expected: "true or false")
            }
            return nil
        }
        return value
    }

    /// A whole number in `range`.
    package func integer(_ node: JSONNode, _ path: JSONPath, in range: ClosedRange<Int64>) -> Int64? {
        let expected = range.upperBound == .max
            ? "a whole number ≥ \(range.lowerBound)" : "a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard case let .number(number) = node.value, let value = number.int64Value, range.contains(value) else {
            mismatch(node, path, expected: expected)
            return nil
        }
        return value
    }

    /// A finite number in `range`.
    func number(_ node: JSONNode, _ path: JSONPath, in range: ClosedRange<Double>, expected: String) -> Double? {
        guard case let .number(number) = node.value, number.doubleValue.isFinite,
            range.contains(number.doubleValue)
        else {
            mismatch(node, path, expected: expected)
            return nil
        }
        return number.doubleValue
    }

    /// A duration written as a string (`"250ms"`), or the number 0, from
    /// `minimum` to ``InputBounds/maximumDuration``.
    func duration(_ node: JSONNode, _ path: JSONPath, minimum: SimDuration = .zero) -> SimDuration? {
        let expected = "a duration such as \"250ms\", \"1.5s\" or \"2min\" (units ns, us, ms, s, min, h)"
        if case let .number(number) = node.value, number.int64Value == 0, minimum == .zero { return .zero }
        guard case let .string(text) = node.value else {
            mismatch(node, path, expected: expected)
            return nil
        }
        switch Quantities.duration(text) {
        case let .success(duration):
            guard duration >= minimum else {
                report(path, at: node.position, "expected a duration of at least \(minimum), found \"\(text)\"")
                return nil
            }
            guard duration <= InputBounds.maximumDuration else {
                report(path, at: node.position,
                       "expected a duration of at most \(InputBounds.maximumDuration) (7 days), found \"\(text)\"")
                return nil
            }
            return duration
        case let .failure(error):
            report(path, at: node.position, error.message)
            return nil
        }
    }

    /// A random duration: a duration string (always that long),
    /// `{"logNormal": {"median": "400ms", "sigma": 0.35, "offset": "0ms"}}`
    /// or `{"uniform": {"min": "1s", "max": "5s"}}`.
    func durationDistribution(_ node: JSONNode, _ path: JSONPath) -> DurationDistribution? {
        let expected = "a duration such as \"400ms\", {\"logNormal\": {\"median\": \"400ms\", \"sigma\": 0.35}} "
            + "or {\"uniform\": {\"min\": \"1s\", \"max\": \"5s\"}}"
        switch node.value {
        case .string, .number:
            return duration(node, path).map { .fixed($0) }
        case let .object(members) where members.count == 1:
            guard let outer = object(node, path, what: "a duration distribution", allowed: ["logNormal", "uniform"]) else {
                return nil
            }
            if let inner = outer.optional("logNormal", { node, path in
                object(node, path, what: "a log-normal distribution", allowed: ["median", "sigma", "offset"])
            }) {
                guard let median = inner.required("median", what: "the median", { duration($0, $1, minimum: .nanoseconds(1)) }),
                    let sigma = inner.required("sigma", what: "σ, the spread of its logarithm", {
                        number($0, $1, in: 0...5, expected: "a number from 0 to 5")
                    })
                else { return nil }
                let offset = inner.optional("offset", { duration($0, $1) }) ?? .zero
                return .logNormal(median: median, sigma: sigma, offset: offset)
            }
            if let inner = outer.optional("uniform", { node, path in
                object(node, path, what: "a uniform distribution", allowed: ["min", "max"])
            }) {
                guard let lower = inner.required("min", what: "the shortest duration", { duration($0, $1) }),
                    let upper = inner.required("max", what: "the longest duration", { duration($0, $1) })
                else { return nil }
                guard lower <= upper else {
                    report(path.key("uniform").key("max"), at: inner.position(of: "max"),
                           "expected a duration of at least the minimum (\(lower)), found \(upper)")
                    return nil
                }
                return .uniform(lower: lower, upper: upper)
            }
            return nil
        case .null, .bool, .array, .object:
            mismatch(node, path, expected: expected)
            return nil
        }
    }

    /// A byte count: a size string (`"3KiB"`) or a whole number of bytes,
    /// from `minimum` to `maximum`.
    func bytes(
        _ node: JSONNode, _ path: JSONPath, minimum: Int = 0, maximum: Int = InputBounds.maximumBytes,
        maximumText: String = "1 GiB"
    ) -> Int? {
        let value: Int
        switch node.value {
        case let .number(number):
            guard let whole = number.int64Value, whole >= 0, whole < 1 << 62 else {
                mismatch(node, path, expected: "a size such as \"3KiB\" or a whole number of bytes")
                return nil
            }
            value = Int(whole)
        case let .string(text):
            switch Quantities.bytes(text) {
            case let .success(bytes): value = bytes
            case let .failure(error):
                report(path, at: node.position, error.message)
                return nil
            }
        case .null, .bool, .array, .object:
            mismatch(node, path, expected: "a size such as \"3KiB\" or a whole number of bytes")
            return nil
        }
        guard value >= minimum else {
            report(path, at: node.position, "expected a size of at least \(minimum) bytes, found \(found(node))")
            return nil
        }
        guard value <= maximum else {
            report(path, at: node.position, "expected a size of at most \(maximumText), found \(found(node))")
            return nil
        }
        return value
    }

    /// A fraction: `"99.5%"` or a number from 0 to 1.
    func fraction(_ node: JSONNode, _ path: JSONPath) -> Double? {
        let expected = "a percentage such as \"99.5%\" or a number from 0 to 1"
        switch node.value {
        case let .number(number):
            guard number.doubleValue.isFinite, (0...1).contains(number.doubleValue) else {
                mismatch(node, path, expected: expected)
                return nil
            }
            return number.doubleValue
        case let .string(text):
            guard case let .success(value) = Quantities.percentage(text) else {
                mismatch(node, path, expected: expected)
                return nil
            }
            return value
        case .null, .bool, .array, .object:
            mismatch(node, path, expected: expected)
            return nil
        }
    }

    /// One of `names` (exact spelling), with a suggestion otherwise.
    package func choice(_ node: JSONNode, _ path: JSONPath, what: String, among names: [String]) -> String? {
        guard case let .string(text) = node.value else {
            mismatch(node, path, expected: "\(what) (one of \(names.joined(separator: ", ")))")
            return nil
        }
        guard names.contains(text) else {
            report(
                path, at: node.position,
                "unknown \(what) \"\(text)\"; expected one of \(names.joined(separator: ", "))"
                    + didYouMean(text, among: names))
            return nil
        }
        return text
    }

    /// The elements of `node` if it is an array of at most `maximumCount`
    /// elements (``InputBounds/maximumTimelineEntries`` unless told).
    package func array(
        _ node: JSONNode, _ path: JSONPath, expected: String,
        maximumCount: Int = InputBounds.maximumTimelineEntries
    ) -> [JSONNode]? {
        guard case let .array(elements) = node.value else {
            mismatch(node, path, expected: expected)
            return nil
        }
        guard elements.count <= maximumCount else {
            report(path, at: node.position, "expected \(expected) of at most \(maximumCount) elements, found \(elements.count)")
            return nil
        }
        return elements
    }

    /// An array of strings.
    package func strings(_ node: JSONNode, _ path: JSONPath, expected: String = "an array of strings") -> [String]? {
        guard let elements = array(node, path, expected: expected) else { return nil }
        var result: [String] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            if let text = string(element, path.index(index)) { result.append(text) } else { valid = false }
        }
        return valid ? result : nil
    }
}

/// The members of one JSON object being read.
package struct ObjectReader {
    let context: DecodingContext
    let node: JSONNode
    let members: [JSONMember]
    let path: JSONPath

    /// The first member named `key`.
    func member(_ key: String) -> JSONMember? { members.first { $0.key == key } }

    /// Whether the object has `key`.
    func has(_ key: String) -> Bool { member(key) != nil }

    /// Reads `key` with `read` if present.
    package func optional<T>(_ key: String, _ read: (JSONNode, JSONPath) -> T?) -> T? {
        guard let member = member(key) else { return nil }
        return read(member.value, path.key(key))
    }

    /// Reads `key` with `read`, reporting it missing otherwise.
    package func required<T>(_ key: String, what: String, _ read: (JSONNode, JSONPath) -> T?) -> T? {
        guard let member = member(key) else {
            context.report(path, at: node.position, "missing required key \"\(key)\" (\(what))")
            return nil
        }
        return read(member.value, path.key(key))
    }

    /// The position of `key`'s value, or of the object.
    package func position(of key: String) -> SourcePosition { member(key)?.value.position ?? node.position }
}
