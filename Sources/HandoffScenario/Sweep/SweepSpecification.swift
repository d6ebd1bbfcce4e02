import ScenarioJSON

/// What a sweep varies: axes of values, each written into the scenario
/// file at a JSON path before the point is decoded (so every point is
/// validated like any scenario).
struct SweepSpecification: Hashable, Sendable {
    /// One axis: where its values go and what they are.
    struct Axis: Hashable, Sendable {
        /// `payload`, `profile`, or the parameter's path.
        let name: String
        /// Where the values are written.
        let path: ParameterPath
        /// The values, as written, and as JSON.
        let values: [(text: String, json: JSONNode)]

        static func == (lhs: Axis, rhs: Axis) -> Bool {
            lhs.name == rhs.name && lhs.path == rhs.path && lhs.values.map(\.text) == rhs.values.map(\.text)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(path)
            hasher.combine(values.map(\.text))
        }
    }

    /// The axes, outermost first: parameters in the order given, then
    /// profile, then payload (which varies fastest).
    let axes: [Axis]

    /// A specification from its parts, ordered as documented.
    init(payloads: [String], profiles: [String], parameters: [(path: String, values: [String])],
                payloadPath: ParameterPath) throws(ScenarioError) {
        var axes: [Axis] = []
        for parameter in parameters {
            guard let path = ParameterPath(parameter.path) else { throw .badParameterPath(parameter.path) }
            guard !parameter.values.isEmpty else { throw .noValues(parameter.path) }
            axes.append(Axis(name: parameter.path, path: path, values: parameter.values.map { ($0, JSONNode.parameterValue($0)) }))
        }
        if !profiles.isEmpty {
            axes.append(Axis(
                name: "profile", path: ParameterPath("network.profile")!,
                values: profiles.map { ($0, JSONNode(value: .string($0), position: JSONNode.nowhere)) }))
        }
        if !payloads.isEmpty {
            axes.append(Axis(
                name: "payload", path: payloadPath,
                values: payloads.map { ($0, JSONNode.parameterValue($0)) }))
        }
        var names = Set<String>()
        for axis in axes where !names.insert(axis.path.description).inserted {
            throw .duplicateAxis(axis.path.description)
        }
        var count = 1
        for axis in axes {
            let (product, overflow) = count.multipliedReportingOverflow(by: axis.values.count)
            count = overflow ? Int.max : product
        }
        guard count <= InputBounds.maximumSweepPoints else { throw .tooManyPoints(count) }
        self.axes = axes
    }

    /// Every point's coordinates (one value index per axis), the last axis
    /// fastest.
    var points: [[Int]] {
        var result: [[Int]] = [[]]
        for axis in axes {
            result = result.flatMap { prefix in axis.values.indices.map { prefix + [$0] } }
        }
        return result
    }
}

