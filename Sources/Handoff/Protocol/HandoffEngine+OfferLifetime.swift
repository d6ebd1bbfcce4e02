import HandoffWorld
import SimKernel

/// How long an offer lives: lost devices and their grace, scans that stop,
/// idle users, locked iPhones that send no Handoff advertisement, the
/// active payload's periodic update, and advertising keys that come
/// through the cloud.
///
/// Every timer here is an event (``HandoffEvent``) with a small payload;
/// each is scheduled at most once per pair, device or activity at a time
/// (a pending flag or a generation), so a quiet trial schedules none.
extension HandoffEngine {
    // MARK: Lost devices (the receiver)

    /// The slot of (receiver, source) in the per-device-pair tables.
    @inline(__always)
    func devicePair(receiver: Int, source: Int) -> Int { receiver * world.deviceCount + source }

    /// An offer from `source` is up on `receiver`: from now on the receiver
    /// checks that it still hears the source, the lost-device grace after
    /// the latest advertisement it heard.
    ///
    /// WirelessProximity and sharingd keep a device the receiver stops
    /// hearing for a 5 s grace, then remove it (its offer ends)
    /// (furiousMAC/continuity; decompiled WirelessProximity).
    mutating func watchPresence(of source: DeviceID, on receiver: DeviceID, now: SimInstant,
                                scheduler: inout Scheduler<HandoffEvent>) {
        let pair = devicePair(receiver: receiver.index, source: source.index)
        lostSince[pair] = nil
        world.setWatchesPresence(of: source, by: receiver, true)
        guard !presenceCheckPending[pair] else { return }
        presenceCheckPending[pair] = true
        scheduler.schedule(.presenceCheck(pair: Int32(pair)), at: now + setup.configuration.advertising.lostDeviceGrace)
    }

    /// Whether an activity of `source` is discovered or offered on
    /// `receiver` (not yet accepted, not withdrawn).
    func hasPendingOffer(from source: DeviceID, on receiver: Int) -> Bool {
        for activity in activities where activity.device == source {
            guard let attempt = attemptIndex[pairSlot(activity.id.index, receiver)] else { continue }
            switch attempts[attempt].state {
            case .discovered, .offered: return true
            case .accepted, .launching, .willContinue, .continued, .restored, .failed, .withdrawn, .inBrowser: continue
            }
        }
        return false
    }

    /// A presence check is due: the source is lost if the receiver has
    /// heard nothing from it for the grace; then its offers there end and
    /// the scan stop is due `scanStopAfterLoss` after the last
    /// advertisement heard. Otherwise the next check comes the grace after
    /// that advertisement.
    ///
    /// The world simulates only the Handoff advertisement. While the
    /// source sends none (its activity resigned, the device idle or
    /// locked), the model counts it as heard (an assumption: its other
    /// Continuity advertisements, such as Nearby Info, keep it on the
    /// receiver's list), and the resume window ends its offers instead.
    mutating func presenceCheck(pair: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        presenceCheckPending[pair] = false
        let receiver = pair / world.deviceCount
        let source = DeviceID(pair % world.deviceCount)
        guard hasPendingOffer(from: source, on: receiver) else {
            if lostSince[pair] == nil { world.setWatchesPresence(of: source, by: DeviceID(receiver), false) }
            return
        }
        let policy = setup.configuration.advertising
        if !world.isAdvertising(source) { presenceFloor[pair] = now }
        let heard = max(world.lastHeard(source, by: DeviceID(receiver)) ?? .zero, presenceFloor[pair] ?? .zero)
        guard now >= heard + policy.lostDeviceGrace else {
            presenceCheckPending[pair] = true
            scheduler.schedule(.presenceCheck(pair: Int32(pair)), at: heard + policy.lostDeviceGrace)
            return
        }
        traceCount += 1
        if keepsTrace {
            keep(now, device: DeviceID(receiver), app: .system, activity: nil,
                 .system(.deviceLost(traceDevice(source), lastHeard: heard, grace: policy.lostDeviceGrace)))
        }
        for activity in activities.indices where activities[activity].device == source {
            guard let attempt = attemptIndex[pairSlot(activity, receiver)] else { continue }
            switch attempts[attempt].state {
            case .discovered, .offered:
                apply(.withdraw, to: attempt, now: now, note: keepsTrace ? .deviceLost(traceDevice(source)) : nil)
                if visibleOffer[receiver] == attempt { visibleOffer[receiver] = nil }
            case .accepted, .launching, .willContinue, .continued, .restored, .failed, .withdrawn, .inBrowser:
                continue
            }
        }
        lostSince[pair] = heard
        scheduler.schedule(.scanStopDue(pair: Int32(pair)), at: max(now, heard + policy.scanStopAfterLoss))
    }

