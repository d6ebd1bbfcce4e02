import HandoffWorld
import SimKernel

/// What a message on a Handoff connection is, in the low byte of its tag;
/// the bytes above carry an error code or a stream round.
enum MessageKind: UInt64 {
    /// Receiver → source: send me the activity.
    case request = 1
    /// Source → receiver: the activity's data.
    case payload = 2
    /// Source → receiver: an error code instead of data.
    case error = 3
    /// Receiver → source: the activity was continued.
    case continued = 4
    /// Receiver → source over streams: a request of round n.
    case streamRequest = 5
    /// Source → receiver over streams: the answer of round n.
    case streamResponse = 6
    /// A Rapport message before the request; the argument is its
    /// ``FetchMessage``.
    case fetch = 7
    /// Receiver → source over Bluetooth LE: the advertisement-key request.
    case keyRequest = 8
    /// Source → receiver: the keys.
    case keyAnswer = 9
    /// Cloud relay → receiver: a payload too large for a push is stored;
    /// the argument is its size.
    case relayStored = 10
    /// Receiver → cloud relay: send the stored payload (answered with it).
    case relayDownload = 11

    func tag(_ argument: Int = 0) -> UInt64 { rawValue | UInt64(argument) << 8 }

    static func parse(_ tag: UInt64) -> (MessageKind, Int)? {
        guard let kind = MessageKind(rawValue: tag & 0xff) else { return nil }
        return (kind, Int(tag >> 8))
    }
}

extension HandoffEngine {
    // MARK: Actions

    /// Performs a scheduled action, then counts it as the user's input on
    /// its device when it is one (see ``inputDevice(of:)``).
    mutating func perform(_ action: HandoffAction, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        act(action, now: now, scheduler: &scheduler)
        // The user's input (and the app's calls, made while it is used)
        // starts the device's idle time over.
        if let device = inputDevice(of: action) { userGaveInput(on: device, now: now, scheduler: &scheduler) }
    }

    /// What `action` itself does.
    mutating func act(_ action: HandoffAction, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        switch action {
        case let .becomeCurrent(id):
            becomeCurrent(id, now: now, scheduler: &scheduler)
        case let .resignCurrent(id):
            guard apply(.resignCurrent, to: id, now: now) else { return }
            stopAdvertising(id, now: now, scheduler: &scheduler)
        case let .invalidate(id):
            invalidate(id, now: now, scheduler: &scheduler)
        case let .setNeedsSave(id, value):
            guard isAlive(id, doing: .setNeedsSave, now: now) else { return }
            activities[id.index].content.needsSave = value
            record(now, device: activities[id.index].device, app: .source(id), activity: id,
                   .change(.needsSave(value)))
            if value { schedulePayloadUpdate(of: id, now: now, scheduler: &scheduler) }
        case let .addUserInfoEntries(id, entries):
            guard isAlive(id, doing: .addUserInfoEntries, now: now) else { return }
            activities[id.index].content.addUserInfoEntries(entries)
            record(now, device: activities[id.index].device, app: .source(id), activity: id,
                   .change(.addUserInfoEntries(keys: keepsTrace ? entries.keys : [])))
        case let .setEligibleForHandoff(id, value):
            guard isAlive(id, doing: .isEligibleForHandoff, now: now) else { return }
            activities[id.index].content.isEligibleForHandoff = value
            record(now, device: activities[id.index].device, app: .source(id), activity: id,
                   .change(.eligibleForHandoff(value)))
        case let .accept(name):
            accept(on: deviceNumber(name) ?? 0, now: now, scheduler: &scheduler)
        case let .setSettings(name, settings):
            let device = DeviceID(deviceNumber(name) ?? 0)
            let old = world.deviceTable.settings(of: device)
            world.setSettings(settings, of: device)
            settingsChanged(of: device, from: old, to: settings, now: now, scheduler: &scheduler)
        case let .setAccount(name, account):
            world.setAccount(account, of: DeviceID(deviceNumber(name) ?? 0), at: now)
        case let .userInput(name):
            traceCount += 1
            if keepsTrace {
                let device = deviceNumber(name) ?? 0
                keep(now, device: DeviceID(device), app: .system, activity: currentActivity[device], .system(.userInput))
            }
        }
    }

