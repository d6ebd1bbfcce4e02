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
/// connection outlives one fetch). What arrives at a leg's device is routed
/// by the engine (`HandoffEngine+Events.swift`).
extension FetchRole {
    /// Sends the request over the cloud relay: the receiver's leg opens
    /// (already up) and the request goes at once.
    ///
    /// - Returns: whether the fetch ended now (the receiver cannot reach
    ///   the servers).
    mutating func fetchOverCloud(_ attempt: Int, now: SimInstant, core: inout ProtocolCore) -> Bool {
        let id = core.attempts[attempt].activity
        let receiver = core.attempts[attempt].receiver
        core.attempts[attempt].fetchStage = .cloud
        core.attempts[attempt].rapportPath = .cloudRelay
        core.record(now, device: receiver, app: .system, activity: id, .system(.fetchOverCloud))
        // No connection is set up: the leg is the device's push connection,
        // already open, so the attempt reaches neither `connecting` nor
        // `connected` here (its TCP connect has no value, as its resolve).
        guard core.world.isServerReachable(from: receiver, at: now) else {
            // The receiver has no way to Apple's servers (no internet, or
            // its link is down): nothing to send the request on.
            return fetchFailed(attempt, with: .connectionUnavailable, now: now, core: &core)
        }
        let leg = core.world.openServerConnection(from: receiver, persistent: true, at: now)
        own(leg, by: .relay(attempt, .receiver))
        core.attempts[attempt].connection = leg
        return false
    }

    /// The servers received a message of attempt `attempt`'s relayed fetch
    /// from the device of `leg`: it goes down the other leg after the
    /// relay's delay.
    func relayReceived(
        _ kind: MessageKind, argument: Int, bytes: Int, attempt: Int, from leg: RelayLeg, now: SimInstant,
        core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard kind != .relayDownload else { return }  // answered by the storage itself
        let other: RelayLeg = leg == .receiver ? .source : .receiver
        var generator = core.stream.child(
            HandoffStreamNames.relay, attempt &* 64 &+ Int(kind.rawValue) &* 2 &+ Int(other.rawValue)
        ).generator()
        let delay = core.setup.configuration.relay.delay.sample(using: &generator)
        switch kind {
        case .request: core.attempts[attempt].marks.relayOnRequest = delay
        case .payload: core.attempts[attempt].marks.relayOnPayload = delay
        case .error, .continued, .streamRequest, .streamResponse, .fetch, .keyRequest, .keyAnswer, .relayStored,
            .relayDownload:
            break
        }
        // Every message the relay carries has a small argument (an error
        // code, or none).
        core.later(.relayForward(to: other, kind: UInt8(kind.rawValue), argument: UInt16(clamping: argument),
                                 bytes: Int32(clamping: bytes)),
                   of: attempt, after: delay, now: now, scheduler: &scheduler)
    }

    /// The relay's notice that a payload of `bytes` is stored reached the
    /// receiver over `connection`: while still fetching, it downloads it.
    func relayStored(_ attempt: Int, bytes: Int, on connection: ConnectionID, now: SimInstant, core: inout ProtocolCore) {
        guard connection == core.attempts[attempt].connection, core.attempts[attempt].isFetching else { return }
        core.world.request(
            bytes: core.setup.configuration.relay.noticeBytes, responseBytes: bytes,
            tag: MessageKind.relayDownload.tag(), on: connection, from: .initiator, at: now)
    }

    /// The relay's delay is over: the message goes down the other leg (a
    /// payload above the inline limit as a stored-message notice).
    mutating func relayForward(
        _ attempt: Int, to leg: RelayLeg, kind: MessageKind, argument: Int, bytes: Int, now: SimInstant,
        core: inout ProtocolCore
    ) {
        let id = core.attempts[attempt].activity
        let connection: ConnectionID
        switch leg {
        case .receiver:
            guard core.attempts[attempt].isFetching || kind == .continued, let leg = core.attempts[attempt].connection
            else { return }
            connection = leg
        case .source:
            if let leg = core.attempts[attempt].sourceLeg {
                connection = leg
            } else {
                connection = core.world.openServerConnection(
                    from: core.activities[id.index].device, persistent: true, at: now)
                own(connection, by: .relay(attempt, .source))
                core.attempts[attempt].sourceLeg = connection
            }
        }
        let relay = core.setup.configuration.relay
        let device = leg == .receiver ? core.attempts[attempt].receiver : core.activities[id.index].device
        if leg == .receiver, kind == .payload, bytes > relay.inlineLimit {
            core.record(now, device: device, app: .system, activity: id, .system(.relayStored(bytes: bytes)))
            core.world.send(
                bytes: relay.noticeBytes, tag: MessageKind.relayStored.tag(bytes), on: connection, from: .responder,
                at: now)
            return
        }
        core.record(now, device: device, app: .system, activity: id, .system(.relayDelivers(bytes: bytes)))
        core.world.send(bytes: bytes, tag: kind.tag(argument), on: connection, from: .responder, at: now)
    }
}
