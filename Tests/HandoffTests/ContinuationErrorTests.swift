import Handoff
import HandoffWorld
import SimKernel
import Testing

/// Each NSUserActivity error code, produced by a realistic cause.
@Suite("Continuation errors")
struct ContinuationErrorTests {
    /// The events on the iPad from `willContinueUserActivity` on.
    func tail(_ run: HandoffRun) -> [String] {
        let events = callbackOrder(run.trace, on: "ipad")
        guard let start = events.firstIndex(of: "willContinueUserActivity") else { return events }
        return Array(events[start...])
    }

    @Test("4608: the source invalidates the activity between accept and fetch")
    func invalidatedSource() throws {
        // The cold launch ends 0.4 s after the accept, when the fetch starts.
        let (run, activity) = try runTab(setup: monkeySetup(), actions: [(acceptTime + 0.1, { .invalidate($0) })])
        #expect(run.violations.isEmpty)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.handoffFailed))
        #expect(tail(run) == ["willContinueUserActivity", "fetch", "fail", "didFailToContinueUserActivity"])
        // Nothing reaches the source's delegate after invalidate.
        let source = callbackOrder(run.trace, on: "iphone")
        #expect(source.last == "invalidate")
    }

    @Test("4608: the source signs out of iCloud before the fetch")
    func sourceSignedOut() throws {
        let (run, activity) = try runTab(
            setup: monkeySetup(), actions: [(acceptTime + 0.1, { _ in .setAccount(device: "iphone", nil) })])
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.handoffFailed))
    }

    @Test("4609: Wi-Fi goes off on the source after the offer, so no connection can be set up")
    func noConnection() throws {
        let (run, activity) = try runTab(
            setup: monkeySetup(),
            actions: [(acceptTime - 0.1, { _ in .setSettings(device: "iphone", DeviceSettings(wifiEnabled: false)) })])
        let summary = try #require(run.summary(of: activity, on: "ipad"))
        #expect(summary.outcome == .failed(.connectionUnavailable))
        #expect(tail(run) == ["willContinueUserActivity", "fetch", "fail", "didFailToContinueUserActivity"])
        // Setup retries at 1, 2 and 4 s after the first request, then gives up: 7 s after the fetch.
        let failure = try #require(run.trace.first { $0.event == "fail" })
        #expect(failure.time == at(fetchTime) + .seconds(7))
    }

    @Test("4610: userActivityWillSave takes longer than the fetch timeout")
    func slowSource() throws {
        var content = tabActivity(0)
        content.needsSave = true
        let slow = ScriptedApp(behaviour: AppBehaviour(saveTime: .seconds(15)))
        let (run, activity) = try runTab(setup: monkeySetup(), content: content, activityDelegate: slow)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.remoteApplicationTimedOut))
        let failure = try #require(run.trace.first { $0.event == "fail" })
        #expect(failure.time == at(fetchTime) + HandoffConfiguration().fetchTimeout)
        // The source still saved, and its late payload changed nothing.
        #expect(callbackOrder(run.trace, on: "iphone").contains("userActivityWillSave"))
        #expect(!callbackOrder(run.trace, on: "ipad").contains("continueUserActivity"))
    }

    @Test("4611: userInfo over the configured limit")
    func payloadTooLarge() throws {
        var content = tabActivity(0)
        content.payloadSize = 100 * 1024
        let (run, activity) = try runTab(setup: monkeySetup(), content: content)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.handoffUserInfoTooLarge))
        let refusal = try #require(run.trace.first { $0.event == "fetch refused" })
        #expect(refusal.detail.contains("102400 bytes"))
    }

    @Test("a payload exactly at the limit is sent")
    func payloadAtLimit() throws {
        var content = tabActivity(0)
        content.payloadSize = HandoffConfiguration().userInfoLimit
        let (run, activity) = try runTab(setup: monkeySetup(), content: content)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    @Test("4608: a required userInfo key is missing when the source saves")
    func missingRequiredKey() throws {
        var content = tabActivity(0)
        content.requiredUserInfoKeys = ["Url", "ScrollPosition"]
        let (run, activity) = try runTab(setup: monkeySetup(), content: content)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.handoffFailed))
        let refusal = try #require(run.trace.first { $0.event == "fetch refused" })
        #expect(refusal.detail.contains("ScrollPosition"))
    }

    @Test("error codes keep Foundation's numbers")
    func codes() {
        #expect(ContinuationError.handoffFailed.code == 4608)
        #expect(ContinuationError.connectionUnavailable.code == 4609)
        #expect(ContinuationError.remoteApplicationTimedOut.code == 4610)
        #expect(ContinuationError.handoffUserInfoTooLarge.code == 4611)
    }
}