    @inline(__always)
    func sourceApp(_ id: ActivityID) -> String { appBundleIDs[activities[id.index].app] }

    /// Whether the app may still change the activity; after `invalidate`
    /// nothing is legal, so a change is a violation.
    mutating func isAlive(_ id: ActivityID, doing change: ActivityChange.Kind, now: SimInstant) -> Bool {
        guard activities[id.index].state == .invalidated else { return true }
        recordIllegalChange(now, activity: id, change: change)
        return false
    }

    mutating func becomeCurrent(_ id: ActivityID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let device = activities[id.index].device
        if let previous = currentActivity[device.index], previous != id {
            apply(.superseded, to: previous, now: now, note: keepsTrace ? .becameCurrent(traceActivity(id)) : nil)
        }
        guard apply(.becomeCurrent, to: id, now: now) else { return }
        currentActivity[device.index] = id
        activities[id.index].lastBecameCurrent = now
        schedulePayloadUpdate(of: id, now: now, scheduler: &scheduler)
        let settings = world.deviceTable.settings(of: device)
        if settings.lowPowerMode {
            // UserActivity: "LowPowerMode is enabled so no activity will be advertised".
            world.stopAdvertising(device)
            record(now, device: device, app: .system, activity: id, .system(.notAdvertised(.lowPowerMode)))
            return
        }
        if sendsNearbyInfoOnly(device) {
            // A locked iPhone on iOS 18.3 or later: Nearby Info only.
            world.stopAdvertising(device)
            record(now, device: device, app: .system, activity: id, .system(.notAdvertised(.lockedNearbyOnly)))
            return
        }
        // UAUserActivityDefaults: updates at least 0.5 s apart, at most 5 in
        // 10 s, and an advertisement lives at least 3 s.
        let due = earliestUpdate(of: device, at: now)
        updateGenerations[device.index] &+= 1
        if due > now {
            record(now, device: device, app: .system, activity: id, .system(.advertisementPaced(until: due)))
            scheduler.schedule(
                .advertisementUpdate(device: Int32(device.index), generation: updateGenerations[device.index]), at: due)
            return
        }
        advertiseUpdate(id, now: now)
    }

