import HandoffWorld
import SimKernel

/// Routing due events and the world's notifications to the roles, and
/// knowing when a run has settled.
extension HandoffEngine {
    /// Handles one due event: a world event, a scheduled action or a
    /// protocol step, each handed to the role it concerns; then acts on the
    /// world's notifications, hands the world's new events to `scheduler`,
    /// and stops the run once it has settled (with ``stopsWhenSettled``).
    package mutating func handle(_ event: HandoffEvent, scheduler: inout Scheduler<HandoffEvent>) {
        let now = scheduler.now
        core.clock = now
        // A world event that tells the protocol nothing cannot change
        // whether the run has settled.
        var leavesProtocolAlone = false
        switch event {
        case let .world(worldEvent):
            core.world.handle(worldEvent, at: now)
            leavesProtocolAlone = knownUnsettled
        case let .action(index):
            actionsRemaining -= 1
            perform(actions[Int(index)], now: now, scheduler: &scheduler)
        case let .step(attempt, step):
            if step.keepsRunGoing { core.attempts[Int(attempt)].pendingSteps -= 1 }
            run(step, of: Int(attempt), now: now, scheduler: &scheduler)
        case let .keyExchangeTimeout(pair, generation):
            fetch.keyExchangeTimedOut(pair: Int(pair), generation: generation, now: now, core: &core)
        case let .advertisementRemoval(device, generation):
            source.removeAdvertisement(
                of: Int(device), generation: generation, userIdle: lifetime.userIdle[Int(device)], now: now,
                core: &core, scheduler: &scheduler)
        case let .resumeWindowEnded(activity, generation):
            let id = ActivityID(Int(activity))
            if source.resumeWindowEnded(id, generation: generation, core: &core) {
                receiver.withdrawOffers(
                    of: id, note: .advertisingEnded(ago: core.setup.configuration.advertising.resumeWindow), now: now,
                    core: &core)
            }
        case let .advertisementUpdate(device, generation):
            source.pacedUpdateDue(device: Int(device), generation: generation, now: now, core: &core)
        case let .presenceCheck(pair):
            let receiverIndex = Int(pair) / core.world.deviceCount
            if let lost = lifetime.presenceCheck(pair: Int(pair), now: now, core: &core, scheduler: &scheduler) {
                receiver.withdrawOffers(
                    from: lost, on: receiverIndex, note: core.keepsTrace ? .deviceLost(core.traceDevice(lost)) : nil,
                    now: now, core: &core)
            }
        case let .scanStopDue(pair):
            lifetime.scanStopDue(pair: Int(pair), now: now, core: &core, scheduler: &scheduler)
        case let .userIdleDue(device, generation):
            let id = DeviceID(Int(device))
            if lifetime.userIdleDue(
                device: id.index, generation: generation, current: source.currentActivity[id.index], now: now,
                core: &core)
            {
                let settings = core.world.deviceTable.settings(of: id)
                source.conditionsChanged(
                    of: id, from: settings, idle: false, to: settings, idle: true, now: now, core: &core,
                    scheduler: &scheduler)
            }
        case let .activePayloadUpdate(activity):
            source.activePayloadUpdateDue(ActivityID(Int(activity)), now: now, core: &core)
        }
        // Most events leave no notification: skip the call for them.
        let notified = core.world.notificationCount > 0 && processNotifications(now: now, scheduler: &scheduler)
        core.world.schedulePendingEvents(into: &scheduler)
        if stopsWhenSettled, !leavesProtocolAlone || notified {
            let settled = settled()
            knownUnsettled = !settled
            if settled { scheduler.stop() }
        }
    }

