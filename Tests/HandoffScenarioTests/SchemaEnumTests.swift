import Foundation
import Handoff
@testable import HandoffScenario
import HandoffWorld
import ScenarioJSON
import Testing

/// Every list of values the scenario schema gives (`"enum"`) is exactly
/// the cases of the Swift type the decoder reads it into, so an editor
/// offers what `handoff-sim validate` accepts. A new list in the schema
/// fails here until it is mapped to its type.
@Suite("JSON Schema: every enum is its type's cases")
struct SchemaEnumTests {
    /// The cases each schema property's `enum` must list, by the property
    /// it belongs to (the last key on its path that is not a schema word).
    static let expected: [String: [String]] = [
        "profile": NetworkProfile.builtIn.map(\.name),
        "internet": NetworkProfile.builtIn.map(\.name),
        "fetchPath": PathKind.allCases.map(\.rawValue),
        "start": PeerToPeerSchedule.Start.allCases.map(\.rawValue),
        "congestionControl": CongestionControl.allCases.map(\.rawValue),
        "lossDetection": LossDetection.allCases.map(TransportReader.scenarioName),
        "handshakeRetransmission": HandshakeRetransmission.allCases.map(\.rawValue),
        "preset": TransportReader.cubicPresets.map(\.name),
        "roundTrip": CubicParameters.RoundTrip.allCases.map(\.rawValue),
        "reductionBase": CubicParameters.ReductionBase.allCases.map(\.rawValue),
        "platforms": Platform.allCases.map(\.rawValue),
        "kind": DeviceKind.allCases.map(\.rawValue),
        "screen": ScreenState.allCases.map(\.rawValue),
        "internetAccess": InternetAccess.allCases.map(\.rawValue),
        "action": ScenarioKeys.timelineActions,
        "outcome": OutcomeKind.allCases.map(\.rawValue),
        "notOffered": NotOfferedReason.allCases.map(\.rawValue),
        "callbacks": scenarioCallbackNames,
        "events": scenarioEventNames,
        "latency": LatencyMetric.allCases.map(\.rawValue),
    ]

    /// The error codes and names `error` accepts, one list each.
    static let errors: [ContinuationError] = [
        .handoffFailed, .connectionUnavailable, .remoteApplicationTimedOut, .handoffUserInfoTooLarge,
    ]

    /// Every `enum` in the schema with the property it belongs to.
    static func enums() throws -> [(property: String, path: String, values: [JSONNode])] {
        let data = try #require(FileManager.default.contents(atPath: packageRoot() + "/schema/scenario.schema.json"))
        let root = try JSONParser.parse(Array(data))
        let schemaWords: Set<String> = ["items", "oneOf", "anyOf", "allOf", "properties", "$defs", "additionalProperties"]
        var found: [(String, String, [JSONNode])] = []
        func walk(_ node: JSONNode, _ path: [String]) {
            switch node.value {
            case let .object(members):
                for member in members {
                    if member.key == "enum", case let .array(values) = member.value.value {
                        let property = path.last { !schemaWords.contains($0) && Int($0) == nil } ?? "?"
                        found.append((property, path.joined(separator: "/"), values))
                    }
                    walk(member.value, path + [member.key])
                }
            case let .array(elements):
                for (index, element) in elements.enumerated() { walk(element, path + [String(index)]) }
            case .null, .bool, .number, .string:
                break
            }
        }
        walk(root, [])
        return found
    }

    @Test("each enum in the schema lists exactly its type's cases")
    func enumsAreCases() throws {
        let enums = try Self.enums()
        #expect(enums.count >= Self.expected.count, "the walk found \(enums.count) enums")
        var seen: Set<String> = []
        for (property, path, values) in enums {
            seen.insert(property)
            let strings = values.compactMap { node -> String? in
                if case let .string(text) = node.value { return text }
                return nil
            }
            if property == "error" {
                if strings.isEmpty {
                    let codes = values.compactMap { node -> Int64? in
                        if case let .number(number) = node.value { return number.int64Value }
                        return nil
                    }
                    #expect(codes == Self.errors.map { Int64($0.code) }, "\(path)")
                } else {
                    #expect(strings == Self.errors.map(\.name), "\(path)")
                }
                continue
            }
            guard let cases = Self.expected[property] else {
                Issue.record("\(path): the schema lists values for \"\(property)\"; map it to its Swift type in SchemaEnumTests.expected")
                continue
            }
            #expect(Set(strings) == Set(cases), "\(path): schema \(strings), Swift \(cases)")
            #expect(strings.count == cases.count, "\(path): each value once")
        }
        // Every mapped property is still in the schema.
        #expect(Set(Self.expected.keys).subtracting(seen).isEmpty, "\(Set(Self.expected.keys).subtracting(seen))")
    }
}
