import SimKernel

extension World {
    /// Opens a reliable connection from `initiator` to `responder` over a
    /// path of `kind`, starting its handshake at `now`.
    ///
    /// Setup is TCP's three-way handshake (see ``TransportParameters``).
    /// When the initiator has it completed, ``notifications`` gets
    /// ``WorldNotification/connectionEstablished(_:)``; if it cannot
    /// complete within the retry limit,
    /// ``WorldNotification/connectionFailed(_:_:)``.
    ///
    /// - Parameter parameters: transport settings for this connection (for
    ///   example a stream's window); the world's configuration otherwise.
    /// - Precondition: the two devices differ.
    public mutating func openConnection(
        from initiator: DeviceID, to responder: DeviceID, over kind: PathKind,
        parameters: TransportParameters? = nil, at now: SimInstant
    ) -> ConnectionID {
        precondition(initiator != responder, "a connection needs two different devices")
        let transport = parameters ?? configuration.transport
        var segmentSize = Int.max
        for direction in 0..<2 {
            let (from, to) = direction == 0 ? (initiator, responder) : (responder, initiator)
            for hop in 0..<hopCount(kind) {
                segmentSize = min(segmentSize, payloadPerPacket(ofLink: linkIndex(kind, from: from, to: to, hop: hop)))
            }
        }
        if let chosen = transport.segmentSize { segmentSize = chosen }
        let id = ConnectionID(trial.connectionCount)
        if trial.connectionCount < trial.connections.count {
            // A state left from an earlier trial: rebuilt in its storage.
            trial.connections[trial.connectionCount].rebuild(
                id: id, initiator: initiator, responder: responder, path: kind, parameters: transport,
                segmentSize: segmentSize)
        } else {
            trial.connections.append(ConnectionState(
                id: id, initiator: initiator, responder: responder, path: kind, parameters: transport,
                segmentSize: segmentSize))
        }
        trial.connectionCount += 1
        let hops = hopCount(kind)
        func links(from: DeviceID, to: DeviceID) -> (Int32, Int32) {
            (Int32(linkIndex(kind, from: from, to: to, hop: 0)),
             Int32(hops > 1 ? linkIndex(kind, from: from, to: to, hop: 1) : -1))
        }
        let route = Route(
            initiator: initiator, responder: responder, path: kind, hops: UInt8(hops),
            initiatorLinks: links(from: initiator, to: responder), responderLinks: links(from: responder, to: initiator))
        // Routes, like connection states, outlive a reset and are overwritten.
        if id.index < trial.routes.count { trial.routes[id.index] = route } else { trial.routes.append(route) }
        trial.connections[id.index].start(now: now.nanosecondsSinceStart, into: &trial.actions)
        performActions(of: id.index, now: now.nanosecondsSinceStart)
        return id
    }

    /// Opens a connection from `device` to Apple's servers (the cloud
    /// node) over the device's internet link: its packets go up the
    /// device's uplink, the server's come down its downlink. The device is
    /// the initiator, the server the responder.
    ///
    /// With `persistent`, the connection is already up (as the connection
    /// every Apple device keeps to the push service): no handshake, and
    /// ``WorldNotification/connectionEstablished(_:)`` comes at once; its
    /// congestion window and RTT estimate start fresh, as after an idle
    /// period.
    public mutating func openServerConnection(
        from device: DeviceID, parameters: TransportParameters? = nil, persistent: Bool, at now: SimInstant
    ) -> ConnectionID {
        let transport = parameters ?? configuration.transport
        let up = 2 * device.index
        let down = 2 * device.index + 1
        var segmentSize = min(payloadPerPacket(ofLink: up), payloadPerPacket(ofLink: down))
        if let chosen = transport.segmentSize { segmentSize = chosen }
        let id = ConnectionID(trial.connectionCount)
        if trial.connectionCount < trial.connections.count {
            trial.connections[trial.connectionCount].rebuild(
                id: id, initiator: device, responder: device, path: .cloudRelay, parameters: transport,
                segmentSize: segmentSize)
        } else {
            trial.connections.append(ConnectionState(
                id: id, initiator: device, responder: device, path: .cloudRelay, parameters: transport,
                segmentSize: segmentSize))
        }
        trial.connectionCount += 1
        let route = Route(
            initiator: device, responder: device, path: .cloudRelay, hops: 1,
            initiatorLinks: (Int32(up), -1), responderLinks: (Int32(down), -1))
        if id.index < trial.routes.count { trial.routes[id.index] = route } else { trial.routes.append(route) }
        if persistent {
            trial.connections[id.index].startEstablished(into: &trial.actions)
        } else {
            trial.connections[id.index].start(now: now.nanosecondsSinceStart, into: &trial.actions)
        }
        performActions(of: id.index, now: now.nanosecondsSinceStart)
        return id
    }