    /// Whether nothing is under way: no action left, no attempt busy, and
    /// no offer still to come on a device whose user accepts on their own.
    ///
    /// On such a device every current activity must have reached it (and
    /// been accepted), been blocked by a rule, or stopped being advertised
    /// for good: its advertising ended (the source's user went idle, the
    /// screen locked or dimmed) and the resume window after it is over, and
    /// with no action left nothing can start it again, so the device is
    /// never offered it (a receiver out of range then ends as not offered,
    /// `outOfRange`). An activity out of range of a source whose user keeps
    /// using it (`devicesInUse`) keeps the run going until its limit.
    func settled() -> Bool {
        guard actionsRemaining == 0 else { return false }
        for index in core.attempts.indices {
            if core.attempts[index].pendingSteps > 0 || core.attempts[index].outstandingRequests > 0
                || core.attempts[index].noticeInFlight
            {
                return false
            }
            switch core.attempts[index].state {
            case .accepted, .launching, .willContinue: return false
            case .discovered, .offered, .continued, .restored, .failed, .withdrawn, .inBrowser: continue
            }
        }
        for exchange in fetch.keyExchanges where exchange.connection != nil { return false }
        let devices = core.world.deviceCount
        for device in 0..<devices where receiver.acceptsAutomatically[device] {
            for sender in 0..<devices where sender != device {
                guard let activity = source.currentActivity[sender] else { continue }
                let slot = core.pairSlot(activity.index, device)
                if receiver.rejections[slot] != nil { continue }
                guard let attempt = core.attemptIndex[slot] else {
                    if core.activities[activity.index].advertisingOver && !core.world.isAdvertising(DeviceID(sender)) {
                        continue
                    }
                    return false
                }
                switch core.attempts[attempt].state {
                case .discovered, .offered: return false
                case .accepted, .launching, .willContinue, .continued, .restored, .failed, .withdrawn, .inBrowser: continue
                }
            }
        }
        return true
    }

    /// Handles the world's notifications until none are left (handling one
    /// may cause others).
    ///
    /// - Returns: whether any of them may have changed the protocol's state.
    @discardableResult
    mutating func processNotifications(now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) -> Bool {
        // By index: handling one may append more, which are handled too.
        var index = 0
        var changed = false
        while index < core.world.notificationCount {
            if handle(core.world.notification(at: index), now: now, scheduler: &scheduler) { changed = true }
            index += 1
        }
        if index > 0 { core.world.removeAllNotifications() }
        return changed
    }

    /// Acts on one notification of the world.
    ///
    /// - Returns: whether it may have changed the protocol's state (false
    ///   for an advertisement already acted on and for the notifications
    ///   the protocol ignores), which tells the run whether to check again
    ///   if it has settled.
    mutating func handle(
        _ notification: WorldNotification, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) -> Bool {
        switch notification {
        case let .advertisementReceived(from, to, payload):
            return advertisementReceived(from: from, to: to, payload: payload, now: now, scheduler: &scheduler)
        case let .connectionEstablished(connection):
            connectionEstablished(connection, now: now, scheduler: &scheduler)
        case let .connectionFailed(connection, failure):
            connectionFailed(connection, failure: failure, now: now, scheduler: &scheduler)
        case let .messageDelivered(connection, side, tag, bytes):
            messageDelivered(on: connection, to: side, tag: tag, bytes: bytes, now: now, scheduler: &scheduler)
        case let .datagramDelivered(link, tag, _):
            return fetch.datagramDelivered(on: link, tag: tag, now: now, core: &core)
        case .messageAcknowledged:
            // The protocol does not act on these.
            return false
        }
        return true
    }

    /// An advertisement reached a receiver: the receiver decides what it
    /// means; a new offer has its source's presence watched and its
    /// acceptance scheduled, an unknown key starts the key exchange.
    ///
    /// - Returns: whether it changed anything (a repeat of one already
    ///   acted on does not).
    mutating func advertisementReceived(
        from sender: DeviceID, to device: DeviceID, payload: UInt64, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) -> Bool {
        switch receiver.advertisementReceived(
            from: sender, to: device, payload: payload, now: now, currentActivity: source.currentActivity, core: &core)
        {
        case .ignored:
            return false
        case .changed:
            return true
        case let .needsKeys(activity):
            fetch.startKeyExchange(with: sender, on: device, for: activity, now: now, core: &core, scheduler: &scheduler)
            return true
        case let .offered(attempt):
            lifetime.watchPresence(of: sender, on: device, now: now, core: &core, scheduler: &scheduler)
            receiver.scheduleAcceptance(of: attempt, now: now, core: &core, scheduler: &scheduler)
            return true
        }
    }

    // MARK: Connections and messages

