import Handoff
import HandoffWorld
import SimKernel
import Testing

/// One way to keep an activity from being offered, and the rule that must
/// be reported.
struct BlockedCase: Sendable, CustomTestStringConvertible {
    let reason: NotOfferedReason
    /// Runs the scenario; returns the run and the activity whose summary on
    /// the iPad must name `reason`.
    let run: @Sendable () throws -> (HandoffRun, ActivityID)
    var testDescription: String { reason.rawValue }
}

private func settingsOff(_ device: Int, handoff: Bool = true, bluetooth: Bool = true, wifi: Bool = true)
    -> @Sendable (inout [DeviceDescription]) -> Void
{
    { devices in
        devices[device].settings = DeviceSettings(handoffEnabled: handoff, bluetoothEnabled: bluetooth, wifiEnabled: wifi)
    }
}

/// Every eligibility rule, each blocking on its own.
let blockedCases: [BlockedCase] = [
    BlockedCase(reason: .neverCurrent) {
        let run = try HandoffRun(setup: monkeySetup(), seed: 1)
        let activity = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.accept(device: "ipad"), at: at(2))
        run.run(until: at(10))
        return (run, activity)
    },
    BlockedCase(reason: .receiverIsWatch) {
        let setup = try monkeySetup(adjust: { $0[1].kind = .watch })
        let result = try runTab(setup: setup)
        return (result.run, result.activity)
    },
    BlockedCase(reason: .handoffDisabledOnSource) {
        let result = try runTab(setup: monkeySetup(adjust: settingsOff(0, handoff: false)))
        return (result.run, result.activity)
    },
    BlockedCase(reason: .handoffDisabledOnReceiver) {
        let result = try runTab(setup: monkeySetup(adjust: settingsOff(1, handoff: false)))
        return (result.run, result.activity)
    },
    BlockedCase(reason: .bluetoothOffOnSource) {
        let result = try runTab(setup: monkeySetup(adjust: settingsOff(0, bluetooth: false)))
        return (result.run, result.activity)
    },
    BlockedCase(reason: .bluetoothOffOnReceiver) {
        let result = try runTab(setup: monkeySetup(adjust: settingsOff(1, bluetooth: false)))
        return (result.run, result.activity)
    },
    BlockedCase(reason: .wifiOffOnSource) {
        let result = try runTab(setup: monkeySetup(adjust: settingsOff(0, wifi: false)))
        return (result.run, result.activity)
    },
    BlockedCase(reason: .wifiOffOnReceiver) {
        let result = try runTab(setup: monkeySetup(adjust: settingsOff(1, wifi: false)))
        return (result.run, result.activity)
    },
    BlockedCase(reason: .notSignedIn) {
        let result = try runTab(setup: monkeySetup(adjust: { $0[1].account = nil }))
        return (result.run, result.activity)
    },
    BlockedCase(reason: .differentAccount) {
        let result = try runTab(setup: monkeySetup(adjust: { $0[1].account = "bob@icloud.com" }))
        return (result.run, result.activity)
    },
    BlockedCase(reason: .notEligibleForHandoff) {
        var content = tabActivity(0)
        content.isEligibleForHandoff = false
        let result = try runTab(setup: monkeySetup(), content: content)
        return (result.run, result.activity)
    },
    BlockedCase(reason: .expired) {
        var content = tabActivity(0)
        // The first advertisement cannot arrive this early.
        content.expirationDate = SimInstant(nanosecondsSinceStart: 1)
        let result = try runTab(setup: monkeySetup(), content: content)
        return (result.run, result.activity)
    },
    BlockedCase(reason: .noSuitableApp) {
        // The iPad's copy of the app is signed by another team.
        let other = try AppDescription(
            bundleID: "com.other.browser", teamID: TeamID("OTHERTEAM1"), activityTypes: monkeyTabs.map(\.type))
        let setup = try monkeySetup(
            apps: [monkeyBrowserApp(), other], adjust: { $0[1].installedApps = ["com.other.browser"] })
        let result = try runTab(setup: setup)
        return (result.run, result.activity)
    },
    BlockedCase(reason: .outOfRange) {
        let setup = try monkeySetup(adjust: { $0[1].mobility = .stationary(Position(x: 200, y: 0)) })
        let result = try runTab(setup: setup)
        return (result.run, result.activity)
    },
    BlockedCase(reason: .supersededByMoreRecent) {
        // The Mac's tab became current first, but its Bluetooth is off until
        // 3 s; by then the iPhone's more recent tab is offered on the iPad.
        let setup = try monkeySetup(adjust: { devices in
            devices.append(DeviceDescription(
                name: "mac", kind: .mac, osVersion: OSVersion(14, 4), account: "alice@icloud.com",
                settings: DeviceSettings(bluetoothEnabled: false), installedApps: [monkeyBrowserID],
                mobility: .stationary(Position(x: 0, y: 2))))
        })
        let run = try HandoffRun(setup: setup, seed: 1)
        let older = try run.createActivity(tabActivity(1), on: "mac", app: monkeyBrowserID)
        let newer = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(older), at: .zero)
        try run.schedule(.becomeCurrent(newer), at: at(1))
        try run.schedule(.setSettings(device: "mac", DeviceSettings()), at: at(3))
        try run.schedule(.accept(device: "ipad"), at: at(10))
        run.run(until: at(30))
        #expect(run.summary(of: newer, on: "ipad")?.outcome == .continued)
        return (run, older)
    },
    BlockedCase(reason: .acceptedBeforeOffer) {
        // The user on the iPad accepts at the instant the tab becomes
        // current, before any advertisement: nothing is left to do, so the
        // trial settles then. The reason is the early accept, not range.
        let run = try HandoffRun(setup: monkeySetup(), seed: 1)
        let activity = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(activity), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: .zero)
        run.run(until: at(10))
        #expect(run.trace.contains { $0.device.name == "ipad" && $0.event == .system(.acceptedWithoutOffer) })
        return (run, activity)
    },
]

