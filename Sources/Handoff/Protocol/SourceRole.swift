import HandoffWorld
import SimKernel

/// The source device's side of the protocol: its current activity and the
/// advertising of it (pacing, removal when the device locks, dims or goes
/// idle, the resume window after advertising ends), the app's changes to
/// its activities, and serving a fetch (`SourceRole+Serving.swift`).
///
/// Owned by the ``HandoffEngine``, which passes in the ``ProtocolCore``
/// and the scheduler; what it needs of the other roles comes as arguments,
/// and what the others must do next is returned to the engine.
/// Noncopyable, so that it is only ever changed in place.
struct SourceRole: ~Copyable {
    // MARK: What a run fixes

    /// Whether each device is an iPhone whose iOS sends no Handoff
    /// advertisement while locked (18.3 or later).
    let nearbyOnlyWhenLocked: [Bool]
    /// The advertising policy's update count: the length of each device's
    /// ring of update times.
    let updatesPerWindow: Int

    // MARK: What a trial changes (reset by `reset(deviceCount:)`, below)

    /// Each device's current activity.
    var currentActivity: [ActivityID?] = []
    /// Per device: counts paced updates, so that a stale one is ignored.
    var updateGenerations: [UInt32] = []
    /// Per device: counts removal timers, so that a stale one is ignored.
    var removalGenerations: [UInt32] = []
    /// Per device: when its advertisement last started, or nil.
    var advertStartedAt: [SimInstant?] = []
    /// Per device × the policy's update count: the times of its latest
    /// updates, oldest first once full (a ring).
    var updateTimes: [SimInstant] = []
    /// Per device: updates recorded in ``updateTimes`` (at most the
    /// policy's count).
    var updateCounts: [Int] = []
    /// Per device: the next slot of its ring in ``updateTimes``.
    var updateNext: [Int] = []

    /// Starts a trial of `deviceCount` devices: every per-trial field above
    /// as in a new run, in its own storage.
    mutating func reset(deviceCount: Int) {
        currentActivity.refill(with: nil, count: deviceCount)
        updateGenerations.refill(with: 0, count: deviceCount)
        removalGenerations.refill(with: 0, count: deviceCount)
        advertStartedAt.refill(with: nil, count: deviceCount)
        updateTimes.refill(with: .zero, count: deviceCount * max(1, updatesPerWindow))
        updateCounts.refill(with: 0, count: deviceCount)
        updateNext.refill(with: 0, count: deviceCount)
    }

    /// The source side of a run of `setup`, at the start of a trial.
    init(setup: HandoffSetup) {
        nearbyOnlyWhenLocked = setup.devices.map {
            $0.kind == .iPhone && $0.osVersion >= AdvertisingPolicy.nearbyOnlyWhenLockedFrom
        }
        updatesPerWindow = setup.configuration.advertising.maximumUpdatesPerWindow
        reset(deviceCount: setup.devices.count)
    }

    // MARK: Becoming current

    /// The app makes `id` current: the device's previous current activity
    /// is superseded, and the new one is advertised (paced, or not at all
    /// in Low Power Mode or on a locked iPhone that sends no Handoff advertisement).
    /// A call the activity's state does not admit (after `invalidate`) is a
    /// violation and supersedes nothing.
    mutating func becomeCurrent(
        _ id: ActivityID, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let device = core.activities[id.index].device
        let admitted = SourceActivityMachine.transition(from: core.activities[id.index].state, on: .becomeCurrent) != nil
        if admitted, let previous = currentActivity[device.index], previous != id {
            if core.apply(.superseded, to: previous, now: now, note: core.keepsTrace ? .becameCurrent(core.traceActivity(id)) : nil) {
                core.activities[previous.index].currentEnded = .superseded
            }
        }
        guard core.apply(.becomeCurrent, to: id, now: now) else { return }
        currentActivity[device.index] = id
        core.activities[id.index].currentEnded = nil
        core.activities[id.index].lastBecameCurrent = now
        schedulePayloadUpdate(of: id, now: now, core: &core, scheduler: &scheduler)
        let settings = core.world.deviceTable.settings(of: device)
        if settings.lowPowerMode {
            // UserActivity: "LowPowerMode is enabled so no activity will be advertised".
            core.world.stopAdvertising(device)
            core.activities[id.index].advertisingStop = .lowPowerMode
            core.record(now, device: device, app: .system, activity: id, .system(.notAdvertised(.lowPowerMode)))
            return
        }
        if sendsNearbyInfoOnly(device, in: core.world) {
            // A locked iPhone on iOS 18.3 or later: no Handoff advertisement.
            core.world.stopAdvertising(device)
            core.activities[id.index].advertisingStop = .lockedNearbyOnly
            core.record(now, device: device, app: .system, activity: id, .system(.notAdvertised(.lockedNearbyOnly)))
            return
        }
        // UAUserActivityDefaults: updates at least 0.5 s apart, at most 5 in
        // 10 s, and an advertisement lives at least 3 s.
        let due = earliestUpdate(of: device, at: now, core: core)
        updateGenerations[device.index] &+= 1
        if due > now {
            core.record(now, device: device, app: .system, activity: id, .system(.advertisementPaced(until: due)))
            scheduler.schedule(
                .advertisementUpdate(device: Int32(device.index), generation: updateGenerations[device.index]), at: due)
            return
        }
        advertiseUpdate(id, now: now, core: &core)
    }