    /// Whether `a` and `b` are joined to the same infrastructure Wi-Fi
    /// network (the local-network path exists between them; it carries
    /// packets while both have Wi-Fi on).
    public func shareWiFiNetwork(_ a: DeviceID, _ b: DeviceID) -> Bool { deviceTable.shareWiFiNetwork(a, b) }

    /// Whether `device`'s path to Apple's servers is up at `instant`, both
    /// ways.
    public func isServerReachable(from device: DeviceID, at instant: SimInstant) -> Bool {
        let time = instant.nanosecondsSinceStart
        return isUp(linkIndex: 2 * device.index, at: time) && isUp(linkIndex: 2 * device.index + 1, at: time)
    }

    /// Sends a message of `bytes` from `side` of `connection`.
    ///
    /// Messages are delivered whole and in order; before the connection is
    /// established they wait. `tag` comes back in the delivery and
    /// acknowledgement notifications.
    public mutating func send(
        bytes: Int, tag: UInt64, on connection: ConnectionID, from side: ConnectionSide, at now: SimInstant
    ) {
        trial.connections[connection.index].enqueue(
            from: side, bytes: max(bytes, 0), tag: tag, replyBytes: -1, now: now.nanosecondsSinceStart,
            into: &trial.actions)
        performActions(of: connection.index, now: now.nanosecondsSinceStart)
    }

    /// Starts one request/response round of a continuation stream: `side`
    /// sends `requestBytes`, and the other side answers with
    /// `responseBytes` the moment the whole request has arrived.
    ///
    /// The round ends with ``WorldNotification/messageDelivered(_:to:tag:bytes:)``
    /// for the response at `side` (same `tag`). A round takes at least one
    /// round-trip time plus both messages' serialisation.
    public mutating func request(
        bytes requestBytes: Int, responseBytes: Int, tag: UInt64, on connection: ConnectionID,
        from side: ConnectionSide, at now: SimInstant
    ) {
        trial.connections[connection.index].enqueue(
            from: side, bytes: max(requestBytes, 0), tag: tag, replyBytes: max(responseBytes, 0),
            now: now.nanosecondsSinceStart, into: &trial.actions)
        performActions(of: connection.index, now: now.nanosecondsSinceStart)
    }

    /// Closes `connection`: nothing more is sent, and packets still on their
    /// way are discarded on arrival.
    public mutating func close(_ connection: ConnectionID) {
        trial.connections[connection.index].close()
    }

    /// Where `connection` is in its life.
    public func phase(of connection: ConnectionID) -> ConnectionPhase {
        switch trial.connections[connection.index].phase {
        case .handshake: return .settingUp
        case .established: return .established
        case let .failed(failure): return .failed(failure)
        case .closed: return .closed
        }
    }

    /// The payload bytes per segment `connection` uses.
    public func segmentSize(of connection: ConnectionID) -> Int { trial.connections[connection.index].segmentSize }

    /// `connection`'s counters.
    public func statistics(of connection: ConnectionID) -> ConnectionStatistics {
        let state = trial.connections[connection.index]
        return ConnectionStatistics(
            fromInitiator: state.initiatorHalf.statistics, fromResponder: state.responderHalf.statistics,
            setupRequestsSent: state.setupRequestsSent)
    }

    /// The bytes `side` of `connection` has in flight now.
    public func bytesInFlight(on connection: ConnectionID, from side: ConnectionSide) -> Int {
        trial.connections[connection.index].half(side).bytesInFlight
    }

    /// Carries out what the connection asked for.
    mutating func performActions(of connection: Int, now: Int64) {
        var index = 0
        while index < trial.actions.count {
            switch trial.actions[index] {
            case let .transmit(side, kind, sequence, word, payloadBytes, blockLength):
                let packet = Packet(
                    connection: UInt32(connection), sequence: sequence, word: word, hop: 0, blockLength: blockLength,
                    side: side, kind: kind)
                transmit(
                    packet, payloadBytes: Int(payloadBytes), onLink: trial.routes[connection].link(from: side, hop: 0), now: now)
            case let .armTimer(side, time, generation):
                schedule(.retransmissionTimer(connection: UInt32(connection), side: side, generation: generation), at: time)
            case let .armAcknowledgementTimer(side, time, generation):
                schedule(
                    .acknowledgementTimer(connection: UInt32(connection), side: side, generation: generation), at: time)
            case .established:
                notify(.connectionEstablished(ConnectionID(connection)))
            case let .failed(failure):
                notify(.connectionFailed(ConnectionID(connection), failure))
            case let .acknowledged(side, tag):
                notify(.messageAcknowledged(ConnectionID(connection), by: side, tag: tag))
            case let .delivered(side, tag, bytes):
                notify(.messageDelivered(ConnectionID(connection), to: side, tag: tag, bytes: bytes))
            }
            index += 1
        }
        trial.actions.removeAll()
    }
}
