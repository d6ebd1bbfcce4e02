// What an app team writes: its own controllers, plugged into simulated
// devices through the delegate protocols, using only the public API (one
// import, no @testable).
import Foundation
import HandoffSim
import Testing

/// The app's tab controller, as it would exist in the app: it keeps the
/// URL it shows and the scroll position, and restores them from a handed-off
/// activity. On the receiving iPhone it is the scene's delegate (the scene
/// lifecycle); on the source it is the activity's delegate.
final class BrowserTabController: HandoffSceneDelegate, UserActivityDelegate {
    /// The web view: what the restoration handler is given.
    final class WebView: Restorable {
        let restorationIdentifier = "webView"
        private(set) var restoredURL: String?
        func restoreUserActivityState(_ activity: ContinuedActivity, context: inout CallbackContext) {
            if case let .string(url)? = activity.userInfo["Url"] { restoredURL = url }
        }
    }

    private(set) var url: String
    private(set) var scrollOffset: Int64
    private(set) var log: [String] = []
    let webView = WebView()

    init(url: String = "about:blank", scrollOffset: Int64 = 0) {
        self.url = url
        self.scrollOffset = scrollOffset
    }

    // Receiving side.

    func scene(willContinueUserActivityWithType type: String, context: inout CallbackContext) {
        log.append("preparing \(type)")
    }

    func scene(continue activity: ContinuedActivity, context: inout ContinueContext) {
        guard case let .string(url)? = activity.userInfo["Url"] else { return }
        self.url = url
        if case let .integer(offset)? = activity.userInfo["Scroll"] { scrollOffset = offset }
        log.append("continued at \(url)")
        context.charge(.milliseconds(25))       // parsing and layout
        context.restore([webView], after: .milliseconds(10))
    }

    func scene(didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext) {
        log.append("failed \(error.code)")
    }

    func scene(didUpdate activity: inout ActivityContent, context: inout CallbackContext) {}

    // Source side: bring the activity up to date just before it is sent.

    func userActivityWillSave(_ activity: inout ActivityContent, context: inout CallbackContext) {
        activity.addUserInfoEntries(["Url": .string(url), "Scroll": .integer(scrollOffset)])
        context.charge(.milliseconds(3))
        log.append("saved")
    }

    func updateUserActivityState(_ activity: inout ActivityContent, responder: String, context: inout CallbackContext) {}

    func userActivityWasContinued(_ activity: ActivityContent, by device: String, context: inout CallbackContext) {
        log.append("continued by \(device)")
    }

    func userActivity(_ activity: ActivityContent, didReceiveStreamsFrom device: String, context: inout CallbackContext) {}

    func userActivity(
        _ activity: ActivityContent, respondToStreamRequest round: Int, requestBytes: Int, context: inout CallbackContext
    ) -> Int { 0 }
}

@Suite("An app's own controller in the simulation")
struct BrowserControllerTests {
    func setup() throws -> HandoffSetup {
        let app = try AppDescription(
            bundleID: "com.example.browser", teamID: TeamID("EXAMPLE123"), activityTypes: ["com.example.browser.tab"])
        return HandoffSetup(
            devices: [
                DeviceDescription(
                    name: "mac", kind: .mac, osVersion: OSVersion(14, 4), account: "dana@icloud.com",
                    installedApps: [app.bundleID]),
                DeviceDescription(
                    name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "dana@icloud.com",
                    installedApps: [app.bundleID], mobility: .stationary(Position(x: 1.5, y: 0))),
            ],
            apps: [app])
    }

    @Test("the controller's state moves from the Mac's controller to the iPhone's, in Apple's callback order")
    func stateMovesAcross() throws {
        let source = BrowserTabController(url: "https://example.com/article", scrollOffset: 1840)
        let receiver = BrowserTabController()
        // The iPhone's app runs in the scene lifecycle; the Mac's is an app-delegate app.
        let run = try HandoffRun(setup: setup(), seed: 11, appDelegates: { device, _ in
            device == "iphone" ? .scene(receiver) : .application(DefaultAppDelegate())
        })
        let tab = try run.createActivity(
            ActivityContent(type: "com.example.browser.tab", title: "Article", needsSave: true), on: "mac",
            app: "com.example.browser", delegate: source)
        try run.schedule(.becomeCurrent(tab), at: .zero)
        try run.schedule(.accept(device: "iphone"), at: .seconds(6))
        run.run(until: .seconds(60))

        #expect(run.violations.isEmpty)
        #expect(receiver.url == "https://example.com/article")
        #expect(receiver.scrollOffset == 1840)
        #expect(receiver.log == ["preparing com.example.browser.tab", "continued at https://example.com/article"])
        #expect(receiver.webView.restoredURL == "https://example.com/article")
        #expect(source.log == ["saved", "continued by iphone"])

        // The trace shows the same story with times: the restore comes the
        // 25 ms charged by continue plus the 10 ms restore delay later.
        let trace = run.trace
        let continued = try #require(trace.first { $0.event.name == .continueUserActivity })
        let restored = try #require(trace.first { $0.event.name == .restoreUserActivityState })
        #expect(continued.device.name == "iphone" && continued.app == .app(bundleID: "com.example.browser"))
        #expect(restored.time - continued.time == .milliseconds(35))
        #expect(trace.first { $0.event.name == .willContinueUserActivity }?.event == .callback(.willContinueUserActivity(.scene)))
        #expect(restored.event == .callback(.restoreUserActivityState("webView")))
        let summary = try #require(run.summary(of: tab, on: "iphone"))
        #expect(summary.outcome == .continued)
        #expect(summary[.acceptToRestored].map { $0 - (summary[.acceptToContinue] ?? .zero) } == .milliseconds(35))
    }