/// A path to a value in a scenario file: `network.wifiPeerToPeer.loss`,
/// `activities[0].payloadSize`.
///
/// A path is at most ``InputBounds/maximumPathBytes`` bytes of UTF-8 and
/// ``InputBounds/maximumPathSteps`` steps (keys and indices): far deeper
/// than any value a scenario file has, and short enough that nothing that
/// walks a path, or the tree it builds, can exhaust the stack.
package struct ParameterPath: Hashable, Sendable, CustomStringConvertible {
    /// One step of the path.
    enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// Why a text is not a path.
    enum Problem: Error, Hashable, Sendable {
        /// Not keys separated by `.` with indices in brackets.
        case malformed
        /// More bytes than ``InputBounds/maximumPathBytes`` (the count).
        case tooLong(Int)
        /// More steps than ``InputBounds/maximumPathSteps`` (the count).
        case tooDeep(Int)
    }

    /// The steps.
    let components: [Component]

    /// Reads `text`: keys separated by `.`, array indices in brackets; nil
    /// when it is not a path or is past a bound (``read(_:)`` says which).
    init?(_ text: String) {
        guard case let .success(path) = Self.read(text) else { return nil }
        self = path
    }

    private init(components: [Component]) {
        self.components = components
    }

    /// Reads `text`, or says why it is not a path.
    ///
    /// - Complexity: O(*n*) in the length of `text`, which is checked
    ///   against its bound before anything else.
    static func read(_ text: String) -> Result<ParameterPath, Problem> {
        let bytes = text.utf8.count
        guard bytes <= InputBounds.maximumPathBytes else { return .failure(.tooLong(bytes)) }
        var components: [Component] = []
        var key = ""
        var scalars = Array(text.unicodeScalars)[...]
        func flushKey() {
            components.append(.key(key))
            key = ""
        }
        var expectKey = true
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            switch scalar {
            case ".":
                if !key.isEmpty { flushKey() } else if expectKey { return .failure(.malformed) }
                expectKey = true
            case "[":
                if !key.isEmpty { flushKey() } else if components.isEmpty { return .failure(.malformed) }
                var digits = ""
                while let next = scalars.first, next != "]" {
                    digits.unicodeScalars.append(next)
                    scalars = scalars.dropFirst()
                }
                guard scalars.first == "]", let index = Int(digits), index >= 0 else { return .failure(.malformed) }
                scalars = scalars.dropFirst()
                components.append(.index(index))
                expectKey = false
            default:
                key.unicodeScalars.append(scalar)
                expectKey = false
            }
        }
        if !key.isEmpty { flushKey() } else if expectKey { return .failure(.malformed) }
        guard components.count <= InputBounds.maximumPathSteps else { return .failure(.tooDeep(components.count)) }
        guard !components.isEmpty, case .key = components[0] else { return .failure(.malformed) }
        return .success(ParameterPath(components: components))
    }

    /// What a problem with `text` as a path is, for messages: "expected
    /// a scenario path such as EXAMPLE, found TEXT", or the bound it is past
    /// (without quoting a text too long to read).
    package static func expected(_ text: String, example: String) -> String? {
        switch read(text) {
        case .success: return nil
        case .failure(.malformed):
            return "expected a scenario path such as \"\(example)\" (keys separated by '.', indices in brackets), found \"\(text)\""
        case let .failure(.tooLong(bytes)):
            return "expected a scenario path of at most \(InputBounds.maximumPathBytes) bytes, found one of \(bytes) bytes"
        case let .failure(.tooDeep(steps)):
            return "expected a scenario path of at most \(InputBounds.maximumPathSteps) keys and indices, found one of \(steps)"
        }
    }

    package var description: String { Self.written(components) }

    /// `components` written as a path: `apps[1].coldLaunch`.
    static func written(_ components: [Component]) -> String {
        var text = ""
        for component in components {
            switch component {
            case let .key(key): text += text.isEmpty ? key : "." + key
            case let .index(index): text += "[\(index)]"
            }
        }
        return text
    }
}

extension ScenarioError {
    /// A parameter path that does not parse.
    static func badParameterPath(_ path: String) -> ScenarioError {
        let text: String
        switch ParameterPath.read(path) {
        case let .failure(.tooLong(bytes)):
            text = "a parameter path may be at most \(InputBounds.maximumPathBytes) bytes long; this one is \(bytes) bytes"
        case let .failure(.tooDeep(steps)):
            text = "a parameter path may have at most \(InputBounds.maximumPathSteps) keys and indices; this one has \(steps)"
        case .success, .failure(.malformed):
            text = "'\(path)' is not a parameter path; write keys separated by '.', with array indices in brackets, such as network.wifiPeerToPeer.loss or activities[0].payloadSize"
        }
        let shown = path.utf8.count <= InputBounds.maximumPathBytes ? path : String(path.prefix(60)) + "…"
        return ScenarioError(.badValue, "\(text)", argument: .parameter(shown))
    }

    /// A parameter with no values.
    static func noValues(_ path: String) -> ScenarioError {
        ScenarioError(.badValue, "no values given for '\(path)'", argument: .parameter(path))
    }

