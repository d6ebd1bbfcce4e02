import Handoff
import HandoffWorld
import SimKernel
import Testing

/// The examples of the protocol in README.md and docs/library.md, as
/// written there.
@Suite("Handoff documentation example")
struct HandoffDocumentationExampleTests {
    @Test("the library guide's MonkeyBrowser example continues the tab on the iPad")
    func readmeExample() throws {
        let (browser, setup) = try Self.guideSetup()
        let run = try HandoffRun(setup: setup, seed: 42)
        let tab = try run.createActivity(
            ActivityContent(type: "com.xamarin.monkeybrowser.tab1", title: "Weather",
                            userInfo: ["Url": "https://www.weather.com"]),
            on: "iphone", app: browser.bundleID)
        try run.schedule(.becomeCurrent(tab), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: SimInstant(nanosecondsSinceStart: 5_000_000_000))
        run.run(until: SimInstant(nanosecondsSinceStart: 60_000_000_000))
        let summary = try #require(run.summary(of: tab, on: "ipad"))
        #expect(summary.outcome == .continued)
        #expect(summary.acceptToContinue != nil && summary.acceptToRestored != nil)
        #expect(run.trace.contains { $0.event == "userActivityWasContinued" })
    }

    /// The README's app controller ("Run your own app code against
    /// simulated devices").
    final class TabController: HandoffAppDelegate {
        var openedURL: String?
        func continueUserActivity(_ activity: ContinuedActivity, context: inout ContinueContext) -> Bool {
            guard case let .string(url)? = activity.userInfo["Url"] else { return false }
            openedURL = url                    // your code
            context.charge(.milliseconds(20))  // what it costs in simulated time
            context.restore(["tab"])           // then restoreUserActivityState is called
            return true
        }
    }

    @Test("the README's app-delegate example continues the tab in the app's own controller")
    func readmeAppDelegateExample() throws {
        var controllers: [String: TabController] = [:]
        let browser = try AppDescription(
            bundleID: "com.example.browser", teamID: TeamID("ABCDE12345"), activityTypes: ["com.example.browser.tab"])
        let setup = HandoffSetup(
            devices: [
                DeviceDescription(name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                                  installedApps: [browser.bundleID]),
                DeviceDescription(name: "ipad", kind: .iPad, osVersion: OSVersion(17, 4), account: "alice",
                                  installedApps: [browser.bundleID], mobility: .stationary(Position(x: 2, y: 0))),
            ],
            apps: [browser])
        let run = try HandoffRun(setup: setup, seed: 1, appDelegates: { device, app in
            let controller = TabController()
            controllers[device] = controller
            return controller
        })
        let tab = try run.createActivity(
            ActivityContent(type: "com.example.browser.tab", title: "Weather", userInfo: ["Url": "https://www.weather.com"]),
            on: "iphone", app: browser.bundleID)
        try run.schedule(.becomeCurrent(tab), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: SimInstant(nanosecondsSinceStart: 5_000_000_000))
        run.run(until: SimInstant(nanosecondsSinceStart: 60_000_000_000))
        let summary = try #require(run.summary(of: tab, on: "ipad"))
        #expect("\(summary.outcome)" == "continued")
        #expect(controllers["ipad"]?.openedURL == "https://www.weather.com")
        #expect(run.trace.contains { $0.device == "ipad" && $0.event == "restoreUserActivityState" })
    }

    @Test("the library guide's reset loop continues every one of 1,000 trials")
    func resetLoopExample() throws {
        let (browser, setup) = try Self.guideSetup()
        let run = try HandoffRun(setup: setup, seed: 42)
        let content = ActivityContent(type: "com.xamarin.monkeybrowser.tab1", title: "Weather",
                                      userInfo: ["Url": "https://www.weather.com"])
        var continued = 0
        for trial in 0..<1_000 {
            run.reset(seed: 42, trial: trial)
            let tab = try run.createActivity(content, on: "iphone", app: browser.bundleID)
            try run.schedule(.becomeCurrent(tab), at: .zero)
            try run.schedule(.accept(device: "ipad"), at: SimInstant(nanosecondsSinceStart: 5_000_000_000))
            run.run(until: SimInstant(nanosecondsSinceStart: 60_000_000_000))
            if run.summary(of: tab, on: "ipad")?.outcome == .continued { continued += 1 }
        }
        #expect(continued == 1_000)
    }

    /// The MonkeyBrowser setup of the library guide's first example, which
    /// its later examples reuse.
    static func guideSetup() throws -> (AppDescription, HandoffSetup) {
        let browser = try AppDescription(
            bundleID: "com.xamarin.monkeybrowser", teamID: TeamID("XAMARIN123"),
            activityTypes: ["com.xamarin.monkeybrowser.tab1"])
        let setup = HandoffSetup(
            devices: [
                DeviceDescription(name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                                  installedApps: [browser.bundleID]),
                DeviceDescription(name: "ipad", kind: .iPad, osVersion: OSVersion(17, 4), account: "alice",
                                  installedApps: [browser.bundleID], mobility: .stationary(Position(x: 2, y: 0))),
            ],
            apps: [browser])
        return (browser, setup)
    }
}
