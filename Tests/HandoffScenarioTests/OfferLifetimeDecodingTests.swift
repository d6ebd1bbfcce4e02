import Handoff
import HandoffWorld
import SimKernel
import Testing
@testable import HandoffScenario

/// The scenario keys of the offer-lifetime rules: read, defaulted, and
/// refused with the JSON path when out of bounds.
@Suite("Offer lifetime keys")
struct OfferLifetimeDecodingTests {
    @Test("protocol.advertising's lifetime keys, keyExchange.overCloud, a device's inUse and userInput are read")
    func keysAreRead() throws {
        let scenario = try validScenario(scenarioText(
            #""protocol": { "advertising": { "userIdleAfter": "1min", "activePayloadUpdateInterval": "20s", "lostDeviceGrace": "4s", "scanStopAfterLoss": "12s" }, "keyExchange": { "overCloud": false } }"#,
            timeline: #"[{ "at": "0s", "action": "becomeCurrent" }, { "at": "3s", "action": "userInput", "device": "mac" }]"#,
            iphone: #""position": [1.5, 0], "acceptance": { "after": "1s" }, "inUse": true"#))
        let advertising = scenario.setup.configuration.advertising
        #expect(advertising.userIdleAfter == .seconds(60))
        #expect(advertising.activePayloadUpdateInterval == .seconds(20))
        #expect(advertising.lostDeviceGrace == .seconds(4))
        #expect(advertising.scanStopAfterLoss == .seconds(12))
        #expect(scenario.setup.configuration.keyExchange.overCloud == false)
        #expect(scenario.setup.configuration.devicesInUse == ["iphone"])
        #expect(scenario.timeline.map(\.action).last == .userInput(device: "mac"))
    }

    @Test("the defaults are the sourced values; no device is in use unless it says so")
    func defaults() throws {
        let scenario = try validScenario(scenarioText())
        let advertising = scenario.setup.configuration.advertising
        #expect(advertising.userIdleAfter == .seconds(120))
        #expect(advertising.activePayloadUpdateInterval == .seconds(15))
        #expect(advertising.lostDeviceGrace == .seconds(5))
        #expect(advertising.scanStopAfterLoss == .seconds(10))
        #expect(scenario.setup.configuration.keyExchange.overCloud)
        #expect(scenario.setup.configuration.devicesInUse.isEmpty)
        #expect(scenario.setup.devices.first { $0.name == "iphone" }?.osVersion == OSVersion(17, 4))
    }

    @Test("a zero grace, a scan stop before the grace, a bad inUse and a userInput without a device are refused by path")
    func boundsAreChecked() {
        let zero = problems(scenarioText(#""protocol": { "advertising": { "lostDeviceGrace": "0s" } }"#))
        #expect(zero.count == 1)
        #expect(zero.first?.contains("protocol.advertising.lostDeviceGrace") == true)
        #expect(zero.first?.contains("at least 1ns") == true)

        let early = problems(scenarioText(#""protocol": { "advertising": { "scanStopAfterLoss": "3s" } }"#))
        #expect(early.count == 1)
        #expect(early.first?.contains("protocol.advertising.scanStopAfterLoss") == true)
        #expect(early.first?.contains("at least lostDeviceGrace (5s)") == true)

        let inUse = problems(scenarioText(iphone: #""position": [1.5, 0], "inUse": "yes""#))
        #expect(inUse.count == 1)
        #expect(inUse.first?.contains("devices[1].inUse") == true)

        let input = problems(scenarioText(timeline: #"[{ "at": "0s", "action": "userInput" }]"#))
        #expect(input.count == 1)
        #expect(input.first?.contains("timeline[0]") == true)
        #expect(input.first?.contains("device") == true)
    }
}

/// A timeline's `active` is input on its device, as docs/scenario-format.md
/// lists it, whether or not the device was idle: the source's idle time
/// starts over at it.
@Suite("The active action")
struct ActiveActionTests {
    /// The mac becomes current at 0 s; `active` on it at `activeAt`
    /// (nothing if nil), `idle` first at `idleAt` if given; the iPhone
    /// accepts at 150 s.
    static func scenario(activeAt: String?, idleAt: String? = nil) -> String {
        var timeline = [#"{ "at": "0s", "action": "becomeCurrent" }"#]
        if let idleAt { timeline.append(#"{ "at": "\#(idleAt)", "action": "idle", "device": "mac" }"#) }
        if let activeAt { timeline.append(#"{ "at": "\#(activeAt)", "action": "active", "device": "mac" }"#) }
        timeline.append(#"{ "at": "150s", "action": "accept", "device": "iphone" }"#)
        return scenarioText(timeline: "[" + timeline.joined(separator: ", ") + "]", iphone: #""position": [1.5, 0]"#)
    }

    /// The trial's trace and the activity's outcome on the iPhone.
    func replay(_ text: String) throws -> (trace: [TraceRecord], outcome: ContinuationOutcome?) {
        let replay = try ScenarioRunner.replay(try validScenario(text), seed: 1, trial: 0)
        #expect(replay.failure == nil)
        return (replay.trace, replay.summaries.first { $0.device == "iphone" }?.outcome)
    }

    func times(_ name: TraceEvent.Name, in trace: [TraceRecord], on device: String) -> [SimInstant] {
        trace.filter { $0.event.name == name && $0.device.name == device }.map(\.time)
    }

    // UAUserActivityDefaults (iOS 18.2): idle after 120 s without input;
    // the advertisement goes 3 s later and the offer 10 s after that.
    @Test("without input the source is idle at 120 s and the offer is gone by the accept at 150 s")
    func untouchedSourceGoesIdle() throws {
        let (trace, outcome) = try replay(Self.scenario(activeAt: nil))
        #expect(times(.userIdle, in: trace, on: "mac") == [.zero + .seconds(120)])
        #expect(outcome == .withdrawn)
    }

    @Test("active at 100 s on a source in use restarts its idle time: idle at 220 s, the accept at 150 s continues")
    func activeRestartsIdleTime() throws {
        let scenario = try validScenario(Self.scenario(activeAt: "100s"))
        #expect(scenario.timeline.map(\.action).contains(.userInput(device: "mac")))
        let (trace, outcome) = try replay(Self.scenario(activeAt: "100s"))
        #expect(times(.userInput, in: trace, on: "mac") == [.zero + .seconds(100)])
        #expect(times(.userIdle, in: trace, on: "mac").allSatisfy { $0 >= .zero + .seconds(220) })
        #expect(times(.advertisementRemoved, in: trace, on: "mac").allSatisfy { $0 >= .zero + .seconds(223) })
        #expect(outcome == .continued)
    }

    @Test("active after idle leaves the idle state, once: the advertisement comes back and the accept continues")
    func activeAfterIdle() throws {
        let scenario = try validScenario(Self.scenario(activeAt: "100s", idleAt: "50s"))
        let actions = scenario.timeline.map(\.action)
        #expect(!actions.contains(.userInput(device: "mac")))
        #expect(actions.contains(.setSettings(device: "mac", DeviceSettings())))
        let (trace, outcome) = try replay(Self.scenario(activeAt: "100s", idleAt: "50s"))
        #expect(times(.advertisingAgain, in: trace, on: "mac") == [.zero + .seconds(100)])
        #expect(times(.userIdle, in: trace, on: "mac").allSatisfy { $0 >= .zero + .seconds(220) })
        #expect(outcome == .continued)
    }
}