    /// Two axes at the same path.
    static func duplicateAxis(_ path: String) -> ScenarioError {
        ScenarioError(.badValue, "'\(path)' is swept twice", argument: .parameter(path))
    }

    /// No axis at all, neither given nor in the file.
    static let noAxes = ScenarioError(
        .badValue,
        "nothing to sweep: give \(argument: .payloads), \(argument: .profiles) or \(argument: .parameters) (or a \"sweep\" block in the file)")

    /// A path the scenario has no place for.
    static func cannotSet(_ path: String) -> ScenarioError {
        ScenarioError(
            .badValue,
            "cannot set '\(path)' in this scenario (a value on the way is not an object or array of that size)",
            argument: .parameter(path))
    }

    /// The axes' value counts multiply to more points than
    /// ``InputBounds/maximumSweepPoints``.
    static func tooManyPoints(_ count: Int) -> ScenarioError {
        let found = count == Int.max ? "more than \(Int.max)" : "\(count)"
        return ScenarioError(
            .badValue,
            "a sweep may have at most \(InputBounds.maximumSweepPoints) points (the product of its axes' value counts); this one has \(found)")
    }
}

extension JSONNode {
    /// The position given to values that come from the command line.
    static let nowhere = SourcePosition(line: 0, column: 0, offset: 0)

    /// A value as written on the command line: JSON if it reads as a JSON
    /// number, boolean, null, array or object; a string otherwise (so
    /// `3KiB` and `Very Bad Network` need no quotes).
    static func parameterValue(_ text: String) -> JSONNode {
        if let node = try? JSONParser.parse(text) {
            return JSONNode(value: node.value, position: nowhere)
        }
        return JSONNode(value: .string(text), position: nowhere)
    }

    /// This tree with the value at `path` replaced by (or set to) `value`;
    /// missing object members on the way are created. Nil when a step
    /// meets a value of the wrong kind or an index out of range.
    ///
    /// Walks the path without recursion, so its length is bounded by
    /// memory alone (``ParameterPath`` bounds it far lower).
    ///
    /// - Complexity: O(*d* · *m*): each of the *d* steps copies the members
    ///   or elements of the container it passes through.
    func setting(_ path: ArraySlice<ParameterPath.Component>, to value: JSONNode) -> JSONNode? {
        // Down: the container each step goes through (an empty object,
        // placed where its parent is, for a member that is not there yet).
        var containers: [JSONNode] = []
        containers.reserveCapacity(path.count)
        var current = self
        for step in path {
            containers.append(current)
            switch (step, current.value) {
            case let (.key(key), .object(members)):
                current = members.first(where: { $0.key == key })?.value
                    ?? JSONNode(value: .object([]), position: current.position)
            case let (.index(index), .array(elements)):
                guard index < elements.count else { return nil }
                current = elements[index]
            case (.key, .null), (.key, .bool), (.key, .number), (.key, .string), (.key, .array),
                (.index, .null), (.index, .bool), (.index, .number), (.index, .string), (.index, .object):
                return nil
            }
        }
        // Up: each container with its step's value replaced.
        var result = value
        for (step, container) in zip(path, containers).reversed() {
            switch (step, container.value) {
            case let (.key(key), .object(members)):
                var members = members
                if let index = members.firstIndex(where: { $0.key == key }) {
                    members[index] = JSONMember(key: key, keyPosition: members[index].keyPosition, value: result)
                } else {
                    members.append(JSONMember(key: key, keyPosition: container.position, value: result))
                }
                result = JSONNode(value: .object(members), position: container.position)
            case let (.index(index), .array(elements)):
                var elements = elements
                elements[index] = result
                result = JSONNode(value: .array(elements), position: container.position)
            case (.key, .null), (.key, .bool), (.key, .number), (.key, .string), (.key, .array),
                (.index, .null), (.index, .bool), (.index, .number), (.index, .string), (.index, .object):
                return nil
            }
        }
        return result
    }
}
