import Foundation
import Handoff
@testable import HandoffScenario
import ScenarioJSON
import Testing

/// schema/scenario.schema.json names exactly the keys the decoder reads,
/// so editors flag what `handoff-sim validate` would.
@Suite("JSON Schema")
struct SchemaTests {
    static func schema() throws -> JSONNode {
        let data = try #require(FileManager.default.contents(atPath: packageRoot() + "/schema/scenario.schema.json"))
        return try JSONParser.parse(Array(data))
    }

    /// The property names of the object schema at `path` (keys, in order).
    static func properties(_ root: JSONNode, _ path: [String]) throws -> [String] {
        var node = root
        for key in path {
            if case let .array(elements) = node.value, let index = Int(key) {
                node = elements[index]
            } else {
                node = try #require(node.member(key)?.value, "no \(key) in \(path)")
            }
        }
        guard case let .object(members) = try #require(node.member("properties")?.value).value else {
            Issue.record("properties of \(path) is not an object")
            return []
        }
        return members.map(\.key)
    }

    @Test("every object's properties are the decoder's keys", arguments: [
        ([String](), ScenarioKeys.top),
        (["properties", "limits"], ScenarioKeys.limits),
        (["properties", "network"], ScenarioKeys.network),
        (["properties", "network", "properties", "wifiPeerToPeer"], ScenarioKeys.peerToPeerLink),
        (["properties", "network", "properties", "bluetooth"], ScenarioKeys.link),
        (["properties", "network", "properties", "transport"], ScenarioKeys.transport),
        (["properties", "network", "properties", "transport", "properties", "cubic"], ScenarioKeys.cubic),
        (["properties", "network", "properties", "wifiPeerToPeer", "properties", "schedule", "oneOf", "1"],
         ScenarioKeys.schedule),
        (["properties", "protocol"], ScenarioKeys.protocolKeys),
        (["properties", "apps", "items"], ScenarioKeys.app),
        (["properties", "apps", "items", "properties", "behaviour"], ScenarioKeys.behaviour),
        (["properties", "devices", "items"], ScenarioKeys.device),
        (["properties", "activity"], ScenarioKeys.activity),
        (["properties", "activities", "items"], ScenarioKeys.activity),
        (["properties", "timeline", "items"], ScenarioKeys.timeline),
        (["properties", "expect", "items"], ScenarioKeys.expectation),
        (["properties", "sweep"], ScenarioKeys.sweep),
    ])
    func keys(path: [String], expected: [String]) throws {
        #expect(Set(try Self.properties(try Self.schema(), path)) == Set(expected))
    }

    @Test("the schema lists the decoder's actions, callbacks and trace events")
    func enumerations() throws {
        let root = try Self.schema()
        let text = String(decoding: try #require(FileManager.default.contents(atPath: packageRoot() + "/schema/scenario.schema.json")), as: UTF8.self)
        for name in ScenarioKeys.timelineActions + scenarioCallbackNames + scenarioEventNames {
            #expect(text.contains("\"\(name)\""), "\(name)")
        }
        #expect(root.member("$schema") != nil)
    }

    @Test("the scenario and experiment schemas list exactly the latency metrics, in the table's order")
    func latencyMetrics() throws {
        let names = LatencyMetric.allCases.map(\.rawValue)
        let scenario = String(decoding: try #require(FileManager.default.contents(atPath: packageRoot() + "/schema/scenario.schema.json")), as: UTF8.self)
        let experiment = String(decoding: try #require(FileManager.default.contents(atPath: packageRoot() + "/schema/experiment.schema.json")), as: UTF8.self)
        let list = "{\"enum\": [" + names.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
        #expect(scenario.contains("\"latency\": " + list), "scenario schema: \(list)")
        #expect(experiment.contains("\"metric\": " + list), "experiment schema: \(list)")
    }
}

/// A latency expectation's percentile has one bound: the schema's, the
/// decoder's and the one its message states.
@Suite("Percentile bounds")
struct PercentileBoundTests {
    @Test("the schema's percentile minimum and maximum are the decoder's, and the message names them")
    func schemaAndDecoderAgree() throws {
        let root = try SchemaTests.schema()
        var node = root
        for key in ["properties", "expect", "items", "properties", "percentile"] {
            node = try #require(node.member(key)?.value, "no \(key)")
        }
        func number(_ key: String) -> Double? {
            guard case let .number(value) = node.member(key)?.value.value else { return nil }
            return value.doubleValue
        }
        #expect(node.member("exclusiveMinimum") == nil)
        #expect(number("minimum") == LatencyExpectation.percentiles.lowerBound)
        #expect(number("maximum") == LatencyExpectation.percentiles.upperBound)
        func expectation(_ percentile: String) -> String {
            scenarioText(expect: #"[{"latency": "acceptToContinue", "percentile": \#(percentile), "below": "1s"}]"#)
        }
        let message = "expected a percentile from 0.001 to 100"
        #expect(problems(expectation("0.001")).isEmpty)
        #expect(problems(expectation("100")).isEmpty)
        for refused in ["0.0005", "0", "100.5"] {
            let found = problems(expectation(refused))
            #expect(found.count == 1 && found[0].contains("$.expect[0].percentile: \(message), found \(refused)"), "\(found)")
        }
    }
}