    /// The app resigns `id`: it stops being current.
    mutating func resignCurrent(
        _ id: ActivityID, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard core.apply(.resignCurrent, to: id, now: now) else { return }
        core.activities[id.index].currentEnded = .resignedOrInvalidated
        stopAdvertising(id, now: now, core: &core, scheduler: &scheduler)
    }

    /// The app invalidates `id`: it stops being current.
    ///
    /// - Returns: whether the activity was invalidated (its offers not yet
    ///   picked go away everywhere: the engine has the receivers withdraw
    ///   them).
    mutating func invalidate(
        _ id: ActivityID, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) -> Bool {
        guard core.apply(.invalidate, to: id, now: now) else { return false }
        core.activities[id.index].currentEnded = .resignedOrInvalidated
        stopAdvertising(id, now: now, core: &core, scheduler: &scheduler)
        return true
    }

    // MARK: Advertising

    /// The earliest instant the device may update its advertisement.
    func earliestUpdate(of device: DeviceID, at now: SimInstant, core: borrowing ProtocolCore) -> SimInstant {
        let policy = core.setup.configuration.advertising
        var due = now
        if let started = advertStartedAt[device.index], core.world.isAdvertising(device) {
            due = max(due, started + policy.minimumLife)
        }
        let count = updateCounts[device.index]
        let capacity = policy.maximumUpdatesPerWindow
        if count > 0 {
            let latest = updateTimes[device.index * capacity + (updateNext[device.index] + capacity - 1) % capacity]
            due = max(due, latest + policy.minimumUpdateInterval)
        }
        if count == capacity {
            // The oldest of the last `capacity` updates: the next may come a
            // window after it.
            let oldest = updateTimes[device.index * capacity + updateNext[device.index]]
            due = max(due, oldest + policy.updateWindow)
        }
        return due
    }

    /// Advertises `id` now as an update, counting it for the pacing.
    mutating func advertiseUpdate(_ id: ActivityID, now: SimInstant, core: inout ProtocolCore) {
        let device = core.activities[id.index].device.index
        let capacity = core.setup.configuration.advertising.maximumUpdatesPerWindow
        updateTimes[device * capacity + updateNext[device]] = now
        updateNext[device] = (updateNext[device] + 1) % capacity
        updateCounts[device] = min(updateCounts[device] + 1, capacity)
        advertStartedAt[device] = now
        advertise(id, now: now, core: &core)
    }

    /// A paced update is due: advertise what is current now.
    mutating func pacedUpdateDue(device: Int, generation: UInt32, now: SimInstant, core: inout ProtocolCore) {
        guard updateGenerations[device] == generation, let id = currentActivity[device] else { return }
        if core.world.deviceTable.settings(of: DeviceID(device)).lowPowerMode {
            core.activities[id.index].advertisingStop = .lowPowerMode
            return
        }
        if sendsNearbyInfoOnly(DeviceID(device), in: core.world) {
            core.activities[id.index].advertisingStop = .lockedNearbyOnly
            return
        }
        advertiseUpdate(id, now: now, core: &core)
    }

    /// Starts (or restarts) advertising `id`, current on its device, with a
    /// new generation.
    func advertise(_ id: ActivityID, now: SimInstant, core: inout ProtocolCore) {
        core.activities[id.index].advertGeneration &+= 1
        core.activities[id.index].advertisingOver = false
        core.activities[id.index].everAdvertised = true
        core.activities[id.index].advertisingStop = nil
        let payload = UInt64(id.index) | UInt64(core.activities[id.index].advertGeneration) << 32
        core.world.startAdvertising(core.activities[id.index].device, payload: payload, at: now)
    }

    /// The activity stops being current: its advertising ends, and offers
    /// of it last the resume window.
    mutating func stopAdvertising(
        _ id: ActivityID, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let device = core.activities[id.index].device
        guard currentActivity[device.index] == id else { return }
        currentActivity[device.index] = nil
        let wasAdvertising = core.world.isAdvertising(device)
        core.world.stopAdvertising(device)
        if wasAdvertising { startResumeWindow(of: id, now: now, core: core, scheduler: &scheduler) }
    }

