import SimKernel

/// Connections: each connection's state and route, opening them, what
/// they are asked to send, their timers, the packets that reach their
/// ends, and carrying out what they ask for (packets to send, timers to
/// arm, notifications).
///
/// Owned by the ``World``, which routes its connection calls and events
/// here; the links their packets cross come as the world's ``LinkRole``
/// (`inout`), the devices as a borrowed ``DeviceTable``, and what must be
/// scheduled or told goes into the world's ``WorldOutbox``.
/// Noncopyable, so that it is only ever changed in place.
struct ConnectionRole: ~Copyable, Sendable {
    // MARK: What a run fixes

    /// The transport settings of a connection opened without its own.
    let transport: TransportParameters

    // MARK: What a trial changes (reset by `reset()`, below)

    /// Connection states: the first ``count`` are this trial's; any after
    /// them are left from an earlier trial, and new connections reuse
    /// their storage.
    var states: [ConnectionState] = []
    /// The number of connections opened in this trial.
    var count = 0
    /// Each connection's endpoints and path, kept apart from its state so
    /// the packet path reads plain values only (as connection states,
    /// entries past ``count`` are overwritten).
    var routes: [Route] = []
    /// Actions produced by the connection being handled; reused.
    var actions = ReusableBuffer<ConnectionAction>()

    /// Starts a trial: no connection opened (the states and routes of the
    /// last trial's are storage to reuse), no action waiting.
    mutating func reset() {
        count = 0
        actions.removeAll()
    }

    /// The connections of a world made with `configuration`, at the start
    /// of a trial.
    init(configuration: WorldConfiguration) {
        transport = configuration.transport
    }

    // MARK: Opening

    /// The initial timeout of the handshake packet `device` sends: over
    /// AWDL, from a device whose kernel has `tcp_awdl_rtobase`, XNU's
    /// 100 ms (``TransportParameters/peerToPeerInitialRetransmissionTimeout``);
    /// otherwise the initial timeout.
    static func handshakeTimeout(
        from device: DeviceID, over path: PathKind, parameters: TransportParameters, devices: borrowing DeviceTable
    ) -> Int64 {
        guard parameters.handshakeRetransmission == .xnu, path == .wifiPeerToPeer else {
            return parameters.initialRetransmissionTimeout.nanoseconds
        }
        let description = devices.description(of: device)
        return description.osVersion >= description.kind.firstOSWithPeerToPeerRetransmissionBase
            ? parameters.peerToPeerInitialRetransmissionTimeout.nanoseconds
            : parameters.initialRetransmissionTimeout.nanoseconds
    }

    /// Opens a connection from `initiator` to `responder` over the links of
    /// `route`, with `parameters` and `segmentSize`, started at `now` (or
    /// already established, if `persistent`).
    mutating func open(
        _ route: Route, parameters: TransportParameters, segmentSize: Int, persistent: Bool, now: Int64,
        links: inout LinkRole, devices: borrowing DeviceTable, outbox: inout WorldOutbox
    ) -> ConnectionID {
        let id = ConnectionID(count)
        let handshakeTimeouts = HandshakeTimeouts(
            initiator: Self.handshakeTimeout(from: route.initiator, over: route.path, parameters: parameters, devices: devices),
            responder: Self.handshakeTimeout(from: route.responder, over: route.path, parameters: parameters, devices: devices))
        if count < states.count {
            // A state left from an earlier trial: rebuilt in its storage.
            states[count].rebuild(
                id: id, initiator: route.initiator, responder: route.responder, path: route.path,
                parameters: parameters, segmentSize: segmentSize, handshakeTimeouts: handshakeTimeouts)
        } else {
            states.append(ConnectionState(
                id: id, initiator: route.initiator, responder: route.responder, path: route.path,
                parameters: parameters, segmentSize: segmentSize, handshakeTimeouts: handshakeTimeouts))
        }
        count += 1
        // Routes, like connection states, outlive a reset and are overwritten.
        if id.index < routes.count { routes[id.index] = route } else { routes.append(route) }
        if persistent {
            states[id.index].startEstablished(into: &actions)
        } else {
            states[id.index].start(now: now, into: &actions)
        }
        performActions(of: id.index, now: now, links: &links, devices: devices, outbox: &outbox)
        return id
    }

    // MARK: Sending

    /// `side` of `connection` sends a message of `bytes` (answered with
    /// `replyBytes` when not negative) tagged `tag`, at `now`.
    mutating func enqueue(
        on connection: Int, from side: ConnectionSide, bytes: Int, tag: UInt64, replyBytes: Int, now: Int64,
        links: inout LinkRole, devices: borrowing DeviceTable, outbox: inout WorldOutbox
    ) {
        states[connection].enqueue(from: side, bytes: bytes, tag: tag, replyBytes: replyBytes, now: now, into: &actions)
        performActions(of: connection, now: now, links: &links, devices: devices, outbox: &outbox)
    }

