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
        try run.schedule(.accept(device: "ipad"), at: .seconds(5))
        run.run(until: .seconds(60))
        let summary = try #require(run.summary(of: tab, on: "ipad"))
        #expect(summary.outcome == .continued)
        #expect(summary[.acceptToContinue] != nil && summary[.acceptToRestored] != nil)
        #expect(run.trace.contains { $0.name == .userActivityWasContinued })
    }

    /// A scene delegate whose restoration object shows the page.
    final class WebView: Restorable {
        let restorationIdentifier = "webView"
        var shownURL: String?
        func restoreUserActivityState(_ activity: ContinuedActivity, context: inout CallbackContext) {
            if case let .string(url)? = activity.userInfo["Url"] { shownURL = url }
        }
    }

    final class TabScene: HandoffSceneDelegate {
        let webView = WebView()
        func scene(willContinueUserActivityWithType type: String, context: inout CallbackContext) {}
        func scene(continue activity: ContinuedActivity, context: inout ContinueContext) {
            context.charge(.milliseconds(20))  // what your code costs in simulated time
            context.restore([webView])         // then webView.restoreUserActivityState is called
        }
        func scene(didFailToContinueUserActivityWithType type: String, error: ContinuationError,
                   context: inout CallbackContext) {}
        func scene(didUpdate activity: inout ActivityContent, context: inout CallbackContext) {}
    }

    /// The library guide's app-delegate controller.
    final class TabController: HandoffAppDelegate {
        var openedURL: String?
        let tab = RestorableObject("tab")
        func application(willContinueUserActivityWithType type: String, context: inout CallbackContext) -> Bool {
            false                              // the system shows its own progress
        }
        func application(continue activity: ContinuedActivity, context: inout ContinueContext) -> Bool {
            guard case let .string(url)? = activity.userInfo["Url"] else { return false }
            openedURL = url                    // your code
            context.charge(.milliseconds(20))  // what it costs in simulated time
            context.restore([tab])             // then tab.restoreUserActivityState is called
            return true
        }
        func application(didFailToContinueUserActivityWithType type: String, error: ContinuationError,
                         context: inout CallbackContext) {}
    }

    @Test("a scene delegate restores the tab in the app's own web view, 20 ms after continue")
    func readmeSceneDelegateExample() throws {
        var scenes: [String: TabScene] = [:]
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
            let scene = TabScene()
            scenes[device] = scene
            return .scene(scene)
        })
        let tab = try run.createActivity(
            ActivityContent(type: "com.example.browser.tab", title: "Weather", userInfo: ["Url": "https://www.weather.com"]),
            on: "iphone", app: browser.bundleID)
        try run.schedule(.becomeCurrent(tab), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: .seconds(5))
        run.run(until: .seconds(60))
        let summary = try #require(run.summary(of: tab, on: "ipad"))
        #expect("\(summary.outcome)" == "continued")
        #expect(scenes["ipad"]?.webView.shownURL == "https://www.weather.com")
        #expect(run.trace.contains { $0.device.name == "ipad" && $0.event == .callback(.restoreUserActivityState("webView")) })
        // 20 ms charged by continue, then the restoration.
        #expect(summary[.acceptToRestored].map { $0 - (summary[.acceptToContinue] ?? .zero) } == .milliseconds(20))
    }

    @Test("the library guide's app-delegate controller continues the tab")
    func libraryAppDelegateExample() throws {
        let setup = try monkeySetup()
        let controller = TabController()
        let (run, activity) = try runTab(0, setup: setup, delegates: { _, _ in .application(controller) })
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
        #expect(controller.openedURL == monkeyTabs[0].url)
        #expect(controller.tab.restorations == 1)
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
            try run.schedule(.accept(device: "ipad"), at: .seconds(5))
            run.run(until: .seconds(60))
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
