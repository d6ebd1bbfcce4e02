import HandoffWorld
import SimKernel

/// Handling due events and the world's notifications, and knowing when a
/// run has settled.
extension HandoffEngine {
    /// Handles one due event: a world event, a scheduled action or a
    /// protocol step; then acts on the world's notifications, hands the
    /// world's new events to `scheduler`, and stops the run once it has
    /// settled (with ``stopsWhenSettled``).
    package mutating func handle(_ event: HandoffEvent, scheduler: inout Scheduler<HandoffEvent>) {
        let now = scheduler.now
        clock = now
        // A world event that tells the protocol nothing cannot change
        // whether the run has settled.
        var leavesProtocolAlone = false
        switch event {
        case let .world(worldEvent):
            world.handle(worldEvent, at: now)
            leavesProtocolAlone = knownUnsettled
        case let .action(index):
            actionsRemaining -= 1
            perform(actions[Int(index)], now: now, scheduler: &scheduler)
        case let .step(attempt, step):
            if step.keepsRunGoing { attempts[Int(attempt)].pendingSteps -= 1 }
            run(step, of: Int(attempt), now: now, scheduler: &scheduler)
        case let .keyExchangeTimeout(pair, generation):
            keyExchangeTimedOut(pair: Int(pair), generation: generation, now: now)
        case let .advertisementRemoval(device, generation):
            removeAdvertisement(of: Int(device), generation: generation, now: now, scheduler: &scheduler)
        case let .resumeWindowEnded(activity, generation):
            resumeWindowEnded(ActivityID(Int(activity)), generation: generation, now: now)
        case let .advertisementUpdate(device, generation):
            pacedUpdateDue(device: Int(device), generation: generation, now: now)
        case let .presenceCheck(pair):
            presenceCheck(pair: Int(pair), now: now, scheduler: &scheduler)
        case let .scanStopDue(pair):
            scanStopDue(pair: Int(pair), now: now, scheduler: &scheduler)
        case let .userIdleDue(device, generation):
            userIdleDue(device: Int(device), generation: generation, now: now, scheduler: &scheduler)
        case let .activePayloadUpdate(activity):
            activePayloadUpdateDue(ActivityID(Int(activity)), now: now)
        }
        // Most events leave no notification: skip the call for them.
        let notified = world.notificationCount > 0 && processNotifications(now: now, scheduler: &scheduler)
        world.schedulePendingEvents(into: &scheduler)
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
        for index in attempts.indices {
            if attempts[index].pendingSteps > 0 || attempts[index].outstandingRequests > 0
                || attempts[index].noticeInFlight
            {
                return false
            }
            switch attempts[index].state {
            case .accepted, .launching, .willContinue: return false
            case .discovered, .offered, .continued, .restored, .failed, .withdrawn, .inBrowser: continue
            }
        }
        for exchange in keyExchanges where exchange.connection != nil { return false }
        for device in 0..<world.deviceCount where acceptsAutomatically[device] {
            for source in 0..<world.deviceCount where source != device {
                guard let activity = currentActivity[source] else { continue }
                let slot = pairSlot(activity.index, device)
                if rejections[slot] != nil { continue }
                guard let attempt = attemptIndex[slot] else {
                    if activities[activity.index].advertisingOver && !world.isAdvertising(DeviceID(source)) { continue }
                    return false
                }
                switch attempts[attempt].state {
                case .discovered, .offered: return false
                case .accepted, .launching, .willContinue, .continued, .restored, .failed, .withdrawn, .inBrowser: continue
                }
            }
        }
        return true
    }

    /// Schedules `step` of `attempt` after `delay`.
    ///
    /// A step counts as work under way (keeping the run from settling)
    /// unless it only matters in a state that keeps the run going anyway: a
    /// fetch timeout matters only while fetching.
    mutating func later(
        _ step: ProtocolStep, of attempt: Int, after delay: SimDuration, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        if step.keepsRunGoing { attempts[attempt].pendingSteps += 1 }
        scheduler.schedule(.step(attempt: Int32(attempt), step), at: now + max(delay, .zero))
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
        while index < world.notificationCount {
            if handle(world.notification(at: index), now: now, scheduler: &scheduler) { changed = true }
            index += 1
        }
        if index > 0 { world.removeAllNotifications() }
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
            return datagramDelivered(on: link, tag: tag, now: now, scheduler: &scheduler)
        case .messageAcknowledged:
            // The protocol does not act on these.
            return false
        }
        return true
    }
}
