import HandoffWorld
import SimKernel

/// How long an offer lives: lost devices and their grace, scans that stop
/// and restart, and idle users (whose advertising then goes).
///
/// Every timer here is an event (``HandoffEvent``) with a small payload;
/// each is scheduled at most once per pair or device at a time (a pending
/// flag or a generation), so a quiet trial schedules none.
///
/// Owned by the ``HandoffEngine``, which passes in the ``ProtocolCore``
/// and the scheduler; what it needs of the other roles comes as arguments,
/// and what the others must do next is returned to the engine.
/// Noncopyable, so that it is only ever changed in place.
struct OfferLifetimeRole: ~Copyable {
    // MARK: What a run fixes

    /// Whether each device's user keeps using it throughout (it never goes
    /// idle).
    let inUseThroughout: [Bool]

    // MARK: What a trial changes (reset by `reset(deviceCount:)`, below)

    /// Per receiver × source device: whether a presence check is
    /// scheduled.
    var presenceCheckPending: [Bool] = []
    /// Per receiver × source device: the latest check that found the
    /// source not advertising Handoff (it counts as heard then).
    var presenceFloor: [SimInstant?] = []
    /// Per receiver × source device: when the receiver last heard the
    /// lost source (until its scan stops or it is heard again).
    var lostSince: [SimInstant?] = []
    /// Per device: its user's latest input.
    var lastInput: [SimInstant] = []
    /// Per device: whether its user has gone idle.
    var userIdle: [Bool] = []
    /// Per device: counts idle timers, so that a stale one is ignored.
    var idleGenerations: [UInt32] = []

    /// Starts a trial of `deviceCount` devices: every per-trial field above
    /// as in a new run, in its own storage.
    mutating func reset(deviceCount: Int) {
        let pairs = deviceCount * deviceCount
        presenceCheckPending.refill(with: false, count: pairs)
        presenceFloor.refill(with: nil, count: pairs)
        lostSince.refill(with: nil, count: pairs)
        lastInput.refill(with: .zero, count: deviceCount)
        userIdle.refill(with: false, count: deviceCount)
        idleGenerations.refill(with: 0, count: deviceCount)
    }

    /// The offers' lifetime in a run of `setup`, at the start of a trial.
    init(setup: HandoffSetup) {
        inUseThroughout = setup.devices.map { setup.configuration.devicesInUse.contains($0.name) }
        reset(deviceCount: setup.devices.count)
    }

    // MARK: Lost devices (the receiver)

    /// An offer from `source` is up on `receiver`: from now on the receiver
    /// checks that it still hears the source, the lost-device grace after
    /// the latest advertisement it heard.
    ///
    /// WirelessProximity and sharingd keep a device the receiver stops
    /// hearing for a 5 s grace, then remove it (its offer ends)
    /// (furiousMAC/continuity; decompiled WirelessProximity).
    mutating func watchPresence(
        of source: DeviceID, on receiver: DeviceID, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        let pair = receiver.index * core.world.deviceCount + source.index
        lostSince[pair] = nil
        core.world.setWatchesPresence(of: source, by: receiver, true)
        guard !presenceCheckPending[pair] else { return }
        presenceCheckPending[pair] = true
        scheduler.schedule(
            .presenceCheck(pair: Int32(pair)), at: now + core.setup.configuration.advertising.lostDeviceGrace)
    }

    /// A presence check is due: the source is lost if the receiver has
    /// heard nothing from it for the grace; then the scan stop is due
    /// `scanStopAfterLoss` after the last advertisement heard, and its
    /// offers there end. Otherwise the next check comes the grace after
    /// that advertisement.
    ///
    /// The world simulates only the Handoff advertisement. While the
    /// source sends none (its activity resigned, the device idle or
    /// locked), the model counts it as heard (an assumption: its other
    /// Continuity advertisements, such as Nearby Info, keep it on the
    /// receiver's list), and the resume window ends its offers instead.
    ///
    /// - Returns: the lost source, whose offers on the receiver the engine
    ///   has withdrawn; `nil` if it is not lost.
    mutating func presenceCheck(
        pair: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) -> DeviceID? {
        presenceCheckPending[pair] = false
        let receiver = pair / core.world.deviceCount
        let source = DeviceID(pair % core.world.deviceCount)
        guard core.hasPendingOffer(from: source, on: receiver) else {
            if lostSince[pair] == nil { core.world.setWatchesPresence(of: source, by: DeviceID(receiver), false) }
            return nil
        }
        let policy = core.setup.configuration.advertising
        if !core.world.isAdvertising(source) { presenceFloor[pair] = now }
        let heard = max(core.world.lastHeard(source, by: DeviceID(receiver)) ?? .zero, presenceFloor[pair] ?? .zero)
        guard now >= heard + policy.lostDeviceGrace else {
            presenceCheckPending[pair] = true
            scheduler.schedule(.presenceCheck(pair: Int32(pair)), at: heard + policy.lostDeviceGrace)
            return nil
        }
        core.traceCount += 1
        if core.keepsTrace {
            core.keep(now, device: DeviceID(receiver), app: .system, activity: nil,
                      .system(.deviceLost(core.traceDevice(source), lastHeard: heard, grace: policy.lostDeviceGrace)))
        }
        lostSince[pair] = heard
        scheduler.schedule(.scanStopDue(pair: Int32(pair)), at: max(now, heard + policy.scanStopAfterLoss))
        return source
    }