    /// A lost device's scan stop is due: unless the receiver has heard it
    /// since, it stops scanning for it (scanning stops 10 s after the
    /// device is lost: decompiled WirelessProximity) and hears it again
    /// only once its scanning restarts (see ``restartScanning(on:now:)``).
    ///
    /// A lost device heard again (at the edge of range, an advertisement
    /// now and then) without being offered again counts as lost from its
    /// latest advertisement: the scan stop moves to `scanStopAfterLoss`
    /// after it.
    mutating func scanStopDue(pair: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard let since = lostSince[pair] else { return }
        let receiver = DeviceID(pair / world.deviceCount)
        let source = DeviceID(pair % world.deviceCount)
        if let heard = world.lastHeard(source, by: receiver), heard > since {
            lostSince[pair] = heard
            scheduler.schedule(
                .scanStopDue(pair: Int32(pair)), at: heard + setup.configuration.advertising.scanStopAfterLoss)
            return
        }
        lostSince[pair] = nil
        if !hasPendingOffer(from: source, on: receiver.index) { world.setWatchesPresence(of: source, by: receiver, false) }
        // A source that stopped advertising Handoff counts as heard (see
        // presenceCheck).
        guard world.isAdvertising(source), !world.isScanStopped(for: source, on: receiver) else { return }
        world.stopScanning(for: source, on: receiver)
        traceCount += 1
        if keepsTrace { keep(now, device: receiver, app: .system, activity: nil, .system(.scanStopped(for: traceDevice(source)))) }
    }

    /// The receiver's scanning restarts (its screen came on, or its
    /// Bluetooth did): devices it stopped scanning for can be found again.
    ///
    /// What restarts a stopped scan is not published; that a screen-on (or
    /// Bluetooth coming back) does is an assumption: both start the
    /// system's scans afresh.
    mutating func restartScanning(on device: DeviceID, now: SimInstant) {
        guard world.restartScanning(device) else { return }
        traceCount += 1
        if keepsTrace { keep(now, device: device, app: .system, activity: nil, .system(.scanRestarted)) }
    }

    /// The offer of `attempt` was accepted: unless the receiver has
    /// another offer from the same source, it stops watching the source's
    /// presence (nothing is left to end).
    mutating func offerAccepted(_ attempt: Int) {
        let receiver = attempts[attempt].receiver
        let source = activities[attempts[attempt].activity.index].device
        guard lostSince[devicePair(receiver: receiver.index, source: source.index)] == nil,
            !hasPendingOffer(from: source, on: receiver.index)
        else { return }
        world.setWatchesPresence(of: source, by: receiver, false)
    }

    // MARK: Idle users (the source)

    /// The user on `device` gave input now: the idle time starts over, and
    /// an idle device is in use again.
    ///
    /// UAUserActivityDefaults (iOS 18.2): the user is idle after 120 s
    /// without input. Besides `userInput` actions, an unlock or screen-on
    /// and the app's own calls on its activities count as input.
    mutating func userGaveInput(on device: DeviceID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        lastInput[device.index] = now
        guard !inUseThroughout[device.index] else { return }
        idleGenerations[device.index] &+= 1
        scheduler.schedule(
            .userIdleDue(device: Int32(device.index), generation: idleGenerations[device.index]),
            at: now + setup.configuration.advertising.userIdleAfter)
        guard userIdle[device.index] else { return }
        userIdle[device.index] = false
        let settings = world.deviceTable.settings(of: device)
        conditionsChanged(of: device, from: settings, idle: true, to: settings, idle: false, now: now, scheduler: &scheduler)
    }

    /// The idle timer of `device` fired: unless there was input since, the
    /// user is idle and the advertisement goes ``AdvertisingPolicy/removalAfterIdle``
    /// later.
    mutating func userIdleDue(device: Int, generation: UInt32, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard idleGenerations[device] == generation, !userIdle[device] else { return }
        userIdle[device] = true
        let id = DeviceID(device)
        traceCount += 1
        if keepsTrace {
            keep(now, device: id, app: .system, activity: currentActivity[device],
                 .system(.userIdle(after: now - lastInput[device])))
        }
        let settings = world.deviceTable.settings(of: id)
        conditionsChanged(of: id, from: settings, idle: false, to: settings, idle: true, now: now, scheduler: &scheduler)
    }

