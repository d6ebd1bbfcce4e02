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