    /// A lost device's scan stop is due: unless the receiver has heard it
    /// since, it stops scanning for it (scanning stops 10 s after the
    /// device is lost: decompiled WirelessProximity) and hears it again
    /// only once its scanning restarts (see ``restartScanning(on:now:core:)``).
    ///
    /// A lost device heard again (at the edge of range, an advertisement
    /// now and then) without being offered again counts as lost from its
    /// latest advertisement: the scan stop moves to `scanStopAfterLoss`
    /// after it. The trace shows that advertisement (`lost device heard`,
    /// recorded now, once per move), so that the stop's time can be read
    /// from the trace. Each move is to an advertisement heard after the
    /// previous record, so there are at most two such records in any
    /// `scanStopAfterLoss`, however many advertisements were heard.
    mutating func scanStopDue(
        pair: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard let since = lostSince[pair] else { return }
        let receiver = DeviceID(pair / core.world.deviceCount)
        let source = DeviceID(pair % core.world.deviceCount)
        if let heard = core.world.lastHeard(source, by: receiver), heard > since {
            lostSince[pair] = heard
            let due = heard + core.setup.configuration.advertising.scanStopAfterLoss
            scheduler.schedule(.scanStopDue(pair: Int32(pair)), at: due)
            core.traceCount += 1
            if core.keepsTrace {
                core.keep(now, device: receiver, app: .system, activity: nil,
                          .system(.lostDeviceHeard(core.traceDevice(source), heard: heard, scanStopDue: due)))
            }
            return
        }
        lostSince[pair] = nil
        if !core.hasPendingOffer(from: source, on: receiver.index) {
            core.world.setWatchesPresence(of: source, by: receiver, false)
        }
        // A source that stopped advertising Handoff counts as heard (see
        // presenceCheck).
        guard core.world.isAdvertising(source), !core.world.isScanStopped(for: source, on: receiver) else { return }
        core.world.stopScanning(for: source, on: receiver)
        core.traceCount += 1
        if core.keepsTrace {
            core.keep(now, device: receiver, app: .system, activity: nil, .system(.scanStopped(for: core.traceDevice(source))))
        }
    }

    /// The receiver's scanning restarts (its screen came on, or its
    /// Bluetooth did): devices it stopped scanning for can be found again.
    ///
    /// What restarts a stopped scan is not published; that a screen-on (or
    /// Bluetooth coming back) does is an assumption: both start the
    /// system's scans afresh.
    func restartScanning(on device: DeviceID, now: SimInstant, core: inout ProtocolCore) {
        guard core.world.restartScanning(device) else { return }
        core.traceCount += 1
        if core.keepsTrace { core.keep(now, device: device, app: .system, activity: nil, .system(.scanRestarted)) }
    }

    /// The offer of `attempt` was accepted: unless the receiver has
    /// another offer from the same source, it stops watching the source's
    /// presence (nothing is left to end).
    func offerAccepted(_ attempt: Int, core: inout ProtocolCore) {
        let receiver = core.attempts[attempt].receiver
        let source = core.activities[core.attempts[attempt].activity.index].device
        guard lostSince[receiver.index * core.world.deviceCount + source.index] == nil,
            !core.hasPendingOffer(from: source, on: receiver.index)
        else { return }
        core.world.setWatchesPresence(of: source, by: receiver, false)
    }

    // MARK: Idle users (the source)

    /// The user on `device` gave input now: the idle time starts over, and
    /// an idle device is in use again.
    ///
    /// UAUserActivityDefaults (iOS 18.2): the user is idle after 120 s
    /// without input. Besides `userInput` actions, an unlock or screen-on
    /// and the app's own calls on its activities count as input.
    ///
    /// - Returns: whether the device was idle until now (the engine then
    ///   tells the source, whose advertising may come back).
    mutating func userGaveInput(
        on device: DeviceID, now: SimInstant, core: borrowing ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) -> Bool {
        lastInput[device.index] = now
        guard !inUseThroughout[device.index] else { return false }
        idleGenerations[device.index] &+= 1
        scheduler.schedule(
            .userIdleDue(device: Int32(device.index), generation: idleGenerations[device.index]),
            at: now + core.setup.configuration.advertising.userIdleAfter)
        guard userIdle[device.index] else { return false }
        userIdle[device.index] = false
        return true
    }

    /// The idle timer of `device` fired: unless there was input since, the
    /// user is idle (`current`: the device's current activity, for the
    /// trace) and the advertisement goes ``AdvertisingPolicy/removalAfterIdle``
    /// later.
    ///
    /// - Returns: whether the user went idle now (the engine then tells the
    ///   source).
    mutating func userIdleDue(
        device: Int, generation: UInt32, current: ActivityID?, now: SimInstant, core: inout ProtocolCore
    ) -> Bool {
        guard idleGenerations[device] == generation, !userIdle[device] else { return false }
        userIdle[device] = true
        core.traceCount += 1
        if core.keepsTrace {
            core.keep(now, device: DeviceID(device), app: .system, activity: current,
                      .system(.userIdle(after: now - lastInput[device])))
        }
        return true
    }

    /// Whether `action` is input by the user of a device, and which: the
    /// app's calls on its activities (made while it is used), the user's
    /// input and acceptance.
    func inputDevice(of action: HandoffAction, core: borrowing ProtocolCore) -> DeviceID? {
        switch action {
        case let .becomeCurrent(id), let .resignCurrent(id), let .invalidate(id), let .setNeedsSave(id, _),
            let .addUserInfoEntries(id, _), let .setEligibleForHandoff(id, _):
            return core.activities[id.index].device
        case let .userInput(name), let .accept(name):
            return core.deviceNumber(name).map(DeviceID.init)
        case .setSettings, .setAccount:
            return nil
        }
    }
}
