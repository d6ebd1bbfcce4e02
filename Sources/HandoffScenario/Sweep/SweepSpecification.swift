/// What a sweep varies: axes of values, each written into the scenario
/// file at a JSON path before the point is decoded (so every point is
/// validated like any scenario).
package struct SweepSpecification: Hashable, Sendable {
    /// One axis: where its values go and what they are.
    package struct Axis: Hashable, Sendable {
        /// `payload`, `profile`, or the parameter's path.
        package let name: String
        /// Where the values are written.
        package let path: ParameterPath
        /// The values, as written, and as JSON.
        package let values: [(text: String, json: JSONNode)]

        package static func == (lhs: Axis, rhs: Axis) -> Bool {
            lhs.name == rhs.name && lhs.path == rhs.path && lhs.values.map(\.text) == rhs.values.map(\.text)
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(path)
            hasher.combine(values.map(\.text))
        }
    }

    /// The axes, outermost first: parameters in the order given, then
    /// profile, then payload (which varies fastest).
    package let axes: [Axis]

    /// A specification from its parts, ordered as documented.
    package init(payloads: [String], profiles: [String], parameters: [(path: String, values: [String])],
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
    package var points: [[Int]] {
        var result: [[Int]] = [[]]
        for axis in axes {
            result = result.flatMap { prefix in axis.values.indices.map { prefix + [$0] } }
        }
        return result
    }
}

/// A path to a value in a scenario file: `network.wifiPeerToPeer.loss`,
/// `activities[0].payloadSize`.
package struct ParameterPath: Hashable, Sendable, CustomStringConvertible {
    /// One step of the path.
    package enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// The steps.
    package let components: [Component]

    /// Reads `text`: keys separated by `.`, array indices in brackets.
    package init?(_ text: String) {
        var components: [Component] = []
        var key = ""
        var scalars = Array(text.unicodeScalars)[...]
        func flushKey() -> Bool {
            guard !key.isEmpty else { return false }
            components.append(.key(key))
            key = ""
            return true
        }
        var expectKey = true
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            switch scalar {
            case ".":
                if !key.isEmpty { _ = flushKey() } else if expectKey { return nil }
                expectKey = true
            case "[":
                if !key.isEmpty { _ = flushKey() } else if components.isEmpty { return nil }
                var digits = ""
                while let next = scalars.first, next != "]" {
                    digits.unicodeScalars.append(next)
                    scalars = scalars.dropFirst()
                }
                guard scalars.first == "]", let index = Int(digits), index >= 0 else { return nil }
                scalars = scalars.dropFirst()
                components.append(.index(index))
                expectKey = false
            default:
                key.unicodeScalars.append(scalar)
                expectKey = false
            }
        }
        if !key.isEmpty { _ = flushKey() } else if expectKey { return nil }
        guard !components.isEmpty, case .key = components[0] else { return nil }
        self.components = components
    }

    package var description: String {
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
        ScenarioError(
            .badValue,
            "'\(path)' is not a parameter path; write keys separated by '.', with array indices in brackets, such as network.wifiPeerToPeer.loss or activities[0].payloadSize",
            argument: .parameter(path))
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
    func setting(_ path: ArraySlice<ParameterPath.Component>, to value: JSONNode) -> JSONNode? {
        guard let step = path.first else { return value }
        switch (step, self.value) {
        case let (.key(key), .object(members)):
            var members = members
            if let index = members.firstIndex(where: { $0.key == key }) {
                guard let replaced = members[index].value.setting(path.dropFirst(), to: value) else { return nil }
                members[index] = JSONMember(key: key, keyPosition: members[index].keyPosition, value: replaced)
            } else {
                let empty = JSONNode(value: .object([]), position: position)
                guard let created = empty.setting(path.dropFirst(), to: value) else { return nil }
                members.append(JSONMember(key: key, keyPosition: position, value: created))
            }
            return JSONNode(value: .object(members), position: position)
        case let (.index(index), .array(elements)):
            guard index < elements.count, let replaced = elements[index].setting(path.dropFirst(), to: value) else {
                return nil
            }
            var elements = elements
            elements[index] = replaced
            return JSONNode(value: .array(elements), position: position)
        default:
            return nil
        }
    }
}