    /// Advertising of `id` ended now: offers not accepted within the resume
    /// window go away (UserActivity: an activity can still be resumed up to
    /// 10 s after advertising ends).
    func startResumeWindow(
        of id: ActivityID, now: SimInstant, core: borrowing ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        scheduler.schedule(
            .resumeWindowEnded(activity: Int32(id.index), generation: core.activities[id.index].advertGeneration),
            at: now + core.setup.configuration.advertising.resumeWindow)
    }

    /// The resume window of `id`'s advertising generation is over.
    ///
    /// - Returns: whether its advertising is over for good (its offers not
    ///   yet accepted go away: the engine has the receivers withdraw them).
    func resumeWindowEnded(_ id: ActivityID, generation: UInt32, core: inout ProtocolCore) -> Bool {
        guard core.activities[id.index].advertGeneration == generation else { return false }
        let device = core.activities[id.index].device
        if currentActivity[device.index] == id, core.world.isAdvertising(device) { return false }
        core.activities[id.index].advertisingOver = true
        return true
    }

    /// A source's switches, screen or idleness changed: Low Power Mode
    /// stops its advertising at once, and so does locking an iPhone on
    /// iOS 18.3 or later; locking, dimming or going idle removes it after
    /// the policy's delay; back in use, the current activity is advertised
    /// again.
    mutating func conditionsChanged(
        of device: DeviceID, from old: DeviceSettings, idle oldIdle: Bool, to new: DeviceSettings, idle newIdle: Bool,
        now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let policy = core.setup.configuration.advertising
        let oldDelay = policy.removalDelay(old, userIdle: oldIdle)
        let newDelay = policy.removalDelay(new, userIdle: newIdle)
        if newDelay != oldDelay || old.screen != new.screen || old.idle != new.idle || oldIdle != newIdle {
            // The user going idle on a device already due for removal (locked
            // or dimmed) adds the idle timer and keeps the earlier one.
            let addsTimer = old == new && oldDelay != nil && newIdle
            if !addsTimer { removalGenerations[device.index] &+= 1 }
            if let newDelay {
                scheduler.schedule(
                    .advertisementRemoval(device: Int32(device.index), generation: removalGenerations[device.index]),
                    at: now + newDelay)
            }
        }
        guard let id = currentActivity[device.index] else { return }
        if new.lowPowerMode, !old.lowPowerMode, core.world.isAdvertising(device) {
            core.world.stopAdvertising(device)
            core.activities[id.index].advertisingStop = .lowPowerMode
            core.record(now, device: device, app: .system, activity: id, .system(.advertisementRemoved(.lowPowerMode)))
            startResumeWindow(of: id, now: now, core: core, scheduler: &scheduler)
        }
        if nearbyOnlyWhenLocked[device.index], new.screen == .locked, old.screen != .locked,
            core.world.isAdvertising(device)
        {
            // furiousMAC/continuity issue 10: locked, iOS 18.3 or later
            // sends no Handoff advertisement (only one of an unidentified
            // type 0x16), so it goes now rather than after removalAfterLock.
            core.world.stopAdvertising(device)
            core.activities[id.index].advertisingStop = .lockedNearbyOnly
            core.record(now, device: device, app: .system, activity: id, .system(.advertisementRemoved(.lockedNearbyOnly)))
            startResumeWindow(of: id, now: now, core: core, scheduler: &scheduler)
        }
        if !new.lowPowerMode, newDelay == nil, !core.world.isAdvertising(device) {
            core.record(now, device: device, app: .system, activity: id, .system(.advertisingAgain))
            advertise(id, now: now, core: &core)
        }
    }

    /// A removal timer fired: if the device is still locked, dimmed or idle
    /// (`userIdle`: whether its user has gone idle), its advertisement goes.
    func removeAdvertisement(
        of device: Int, generation: UInt32, userIdle: Bool, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard removalGenerations[device] == generation, let id = currentActivity[device],
            core.world.isAdvertising(DeviceID(device))
        else { return }
        let settings = core.world.deviceTable.settings(of: DeviceID(device))
        core.world.stopAdvertising(DeviceID(device))
        let reason: SystemEvent.AdvertisingStop = settings.idle || userIdle ? .idle
            : settings.screen == .locked ? .locked : .dimmed
        core.activities[id.index].advertisingStop = reason
        core.record(now, device: DeviceID(device), app: .system, activity: id, .system(.advertisementRemoved(reason)))
        startResumeWindow(of: id, now: now, core: core, scheduler: &scheduler)
    }

    /// Whether `device` sends no Handoff advertisement now: an iPhone on
    /// iOS 18.3 or later that is locked sends only an advertisement of an
    /// unidentified Continuity type 0x16 about every 2 s (not Nearby Info,
    /// type 0x10; furiousMAC/continuity issue 10).
    func sendsNearbyInfoOnly(_ device: DeviceID, in world: borrowing World) -> Bool {
        nearbyOnlyWhenLocked[device.index] && world.deviceTable.settings(of: device).screen == .locked
    }
}