@Suite("Eligibility rules")
struct EligibilityTests {
    @Test("each rule alone keeps the activity from being offered and is named", arguments: blockedCases)
    func ruleBlocksOffer(_ blocked: BlockedCase) throws {
        let (run, activity) = try blocked.run()
        #expect(run.violations.isEmpty)
        let summary = try #require(run.summary(of: activity, on: "ipad"))
        #expect(summary.outcome == .notOffered(blocked.reason))
        // Nothing past the offer happened on the iPad for this activity.
        let steps = run.trace.filter { $0.device.name == "ipad" && $0.activity?.id == activity }.map(\.name)
        #expect(!steps.contains(.offer) && !steps.contains(.continueUserActivity))
    }

    @Test("two activities current at the same instant: one is offered and continued, the other is reported superseded", arguments: 1...5)
    func simultaneousCandidates(seed: UInt64) throws {
        let setup = try monkeySetup(adjust: { devices in
            devices.append(DeviceDescription(
                name: "mac", kind: .mac, osVersion: OSVersion(14, 4), account: "alice@icloud.com",
                installedApps: [monkeyBrowserID], mobility: .stationary(Position(x: 0, y: 2))))
        })
        let run = try HandoffRun(setup: setup, seed: seed)
        let fromMac = try run.createActivity(tabActivity(1), on: "mac", app: monkeyBrowserID)
        let fromPhone = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(fromMac), at: .zero)
        try run.schedule(.becomeCurrent(fromPhone), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: at(10))
        run.run(until: at(30))
        #expect(run.violations.isEmpty)
        let outcomes = [fromMac, fromPhone].map { run.summary(of: $0, on: "ipad")?.outcome }
        #expect(outcomes.filter { $0 == .continued }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == .notOffered(.supersededByMoreRecent) }.count == 1, "\(outcomes)")
    }

    @Test("with every rule satisfied the same setup is offered and continued")
    func controlCaseContinues() throws {
        let (run, activity) = try runTab(setup: monkeySetup())
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    @Test("a rejected advertisement is reported once, naming the rule")
    func rejectionRecordedInTrace() throws {
        let (run, _) = try runTab(setup: monkeySetup(adjust: { $0[1].account = "bob@icloud.com" }))
        let rejections = run.trace.filter { $0.name == .notOffered }
        #expect(rejections.count == 1)
        #expect(rejections.first?.event == .system(.notOffered(.differentAccount)))
    }

    @Test("an offer withdrawn for a more recent activity ends as withdrawn")
    func olderOfferWithdrawn() throws {
        let setup = try monkeySetup(adjust: { devices in
            devices.append(DeviceDescription(
                name: "mac", kind: .mac, osVersion: OSVersion(14, 4), account: "alice@icloud.com",
                installedApps: [monkeyBrowserID], mobility: .stationary(Position(x: 0, y: 2))))
        })
        let run = try HandoffRun(setup: setup, seed: 3)
        let older = try run.createActivity(tabActivity(1), on: "mac", app: monkeyBrowserID)
        let newer = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(older), at: .zero)
        try run.schedule(.becomeCurrent(newer), at: at(6))
        try run.schedule(.accept(device: "ipad"), at: at(12))
        run.run(until: at(30))
        #expect(run.summary(of: older, on: "ipad")?.outcome == .withdrawn)
        #expect(run.summary(of: newer, on: "ipad")?.outcome == .continued)
    }

    @Test("watchOS sends: an activity on the Watch is continued on the iPhone")
    func watchSends() throws {
        let setup = try monkeySetup(adjust: { $0[0].kind = .watch })
        let app = try AppDescription(
            bundleID: monkeyBrowserID, teamID: TeamID("XAMARIN123"), platforms: [.watchOS, .iPadOS],
            activityTypes: monkeyTabs.map(\.type))
        var withWatchApp = setup
        withWatchApp.apps = [app]
        let (run, activity) = try runTab(setup: withWatchApp)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }
}
