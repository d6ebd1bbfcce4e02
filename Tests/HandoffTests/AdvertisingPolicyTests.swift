import Handoff
import HandoffWorld
import SimKernel
import Testing

/// When the source advertises and takes its advertisement away, each rule
/// with its source.
@Suite("Advertising policy")
struct AdvertisingPolicyTests {
    /// A MonkeyBrowser tab current on the iPhone at 0, `actions` on the
    /// iPhone's settings at their times, an accept on the iPad at
    /// `acceptAt`.
    func run(
        settings: [(Double, DeviceSettings)], acceptAt: Double = 30, setup: HandoffSetup? = nil,
        resign: Double? = nil
    ) throws -> (HandoffRun, ActivityID) {
        let run = try HandoffRun(setup: setup ?? monkeySetup(), seed: 3)
        let activity = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(activity), at: .zero)
        for (time, value) in settings { try run.schedule(.setSettings(device: "iphone", value), at: at(time)) }
        if let resign { try run.schedule(.resignCurrent(activity), at: at(resign)) }
        try run.schedule(.accept(device: "ipad"), at: at(acceptAt))
        run.run(until: at(acceptAt + 30))
        return (run, activity)
    }

    func times(_ event: String, in run: HandoffRun) -> [SimInstant] {
        run.trace.filter { $0.event == event }.map(\.time)
    }

    // UserActivity agent: "LowPowerMode is enabled so no activity will be advertised".
    @Test("Low Power Mode: nothing is advertised; when it goes off, the current activity is advertised again")
    func lowPowerMode() throws {
        var setup = try monkeySetup()
        setup.devices[0].settings.lowPowerMode = true
        let (stays, activity) = try run(settings: [], acceptAt: 10, setup: setup)
        #expect(stays.trace.contains { $0.event == "not advertised" && $0.detail == "Low Power Mode" })
        #expect(!stays.trace.contains { $0.event == "offer" })
        #expect(stays.summary(of: activity, on: "ipad")?.outcome != .continued)

        let (resumes, again) = try run(settings: [(5, DeviceSettings(lowPowerMode: false))], acceptAt: 10, setup: setup)
        #expect(times("advertising again", in: resumes) == [at(5)])
        let offer = try #require(times("offer", in: resumes).first)
        #expect(offer > at(5))
        #expect(resumes.summary(of: again, on: "ipad")?.outcome == .continued)
    }

    // UAUserActivityDefaults: the advertisement is removed 8 s after the
    // device locks, 10 s after the screen dims, 3 s after the system goes idle.
    @Test("the advertisement is removed 8 s after a lock, 10 s after the screen dims, 3 s after going idle",
          arguments: [("lock", 8.0), ("dim", 10.0), ("idle", 3.0)])
    func removal(change: String, delay: Double) throws {
        let state: DeviceSettings
        switch change {
        case "lock": state = DeviceSettings(screen: .locked)
        case "dim": state = DeviceSettings(screen: .off)
        default: state = DeviceSettings(idle: true)
        }
        let (run, _) = try run(settings: [(4, state)], acceptAt: 40)
        #expect(times("advertisement removed", in: run) == [at(4 + delay)])
    }

    @Test("unlocking before the removal keeps the advertisement")
    func unlockCancelsRemoval() throws {
        let (run, activity) = try run(
            settings: [(4, DeviceSettings(screen: .locked)), (9, DeviceSettings())], acceptAt: 20)
        #expect(times("advertisement removed", in: run).isEmpty)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    // UAUserActivityDefaults: an activity can still be resumed up to 10 s
    // after advertising ends.
    @Test("after advertising ends an offer can be accepted for 10 s; then it is withdrawn", arguments: [9.5, 10.5])
    func resumeWindow(after seconds: Double) throws {
        let (run, activity) = try run(settings: [], acceptAt: 5 + seconds, resign: 5)
        let outcome = run.summary(of: activity, on: "ipad")?.outcome
        if seconds < 10 {
            #expect(outcome == .continued)
        } else {
            #expect(outcome == .withdrawn)
            let withdraw = try #require(run.trace.first { $0.event == "withdraw" })
            #expect(withdraw.time == at(15))
            #expect(withdraw.detail == "advertising ended 10s ago")
        }
    }
}
