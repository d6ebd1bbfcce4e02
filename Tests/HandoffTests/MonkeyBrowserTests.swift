import Handoff
import HandoffWorld
import SimKernel
import Testing

/// The reference article's MonkeyBrowser sample, end to end.
@Suite("MonkeyBrowser sample")
struct MonkeyBrowserTests {
    /// A receiving controller that opens the URL from `userInfo` in the tab
    /// the activity type names, as the sample's view controllers do.
    final class TabController: HandoffAppDelegate {
        /// One of the sample's tab view controllers.
        final class Tab: Restorable {
            let restorationIdentifier: String
            private(set) var restoredURLs: [String] = []
            init(_ name: String) { restorationIdentifier = name }
            func restoreUserActivityState(_ activity: ContinuedActivity, context: inout CallbackContext) {
                if case let .string(url)? = activity.userInfo["Url"] { restoredURLs.append(url) }
            }
        }

        var preparing: [String] = []
        var shownURL: [String: String] = [:]
        let tabs = (1...4).map { Tab("tab\($0)") }
        var restored: [String] { tabs.filter { !$0.restoredURLs.isEmpty }.map(\.restorationIdentifier) }

        func application(willContinueUserActivityWithType type: String, context: inout CallbackContext) -> Bool {
            preparing.append(type)
            return true
        }

        func application(continue activity: ContinuedActivity, context: inout ContinueContext) -> Bool {
            guard let tab = monkeyTabs.firstIndex(where: { $0.type == activity.activityType }),
                case let .string(url)? = activity.userInfo["Url"]
            else { return false }
            shownURL["tab\(tab + 1)"] = url
            context.charge(.milliseconds(15))
            context.restore([tabs[tab]])
            return true
        }

        func application(
            didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext
        ) {}
    }

    @Test("each of the four tabs continues on the iPad with the same URL", arguments: 0..<4)
    func everyTabContinues(tab: Int) throws {
        let controller = TabController()
        let (run, activity) = try runTab(tab, setup: monkeySetup(), delegates: { _, _ in .application(controller) })
        #expect(run.violations.isEmpty)
        let summary = try #require(run.summary(of: activity, on: "ipad"))
        #expect(summary.outcome == .continued)
        #expect(controller.preparing == [monkeyTabs[tab].type])
        #expect(controller.shownURL == ["tab\(tab + 1)": monkeyTabs[tab].url])
        #expect(controller.restored == ["tab\(tab + 1)"])
        #expect(run.content(of: activity).title == monkeyTabs[tab].title)
        let restored = try #require(summary[.acceptToRestored])
        let continued = try #require(summary[.acceptToContinue])
        // Restoration follows `continue` by exactly the 15 ms the controller charged.
        #expect(restored - continued == .milliseconds(15))
    }

    @Test("the callbacks come in Apple's order on each device")
    func callbackOrderOnEachDevice() throws {
        let (run, _) = try runTab(0, setup: monkeySetup())
        #expect(callbackOrder(run.trace, on: "ipad") == [
            .discover, .offer, .accept, .launch, .willContinue, .willContinueUserActivity, .`continue`,
            .continueUserActivity, .restore, .restoreUserActivityState,
        ])
        #expect(callbackOrder(run.trace, on: "iphone") == [
            .becomeCurrent, .save, .sendPayload, .continued, .userActivityWasContinued,
        ])
    }
}


/// Reusing one run for many trials gives exactly what fresh runs give.
@Suite("Trial reuse")
struct TrialReuseTests {
    @Test("a run reset to trial k equals a new run of trial k, trace for trace")
    func resetEqualsFresh() throws {
        var configuration = HandoffConfiguration()
        configuration.defaultAcceptance = .thinkTime(meanSeconds: 1, standardDeviationSeconds: 0.5)
        let setup = try monkeySetup(configuration: configuration)
        let reused = try HandoffRun(setup: setup, seed: 77)
        for trial in [0, 1, 2, 5, 1] {
            reused.reset(seed: 77, trial: trial)
            let fresh = try HandoffRun(setup: setup, seed: 77, trial: trial)
            for target in [reused, fresh] {
                let tab = try target.createActivity(tabActivity(trial % 4), on: "iphone", app: monkeyBrowserID)
                try target.schedule(.becomeCurrent(tab), at: .zero)
                target.run(until: at(60))
            }
            #expect(reused.trace == fresh.trace, "trial \(trial)")
            #expect(reused.handledEventCount == fresh.handledEventCount)
            #expect(reused.summary(of: ActivityID(0), on: "ipad") == fresh.summary(of: ActivityID(0), on: "ipad"))
            #expect(reused.summary(of: ActivityID(0), on: "ipad")?.outcome == .continued)
        }
    }

    @Test("a factory's app delegates are made again every trial, unless they keep no state; the trials are the same either way")
    func factoryDelegatesAcrossResets() throws {
        final class Counting: @unchecked Sendable {
            var made: [String] = []
        }
        var configuration = HandoffConfiguration()
        configuration.defaultAcceptance = .thinkTime(meanSeconds: 1, standardDeviationSeconds: 0.5)
        let setup = try monkeySetup(configuration: configuration)
        for lifetime in [AppDelegateLifetime.trial, .run] {
            let counting = Counting()
            let run = try HandoffRun(
                setup: setup, seed: 9,
                appDelegates: { device, app in
                    counting.made.append("\(device)/\(app.bundleID)")
                    return .application(ScriptedApp())
                },
                appDelegateLifetime: lifetime)
            var summaries: [ContinuationSummary?] = []
            for trial in 0..<3 {
                run.reset(seed: 9, trial: trial)
                let tab = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
                try run.schedule(.becomeCurrent(tab), at: .zero)
                run.run(until: at(60))
                summaries.append(run.summary(of: tab, on: "ipad"))
                #expect(run.summaries().first { $0.device == "ipad" } == summaries.last!)
            }
            #expect(summaries.allSatisfy { $0?.outcome == .continued })
            // The receiving app's delegate on the iPad is asked for once
            // per trial, or once in all.
            #expect(counting.made == Array(repeating: "ipad/\(monkeyBrowserID)", count: lifetime == .run ? 1 : 3))
        }
    }
}
