import Foundation
@testable import HandoffScenario
import Testing

/// Every number a scenario can set is bounded: values that once crashed a
/// run (overflow traps, absurd allocations) or ran for hours are now
/// validation problems with the bound in the message.
@Suite("Input bounds")
struct InputBoundsTests {
    static let huge = "2562047h47m16s854775807ns"

    @Test("durations past 7 days are refused wherever they appear, with the bound", arguments: [
        (#""duration": "2562047h47m16s854775807ns""#, "$.duration", 3),
        (#""limits": { "maxSimulatedTime": "2562047h47m16s854775807ns" }"#, "$.limits.maxSimulatedTime", 3),
        (#""network": { "wifiPeerToPeer": { "latency": "2562047h47m16s854775807ns" } }"#, "$.network.wifiPeerToPeer.latency", 3),
        (#""network": { "wifiPeerToPeer": { "jitter": "2562047h47m16s854775807ns" } }"#, "$.network.wifiPeerToPeer.jitter", 3),
        (#""protocol": { "fetchTimeout": "2562047h47m16s854775807ns" }"#, "$.protocol.fetchTimeout", 3),
    ])
    func durationsAreBounded(extra: String, path: String, line: Int) {
        let found = problems(scenarioText(extra))
        #expect(found.count == 1)
        #expect(found.first?.contains("test.json:\(line):") == true)
        #expect(found.first?.hasSuffix(
            "error: \(path): expected a duration of at most 168h (7 days), found \"\(Self.huge)\"") == true)
    }

    @Test("an acceptance delay and a timeline instant past 7 days are refused")
    func acceptanceAndTimelineAreBounded() {
        let acceptance = problems(scenarioText(iphone: #""position": [1.5, 0], "acceptance": { "after": "169h" }"#))
        #expect(acceptance == [
            "test.json:8:121: error: $.devices[1].acceptance.after: expected a duration of at most 168h (7 days), found \"169h\"",
        ])
        let timeline = problems(scenarioText(timeline: #"[{ "at": "170h", "action": "becomeCurrent" }]"#))
        #expect(timeline == [
            "test.json:11:24: error: $.timeline[0].at: expected a duration of at most 168h (7 days), found \"170h\"",
        ])
    }

    @Test("exactly 7 days is accepted")
    func boundIsInclusive() throws {
        let scenario = try validScenario(scenarioText(#""limits": { "maxSimulatedTime": "168h" }"#))
        #expect(scenario.limits.maxSimulatedTime == .seconds(7 * 24 * 3600))
    }

    @Test("sizes past 1 GiB and userInfo data past 16 MiB are refused; validation builds no such bytes")
    func sizesAreBounded() {
        let envelope = problems(scenarioText(#""protocol": { "envelopeBytes": "4294967295GiB" }"#))
        #expect(envelope == ["test.json:3:34: error: $.protocol.envelopeBytes: expected a size of at most 1 GiB, found \"4294967295GiB\""])
        let payload = problems(scenarioText(
            activity: #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "payloadSize": 1000000000000000000"#))
        #expect(payload.count == 1)
        #expect(payload.first?.hasSuffix("error: $.activity.payloadSize: expected a size of at most 1 GiB, found 1000000000000000000") == true)
        let data = problems(scenarioText(
            activity: #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "userInfo": { "blob": { "$data": "64GiB" } }"#))
        #expect(data.count == 1)
        #expect(data.first?.hasSuffix(
            "error: $.activity.userInfo.blob.$data: expected a size of at most 16 MiB (give larger payloads as payloadSize), found \"64GiB\"") == true)
    }

    @Test("a bandwidth under 10 kbit/s, a far position and a huge event limit are refused")
    func ratesPositionsAndEventsAreBounded() {
        let rate = problems(scenarioText(#""network": { "wifiPeerToPeer": { "bandwidth": "1bit/s" } }"#))
        #expect(rate.first?.hasSuffix("error: $.network.wifiPeerToPeer.bandwidth: expected a rate of at least 10kbit/s, found \"1bit/s\"") == true)
        let position = problems(scenarioText(iphone: #""position": [1e308, 0]"#))
        #expect(position.first?.hasSuffix(
            "error: $.devices[1].position: expected a position [x, y] in metres, each within ±1000000 (1,000 km), found an array") == true)
        let events = problems(scenarioText(#""limits": { "maxEvents": 1000000000000 }"#))
        #expect(events == ["test.json:3:28: error: $.limits.maxEvents: expected a whole number from 1 to 100000000, found 1000000000000"])
    }

    @Test("more devices than the bound are refused without reading them")
    func deviceCountIsBounded() {
        let devices = (0..<65).map { #"{ "name": "d\#($0)", "kind": "iPhone" }"# }.joined(separator: ", ")
        let text = """
            { "apps": [], "devices": [\(devices)], "activity": { "device": "d0", "app": "x", "type": "t" }, "expect": [] }
            """
        let found = problems(text)
        #expect(found.contains("test.json:1:26: error: $.devices: expected an array of devices of at most 64 elements, found 65"))
    }

    @Test("a control character in a value is escaped, so it cannot forge a diagnostic line")
    func controlCharactersAreEscaped() {
        let found = problems(scenarioText(#""network": { "profile": "x\nREADME.md:1:1: error: forged\u001b[2J" }"#))
        #expect(found.count == 1)
        #expect(found.first?.contains("\n") == false)
        #expect(found.first?.contains("\u{1B}") == false)
        #expect(found.first?.contains(#"x\nREADME.md:1:1: error: forged\u{1B}[2J"#) == true)
        #expect("a\r\nb\u{2028}c\u{7F}".escapingControlCharacters == #"a\r\nb\u{2028}c\u{7F}"#)
    }

    @Test("80,000 unknown keys: the first 100 problems are listed, then a count of the rest")
    func manyUnknownKeysStayLinear() {
        let keys = (0..<80_000).map { #""unknown\#($0)": 1"# }.joined(separator: ", ")
        let found = problems(scenarioText(keys))
        #expect(found.count == 101)
        #expect(found.last == "test.json: error: $: 79900 more problems not listed (only the first 100 are)")
    }

    @Test("a very long unknown name gets no suggestion, and validation stays fast")
    func longNamesGetNoSuggestion() {
        let name = String(repeating: "a", count: 80_000)
        let found = problems(scenarioText(activity: #""device": "\#(name)", "app": "com.example.notes", "type": "com.example.notes.editing""#))
        #expect(found.count == 1)
        #expect(found.first?.contains("did you mean") == false)
        #expect(suggestion(for: "iphon", among: ["mac", "iphone"]) == "iphone")
    }

    @Test("a sweep of more than 10,000 points is refused before any point is built")
    func sweepPointsAreBounded() {
        let values = (0..<101).map { "\($0)ms" }
        #expect(throws: ScenarioError.tooManyPoints(101 * 101)) {
            try SweepSpecification(
                payloads: values.map { _ in "1KiB" }, profiles: [],
                parameters: [("network.wifiPeerToPeer.latency", values)],
                payloadPath: ParameterPath("activity.payloadSize")!)
        }
    }
}
