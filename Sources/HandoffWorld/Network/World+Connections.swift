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
        let transport = parameters ?? connections.transport
        let route = links.route(kind, from: initiator, to: responder)
        let segmentSize = transport.segmentSize ?? links.payloadPerPacket(along: route)
        return connections.open(
            route, parameters: transport, segmentSize: segmentSize, persistent: false, now: now.nanosecondsSinceStart,
            links: &links, devices: deviceTable, outbox: &outbox)
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
        let transport = parameters ?? connections.transport
        let route = links.serverRoute(from: device)
        let segmentSize = transport.segmentSize ?? links.payloadPerPacket(along: route)
        return connections.open(
            route, parameters: transport, segmentSize: segmentSize, persistent: persistent,
            now: now.nanosecondsSinceStart, links: &links, devices: deviceTable, outbox: &outbox)
    }

    /// Whether `a` and `b` are joined to the same infrastructure Wi-Fi
    /// network (the local-network path exists between them; it carries
    /// packets while both have Wi-Fi on).
    public func shareWiFiNetwork(_ a: DeviceID, _ b: DeviceID) -> Bool { deviceTable.shareWiFiNetwork(a, b) }

    /// Whether `device`'s path to Apple's servers is up at `instant`, both
    /// ways.
    public func isServerReachable(from device: DeviceID, at instant: SimInstant) -> Bool {
        let time = instant.nanosecondsSinceStart
        return links.isUp(linkIndex: 2 * device.index, at: time) && links.isUp(linkIndex: 2 * device.index + 1, at: time)
    }

    /// Sends a message of `bytes` from `side` of `connection`.
    ///
    /// Messages are delivered whole and in order; before the connection is
    /// established they wait. `tag` comes back in the delivery and
    /// acknowledgement notifications.
    public mutating func send(
        bytes: Int, tag: UInt64, on connection: ConnectionID, from side: ConnectionSide, at now: SimInstant
    ) {
        connections.enqueue(
            on: connection.index, from: side, bytes: max(bytes, 0), tag: tag, replyBytes: -1,
            now: now.nanosecondsSinceStart, links: &links, devices: deviceTable, outbox: &outbox)
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
        connections.enqueue(
            on: connection.index, from: side, bytes: max(requestBytes, 0), tag: tag,
            replyBytes: max(responseBytes, 0), now: now.nanosecondsSinceStart, links: &links, devices: deviceTable,
            outbox: &outbox)
    }

    /// Closes `connection`: nothing more is sent, and packets still on their
    /// way are discarded on arrival.
    public mutating func close(_ connection: ConnectionID) {
        connections.states[connection.index].close()
    }

    /// Where `connection` is in its life.
    public func phase(of connection: ConnectionID) -> ConnectionPhase {
        switch connections.states[connection.index].phase {
        case .handshake: return .settingUp
        case .established: return .established
        case let .failed(failure): return .failed(failure)
        case .closed: return .closed
        }
    }

    /// The payload bytes per segment `connection` uses.
    public func segmentSize(of connection: ConnectionID) -> Int { connections.states[connection.index].segmentSize }

    /// `connection`'s counters.
    public func statistics(of connection: ConnectionID) -> ConnectionStatistics {
        let state = connections.states[connection.index]
        return ConnectionStatistics(
            fromInitiator: state.initiatorHalf.statistics, fromResponder: state.responderHalf.statistics,
            setupRequestsSent: state.setupRequestsSent)
    }

    /// The bytes `side` of `connection` has in flight now.
    public func bytesInFlight(on connection: ConnectionID, from side: ConnectionSide) -> Int {
        connections.states[connection.index].half(side).bytesInFlight
    }
}
