import Handoff
@testable import HandoffScenario
import Testing

/// What a new user ran into (issue 38): validation in rounds, messages
/// without the form that works, a fetch path that cannot be taken, and a
/// userInfo sure to fail.
@Suite("Validation for a new user")
struct NewUserValidationTests {
    /// The activity's type is not one the notes app declares.
    static let undeclaredType = #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.viewing""#

    @Test("an undeclared activity type is reported with an unrelated problem, whichever part holds it", arguments: [
        // The app is invalid for another reason (its Team ID).
        ("apps[0].teamID", scenarioText(activity: undeclaredType).replacing(#""teamID": "ABCDE12345""#, with: #""teamID": "abc""#)),
        // The activity names a device that does not exist.
        ("activity.device", scenarioText(activity: #""device": "macbook", "app": "com.example.notes", "type": "com.example.notes.viewing""#)),
        // An unrelated device setting.
        ("devices[1].wifi", scenarioText(iphone: #""position": [1.5, 0], "wifi": "office""#, activity: undeclaredType)),
        // The activity has no name where one is required.
        ("activities[0]", scenarioText(activity: undeclaredType).replacing(#""activity": { "#, with: #""activities": [{ "#)
            .replacing(#"viewing" },"#, with: #"viewing" }],"#)),
    ])
    func undeclaredTypeInTheSameRound(other: String, text: String) {
        let found = problems(text)
        #expect(found.contains { $0.contains("$.\(other)") }, "\(found)")
        #expect(found.contains { $0.contains("activity type \"com.example.notes.viewing\" is not declared by app \"com.example.notes\"") },
                "\(found)")
    }

    @Test("an invalid app, device or activity brings no follow-on problems where it is used")
    func noCascades() {
        // The app's Team ID is wrong: the activity is dropped, yet the
        // expectation's receiver is still inferred from the file.
        let badApp = problems(scenarioText().replacing(#""teamID": "ABCDE12345""#, with: #""teamID": "abc""#))
        #expect(badApp.count == 1, "\(badApp)")
        // An activity of two that is invalid is not "unknown" where the
        // timeline and an expectation name it.
        let text = scenarioText(
            expect: #"[{ "outcome": "continued", "activity": "second" }]"#,
            timeline: #"[{ "at": "0s", "action": "becomeCurrent", "activity": "second" }]"#
        ).replacing(#""activity": { "device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing" },"#, with: """
            "activities": [
                { "name": "first", "device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing" },
                { "name": "second", "device": "macbook", "app": "com.example.notes", "type": "com.example.notes.editing" }
              ],
            """)
        let found = problems(text)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("$.activities[1].device: unknown device \"macbook\"") == true, "\(found)")
        // One device only is reported even when something else is wrong too.
        let oneDevice = problems(scenarioText(#""seed": -1"#).replacing(
            #"{ "name": "mac", "kind": "mac", "apps": ["com.example.notes"] },"#, with: ""))
        #expect(oneDevice.contains { $0.contains("$.seed") }, "\(oneDevice)")
        #expect(oneDevice.contains { $0.contains("expected at least two devices") }, "\(oneDevice)")
    }

    @Test("an acceptance written in words gets the object form that works")
    func acceptanceInWords() {
        let found = problems(scenarioText(iphone: #""position": [1.5, 0], "acceptance": "after 1s""#))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains(#"$.devices[1].acceptance: unknown acceptance "after 1s"; expected "explicit", {"after": "500ms"}"#) == true, "\(found)")
        #expect(found.first?.hasSuffix(#"(did you mean {"after": "1s"}?)"#) == true, "\(found)")
        let bare = problems(scenarioText(iphone: #""position": [1.5, 0], "acceptance": "2.5s""#))
        #expect(bare.first?.hasSuffix(#"(did you mean {"after": "2.5s"}?)"#) == true, "\(bare)")
        let typo = problems(scenarioText(iphone: #""position": [1.5, 0], "acceptance": "explict""#))
        #expect(typo.first?.hasSuffix(#"(did you mean "explicit"?)"#) == true, "\(typo)")
    }

    @Test("a Wi-Fi network's name under \"wifi\" points to \"wifiNetwork\"")
    func wifiNetworkName() {
        let found = problems(scenarioText(iphone: #""position": [1.5, 0], "wifi": "office""#))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains(#"$.devices[1].wifi: expected true or false, found "office"; "wifi" is the Wi-Fi switch"#) == true, "\(found)")
        #expect(found.first?.hasSuffix(#"(did you mean "wifiNetwork": "office"?)"#) == true, "\(found)")
    }

    @Test("an unknown key gets the known key that means it, or where it belongs")
    func unknownKeyHints() {
        let network = problems(scenarioText(iphone: #""position": [1.5, 0], "network": "office""#))
        #expect(network.first?.hasSuffix(#"(did you mean "wifiNetwork"?)"#) == true, "\(network)")
        let fetchPath = problems(scenarioText(iphone: #""position": [1.5, 0], "fetchPath": "localNetwork""#))
        #expect(fetchPath.first?.hasSuffix(#"("fetchPath" is a key of the "network" object)"#) == true, "\(fetchPath)")
    }

    @Test("fetchPath localNetwork needs the source on a Wi-Fi network with a receiver")
    func localNetworkNeedsASharedNetwork() throws {
        let alone = problems(scenarioText(#""network": { "fetchPath": "localNetwork" }"#))
        #expect(alone.count == 1, "\(alone)")
        #expect(alone.first?.contains(#"$.network.fetchPath: the fetch path "localNetwork" needs the source "mac" and a receiver on the same Wi-Fi network, but it names no "wifiNetwork" ($.devices[0].wifiNetwork)"#) == true, "\(alone)")
        let apart = problems(scenarioText(
            #""network": { "fetchPath": "localNetwork" }"#, iphone: #""position": [1.5, 0], "wifiNetwork": "home""#
        ).replacing(#"{ "name": "mac", "kind": "mac", "apps": ["com.example.notes"] }"#,
                    with: #"{ "name": "mac", "kind": "mac", "apps": ["com.example.notes"], "wifiNetwork": "office" }"#))
        #expect(apart.first?.contains(#"no other device is on its Wi-Fi network "office""#) == true, "\(apart)")
        let shared = try validScenario(scenarioText(
            #""network": { "fetchPath": "localNetwork" }"#, iphone: #""position": [1.5, 0], "wifiNetwork": "office""#
        ).replacing(#"{ "name": "mac", "kind": "mac", "apps": ["com.example.notes"] }"#,
                    with: #"{ "name": "mac", "kind": "mac", "apps": ["com.example.notes"], "wifiNetwork": "office" }"#))
        #expect(shared.setup.configuration.fetchPath == .localNetwork)
    }

    @Test("a literal userInfo over userInfoLimit is valid with a warning naming its path, size and the limit")
    func userInfoOverTheLimit() throws {
        let big = String(repeating: "x", count: 70_000)
        let scenario = try validScenario(scenarioText(
            activity: #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "userInfo": { "text": "\#(big)" }"#))
        #expect(scenario.warnings.count == 1)
        let warning = try #require(scenario.warnings.first)
        #expect(warning.severity == .warning)
        #expect(warning.path == "$.activity.userInfo")
        #expect(warning.description.contains("test.json:"))
        #expect(warning.description.contains(": warning: $.activity.userInfo: the userInfo encodes to about 700"), "\(warning)")
        #expect(warning.message.contains("over protocol.userInfoLimit (65536 bytes)"), "\(warning)")
        #expect(warning.message.contains("4611"), "\(warning)")
        // Under the limit, or with a payloadSize that says the size on purpose: no warning.
        #expect(try validScenario(scenarioText(#""protocol": { "userInfoLimit": "128KiB" }"#,
            activity: #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "userInfo": { "text": "\#(big)" }"#)).warnings.isEmpty)
        #expect(try validScenario(scenarioText(
            activity: #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "payloadSize": "80KiB""#)).warnings.isEmpty)
    }
}
