import Handoff
import HandoffWorld
@testable import HandoffScenario
import SimKernel
import Testing

/// Scenario files decode to the setup they describe, and every problem is
/// reported at once with its place and a suggestion.
@Suite("Scenario decoding")
struct ScenarioDecoderTests {
    @Test("defaults: seed 1, 100 trials, the default account and OS, stationary devices, the limits")
    func defaults() throws {
        let scenario = try validScenario(scenarioText())
        #expect(scenario.seed == 1)
        #expect(scenario.trials == 100)
        #expect(scenario.limits == .defaults)
        #expect(scenario.duration == nil)
        #expect(scenario.setup.devices.map(\.account) == [AccountID("user@icloud.com"), AccountID("user@icloud.com")])
        #expect(scenario.setup.devices[0].osVersion == OSVersion(14, 4))
        #expect(scenario.setup.devices[1].osVersion == OSVersion(17, 4))
        #expect(scenario.activities.map(\.name) == ["activity"])
        #expect(scenario.expectations.map(\.device) == ["iphone"])
        #expect(scenario.setup.configuration.acceptance["iphone"] == .after(.seconds(1)))
        #expect(scenario.digest.count == 64)
    }

    @Test("sizes, durations and rates read as people write them")
    func quantities() throws {
        let scenario = try validScenario(scenarioText(
            #""duration": "1m30s", "network": { "wifiPeerToPeer": { "bandwidth": "54Mbit/s", "latency": "2.5ms", "loss": "1.5%" } }, "protocol": { "userInfoLimit": "64 KiB", "fetchTimeout": "7s" }"#,
            activity: #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "payloadSize": "1.5KiB""#))
        #expect(scenario.duration == .seconds(90))
        #expect(scenario.setup.world.wifiPeerToPeer.bandwidth == .megabitsPerSecond(54))
        #expect(scenario.setup.world.wifiPeerToPeer.latency == .microseconds(2500))
        #expect(scenario.setup.world.wifiPeerToPeer.loss == .bernoulli(0.015))
        #expect(scenario.setup.configuration.userInfoLimit == 65_536)
        #expect(scenario.setup.configuration.fetchTimeout == .seconds(7))
        #expect(scenario.activities[0].content.payloadSize == 1536)
        #expect(try Quantities.bytes("3KiB").get() == 3072)
        #expect(try Quantities.bytes("1MB").get() == 1_000_000)
        #expect(try Quantities.bytes("256B").get() == 256)
        #expect((try? Quantities.bytes("1.3KiB").get()) == nil)
        #expect((try? Quantities.bytes("3 kib").get()) == nil)
        #expect((try? Quantities.bytes("-3KiB").get()) == nil)
        #expect(try Quantities.percentage("99.9%").get() == 0.999)
        #expect((try? Quantities.percentage("101%").get()) == nil)
    }

    @Test("switches accumulate in time order: each action carries the device's whole settings")
    func settingsSwitches() throws {
        let scenario = try validScenario(scenarioText(timeline: """
            [{ "at": "0s", "action": "becomeCurrent" },
             { "at": "3s", "action": "wifiOff", "device": "iphone" },
             { "at": "1s", "action": "bluetoothOff", "device": "iphone" },
             { "at": "5s", "action": "bluetoothOn", "device": "iphone" }]
            """))
        #expect(scenario.timeline.map(\.time) == [0, 1, 3, 5].map { SimInstant.zero + .seconds($0) })
        #expect(scenario.timeline.map(\.action) == [
            .becomeCurrent(activity: 0),
            .setSettings(device: "iphone", DeviceSettings(bluetoothEnabled: false)),
            .setSettings(device: "iphone", DeviceSettings(bluetoothEnabled: false, wifiEnabled: false)),
            .setSettings(device: "iphone", DeviceSettings(wifiEnabled: false)),
        ])
    }