    /// A connection the protocol opened is up.
    mutating func connectionEstablished(
        _ connection: ConnectionID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        switch fetch.owner(of: connection) {
        case .none, .relay(_, .source):
            return
        case let .fetch(attempt), let .relay(attempt, .receiver):
            fetch.fetchConnectionEstablished(attempt, connection: connection, now: now, core: &core, scheduler: &scheduler)
        case let .streams(attempt):
            fetch.streamsOpened(attempt, now: now, core: &core, scheduler: &scheduler)
        case let .keyExchange(pair):
            fetch.keyExchangeConnected(pair: pair, connection: connection, now: now, core: &core)
        }
    }

    /// A connection the protocol opened failed.
    mutating func connectionFailed(
        _ connection: ConnectionID, failure: ConnectionFailure, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        switch fetch.owner(of: connection) {
        case .none:
            return
        case let .fetch(attempt), let .relay(attempt, .receiver):
            core.attempts[attempt].noticeInFlight = false
            if fetch.fetchConnectionFailed(attempt, connection: connection, failure: failure, now: now, core: &core) {
                receiver.fetchEnded(attempt, now: now, core: &core, scheduler: &scheduler)
            }
        case let .relay(attempt, .source):
            // Whatever the servers still had for the source is lost with
            // its connection; the receiver's payload timer decides the fetch.
            core.attempts[attempt].noticeInFlight = false
        case let .streams(attempt):
            fetch.streamsFailed(attempt, error: .connectionUnavailable, now: now, core: &core, scheduler: &scheduler)
        case let .keyExchange(pair):
            fetch.keyExchangeConnectionFailed(pair: pair, failure: failure, now: now, core: &core)
        }
    }

    /// A message arrived on a connection the protocol opened: the source
    /// serves requests and hears the "continued" notice and stream
    /// requests; the fetch takes the rest.
    mutating func messageDelivered(
        on connection: ConnectionID, to side: ConnectionSide, tag: UInt64, bytes: Int, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard let (kind, argument) = MessageKind.parse(tag) else { return }
        let attempt: Int
        switch fetch.owner(of: connection) {
        case .none:
            return
        case let .keyExchange(pair):
            fetch.keyExchangeMessage(kind, pair: pair, connection: connection, now: now, core: &core)
            return
        case let .relay(number, leg):
            relayMessageDelivered(
                kind, argument: argument, bytes: bytes, attempt: number, leg: leg, on: connection, to: side,
                now: now, scheduler: &scheduler)
            return
        case let .fetch(number), let .streams(number):
            attempt = number
        }
        switch kind {
        case .fetch:
            guard let message = FetchMessage(rawValue: UInt8(truncatingIfNeeded: argument)) else { return }
            fetch.fetchMessageArrived(message, of: attempt, on: connection, now: now, core: &core, scheduler: &scheduler)
        case .request:
            source.serveFetch(for: attempt, on: connection, now: now, core: &core, scheduler: &scheduler)
        case .payload:
            guard connection == core.attempts[attempt].connection else { return }
            fetch.fetchArrived(attempt, now: now, core: &core, scheduler: &scheduler)
        case .error:
            guard connection == core.attempts[attempt].connection else { return }
            fetchFailed(attempt, with: ContinuationError(code: argument), now: now, scheduler: &scheduler)
        case .continued:
            source.continuedNoticeArrived(for: attempt, now: now, core: &core)
        case .streamRequest:
            source.streamRequestArrived(for: attempt, round: argument, bytes: bytes, now: now, core: &core,
                                        scheduler: &scheduler)
        case .streamResponse:
            fetch.streamResponseArrived(attempt, round: argument, bytes: bytes, now: now, core: &core,
                                        scheduler: &scheduler)
        case .keyRequest, .keyAnswer, .relayStored, .relayDownload:
            return
        }
    }

