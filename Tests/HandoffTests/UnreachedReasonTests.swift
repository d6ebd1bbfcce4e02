import Handoff
import HandoffWorld
import SimKernel
import Testing

/// An activity every rule allows that never reached the iPad, with the
/// reason that must be reported: the source never advertised it (and why),
/// or it did and the iPad, in range, heard none of it before it stopped or
/// before the trial ended.
struct UnreachedCase: Sendable, CustomTestStringConvertible {
    let reason: NotOfferedReason
    /// Runs the trial; returns the run and the activity whose summary on
    /// the iPad must name `reason`.
    let run: @Sendable () throws -> (HandoffRun, ActivityID)
    var testDescription: String { reason.rawValue }
}

/// A run of the MonkeyBrowser setup (adjusted) with tabs 0 and 1 created on
/// the iPhone and `actions` scheduled; no one accepts, so the run settles
/// once the actions are done (or at `limit`).
private func tabsRun(
    adjust: (inout [DeviceDescription]) -> Void = { _ in }, limit: Double = 60,
    _ actions: (ActivityID, ActivityID) -> [(Double, HandoffAction)]
) throws -> (run: HandoffRun, tabs: (ActivityID, ActivityID)) {
    let run = try HandoffRun(setup: monkeySetup(adjust: adjust), seed: 1)
    let first = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
    let second = try run.createActivity(tabActivity(1), on: "iphone", app: monkeyBrowserID)
    for (time, action) in actions(first, second) { try run.schedule(action, at: at(time)) }
    run.run(until: at(limit))
    return (run, (first, second))
}

/// The iPad's Bluetooth off from the start and on again at `seconds`: it
/// hears nothing before then, though in range.
private func ipadBluetooth(onAt seconds: Double) -> [(Double, HandoffAction)] {
    [(0, .setSettings(device: "ipad", DeviceSettings(bluetoothEnabled: false))),
     (seconds, .setSettings(device: "ipad", DeviceSettings()))]
}

let unreachedCases: [UnreachedCase] = [
    UnreachedCase(reason: .sourceInLowPowerMode) {
        let result = try tabsRun(adjust: { $0[0].settings = DeviceSettings(lowPowerMode: true) }) { tab, _ in
            [(0, .becomeCurrent(tab))]
        }
        return (result.run, result.tabs.0)
    },
    UnreachedCase(reason: .sourceLocked) {
        let result = try tabsRun(adjust: {
            $0[0].osVersion = OSVersion(18, 3)
            $0[0].settings = DeviceSettings(screen: .locked)
        }) { tab, _ in [(0, .becomeCurrent(tab))] }
        return (result.run, result.tabs.0)
    },
    UnreachedCase(reason: .supersededWhilePaced) {
        // Tab 1's update waits for tab 0's advertisement to have lived its
        // minimum; tab 0 comes back before then.
        let result = try tabsRun { first, second in
            [(0, .becomeCurrent(first)), (1, .becomeCurrent(second)), (2, .becomeCurrent(first))]
        }
        return (result.run, result.tabs.1)
    },
    UnreachedCase(reason: .resignedWhilePaced) {
        let result = try tabsRun { first, second in
            [(0, .becomeCurrent(first)), (1, .becomeCurrent(second)), (2, .resignCurrent(second))]
        }
        return (result.run, result.tabs.1)
    },
    UnreachedCase(reason: .supersededBeforeReceived) {
        // Tab 0 is advertised while the iPad cannot hear; tab 1 replaces it
        // (after the minimum life) before the iPad's Bluetooth comes on.
        let result = try tabsRun { first, second in
            [(0, .becomeCurrent(first)), (3.5, .becomeCurrent(second))] + ipadBluetooth(onAt: 4)
        }
        return (result.run, result.tabs.0)
    },
    UnreachedCase(reason: .resignedBeforeReceived) {
        let result = try tabsRun { first, _ in
            [(0, .becomeCurrent(first)), (3.5, .resignCurrent(first))] + ipadBluetooth(onAt: 4)
        }
        return (result.run, result.tabs.0)
    },
    UnreachedCase(reason: .advertisementRemovedFirst) {
        // Low Power Mode removes the advertisement at once.
        let result = try tabsRun { first, _ in
            [(0, .becomeCurrent(first)), (2, .setSettings(device: "iphone", DeviceSettings(lowPowerMode: true)))]
                + ipadBluetooth(onAt: 4)
        }
        return (result.run, result.tabs.0)
    },
    UnreachedCase(reason: .trialEndedFirst) {
        // No one accepts and nothing else is scheduled: the run settles at
        // once, before the first advertisement, with the iPad 2 m away.
        let result = try tabsRun { first, _ in [(0, .becomeCurrent(first))] }
        return (result.run, result.tabs.0)
    },
    UnreachedCase(reason: .outOfRange) {
        // Advertised for as long as the source is in use, 200 m away.
        let result = try tabsRun(adjust: { $0[1].mobility = .stationary(Position(x: 200, y: 0)) }) { first, _ in
            [(0, .becomeCurrent(first)), (20, .resignCurrent(first))]
        }
        return (result.run, result.tabs.0)
    },
]

@Suite("Why an allowed activity never reached a device")
struct UnreachedReasonTests {
    @Test("each way of never reaching the device is named as what happened", arguments: unreachedCases)
    func reasonIsTheTrueOne(_ unreached: UnreachedCase) throws {
        let (run, activity) = try unreached.run()
        #expect(run.violations.isEmpty)
        let summary = try #require(run.summary(of: activity, on: "ipad"))
        #expect(summary.outcome == .notOffered(unreached.reason))
    }

    @Test("every reason of not being offered has words of its own")
    func reasonsHaveDistinctWords() {
        let words = NotOfferedReason.allCases.map(\.description)
        #expect(Set(words).count == words.count)
    }

    @Test("observed for a fixed time, a device whose user never accepts is offered the activity")
    func observedRunOffers() throws {
        let run = try HandoffRun(setup: monkeySetup(), seed: 1)
        let activity = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(activity), at: .zero)
        // Settling ends the run at once: nothing is under way.
        let settled = run.run(until: at(30))
        #expect(settled == .stopped)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .notOffered(.trialEndedFirst))

        let observed = try HandoffRun(setup: monkeySetup(), seed: 1)
        let again = try observed.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try observed.schedule(.becomeCurrent(again), at: .zero)
        #expect(observed.observe(until: at(30), maxEvents: .max) == .reachedTime)
        #expect(observed.summary(of: again, on: "ipad")?.outcome == .notAccepted)
    }
}