    @Test("moves become the device's waypoint path, pausing until the next move")
    func moves() throws {
        let scenario = try validScenario(scenarioText(timeline: """
            [{ "at": "0s", "action": "becomeCurrent" },
             { "at": "2s", "action": "move", "device": "iphone", "to": [11.5, 0], "speed": 2 },
             { "at": "10s", "action": "move", "device": "iphone", "to": [11.5, 10] }]
            """))
        let mobility = scenario.setup.devices[1].mobility
        #expect(mobility.position(at: .zero + .seconds(1)) == Position(x: 1.5, y: 0))
        #expect(mobility.position(at: .zero + .seconds(4)) == Position(x: 5.5, y: 0))
        #expect(mobility.position(at: .zero + .seconds(9)) == Position(x: 11.5, y: 0))
        #expect(mobility.position(at: .zero + .seconds(60)) == Position(x: 11.5, y: 10))
        #expect(problems(scenarioText(timeline: """
            [{ "at": "2s", "action": "move", "device": "iphone", "to": [101.5, 0] },
             { "at": "3s", "action": "move", "device": "iphone", "to": [0, 0] }]
            """)).first?.contains("the move at 3s starts before the previous move of \"iphone\" ends") == true)
    }

    @Test("every problem at once, in document order, with path, line, column and a suggestion")
    func everyProblem() {
        let text = scenarioText(
            #""trails": 10, "seed": -1"#,
            expect: #"[{ "outcome": "continude" }, { "latency": "acceptToContinue", "percentile": 95, "below": "fast" }]"#,
            iphone: #""position": [1.5, 0], "acceptance": { "after": "1s" }, "blutooth": false"#)
        #expect(problems(text) == [
            #"test.json:3:3: error: $.trails: unknown key "trails" in a scenario object; expected one of $schema, name, description, seed, trials, duration, limits, network, protocol, apps, siteAssociations, devices, activity, activities, timeline, expect, sweep, overlay, measured (did you mean "trials"?)"#,
            #"test.json:3:25: error: $.seed: expected a whole number ≥ 0, found -1"#,
            #"test.json:9:129: error: $.devices[1].blutooth: unknown key "blutooth" in a device object; expected one of name, kind, os, account, apps, position, handoff, bluetooth, wifi, screen, lowPowerMode, idle, internet, internetAccess, wifiNetwork, acceptance, inUse (did you mean "bluetooth"?)"#,
            #"test.json:13:27: error: $.expect[0].outcome: unknown outcome "continude"; expected one of continued, continuedInBrowser, failed, notOffered, withdrawn, notAccepted, unfinished (did you mean "continued"?)"#,
            #"test.json:13:102: error: $.expect[1].below: expected a duration such as "250ms", "1.5s" or "2min" (units ns, us, ms, s, min, h), found "fast""#,
        ])
    }

    @Test("duplicate keys, two kinds in one expectation, activity and activities together")
    func structure() {
        #expect(problems(#"{ "name": "a", "name": "b" }"#).contains(#"test.json:1:16: error: $.name: duplicate key "name""#))
        let both = problems(scenarioText(expect: #"[{ "outcome": "continued", "error": 4609 }]"#))
        #expect(both == [#"test.json:12:14: error: $.expect[0]: expected one kind of expectation per object, found outcome, error"#])
        let twice = problems(scenarioText(#""activities": []"#))
        #expect(twice.contains(#"test.json:3:3: error: $.activities: give either "activity" or "activities", not both"#))
    }

    @Test("cross-references: devices, apps, activity types, the receiving device")
    func references() {
        #expect(problems(scenarioText(activity: #""device": "mack", "app": "com.example.notes", "type": "com.example.notes.editing""#)) == [
            #"test.json:10:27: error: $.activity.device: unknown device "mack"; devices are mac, iphone (did you mean "mac"?)"#,
        ])
        #expect(problems(scenarioText(activity: #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.editin""#)) == [
            #"test.json:10:70: error: $.activity.type: activity type "com.example.notes.editin" is not declared by app "com.example.notes" (its activityTypes: com.example.notes.editing) (did you mean "com.example.notes.editing"?)"#,
        ])
        #expect(problems(scenarioText(expect: #"[{ "outcome": "continued", "on": "mac" }]"#)) == [
            #"test.json:12:46: error: $.expect[0].on: "mac" is the source of activity "activity"; outcomes and latencies are observed on a receiving device"#,
        ])
    }

    @Test("malformed JSON is one problem with its position")
    func malformed() {
        #expect(problems("{\n  \"name\": \"x\",\n}").count == 1)
        #expect(problems("{\n  \"name\": \"x\",\n}") == ["test.json:2:14: error: $: malformed JSON: trailing comma before '}'"])
    }
}
