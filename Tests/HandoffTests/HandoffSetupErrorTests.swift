import Handoff
import HandoffWorld
import SimKernel
import Testing

/// Setups and calls the protocol refuses, each with an error that names the
/// problem.
@Suite("Handoff setup errors")
struct HandoffSetupErrorTests {
    @Test("an activity for an app the device does not have names the app and the device")
    func appNotInstalled() throws {
        let other = try AppDescription(bundleID: "com.example.notes", teamID: TeamID("EXAMPLE123"))
        let run = try HandoffRun(setup: monkeySetup(apps: [monkeyBrowserApp(), other]), seed: 1)
        #expect(throws: HandoffError.appNotInstalled(bundleID: "com.example.notes", device: "iphone")) {
            try run.createActivity(tabActivity(0), on: "iphone", app: "com.example.notes")
        }
        #expect(throws: HandoffError.unknownApp("com.example.missing")) {
            try run.createActivity(tabActivity(0), on: "iphone", app: "com.example.missing")
        }
        #expect(throws: HandoffError.unknownDevice("watch")) {
            try run.createActivity(tabActivity(0), on: "watch", app: monkeyBrowserID)
        }
    }

    @Test("an installed app missing from the setup's apps is refused")
    func installedAppNotDescribed() throws {
        let setup = try monkeySetup(adjust: { $0[1].installedApps.append("com.example.ghost") })
        #expect(throws: HandoffError.unknownApp("com.example.ghost")) { try HandoffRun(setup: setup, seed: 1) }
    }

    @Test("two apps with one bundle ID are refused")
    func duplicateApps() throws {
        let setup = try monkeySetup(apps: [monkeyBrowserApp(), monkeyBrowserApp(team: "OTHERTEAM1")])
        #expect(throws: HandoffError.duplicateApp(monkeyBrowserID)) { try HandoffRun(setup: setup, seed: 1) }
    }

    @Test("an acceptance policy for a device that does not exist is refused")
    func acceptanceForUnknownDevice() throws {
        var configuration = HandoffConfiguration()
        configuration.acceptance = ["ipda": .after(.seconds(1))]
        #expect(throws: HandoffError.unknownDevice("ipda")) {
            try HandoffRun(setup: monkeySetup(configuration: configuration), seed: 1)
        }
    }

    @Test("invalid protocol settings are refused, naming the setting",
          arguments: ["fetchTimeout", "userInfoLimit", "browserLaunch", "acceptance"])
    func invalidConfiguration(setting: String) throws {
        var configuration = HandoffConfiguration()
        switch setting {
        case "fetchTimeout": configuration.fetchTimeout = .zero
        case "userInfoLimit": configuration.userInfoLimit = -1
        case "browserLaunch": configuration.browserLaunch = .fixed(.nanoseconds(-1))
        default: configuration.defaultAcceptance = .thinkTime(meanSeconds: 0, standardDeviationSeconds: 1)
        }
        let error = #expect(throws: HandoffError.self) { try configuration.validate() }
        guard case let .invalidParameter(name, _, _)? = error else {
            Issue.record("expected invalidParameter, got \(String(describing: error))")
            return
        }
        #expect(name == setting)
    }

    @Test("an action for a device or activity that does not exist, or in the past, is refused")
    func badActions() throws {
        let run = try HandoffRun(setup: monkeySetup(), seed: 1)
        #expect(throws: HandoffError.unknownDevice("ipod")) { try run.schedule(.accept(device: "ipod"), at: .zero) }
        #expect(throws: HandoffError.self) { try run.schedule(.becomeCurrent(ActivityID(3)), at: .zero) }
        let tab = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(tab), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: at(2))
        run.run(until: at(2))
        #expect(run.now == at(2))
        #expect(throws: HandoffError.self) { try run.schedule(.invalidate(tab), at: at(1)) }
    }
}
