import Handoff
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
            #""network": { "wifiPeerToPeer": { "schedule": { "sharedSlots": [0, 4], "multicastSlots": [4], "idlePresence": "30ms", "syncInterval": "450ms", "start": "warm", "activation": "20ms", "excursionInterval": "2s", "excursionDuration": "400ms", "awaySlots": 2, "idleAfter": "3s", "slot": "50ms", "slotsPerSequence": 8 } } }"#))
        let schedule = try #require(tuned.setup.world.wifiPeerToPeer.schedule)
        #expect(schedule == PeerToPeerSchedule(
            slot: .milliseconds(50), slotsPerSequence: 8, sharedSlots: .init([0, 4]), multicastSlots: .init([4]),
            idlePresence: .milliseconds(30), syncInterval: .milliseconds(450), start: .warm, activation: .milliseconds(20),
            excursionInterval: .seconds(2), excursionDuration: .milliseconds(400), awaySlots: 2, idleAfter: .seconds(3)))
    }

    @Test("bad schedules are clear errors at their path", arguments: [
        (#"{ "start": "lukewarm" }"#, "warm, cold"),
        (#"{ "sharedSlots": [0, 99] }"#, "schedule.sharedSlots[1]"),
        (#"{ "sharedSlots": [0, 20] }"#, "schedule.sharedSlots"),
        (#"{ "multicastSlots": [3] }"#, "schedule.multicastSlots"),
        (#"{ "excursionInterval": "1s", "excursionDuration": "900ms" }"#, "schedule.excursionDuration"),
        (#"{ "awaySlots": 16 }"#, "schedule.awaySlots"),
        (#"{ "idlePresence": "70ms" }"#, "schedule.idlePresence"),
        (#"{ "idlePresence": "0s" }"#, "schedule.idlePresence"),
        (#"{ "every": "1s" }"#, "every"),
        (#""sometimes""#, "a schedule object"),
    ])
    func errors(schedule: String, mentions: String) {
        let found = problems(scenarioText(#""network": { "wifiPeerToPeer": { "schedule": \#(schedule) } }"#))
        #expect(found.count == 1)
        #expect(found.first?.contains("$.network.wifiPeerToPeer.schedule") == true, "\(found)")
        #expect(found.first?.contains(mentions) == true, "\(found)")
    }

    @Test("bandwidthSpread: a number is a half-normal σ; a logNormal object keeps a left-out member of a log-normal default, and is an error without one")
    func rateSpread() throws {
        let half = try validScenario(scenarioText(#""network": { "wifiPeerToPeer": { "bandwidthSpread": 0.2 } }"#))
        #expect(half.setup.world.wifiPeerToPeer.bandwidthSpread == .halfNormal(0.2))
        let log = try validScenario(scenarioText(
            #""network": { "wifiPeerToPeer": { "bandwidthSpread": { "logNormal": { "median": 0.1, "sigma": 0.6 } } } }"#))
        #expect(log.setup.world.wifiPeerToPeer.bandwidthSpread == .logNormal(median: 0.1, sigma: 0.6))
        let defaultSpread = LinkParameters.wifiPeerToPeer.bandwidthSpread
        let partial = decode(scenarioText(#""network": { "wifiPeerToPeer": { "bandwidthSpread": { "logNormal": { "median": 0.3 } } } }"#))
        if case let .logNormal(_, sigma) = defaultSpread {
            #expect(try partial.get().setup.world.wifiPeerToPeer.bandwidthSpread == .logNormal(median: 0.3, sigma: sigma))
        }
        // The LAN's default has no spread: a left-out σ has nothing to keep.
        let lan = problems(scenarioText(#""network": { "localNetwork": { "bandwidthSpread": { "logNormal": { "median": 0.3 } } } }"#))
        #expect(lan.count == 1)
        #expect(lan.first?.contains("$.network.localNetwork.bandwidthSpread.logNormal") == true, "\(lan)")
        #expect(lan.first?.contains("\"sigma\"") == true, "\(lan)")
        for (bad, path) in [(#"1.5"#, "bandwidthSpread"), (#""wide""#, "bandwidthSpread"),
                            (#"{ "logNormal": { "median": 0.1, "sigma": 1.5 } }"#, "bandwidthSpread.logNormal.sigma"),
                            (#"{ "normal": 0.1 }"#, "bandwidthSpread.normal")] {
            let found = problems(scenarioText(#""network": { "wifiPeerToPeer": { "bandwidthSpread": \#(bad) } }"#))
            #expect(found.count == 1 && found.first?.contains("$.network.wifiPeerToPeer.\(path)") == true, "\(bad): \(found)")
        }
    }

    @Test("the Bonjour cache: resolveCached and cachedResolveTime, bounded")
    func cachedResolve() throws {
        let cached = try validScenario(scenarioText(
            #""protocol": { "rapport": { "resolveCached": true, "cachedResolveTime": "3ms" } }"#))
        #expect(cached.setup.configuration.rapport.resolveCached)
        #expect(cached.setup.configuration.rapport.cachedResolveTime == .milliseconds(3))
        let found = problems(scenarioText(#""protocol": { "rapport": { "cachedResolveTime": "11s" } }"#))
        #expect(found.count == 1)
        #expect(found.first?.contains("$.protocol.rapport.cachedResolveTime") == true, "\(found)")
    }

    @Test("only the peer-to-peer link has a schedule")
    func bluetoothHasNone() {
        let found = problems(scenarioText(#""network": { "bluetooth": { "schedule": null } }"#))
        #expect(found.count == 1)
        #expect(found.first?.contains("$.network.bluetooth.schedule") == true, "\(found)")
    }
}

/// `network.transport`: TCP settings in a scenario file.
@Suite("Transport settings in scenario files")
struct TransportDecodingTests {
    @Test("the settings apply to the fetch, streams and every other connection; the fetch keeps its retry limit")
    func decoding() throws {
        let scenario = try validScenario(scenarioText(
            #""network": { "transport": { "congestionControl": "none", "lossDetection": "duplicateThreshold", "delayedAcknowledgement": "40ms", "initialWindow": 4, "window": "128KiB", "initialRetransmissionTimeout": "2s", "minimumRetransmissionTimeout": "300ms" } }"#))
        let fetch = scenario.setup.configuration.fetchTransport
        #expect(fetch.congestionControl == .none)
        #expect(fetch.lossDetection == .duplicateThreshold)
        #expect(fetch.delayedAcknowledgement == .milliseconds(40))
        #expect(fetch.initialWindow == 4)
        #expect(fetch.window == 128 * 1024)
        #expect(fetch.initialRetransmissionTimeout == .seconds(2))
        #expect(fetch.minimumRetransmissionTimeout == .milliseconds(300))
        #expect(fetch.retryLimit == HandoffConfiguration().fetchTransport.retryLimit)
        #expect(scenario.setup.configuration.streamTransport.lossDetection == .duplicateThreshold)
        #expect(scenario.setup.world.transport.window == 128 * 1024)
        let plain = try validScenario(scenarioText())
        #expect(plain.setup.configuration.fetchTransport == HandoffConfiguration().fetchTransport)
    }

    @Test("CUBIC is the default (XNU's); a scenario may name it, pick RFC 9438's constants or set its own")
    func cubic() throws {
        let plain = try validScenario(scenarioText())
        #expect(plain.setup.configuration.fetchTransport.congestionControl == .cubic)
        #expect(plain.setup.world.transport.cubic == .xnu)
        let rfc = try validScenario(scenarioText(
            #""network": { "transport": { "congestionControl": "cubic", "cubic": { "preset": "rfc9438" } } }"#))
        #expect(rfc.setup.world.transport.cubic == .rfc9438)
        #expect(rfc.setup.configuration.fetchTransport.cubic == .rfc9438)
        let own = try validScenario(scenarioText(
            #""network": { "transport": { "cubic": { "preset": "rfc9438", "beta": 0.8, "constant": 0.5, "fastConvergence": false, "renoFriendly": false, "roundTrip": "minimum", "reductionBase": "window" } } }"#))
        #expect(own.setup.world.transport.cubic == CubicParameters(
            constant: 0.5, beta: 0.8, fastConvergence: false, renoFriendly: false, roundTrip: .minimum,
            reductionBase: .window))
        let newReno = try validScenario(scenarioText(#""network": { "transport": { "congestionControl": "newReno" } }"#))
        #expect(newReno.setup.world.transport.congestionControl == .newReno)
    }

    @Test("bad transport settings are clear errors at their path", arguments: [
        (#"{ "congestionControl": "bbr" }"#, "$.network.transport.congestionControl"),
        (#"{ "cubic": { "beta": 1.2 } }"#, "$.network.transport.cubic.beta"),
        (#"{ "cubic": { "constant": 0 } }"#, "$.network.transport.cubic.constant"),
        (#"{ "cubic": { "preset": "linux" } }"#, "$.network.transport.cubic.preset"),
        (#"{ "cubic": { "roundTrip": "latest" } }"#, "$.network.transport.cubic.roundTrip"),
        (#"{ "cubic": { "hystart": true } }"#, "$.network.transport.cubic"),
        (#"{ "lossDetection": "fast" }"#, "$.network.transport.lossDetection"),
        (#"{ "initialWindow": 0 }"#, "$.network.transport.initialWindow"),
        (#"{ "initialRetransmissionTimeout": "2h" }"#, "$.network.transport"),
        (#"{ "minimumRetransmissionTimeout": "2m" }"#, "$.network.transport"),
        (#"{ "nagle": true }"#, "$.network.transport"),
    ])
    func errors(transport: String, path: String) {
        let found = problems(scenarioText(#""network": { "transport": \#(transport) } "#))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains(path) == true, "\(found)")
    }
}