    /// Whether `action` is input by the user of a device, and which.
    func inputDevice(of action: HandoffAction) -> DeviceID? {
        switch action {
        case let .becomeCurrent(id), let .resignCurrent(id), let .invalidate(id), let .setNeedsSave(id, _),
            let .addUserInfoEntries(id, _), let .setEligibleForHandoff(id, _):
            return activities[id.index].device
        case let .userInput(name), let .accept(name):
            return deviceNumber(name).map(DeviceID.init)
        case .setSettings, .setAccount:
            return nil
        }
    }

    // MARK: Locked iPhones

    /// Whether `device` sends no Handoff advertisement now: an iPhone on
    /// iOS 18.3 or later that is locked sends only "Nearby Info" (type
    /// 0x16) about every 2 s (furiousMAC/continuity, issue 10).
    func sendsNearbyInfoOnly(_ device: DeviceID) -> Bool {
        nearbyOnlyWhenLocked[device.index] && world.deviceTable.settings(of: device).screen == .locked
    }

    // MARK: The active payload

    /// Schedules the next active-payload update of `id` if it is current
    /// and dirty: at the next multiple of the interval since it became
    /// current.
    ///
    /// UAUserActivityDefaults: "active payload update interval" 15 s. An
    /// assumption: while the activity is current and `needsSave`, the
    /// system calls `userActivityWillSave` on that schedule (clearing
    /// `needsSave`), so a later fetch sends the latest saved payload
    /// without asking again unless the app marked it dirty since.
    mutating func schedulePayloadUpdate(of id: ActivityID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let device = activities[id.index].device
        guard !activities[id.index].payloadUpdatePending, currentActivity[device.index] == id,
            activities[id.index].content.needsSave, let start = activities[id.index].lastBecameCurrent
        else { return }
        let interval = setup.configuration.advertising.activePayloadUpdateInterval.nanoseconds
        let ticks = (now - start).nanoseconds / interval + 1
        activities[id.index].payloadUpdatePending = true
        scheduler.schedule(
            .activePayloadUpdate(activity: Int32(id.index)),
            at: start + .nanoseconds(min(ticks, Int64.max / interval) * interval))
    }

    /// An active-payload update of `id` is due: if it is still current and
    /// dirty, the app saves (`userActivityWillSave`) and `needsSave` is
    /// cleared.
    mutating func activePayloadUpdateDue(_ id: ActivityID, now: SimInstant) {
        activities[id.index].payloadUpdatePending = false
        let device = activities[id.index].device
        guard currentActivity[device.index] == id, activities[id.index].state == .current,
            activities[id.index].content.needsSave
        else { return }
        record(now, device: device, app: .system, activity: id,
               .system(.activePayloadUpdate(interval: setup.configuration.advertising.activePayloadUpdateInterval)))
        guard apply(.save, to: id, now: now) else { return }
        var content = activities[id.index].content
        var context = CallbackContext(now: now, device: deviceName(device))
        activities[id.index].delegate.userActivityWillSave(&content, context: &context)
        content.needsSave = false
        activities[id.index].content = content
        record(now, device: device, app: .source(id), activity: id, .callback(.userActivityWillSave))
    }

    // MARK: Keys through the cloud

    /// The key exchange's connection failed: over Bluetooth LE, with both
    /// devices on the internet, the keys are asked for through the cloud
    /// relay instead (within the same timeout); otherwise the exchange
    /// fails.
    ///
    /// Apple Platform Security ("Handoff security"): "in some situations
    /// these messages are sent using APNs". That a failed Bluetooth LE
    /// connection is such a situation is an assumption.
    mutating func keyExchangeConnectionFailed(pair: Int, failure: ConnectionFailure, now: SimInstant) {
        guard let connection = keyExchanges[pair].connection else { return }
        let receiver = DeviceID(pair / world.deviceCount)
        let source = DeviceID(pair % world.deviceCount)
        guard setup.configuration.keyExchange.overCloud, keyExchanges[pair].cloudConnection != connection,
            world.isPathAvailable(.cloudRelay, between: receiver, and: source, at: now)
        else {
            keyExchangeFailed(pair: pair, now: now, reason: .connection(failure))
            return
        }
        world.close(connection)
        let cloud = world.openConnection(
            from: receiver, to: source, over: .cloudRelay, parameters: setup.configuration.fetchTransport, at: now)
        own(cloud, by: .keyExchange(pair))
        keyExchanges[pair].connection = cloud
        keyExchanges[pair].cloudConnection = cloud
        traceCount += 1
        if keepsTrace {
            keep(now, device: receiver, app: .system, activity: keyExchanges[pair].activity,
                 .system(.keysOverCloud(with: traceDevice(source))))
        }
    }
}
