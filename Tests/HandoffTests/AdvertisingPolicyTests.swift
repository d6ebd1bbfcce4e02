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

    func times(_ event: TraceEvent.Name, in run: HandoffRun) -> [SimInstant] {
        run.trace.filter { $0.name == event }.map(\.time)
    }

    // UserActivity agent: "LowPowerMode is enabled so no activity will be advertised".
    @Test("Low Power Mode: nothing is advertised; when it goes off, the current activity is advertised again")
    func lowPowerMode() throws {
        var setup = try monkeySetup()
        setup.devices[0].settings.lowPowerMode = true
        let (stays, activity) = try run(settings: [], acceptAt: 10, setup: setup)
        #expect(stays.trace.contains { $0.event == .system(.notAdvertised(.lowPowerMode)) })
        #expect(!stays.trace.contains { $0.name == .offer })
        #expect(stays.summary(of: activity, on: "ipad")?.outcome != .continued)

        let (resumes, again) = try run(settings: [(5, DeviceSettings(lowPowerMode: false))], acceptAt: 10, setup: setup)
        #expect(times(.advertisingAgain, in: resumes) == [at(5)])
        let offer = try #require(times(.offer, in: resumes).first)
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
        #expect(times(.advertisementRemoved, in: run) == [at(4 + delay)])
    }

    @Test("unlocking before the removal keeps the advertisement")
    func unlockCancelsRemoval() throws {
        let (run, activity) = try run(
            settings: [(4, DeviceSettings(screen: .locked)), (9, DeviceSettings())], acceptAt: 20)
        #expect(times(.advertisementRemoved, in: run).isEmpty)
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
            let withdraw = try #require(run.trace.first { $0.name == .withdraw })
            #expect(withdraw.time == at(15))
            #expect(withdraw.event == .transition(
                .continuation(from: .offered, event: .withdraw, to: .withdrawn), .advertisingEnded(ago: .seconds(10))))
        }
    }

    // UAUserActivityDefaults: advertisement updates at least 0.5 s apart, at
    // most 5 in 10 s, and an advertisement lives at least 3 s.
    @Test("an update waits for the advertisement's 3 s minimum life; only the latest current activity goes out")
    func minimumLife() throws {
        let run = try HandoffRun(setup: monkeySetup(), seed: 3)
        var tabs: [ActivityID] = []
        for tab in 0..<4 {
            let id = try run.createActivity(tabActivity(tab), on: "iphone", app: monkeyBrowserID)
            try run.schedule(.becomeCurrent(id), at: at(0.1 * Double(tab)))
            tabs.append(id)
        }
        try run.schedule(.accept(device: "ipad"), at: at(8))
        run.run(until: at(20))
        let paced = run.trace.filter { $0.name == .advertisementPaced }
        #expect(paced.map(\.event) == Array(repeating: .system(.advertisementPaced(until: at(3))), count: 3))
        // Tab 4, current since 0.3 s, is first advertised at 3 s.
        #expect(try #require(run.summary(of: tabs[3], on: "ipad")?.outcome) == .continued)
        let offer = try #require(run.trace.first { $0.name == .offer && $0.activity?.id == tabs[3] })
        #expect(offer.time >= at(3))
    }

    @Test("updates: at least 0.5 s apart, and the sixth in 10 s waits for the first to be 10 s old")
    func updatePacing() throws {
        var setup = try monkeySetup()
        setup.configuration.advertising.minimumLife = .zero
        let run = try HandoffRun(setup: setup, seed: 3)
        let first = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        let second = try run.createActivity(tabActivity(1), on: "iphone", app: monkeyBrowserID)
        // Six updates 0.6 s apart, then one 0.2 s after the last.
        for index in 0..<6 {
            try run.schedule(.becomeCurrent(index % 2 == 0 ? first : second), at: at(0.6 * Double(index)))
        }
        try run.schedule(.becomeCurrent(first), at: at(3.2))
        try run.schedule(.accept(device: "ipad"), at: at(15))
        run.run(until: at(30))
        let paced = run.trace.filter { $0.name == .advertisementPaced }.map { ($0.time, $0.event) }
        #expect(paced.map(\.0) == [at(3), at(3.2)])
        #expect(paced.map(\.1) == Array(repeating: .system(.advertisementPaced(until: at(10))), count: 2))
    }

    @Test("an update 0.2 s after the last waits until 0.5 s after it")
    func minimumInterval() throws {
        var setup = try monkeySetup()
        setup.configuration.advertising.minimumLife = .zero
        let run = try HandoffRun(setup: setup, seed: 3)
        let first = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        let second = try run.createActivity(tabActivity(1), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(first), at: at(1))
        try run.schedule(.becomeCurrent(second), at: at(1.2))
        try run.schedule(.accept(device: "ipad"), at: at(6))
        run.run(until: at(20))
        let paced = run.trace.filter { $0.name == .advertisementPaced }.map(\.event)
        #expect(paced == [.system(.advertisementPaced(until: at(1.5)))])
        #expect(run.summary(of: second, on: "ipad")?.outcome == .continued)
    }
}
