import HandoffWorld
@testable import HandoffScenario
import SimKernel
import Testing

/// `network.wifiPeerToPeer.schedule`: AWDL's schedule in a scenario file.
@Suite("The peer-to-peer schedule in scenario files")
struct ScheduleDecodingTests {
    @Test("absent: the default AWDL schedule; null: none (a wire); an object: the default with its values")
    func decoding() throws {
        let plain = try validScenario(scenarioText())
        #expect(plain.setup.world.wifiPeerToPeer.schedule == LinkParameters.wifiPeerToPeer.schedule)
        let wire = try validScenario(scenarioText(#""network": { "wifiPeerToPeer": { "schedule": null } }"#))
        #expect(wire.setup.world.wifiPeerToPeer.schedule == nil)
        let tuned = try validScenario(scenarioText(
            #""network": { "wifiPeerToPeer": { "schedule": { "idleInterval": "500ms", "idleWindow": "90ms", "missProbability": "10%", "wakeLossProbability": 0, "awaySlots": 2, "idleAfter": "3s", "slot": "50ms", "slotsPerSequence": 8 } } }"#))
        let schedule = try #require(tuned.setup.world.wifiPeerToPeer.schedule)
        #expect(schedule == PeerToPeerSchedule(
            slot: .milliseconds(50), slotsPerSequence: 8, idleInterval: .milliseconds(500), idleWindow: .milliseconds(90),
            missProbability: 0.1, wakeLossProbability: 0, awaySlots: 2, idleAfter: .seconds(3)))
    }

    @Test("bad schedules are clear errors at their path", arguments: [
        (#"{ "missProbability": 0.95 }"#, "schedule.missProbability"),
        (#"{ "idleInterval": "20ms", "idleWindow": "80ms" }"#, "schedule.idleWindow"),
        (#"{ "awaySlots": 16 }"#, "schedule.awaySlots"),
        (#"{ "every": "1s" }"#, "every"),
        (#""sometimes""#, "a schedule object"),
    ])
    func errors(schedule: String, mentions: String) {
        let found = problems(scenarioText(#""network": { "wifiPeerToPeer": { "schedule": \#(schedule) } }"#))
        #expect(found.count == 1)
        #expect(found.first?.contains("$.network.wifiPeerToPeer.schedule") == true, "\(found)")
        #expect(found.first?.contains(mentions) == true, "\(found)")
    }

    @Test("only the peer-to-peer link has a schedule")
    func bluetoothHasNone() {
        let found = problems(scenarioText(#""network": { "bluetooth": { "schedule": null } }"#))
        #expect(found.count == 1)
        #expect(found.first?.contains("$.network.bluetooth.schedule") == true, "\(found)")
    }
}