    // MARK: Events

    /// `side` of `connection`'s retransmission timer of `generation` fires
    /// at `now`.
    mutating func retransmissionTimerFired(
        _ connection: Int, side: ConnectionSide, generation: UInt32, now: Int64,
        links: inout LinkRole, devices: borrowing DeviceTable, outbox: inout WorldOutbox
    ) {
        states[connection].timerFired(side: side, generation: generation, now: now, into: &actions)
        performActions(of: connection, now: now, links: &links, devices: devices, outbox: &outbox)
    }

    /// `side` of `connection`'s delayed-acknowledgement timer of
    /// `generation` fires at `now`.
    mutating func acknowledgementTimerFired(
        _ connection: Int, side: ConnectionSide, generation: UInt32, now: Int64,
        links: inout LinkRole, devices: borrowing DeviceTable, outbox: inout WorldOutbox
    ) {
        states[connection].acknowledgementTimerFired(side: side, generation: generation, now: now, into: &actions)
        performActions(of: connection, now: now, links: &links, devices: devices, outbox: &outbox)
    }

    /// A packet of a connection reached the end of its hop at `now`: lost
    /// if the hop's link is down, sent on if the path has another hop,
    /// received by the connection's other side otherwise.
    @inline(__always)
    mutating func packetArrived(
        _ packet: Packet, now: Int64, links: inout LinkRole, devices: borrowing DeviceTable, outbox: inout WorldOutbox
    ) {
        let connection = Int(packet.connection)
        let route = routes[connection]
        let index = route.link(from: packet.side, hop: packet.hop)
        guard links.isUp(linkIndex: index, at: now) else {
            links.lostOnArrival(packet, payloadBytes: payloadBytes(of: packet, connection: connection), onLink: index, now: now)
            return
        }
        links.table[index].state.statistics.packetsDelivered += 1
        let nextHop = packet.hop + 1
        if nextHop < route.hops {
            let forwarded = Packet(
                connection: packet.connection, sequence: packet.sequence, word: packet.word, hop: nextHop,
                blockLength: packet.blockLength, side: packet.side, kind: packet.kind)
            links.transmit(
                forwarded, payloadBytes: payloadBytes(of: packet, connection: connection),
                onLink: route.link(from: packet.side, hop: nextHop), now: now, devices: devices, outbox: &outbox)
            return
        }
        states[connection].receive(
            at: packet.side.peer, kind: packet.kind, sequence: packet.sequence, word: packet.word,
            blockLength: packet.blockLength, now: now, into: &actions)
        performActions(of: connection, now: now, links: &links, devices: devices, outbox: &outbox)
    }

    /// The payload bytes `packet` of `connection` carries.
    @inline(__always)
    func payloadBytes(of packet: Packet, connection: Int) -> Int {
        switch packet.kind {
        case .data, .datagram: return Int(packet.word)
        case .acknowledgement, .duplicateAcknowledgement, .handshakeAcknowledgement: return 0
        case .handshake, .handshakeReply: return states[connection].parameters.handshakeBytes
        }
    }

    // MARK: Actions

    /// Carries out what `connection` asked for: its packets onto the first
    /// hop's link, its timers and notifications into `outbox`.
    mutating func performActions(
        of connection: Int, now: Int64, links: inout LinkRole, devices: borrowing DeviceTable,
        outbox: inout WorldOutbox
    ) {
        var index = 0
        while index < actions.count {
            switch actions[index] {
            case let .transmit(side, kind, sequence, word, payloadBytes, blockLength):
                let packet = Packet(
                    connection: UInt32(connection), sequence: sequence, word: word, hop: 0, blockLength: blockLength,
                    side: side, kind: kind)
                links.transmit(
                    packet, payloadBytes: Int(payloadBytes), onLink: routes[connection].link(from: side, hop: 0), now: now,
                    devices: devices, outbox: &outbox)
            case let .armTimer(side, time, generation):
                outbox.schedule(
                    .retransmissionTimer(connection: UInt32(connection), side: side, generation: generation), at: time)
            case let .armAcknowledgementTimer(side, time, generation):
                outbox.schedule(
                    .acknowledgementTimer(connection: UInt32(connection), side: side, generation: generation), at: time)
            case .established:
                outbox.notify(.connectionEstablished(ConnectionID(connection)))
            case let .failed(failure):
                outbox.notify(.connectionFailed(ConnectionID(connection), failure))
            case let .acknowledged(side, tag):
                outbox.notify(.messageAcknowledged(ConnectionID(connection), by: side, tag: tag))
            case let .delivered(side, tag, bytes):
                outbox.notify(.messageDelivered(ConnectionID(connection), to: side, tag: tag, bytes: bytes))
            }
            index += 1
        }
        actions.removeAll()
    }
}