    /// A message arrived on a leg of attempt `attempt`'s relayed fetch:
    /// at the servers it goes on to the other leg; at a leg's device it is
    /// the source's request or notice, or the receiver's payload, error or
    /// stored-payload notice.
    mutating func relayMessageDelivered(
        _ kind: MessageKind, argument: Int, bytes: Int, attempt: Int, leg: RelayLeg,
        on connection: ConnectionID, to side: ConnectionSide, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        if side == .responder {
            // The servers received it from the leg's device.
            fetch.relayReceived(
                kind, argument: argument, bytes: bytes, attempt: attempt, from: leg, now: now, core: &core,
                scheduler: &scheduler)
            return
        }
        // The leg's device received it from the servers.
        switch (leg, kind) {
        case (.source, .request):
            source.serveFetch(
                for: attempt, on: connection, replyingFrom: .initiator, now: now, core: &core, scheduler: &scheduler)
        case (.source, .continued):
            source.continuedNoticeArrived(for: attempt, now: now, core: &core)
        case (.receiver, .payload), (.receiver, .relayDownload):
            guard connection == core.attempts[attempt].connection else { return }
            fetch.fetchArrived(attempt, now: now, core: &core, scheduler: &scheduler)
        case (.receiver, .error):
            guard connection == core.attempts[attempt].connection else { return }
            fetchFailed(attempt, with: ContinuationError(code: argument), now: now, scheduler: &scheduler)
        case (.receiver, .relayStored):
            fetch.relayStored(attempt, bytes: argument, on: connection, now: now, core: &core)
        case (.source, .payload), (.source, .error), (.source, .streamRequest), (.source, .streamResponse), (.source, .fetch),
            (.source, .keyRequest), (.source, .keyAnswer), (.source, .relayStored), (.source, .relayDownload),
            (.receiver, .request), (.receiver, .continued), (.receiver, .streamRequest), (.receiver, .streamResponse),
            (.receiver, .fetch), (.receiver, .keyRequest), (.receiver, .keyAnswer):
            return
        }
    }

    /// The fetch of `attempt` failed with `error` (an error answer): the
    /// app fails now if it is ready, else when it is.
    mutating func fetchFailed(
        _ attempt: Int, with error: ContinuationError, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        if fetch.fetchFailed(attempt, with: error, now: now, core: &core) {
            receiver.fetchEnded(attempt, now: now, core: &core, scheduler: &scheduler)
        }
    }

    // MARK: Steps

    /// Runs `step` of `attempt`, by the role it belongs to.
    mutating func run(_ step: ProtocolStep, of attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        switch step {
        case .accept:
            if core.attempts[attempt].state == .offered { accept(attempt, now: now, scheduler: &scheduler) }
        case .launched:
            receiver.launched(attempt, now: now, core: &core, scheduler: &scheduler)
        case .appReady:
            receiver.appReady(attempt, now: now, core: &core, scheduler: &scheduler)
        case let .resolveRetry(query):
            fetch.resolveRetry(attempt, after: Int(query), now: now, core: &core, scheduler: &scheduler)
        case let .relayForward(leg, kind, argument, bytes):
            guard let kind = MessageKind(rawValue: UInt64(kind)) else { return }
            fetch.relayForward(attempt, to: leg, kind: kind, argument: Int(argument), bytes: Int(bytes), now: now,
                               core: &core)
        case .resolvedFromCache:
            fetch.resolvedFromCache(attempt, now: now, core: &core)
        case let .fetchSend(message):
            fetch.sendFetchMessage(message, of: attempt, now: now, core: &core)
        case .rapportDeadline:
            if fetch.rapportDeadline(attempt, now: now, core: &core) {
                receiver.fetchEnded(attempt, now: now, core: &core, scheduler: &scheduler)
            }
        case .fetchTimeout:
            if fetch.fetchTimeout(attempt, now: now, core: &core) {
                receiver.fetchEnded(attempt, now: now, core: &core, scheduler: &scheduler)
            }
        case .sourceSend:
            source.sourceSend(attempt, now: now, core: &core)
        case .payloadDecoded:
            if fetch.payloadDecoded(attempt, now: now, core: &core) {
                receiver.fetchEnded(attempt, now: now, core: &core, scheduler: &scheduler)
            }
        case .continueReturned:
            fetch.continueReturned(attempt, now: now, core: &core, scheduler: &scheduler)
        case let .restore(call):
            receiver.restore(attempt, call: Int(call), now: now, core: &core)
        case .streamSend:
            fetch.flushStreamRequests(attempt, now: now, core: &core)
        case let .streamRespond(round):
            source.streamRespond(attempt, round: Int(round), now: now, core: &core)
        }
    }
}