    @Test("the controller hears didFail when the Mac invalidates before the fetch")
    func controllerHearsFailure() throws {
        let receiver = BrowserTabController()
        let run = try HandoffRun(setup: setup(), seed: 11, appDelegates: { _, _ in .scene(receiver) })
        let tab = try run.createActivity(
            ActivityContent(type: "com.example.browser.tab", userInfo: ["Url": "https://example.com"]), on: "mac",
            app: "com.example.browser")
        try run.schedule(.becomeCurrent(tab), at: .zero)
        try run.schedule(.accept(device: "iphone"), at: .seconds(6))
        try run.schedule(.invalidate(tab), at: .milliseconds(6_100))
        run.run(until: .seconds(60))
        #expect(receiver.log == ["preparing com.example.browser.tab", "failed 4608"])
    }

    /// The delegates a runner made, from any of its threads.
    final class Made: @unchecked Sendable {
        private let lock = NSLock()
        private var scenes: [BrowserTabController] = []
        func add(_ scene: BrowserTabController) {
            lock.lock()
            scenes.append(scene)
            lock.unlock()
        }
        var all: [BrowserTabController] {
            lock.lock()
            defer { lock.unlock() }
            return scenes
        }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test("a shipped scenario file runs with the app's own scene delegate on the iPhone: the file's verdicts, the app's own code")
    func scenarioFileWithOwnDelegate() throws {
        let scenario = try ScenarioSuite.load(Self.root + "/scenarios/payload-3kib.json")
        let made = Made()
        let runner = ScenarioRunner(jobs: 2, appDelegates: { device, app in
            guard device == "iphone", app.bundleID == "com.example.notes" else { return nil }  // the Mac stays scripted
            let scene = BrowserTabController()
            made.add(scene)
            return .scene(scene)
        })
        let result = runner.run(scenario)
        #expect(result.failure == nil)
        #expect(result.passed, "\(result.expectations.map(\.measured))")
        #expect(result.expectations.count == 3)
        // Every trial made its own controller, which heard willContinue (the
        // file's activity carries no URL, so continue leaves the page as it is).
        #expect(made.all.count == scenario.trials)
        #expect(made.all.allSatisfy { $0.log == ["preparing com.example.notes.editing"] })
        // The same file through the command's code path with scripted apps gives the same
        // verdicts; the latencies differ only by what the apps charge.
        let scripted = ScenarioRunner(jobs: 2).run(scenario)
        #expect(scripted.expectations.map(\.passed) == result.expectations.map(\.passed))
    }

    @Test("a sweep runs with the app's own delegate: every point's trials continue through it")
    func sweepWithOwnDelegate() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.root + "/scenarios/payload-3kib.json")))
        let prepared = try SweepRunner.prepare(
            bytes, file: "payload-3kib.json", payloads: ["1KiB", "16KiB"], options: .init(trials: 40))
        let made = Made()
        let result = try SweepRunner(jobs: 2, appDelegates: { device, _ in
            guard device == "iphone" else { return nil }
            let scene = BrowserTabController()
            made.add(scene)
            return .scene(scene)
        }).run(prepared)
        #expect(result.points.map(\.payloadBytes) == [1024, 16_384])
        #expect(result.points.allSatisfy { $0.aggregate.continued == 40 })
        #expect(made.all.count == 80)
        // The 16 KiB point's fetch takes longer than the 1 KiB one's.
        let fetch = result.points.map { $0.aggregate[.fetch].value(atPercentile: 50) ?? .zero }
        #expect(fetch[1] > fetch[0])
    }
}
