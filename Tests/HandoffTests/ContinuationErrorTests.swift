import Handoff
import HandoffWorld
import SimKernel
import Testing

/// Each NSUserActivity error code, produced by a realistic cause.
@Suite("Continuation errors")
struct ContinuationErrorTests {
    /// The events on the iPad from `willContinueUserActivity` on.
    func tail(_ run: HandoffRun) -> [TraceEvent.Name] {
        let events = callbackOrder(run.trace, on: "ipad")
        guard let start = events.firstIndex(of: .willContinueUserActivity) else { return events }
        return Array(events[start...])
    }

    @Test("4608: the source invalidates the activity while the iPad fetches; the source refuses the request")
    func invalidatedSource() throws {
        // The fetch starts at the accept; the request reaches the source
        // after the resolve, Pair-Verify and _systemInfo, well after 50 ms.
        let (run, activity) = try runTab(setup: monkeySetup(), actions: [(acceptTime + 0.05, { .invalidate($0) })])
        #expect(run.violations.isEmpty)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.handoffFailed))
        #expect(tail(run) == [.willContinueUserActivity, .fail, .didFailToContinueUserActivity])
        // Nothing reaches the source's delegate after invalidate: the
        // request is refused without it.
        let source = callbackOrder(run.trace, on: "iphone")
        #expect(Array(source.suffix(2)) == [.invalidate, .fetchRefused])
    }

    @Test("4608: the source signs out of iCloud before the fetch")
    func sourceSignedOut() throws {
        let (run, activity) = try runTab(
            setup: monkeySetup(), actions: [(acceptTime + 0.1, { _ in .setAccount(device: "iphone", nil) })])
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.handoffFailed))
    }

    // sharingd (SDActivityPayloadManager): Rapport's request times out
    // after min(t, 5 s); "if Rapport finds no device" the request can go
    // over IDS. Without the fallback, a source never found is 4609.
    @Test("4609: Wi-Fi goes off on the source, no cloud fallback: Rapport finds no device within min(t, 5 s)")
    func noConnection() throws {
        var setup = try monkeySetup()
        setup.configuration.rapport.cloudFallback = false
        let (run, activity) = try runTab(
            setup: setup,
            actions: [(acceptTime - 0.1, { _ in .setSettings(device: "iphone", DeviceSettings(wifiEnabled: false)) })])
        let summary = try #require(run.summary(of: activity, on: "ipad"))
        #expect(summary.outcome == .failed(.connectionUnavailable))
        #expect(tail(run) == [.willContinueUserActivity, .fail, .didFailToContinueUserActivity])
        // The mDNS query is repeated after 1 s and 2 s (RFC 6762), then Rapport gives up at 5 s.
        #expect(systemSteps(run.trace, on: "ipad") == [
            .fetch, .resolve, .resolve, .resolve, .rapportTimedOut, .fetchFailed,
        ])
        let failure = try #require(run.trace.first { $0.name == .fail })
        #expect(failure.time == at(fetchTime) + .seconds(5))
    }

    @Test("4610 with the cloud fallback: Wi-Fi off on the source, the cloud unreachable, the payload timer fails at t + 1 s")
    func noPathInTime() throws {
        let (run, activity) = try runTab(
            setup: monkeySetup(),
            actions: [(acceptTime - 0.1, { _ in .setSettings(device: "iphone", DeviceSettings(wifiEnabled: false)) })])
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.remoteApplicationTimedOut))
        let steps = systemSteps(run.trace, on: "ipad")
        #expect(steps.contains(.rapportTimedOut) && steps.contains(.fetchOverCloud))
        let failure = try #require(run.trace.first { $0.name == .fail })
        let configuration = HandoffConfiguration()
        #expect(failure.time == at(fetchTime) + configuration.fetchTimeout + configuration.payloadTimerExtra)
    }

    // UserActivity's defaults: the system waits at most 1.0 s for the app
    // to update the activity before it sends a (possibly stale) payload.
    @Test("save wait: a userActivityWillSave slower than 1 s misses the payload, which leaves after 1 s as it was")
    func slowSource() throws {
        var content = tabActivity(0)
        content.needsSave = true
        let slow = ScriptedApp(behaviour: AppBehaviour(saveTime: .seconds(15), saveEntries: ["Scroll": 512]))
        var setup = try monkeySetup()
        setup.configuration.sourceSaveTime = .fixed(.zero)
        let (run, activity) = try runTab(setup: setup, content: content, activityDelegate: slow)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
        let save = try #require(run.trace.first { $0.name == .save })
        let send = try #require(run.trace.first { $0.name == .sendPayload })
        #expect(send.time - save.time == .seconds(1) + encodeTime(of: send))
        #expect(systemSteps(run.trace, on: "iphone").contains(.saveWaitOver))
        // The source still saved, but the payload went without the update.
        #expect(callbackOrder(run.trace, on: "iphone").contains(.userActivityWillSave))
        #expect(run.content(of: activity).userInfo["Scroll"] == 512)
    }

    @Test("4611: userInfo over the configured limit")
    func payloadTooLarge() throws {
        var content = tabActivity(0)
        content.payloadSize = 100 * 1024
        let (run, activity) = try runTab(setup: monkeySetup(), content: content)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.handoffUserInfoTooLarge))
        let refusal = try #require(run.trace.first { $0.name == .fetchRefused })
        #expect(refusal.event == .system(.fetchRefused(.tooLarge(
            size: 100 * 1024, limit: HandoffConfiguration().userInfoLimit))))
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
        let refusal = try #require(run.trace.first { $0.name == .fetchRefused })
        #expect(refusal.event == .system(.fetchRefused(.missingKeys(["ScrollPosition"]))))
    }

    @Test("error codes keep Foundation's numbers")
    func codes() {
        #expect(ContinuationError.handoffFailed.code == 4608)
        #expect(ContinuationError.connectionUnavailable.code == 4609)
        #expect(ContinuationError.remoteApplicationTimedOut.code == 4610)
        #expect(ContinuationError.handoffUserInfoTooLarge.code == 4611)
    }
}
