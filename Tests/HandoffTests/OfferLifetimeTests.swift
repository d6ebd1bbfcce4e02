import Handoff
import HandoffWorld
import SimKernel
import Testing

/// How long an offer lives, each rule with its source or assumption: lost
/// devices and their grace, scans that stop, idle sources, locked iPhones
/// on iOS 18.3 or later, the active payload's periodic update, and
/// advertising keys through the cloud.
///
/// The MonkeyBrowser setup: the iPhone is the source at the origin, the
/// iPad 2 m away. At 2 m an advertisement is received with probability
/// 0.9999 (−68 dBm against −90 dBm, σ 6 dB), so a receiver that stays put
/// misses every advertisement of a 5 s grace (about 27 of them) with
/// probability below 10⁻⁹⁹: the checks that nothing is lost hold for any
/// seed. Receivers that leave go 200 m away, where the probability is
/// below 10⁻¹⁵ per advertisement.
@Suite("Offer lifetime")
struct OfferLifetimeTests {
    static let seeds: [UInt64] = [1, 2, 3, 4]

    /// The iPad's path: it leaves for 200 m at `leaveAt`, at `speed`, and
    /// comes back to 2 m if `returnAt` is given.
    func iPadPath(leaveAt: Double, speed: Double = 20, returnAt: Double? = nil) throws -> Mobility {
        let away = Position(x: 200, y: 0)
        var waypoints = [WaypointPath.Waypoint(away, speed: speed)]
        if let returnAt {
            let arrival = leaveAt + 198 / speed
            waypoints = [WaypointPath.Waypoint(away, speed: speed, pause: .nanoseconds(Int64((returnAt - arrival) * 1e9))),
                         WaypointPath.Waypoint(Position(x: 2, y: 0), speed: speed)]
        }
        return .waypoints(try WaypointPath(start: Position(x: 2, y: 0), departure: at(leaveAt), waypoints: waypoints))
    }

    func records(_ name: TraceEvent.Name, in run: HandoffRun, on device: String? = nil) -> [TraceRecord] {
        run.trace.filter { $0.name == name && (device == nil || $0.device.name == device) }
    }

    /// The source, the time it was last heard and the grace of a
    /// device-lost record; `nil` for any other record.
    func lostDetails(_ record: TraceRecord) -> (device: TraceDevice, lastHeard: SimInstant, grace: SimDuration)? {
        guard case let .system(.deviceLost(device, lastHeard, grace)) = record.event else { return nil }
        return (device, lastHeard, grace)
    }

    // MARK: Lost devices

