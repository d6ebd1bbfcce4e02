import HandoffWorld
import SimKernel

/// The fetch through the cloud relay (IDS): the receiver's request goes up
/// its persistent connection to Apple's servers, waits the relay's delay,
/// and comes down the source's; the payload goes back the same way. A
/// payload larger than the relay's inline limit is stored and downloaded
/// by the receiver (see ``RelayParameters``).
///
/// Each leg is a device's connection to the servers (``World/openServerConnection(from:parameters:persistent:at:)``),
/// already up, as the push connection every Apple device keeps, with the
/// world's transport settings (not the fetch's short retry limit: the
/// connection outlives one fetch).
extension HandoffEngine {
    /// Sends the request over the cloud relay: the receiver's leg opens
    /// (already up) and the request goes at once.
    mutating func fetchOverCloud(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let id = attempts[attempt].activity
        attempts[attempt].fetchStage = .cloud
        attempts[attempt].rapportPath = .cloudRelay
        record(now, device: attempts[attempt].receiver, app: .system, activity: id, .system(.fetchOverCloud))
        attempts[attempt].milestones.reach(.connecting, at: now)
        guard world.isServerReachable(from: attempts[attempt].receiver, at: now) else {
            // The receiver has no way to Apple's servers (no internet, or
            // its link is down): nothing to send the request on.
            fetchFailed(attempt, with: .connectionUnavailable, now: now, scheduler: &scheduler)
            return
        }
        let leg = world.openServerConnection(
            from: attempts[attempt].receiver, persistent: true, at: now)
        own(leg, by: .relay(attempt, .receiver))
        attempts[attempt].connection = leg
    }

    /// A message arrived on a leg of attempt `attempt`'s relayed fetch.
    mutating func relayMessageDelivered(
        _ kind: MessageKind, argument: Int, bytes: Int, attempt: Int, leg: RelayLeg,
        on connection: ConnectionID, to side: ConnectionSide, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        if side == .responder {
            // The servers received it from the leg's device.
            guard kind != .relayDownload else { return }  // answered by the storage itself
            let other: RelayLeg = leg == .receiver ? .source : .receiver
            var generator = stream.child(HandoffStreamNames.relay, attempt &* 64 &+ Int(kind.rawValue) &* 2 &+ Int(other.rawValue))
                .generator()
            let delay = setup.configuration.relay.delay.sample(using: &generator)
            switch kind {
            case .request: attempts[attempt].marks.relayOnRequest = delay
            case .payload: attempts[attempt].marks.relayOnPayload = delay
            case .error, .continued, .streamRequest, .streamResponse, .fetch, .keyRequest, .keyAnswer, .relayStored,
                .relayDownload:
                break
            }
            // Every message the relay carries has a small argument (an
            // error code, or none).
            later(.relayForward(to: other, kind: UInt8(kind.rawValue), argument: UInt16(clamping: argument),
                                bytes: Int32(clamping: bytes)),
                  of: attempt, after: delay, now: now, scheduler: &scheduler)
            return
        }
        // The leg's device received it from the servers.
        switch (leg, kind) {
        case (.source, .request):
            serveFetch(for: attempt, on: connection, replyingFrom: .initiator, now: now, scheduler: &scheduler)
        case (.source, .continued):
            continuedNoticeArrived(for: attempt, now: now)
        case (.receiver, .payload), (.receiver, .relayDownload):
            guard connection == attempts[attempt].connection else { return }
            fetchArrived(attempt, now: now, scheduler: &scheduler)
        case (.receiver, .error):
            guard connection == attempts[attempt].connection else { return }
            fetchFailed(attempt, with: ContinuationError(code: argument), now: now, scheduler: &scheduler)
        case (.receiver, .relayStored):
            guard connection == attempts[attempt].connection, attempts[attempt].isFetching else { return }
            let notice = setup.configuration.relay.noticeBytes
            world.request(
                bytes: notice, responseBytes: argument, tag: MessageKind.relayDownload.tag(), on: connection, from: .initiator,
                at: now)
        case (.source, .payload), (.source, .error), (.source, .streamRequest), (.source, .streamResponse), (.source, .fetch),
            (.source, .keyRequest), (.source, .keyAnswer), (.source, .relayStored), (.source, .relayDownload),
            (.receiver, .request), (.receiver, .continued), (.receiver, .streamRequest), (.receiver, .streamResponse),
            (.receiver, .fetch), (.receiver, .keyRequest), (.receiver, .keyAnswer):
            return
        }
    }

    /// The relay's delay is over: the message goes down the other leg (a
    /// payload above the inline limit as a stored-message notice).
    mutating func relayForward(
        _ attempt: Int, to leg: RelayLeg, kind: MessageKind, argument: Int, bytes: Int, now: SimInstant
    ) {
        let id = attempts[attempt].activity
        let connection: ConnectionID
        switch leg {
        case .receiver:
            guard attempts[attempt].isFetching || kind == .continued, let leg = attempts[attempt].connection else { return }
            connection = leg
        case .source:
            if let leg = attempts[attempt].sourceLeg {
                connection = leg
            } else {
                connection = world.openServerConnection(
                    from: activities[id.index].device, persistent: true, at: now)
                own(connection, by: .relay(attempt, .source))
                attempts[attempt].sourceLeg = connection
            }
        }
        let relay = setup.configuration.relay
        let device = leg == .receiver ? attempts[attempt].receiver : activities[id.index].device
        if leg == .receiver, kind == .payload, bytes > relay.inlineLimit {
            record(now, device: device, app: .system, activity: id, .system(.relayStored(bytes: bytes)))
            world.send(
                bytes: relay.noticeBytes, tag: MessageKind.relayStored.tag(bytes), on: connection, from: .responder, at: now)
            return
        }
        record(now, device: device, app: .system, activity: id, .system(.relayDelivers(bytes: bytes)))
        world.send(bytes: bytes, tag: kind.tag(argument), on: connection, from: .responder, at: now)
    }
}