    /// The earliest instant the device may update its advertisement.
    func earliestUpdate(of device: DeviceID, at now: SimInstant) -> SimInstant {
        let policy = setup.configuration.advertising
        var due = now
        if let started = advertStartedAt[device.index], world.isAdvertising(device) {
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
    mutating func advertiseUpdate(_ id: ActivityID, now: SimInstant) {
        let device = activities[id.index].device.index
        let capacity = setup.configuration.advertising.maximumUpdatesPerWindow
        updateTimes[device * capacity + updateNext[device]] = now
        updateNext[device] = (updateNext[device] + 1) % capacity
        updateCounts[device] = min(updateCounts[device] + 1, capacity)
        advertStartedAt[device] = now
        advertise(id, now: now)
    }

    /// A paced update is due: advertise what is current now.
    mutating func pacedUpdateDue(device: Int, generation: UInt32, now: SimInstant) {
        guard updateGenerations[device] == generation, let id = currentActivity[device],
            !world.deviceTable.settings(of: DeviceID(device)).lowPowerMode, !sendsNearbyInfoOnly(DeviceID(device))
        else { return }
        advertiseUpdate(id, now: now)
    }

    /// Starts (or restarts) advertising `id`, current on its device, with a
    /// new generation.
    mutating func advertise(_ id: ActivityID, now: SimInstant) {
        activities[id.index].advertGeneration &+= 1
        activities[id.index].advertisingOver = false
        let payload = UInt64(id.index) | UInt64(activities[id.index].advertGeneration) << 32
        world.startAdvertising(activities[id.index].device, payload: payload, at: now)
    }

    /// The activity stops being current: its advertising ends, and offers
    /// of it last the resume window.
    mutating func stopAdvertising(_ id: ActivityID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let device = activities[id.index].device
        guard currentActivity[device.index] == id else { return }
        currentActivity[device.index] = nil
        let wasAdvertising = world.isAdvertising(device)
        world.stopAdvertising(device)
        if wasAdvertising { startResumeWindow(of: id, now: now, scheduler: &scheduler) }
    }

    /// Advertising of `id` ended now: offers not accepted within the resume
    /// window go away (UserActivity: an activity can still be resumed up to
    /// 10 s after advertising ends).
    mutating func startResumeWindow(of id: ActivityID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        scheduler.schedule(
            .resumeWindowEnded(activity: Int32(id.index), generation: activities[id.index].advertGeneration),
            at: now + setup.configuration.advertising.resumeWindow)
    }

    /// The resume window of `id`'s advertising generation is over.
    mutating func resumeWindowEnded(_ id: ActivityID, generation: UInt32, now: SimInstant) {
        guard activities[id.index].advertGeneration == generation else { return }
        let device = activities[id.index].device
        if currentActivity[device.index] == id, world.isAdvertising(device) { return }
        activities[id.index].advertisingOver = true
        for receiver in 0..<world.deviceCount {
            guard let attempt = attemptIndex[pairSlot(id.index, receiver)] else { continue }
            switch attempts[attempt].state {
            case .discovered, .offered:
                apply(.withdraw, to: attempt, now: now,
                      note: .advertisingEnded(ago: setup.configuration.advertising.resumeWindow))
                if visibleOffer[receiver] == attempt { visibleOffer[receiver] = nil }
            case .accepted, .launching, .willContinue, .continued, .restored, .failed, .withdrawn, .inBrowser:
                continue
            }
        }
    }

    /// A device's switches or state changed: as a receiver, a screen-on
    /// or Bluetooth coming on restarts its stopped scans; as a source, see
    /// ``conditionsChanged(of:from:idle:to:idle:now:scheduler:)``. An
    /// unlock, a screen-on or leaving the explicit idle state is input.
    mutating func settingsChanged(
        of device: DeviceID, from old: DeviceSettings, to new: DeviceSettings, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        if (old.screen != .on && new.screen == .on) || (!old.bluetoothEnabled && new.bluetoothEnabled) {
            restartScanning(on: device, now: now)
        }
        let idle = userIdle[device.index]
        conditionsChanged(of: device, from: old, idle: idle, to: new, idle: idle, now: now, scheduler: &scheduler)
        if (old.screen != .on && new.screen == .on) || (old.idle && !new.idle) {
            userGaveInput(on: device, now: now, scheduler: &scheduler)
        }
    }

    /// A source's switches, screen or idleness changed: Low Power Mode
    /// stops its advertising at once, and so does locking an iPhone on
    /// iOS 18.3 or later; locking, dimming or going idle removes it after
    /// the policy's delay; back in use, the current activity is advertised
    /// again.
    mutating func conditionsChanged(
        of device: DeviceID, from old: DeviceSettings, idle oldIdle: Bool, to new: DeviceSettings, idle newIdle: Bool,
        now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let policy = setup.configuration.advertising
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
        if new.lowPowerMode, !old.lowPowerMode, world.isAdvertising(device) {
            world.stopAdvertising(device)
            record(now, device: device, app: .system, activity: id, .system(.advertisementRemoved(.lowPowerMode)))
            startResumeWindow(of: id, now: now, scheduler: &scheduler)
        }
        if nearbyOnlyWhenLocked[device.index], new.screen == .locked, old.screen != .locked, world.isAdvertising(device) {
            // furiousMAC/continuity issue 10: locked, iOS 18.3 or later
            // sends only Nearby Info (0x16), so the Handoff advertisement
            // goes now rather than after removalAfterLock.
            world.stopAdvertising(device)
            record(now, device: device, app: .system, activity: id, .system(.advertisementRemoved(.lockedNearbyOnly)))
            startResumeWindow(of: id, now: now, scheduler: &scheduler)
        }
        if !new.lowPowerMode, newDelay == nil, !world.isAdvertising(device) {
            record(now, device: device, app: .system, activity: id, .system(.advertisingAgain))
            advertise(id, now: now)
        }
    }

    /// A removal timer fired: if the device is still locked, dimmed or idle,
    /// its advertisement goes.
    mutating func removeAdvertisement(
        of device: Int, generation: UInt32, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard removalGenerations[device] == generation, let id = currentActivity[device],
            world.isAdvertising(DeviceID(device))
        else { return }
        let settings = world.deviceTable.settings(of: DeviceID(device))
        world.stopAdvertising(DeviceID(device))
        let reason: SystemEvent.AdvertisingStop = settings.idle || userIdle[device] ? .idle
            : settings.screen == .locked ? .locked : .dimmed
        record(now, device: DeviceID(device), app: .system, activity: id, .system(.advertisementRemoved(reason)))
        startResumeWindow(of: id, now: now, scheduler: &scheduler)
    }

    mutating func invalidate(_ id: ActivityID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard apply(.invalidate, to: id, now: now) else { return }
        stopAdvertising(id, now: now, scheduler: &scheduler)
        // Offers not yet picked go away everywhere.
        for device in 0..<world.deviceCount {
            guard let attempt = attemptIndex[pairSlot(id.index, device)] else { continue }
            switch attempts[attempt].state {
            case .discovered, .offered:
                apply(.withdraw, to: attempt, now: now, note: .activityInvalidated)
                if visibleOffer[device] == attempt { visibleOffer[device] = nil }
            case .accepted, .launching, .willContinue, .continued, .restored, .failed, .withdrawn, .inBrowser:
                continue
            }
        }
    }

    // MARK: Serving a fetch

    /// The payload request reached the source over `connection`.
    ///
    /// The source asks the app for an update (`userActivityWillSave` when
    /// `needsSave`, `updateUserActivityState` for each responder of a
    /// responder-managed activity) and waits for it at most
    /// ``HandoffConfiguration/saveWait`` (1 s in UserActivity); an app
    /// slower than that has its update miss this payload, which is sent as
    /// it was. Then it checks the encoded `userInfo` against the
    /// recommended maximum (a warning) and the hard maximum (refused: 4611
    /// at the receiver), and sends the payload or the error after its own
    /// save time. A request that arrives again (over the cloud, after
    /// Rapport gave up) gets the answer already decided.
    mutating func serveFetch(
        for attempt: Int, on connection: ConnectionID, replyingFrom side: ConnectionSide = .responder, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        let id = attempts[attempt].activity
        let source = activities[id.index].device
        let receiver = attempts[attempt].receiver
        attempts[attempt].replyConnection = connection
        attempts[attempt].replySide = side
        var generator = stream.child(HandoffStreamNames.save, attempt).generator()
        let saveTime = setup.configuration.sourceSaveTime.sample(using: &generator)
        attempts[attempt].marks.requestReceived = now
        attempts[attempt].marks.sourceUpdate = .zero
        attempts[attempt].marks.encode = .zero
        if attempts[attempt].pendingReply != nil {
            attempts[attempt].marks.sourceUpdate = saveTime
            record(now, device: source, app: .system, activity: id, .system(.requestAgain))
            later(.sourceSend, of: attempt, after: saveTime, now: now, scheduler: &scheduler)
            return
        }
        var context = CallbackContext(now: now, device: deviceName(source))
        guard isSourceAvailable(id, for: receiver) else {
            attempts[attempt].pendingReply = .failure(.handoffFailed)
            record(now, device: source, app: .source(id), activity: id, .system(.fetchRefused(.unavailable)))
            later(.sourceSend, of: attempt, after: .zero, now: now, scheduler: &scheduler)
            return
        }
        apply(.save, to: id, now: now, note: .requestedBy(traceDevice(receiver)))
        var sent = activities[id.index].content
        if sent.needsSave || sent.isResponderManaged {
            // The delegates change the content through `inout`; the result
            // replaces it.
            var content = sent
            let delegate = activities[id.index].delegate
            if content.needsSave {
                delegate.userActivityWillSave(&content, context: &context)
                content.needsSave = false
                record(now, device: source, app: .source(id), activity: id, .callback(.userActivityWillSave))
            }
            if content.isResponderManaged {
                content.userInfo.removeAll()
                for responder in content.responders {
                    delegate.updateUserActivityState(&content, responder: responder, context: &context)
                    record(now, device: source, app: .source(id), activity: id,
                           .callback(.updateUserActivityState(responder: responder)))
                }
            }
            // A source app in the scene lifecycle has the last word.
            if case let .scene(scene) = appDelegate(device: source, app: activities[id.index].app) {
                scene.scene(didUpdate: &content, context: &context)
                record(now, device: source, app: .source(id), activity: id, .callback(.sceneDidUpdate))
            }
            activities[id.index].content = content
            if context.processingTime <= setup.configuration.saveWait {
                sent = content
            } else {
                record(now, device: source, app: .system, activity: id,
                       .system(.saveWaitOver(update: context.processingTime, wait: setup.configuration.saveWait)))
            }
        }
        let wait = min(context.processingTime, setup.configuration.saveWait)
        let missing = sent.userInfo.missingKeys(of: sent.requiredUserInfoKeys)
        let size = sent.transferSize
        if !missing.isEmpty {
            attempts[attempt].pendingReply = .failure(.handoffFailed)
            record(now, device: source, app: .source(id), activity: id, .system(.fetchRefused(.missingKeys(missing))))
        } else if size > setup.configuration.userInfoLimit {
            attempts[attempt].pendingReply = .failure(.handoffUserInfoTooLarge)
            record(now, device: source, app: .system, activity: id,
                   .system(.fetchRefused(.tooLarge(size: size, limit: setup.configuration.userInfoLimit))))
        } else {
            if size > setup.configuration.userInfoRecommendedLimit {
                record(now, device: source, app: .system, activity: id,
                       .system(.userInfoOverRecommended(size: size, recommended: setup.configuration.userInfoRecommendedLimit)))
            }
            attempts[attempt].pendingReply = .success(size)
            attempts[attempt].delivered = deliveredActivity(
                of: id, content: sent, to: attempts[attempt].receiver, target: attempts[attempt].target)
        }
        // Encoding and sealing what is sent (``PayloadCoding``).
        var encode = SimDuration.zero
        if case let .success(bytes) = attempts[attempt].pendingReply {
            encode = setup.configuration.coding.encodeTime(bytes: bytes + setup.configuration.envelopeBytes)
        }
        attempts[attempt].marks.sourceUpdate = wait + saveTime
        attempts[attempt].marks.encode = encode
        later(.sourceSend, of: attempt, after: wait + saveTime + encode, now: now, scheduler: &scheduler)
    }

    /// Whether the source can still hand the activity to `receiver`: not
    /// invalidated, and the source still signed in to the receiver's
    /// account with Handoff on.
    func isSourceAvailable(_ id: ActivityID, for receiver: DeviceID) -> Bool {
        let source = activities[id.index].device
        guard activities[id.index].state != .invalidated else { return false }
        return world.deviceTable.settings(of: source).handoffEnabled && world.deviceTable.shareAccount(source, receiver)
    }

    /// What the receiving app gets: the data sent, a document URL moved to
    /// the receiver's container, an empty `userInfo` for a web page handed
    /// to a native app.
    mutating func deliveredActivity(
        of id: ActivityID, content: ActivityContent, to receiver: DeviceID, target: ContinuationTarget
    ) -> ContinuedActivity {
        let activityType = content.activityType
        var userInfo = activityType == browsingWebActivityType ? UserInfo() : content.sentUserInfo
        if let path = content.documentPath, case let .app(app) = target {
            userInfo[documentURLKey] = .url(UbiquityContainer.url(
                of: path, bundleID: appBundleIDs[app], device: deviceName(receiver),
                platform: world.deviceTable.platform(of: receiver)))
        }
        return ContinuedActivity(
            activityType: activityType, title: content.title, userInfo: userInfo,
            webpageURL: content.webpageURL,
            supportsContinuationStreams: content.supportsContinuationStreams,
            sourceDevice: deviceName(activities[id.index].device))
    }

    /// The source's processing is done: send what it decided, framed, on
    /// the connection the request came over.
    mutating func sourceSend(_ attempt: Int, now: SimInstant) {
        guard let connection = attempts[attempt].replyConnection, let reply = attempts[attempt].pendingReply else { return }
        let id = attempts[attempt].activity
        let rapport = setup.configuration.rapport
        attempts[attempt].marks.payloadSent = now
        switch reply {
        case let .success(size):
            let bytes = rapport.framed(size + setup.configuration.envelopeBytes)
            world.send(
                bytes: bytes, tag: MessageKind.payload.tag(), on: connection, from: attempts[attempt].replySide, at: now)
            record(now, device: activities[id.index].device, app: .source(id), activity: id,
                   .message(.payload(userInfoBytes: size, totalBytes: bytes)))
        case let .failure(error):
            world.send(
                bytes: rapport.framed(setup.configuration.noticeBytes), tag: MessageKind.error.tag(error.code),
                on: connection, from: attempts[attempt].replySide, at: now)
        }
    }

    /// The receiver says it continued: tell the source's delegate, unless
    /// the activity was invalidated meanwhile (nothing follows invalidate).
    mutating func continuedNoticeArrived(for attempt: Int, now: SimInstant) {
        let id = attempts[attempt].activity
        attempts[attempt].noticeInFlight = false
        if let connection = attempts[attempt].connection { world.close(connection) }
        guard activities[id.index].state != .invalidated else {
            record(now, device: activities[id.index].device, app: .source(id), activity: id,
                   .system(.continuedNoticeIgnored))
            return
        }
        guard apply(.continued, to: id, now: now, note: .continuedBy(traceDevice(attempts[attempt].receiver))) else { return }
        var context = CallbackContext(now: now, device: deviceName(activities[id.index].device))
        activities[id.index].delegate.userActivityWasContinued(
            activities[id.index].content, by: deviceName(attempts[attempt].receiver), context: &context)
        record(now, device: activities[id.index].device, app: .source(id), activity: id,
               .callback(.userActivityWasContinued(by: traceDevice(attempts[attempt].receiver))))
    }

    // MARK: Serving streams

    mutating func streamRequestArrived(
        for attempt: Int, round: Int, bytes: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let id = attempts[attempt].activity
        var context = CallbackContext(now: now, device: deviceName(activities[id.index].device))
        let response = max(0, activities[id.index].delegate.userActivity(
            activities[id.index].content, respondToStreamRequest: round, requestBytes: bytes, context: &context))
        attempts[attempt].responseSizes[round] = response
        record(now, device: activities[id.index].device, app: .source(id), activity: id,
               .message(.streamRequest(round: round, requestBytes: bytes, responseBytes: response)))
        later(.streamRespond(Int32(round)), of: attempt, after: context.processingTime, now: now, scheduler: &scheduler)
    }

    mutating func streamRespond(_ attempt: Int, round: Int, now: SimInstant) {
        guard let connection = attempts[attempt].streamConnection,
            let bytes = attempts[attempt].responseSizes[round]
        else { return }
        world.send(bytes: bytes, tag: MessageKind.streamResponse.tag(round), on: connection, from: .responder, at: now)
    }
}