    // WirelessProximity / sharingd (furiousMAC/continuity; decompiled
    // WirelessProximity): a device no longer heard is kept 5 s, then removed.
    @Test("a receiver that walks away loses the source 5 s after its last advertisement: the offer ends",
          arguments: seeds)
    func walkAwayEndsOffer(seed: UInt64) throws {
        let path = try iPadPath(leaveAt: 2)
        let setup = try monkeySetup(adjust: { $0[1].mobility = path })
        let (run, activity) = try runTab(setup: setup, seed: seed, acceptAt: 60, limit: 70)
        let lost = try #require(records(.deviceLost, in: run, on: "ipad").first)
        let (device, lastHeard, grace) = try #require(lostDetails(lost), "not a device-lost record: \(lost.event)")
        #expect(device.name == "iphone")
        #expect(grace == .seconds(5))
        #expect(lost.time == lastHeard + .seconds(5))
        // Walking 20 m/s from 2 s, the iPad is past 40 m by 4 s.
        #expect(lost.time < at(12))
        let withdraw = try #require(records(.withdraw, in: run, on: "ipad").first)
        #expect(withdraw.time == lost.time)
        #expect(withdraw.event == .transition(
            .continuation(from: .offered, event: .withdraw, to: .withdrawn), .deviceLost(device)))
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .withdrawn)
        #expect(run.trace.contains { $0.device.name == "ipad" && $0.event == .system(.acceptedWithoutOffer) })
    }

    // The control: in range, the receiver keeps hearing the source (its
    // presence counts every advertisement, not only the Handoff scan's
    // windows; an assumption) — even with its screen off, where the scan
    // listens 18.75 ms in 1.5 s.
    @Test("a receiver in range keeps the offer, screen on or off", arguments: seeds)
    func inRangeKeepsOffer(seed: UInt64) throws {
        let (run, activity) = try runTab(
            setup: try monkeySetup(), seed: seed, acceptAt: 60, limit: 80,
            actions: [(3, { _ in .setSettings(device: "ipad", DeviceSettings(screen: .off)) })])
        #expect(records(.deviceLost, in: run).isEmpty)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    // Decompiled WirelessProximity: scanning for a lost device stops 10 s
    // after it is lost. What restarts it is an assumption: the receiver's
    // screen coming on (or its Bluetooth).
    @Test("10 s after the last advertisement the scan stops: back in range, no offer until the screen comes on",
          arguments: seeds)
    func scanStopsUntilScreenOn(seed: UInt64) throws {
        let path = try iPadPath(leaveAt: 2, returnAt: 30)
        var setup = try monkeySetup(adjust: { $0[1].mobility = path })
        setup.configuration.devicesInUse = ["iphone"]
        let (run, activity) = try runTab(
            setup: setup, seed: seed, acceptAt: 70, limit: 90,
            actions: [(50, { _ in .setSettings(device: "ipad", DeviceSettings(screen: .off)) }),
                      (55, { _ in .setSettings(device: "ipad", DeviceSettings(screen: .on)) })])
        let lost = try #require(records(.deviceLost, in: run, on: "ipad").first)
        let lastHeard = try #require(lostDetails(lost), "not a device-lost record: \(lost.event)").lastHeard
        let stopped = try #require(records(.scanStopped, in: run, on: "ipad").first)
        #expect(stopped.time == lastHeard + .seconds(10))
        // Back at 2 m by about 40 s, but nothing is heard until the scan
        // restarts at 55 s; then the activity is offered again.
        let restarted = try #require(records(.scanRestarted, in: run, on: "ipad").first)
        #expect(restarted.time == at(55))
        let offers = records(.offer, in: run, on: "ipad")
        #expect(offers.count == 2)
        #expect(offers.last.map { $0.time > at(55) } == true)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    /// The lost-device records of the iPad's trace: the source lost, each
    /// advertisement that moved the scan stop, and the stop.
    struct ScanStopChain {
        let lost: TraceRecord
        let lastHeard: SimInstant
        let moves: [(record: TraceRecord, heard: SimInstant, due: SimInstant)]
        let stopped: TraceRecord?
    }

    func scanStopChain(in run: HandoffRun) throws -> ScanStopChain {
        let lost = try #require(records(.deviceLost, in: run, on: "ipad").first)
        let lastHeard = try #require(lostDetails(lost)).lastHeard
        let moves = records(.lostDeviceHeard, in: run, on: "ipad").compactMap { record in
            guard case let .system(.lostDeviceHeard(device, heard, due)) = record.event, device.name == "iphone" else {
                return nil as (TraceRecord, SimInstant, SimInstant)?
            }
            return (record, heard, due)
        }
        return ScanStopChain(lost: lost, lastHeard: lastHeard, moves: moves,
                             stopped: records(.scanStopped, in: run, on: "ipad").first)
    }

    // Walking at 1.4 m/s, the iPad is at the edge of the iPhone's range for
    // a while: now and then it hears an advertisement outside its scan
    // windows after the iPhone is lost, which is not enough to find it
    // again but keeps the scan for it going.
    @Test("walking away slowly: the scan stops 10 s after the last advertisement the trace names, moved or not",
          arguments: 1...12 as ClosedRange<UInt64>)
    func scanStopFollowsTracedAdvertisements(seed: UInt64) throws {
        let path = try iPadPath(leaveAt: 2, speed: 1.4)
        let setup = try monkeySetup(adjust: { $0[1].mobility = path })
        let (run, _) = try runTab(setup: setup, seed: seed, acceptAt: 60, limit: 70)
        let chain = try scanStopChain(in: run)
        // Each move is recorded when the stop was due, names an
        // advertisement heard after the source was lost (and after the
        // previous move), and moves the stop to 10 s after it.
        var reference = chain.lastHeard
        var previousRecord = chain.lost.time
        for move in chain.moves {
            #expect(move.record.time == reference + .seconds(10))
            #expect(move.heard > previousRecord)
            #expect(move.heard <= move.record.time)
            #expect(move.due == move.heard + .seconds(10))
            reference = move.heard
            previousRecord = move.record.time
        }
        let stopped = try #require(chain.stopped)
        #expect(stopped.time == reference + .seconds(10))
    }

    @Test("among the slow walks some move the scan stop, and each is traced")
    func someSlowWalksMoveTheStop() throws {
        var moved = 0
        for seed in 1...12 as ClosedRange<UInt64> {
            let path = try iPadPath(leaveAt: 2, speed: 1.4)
            let setup = try monkeySetup(adjust: { $0[1].mobility = path })
            let chain = try scanStopChain(in: try runTab(setup: setup, seed: seed, acceptAt: 60, limit: 70).run)
            let stopped = try #require(chain.stopped)
            if stopped.time > chain.lastHeard + .seconds(10) {
                moved += 1
                #expect(!chain.moves.isEmpty)
            } else {
                #expect(chain.moves.isEmpty)
            }
        }
        #expect(moved > 0)
    }

    @Test("back within the 10 s, the lost device is found again without a restart", arguments: seeds)
    func foundAgainBeforeScanStop(seed: UInt64) throws {
        // Out of range for about 6 s (past 40 m from about 3.9 s to 10.1 s).
        let path = try iPadPath(leaveAt: 2, speed: 100, returnAt: 8)
        let setup = try monkeySetup(adjust: { $0[1].mobility = path })
        let (run, activity) = try runTab(setup: setup, seed: seed, acceptAt: 40, limit: 60)
        #expect(records(.deviceLost, in: run, on: "ipad").count == 1)
        #expect(records(.scanStopped, in: run, on: "ipad").isEmpty)
        #expect(records(.offer, in: run, on: "ipad").count == 2)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    // MARK: Idle sources

    // UAUserActivityDefaults (iOS 18.2): user idle after 120 s without
    // input; the advertisement is removed 3 s after the system goes idle;
    // an activity can be resumed up to 10 s after advertising ends.
    @Test("an untouched source: idle at 120 s, advertisement removed at 123 s, offer ends at 133 s",
          arguments: [132.9, 133.1])
    func idleSourceOfferEnds(acceptAt: Double) throws {
        let (run, activity) = try runTab(setup: try monkeySetup(), acceptAt: acceptAt, limit: 150)
        #expect(records(.userIdle, in: run, on: "iphone").map(\.time) == [at(120)])
        #expect(records(.advertisementRemoved, in: run).map(\.event) == [.system(.advertisementRemoved(.idle))])
        #expect(records(.advertisementRemoved, in: run).map(\.time) == [at(123)])
        let outcome = run.summary(of: activity, on: "ipad")?.outcome
        if acceptAt < 133 {
            #expect(outcome == .continued)
        } else {
            #expect(outcome == .withdrawn)
            #expect(records(.withdraw, in: run).map(\.time) == [at(133)])
        }
    }

    @Test("a source in use keeps its offer; input starts the idle time over")
    func sourceInUseKeepsOffer() throws {
        var setup = try monkeySetup()
        setup.configuration.devicesInUse = ["iphone"]
        let (kept, keptActivity) = try runTab(setup: setup, acceptAt: 300, limit: 320)
        #expect(records(.userIdle, in: kept).isEmpty)
        #expect(kept.summary(of: keptActivity, on: "ipad")?.outcome == .continued)

        // Input at 100 s: idle at 220 s, removed at 223 s, still acceptable
        // until 233 s.
        let (touched, touchedActivity) = try runTab(
            setup: try monkeySetup(), acceptAt: 230, limit: 260,
            actions: [(100, { _ in .userInput(device: "iphone") })])
        #expect(records(.userInput, in: touched).map(\.time) == [at(100)])
        #expect(records(.userIdle, in: touched).map(\.time) == [at(220)])
        #expect(records(.advertisementRemoved, in: touched).map(\.time) == [at(223)])
        #expect(touched.summary(of: touchedActivity, on: "ipad")?.outcome == .continued)
    }

    // UAUserActivityDefaults: removed 8 s after a lock; going idle (3 s)
    // on a device already due for removal does not put its removal off.
    @Test("locked at 114 s, idle at 120 s: the advertisement goes at 122 s, the lock's time, not at 123 s")
    func idleKeepsEarlierLockRemoval() throws {
        let (run, _) = try runTab(
            setup: try monkeySetup(), acceptAt: 150, limit: 170,
            actions: [(114, { _ in .setSettings(device: "iphone", DeviceSettings(screen: .locked)) })])
        #expect(records(.userIdle, in: run).map(\.time) == [at(120)])
        #expect(records(.advertisementRemoved, in: run).map(\.time) == [at(122)])
        #expect(records(.withdraw, in: run).map(\.time) == [at(132)])
    }

    @Test("input after the removal advertises the activity again")
    func inputAfterIdleAdvertisesAgain() throws {
        let (run, activity) = try runTab(
            setup: try monkeySetup(), acceptAt: 160, limit: 200,
            actions: [(150, { _ in .userInput(device: "iphone") })])
        #expect(records(.advertisingAgain, in: run).map(\.time) == [at(150)])
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    // MARK: Locked iPhones

    // furiousMAC/continuity issue 10: a locked iPhone on iOS 18.3 or later
    // sends only Nearby Info (0x16); UAUserActivityDefaults: otherwise the
    // advertisement goes 8 s after the lock.
    @Test("a lock removes the advertisement at once on iOS 18.3, 8 s later on 18.2", arguments: ["18.3", "18.2"])
    func lockedIPhone(os: String) throws {
        let version = try OSVersion(parsing: os)
        let setup = try monkeySetup(adjust: { $0[0].osVersion = version })
        let (run, activity) = try runTab(
            setup: setup, acceptAt: 40, limit: 60,
            actions: [(4, { _ in .setSettings(device: "iphone", DeviceSettings(screen: .locked)) })])
        let removed = records(.advertisementRemoved, in: run)
        let withdraw = try #require(records(.withdraw, in: run).first)
        if os == "18.3" {
            #expect(removed.map(\.event) == [.system(.advertisementRemoved(.lockedNearbyOnly))])
            #expect(removed.map(\.time) == [at(4)])
            #expect(withdraw.time == at(14))
        } else {
            #expect(removed.map(\.event) == [.system(.advertisementRemoved(.locked))])
            #expect(removed.map(\.time) == [at(12)])
            #expect(withdraw.time == at(22))
        }
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .withdrawn)
    }

    @Test("locked on iOS 18.3, a new current activity is not advertised; an iPad on 18.3 still advertises")
    func lockedBeforeBecomeCurrent() throws {
        let phone = try monkeySetup(adjust: {
            $0[0].osVersion = OSVersion(18, 3)
            $0[0].settings.screen = .locked
        })
        let (locked, lockedActivity) = try runTab(setup: phone, acceptAt: 10, limit: 20)
        #expect(locked.trace.contains { $0.event == .system(.notAdvertised(.lockedNearbyOnly)) })
        #expect(records(.offer, in: locked).isEmpty)
        #expect(locked.summary(of: lockedActivity, on: "ipad")?.outcome != .continued)

        let tablet = try monkeySetup(adjust: {
            $0[0].kind = .iPad
            $0[0].osVersion = OSVersion(18, 3)
        })
        let (iPad, iPadActivity) = try runTab(
            setup: tablet, acceptAt: 6, limit: 20,
            actions: [(4, { _ in .setSettings(device: "iphone", DeviceSettings(screen: .locked)) })])
        #expect(!iPad.trace.contains { $0.event == .system(.advertisementRemoved(.lockedNearbyOnly)) })
        #expect(iPad.summary(of: iPadActivity, on: "ipad")?.outcome == .continued)
    }

    // MARK: The active payload

    // UAUserActivityDefaults: active payload update interval 15 s. The
    // model's reading (an assumption): userActivityWillSave every 15 s
    // since becomeCurrent while the activity is current and needsSave.
    @Test("a dirty current activity saves every 15 s; a fetch sends the latest save without asking again")
    func activePayloadUpdates() throws {
        var content = tabActivity(0)
        content.needsSave = true
        let (run, activity) = try runTab(
            setup: try monkeySetup(), acceptAt: 40, limit: 60, content: content,
            actions: [(20, { .setNeedsSave($0, true) })])
        let saves = records(.userActivityWillSave, in: run, on: "iphone").map(\.time)
        #expect(saves == [at(15), at(30)])
        #expect(records(.activePayloadUpdate, in: run).map(\.time) == [at(15), at(30)])
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)

        let (clean, _) = try runTab(setup: try monkeySetup(), acceptAt: 40, limit: 60)
        #expect(records(.activePayloadUpdate, in: clean).isEmpty)
    }

    // MARK: Keys through the cloud

    // Apple Platform Security ("Handoff security"): "in some situations
    // these messages are sent using APNs". An assumption: a failed Bluetooth
    // LE connection is such a situation, when both devices reach the
    // internet.
    @Test("first contact with Bluetooth LE down: the keys come through the cloud, and the offer follows",
          arguments: [true, false])
    func keysOverCloud(enabled: Bool) throws {
        var setup = try monkeySetup()
        setup.configuration.keyExchange.firstContact = true
        setup.configuration.keyExchange.overCloud = enabled
        setup.world.bluetooth.outages = [try TimeWindow(from: .zero, until: at(100))]
        let (run, activity) = try runTab(setup: setup, acceptAt: 14, limit: 40)
        let steps = systemSteps(run.trace, on: "ipad")
        if enabled {
            #expect(steps.filter { $0 == .keysOverCloud }.count == 1)
            #expect(steps.contains(.keysExchanged))
            #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
        } else {
            #expect(!steps.contains(.keysOverCloud))
            #expect(steps.contains(.keyExchangeFailed))
            #expect(run.summary(of: activity, on: "ipad")?.outcome == .notOffered(.keysNotExchanged))
        }
    }

    @Test("without internet on the receiver the keys cannot come through the cloud")
    func keysOverCloudNeedInternet() throws {
        var setup = try monkeySetup(adjust: { $0[1].internetAccess = .none })
        setup.configuration.keyExchange.firstContact = true
        setup.world.bluetooth.outages = [try TimeWindow(from: .zero, until: at(100))]
        let (run, _) = try runTab(setup: setup, acceptAt: 14, limit: 40)
        let steps = systemSteps(run.trace, on: "ipad")
        #expect(!steps.contains(.keysOverCloud))
        #expect(steps.contains(.keyExchangeFailed))
    }
}
