import SimKernel

extension World {
    // MARK: Link table

    /// The link of `kind`.
    ///
    /// - Precondition: the devices `kind` names are devices of this world.
    public func link(_ kind: LinkKind) -> LinkID { LinkID(links.table.index(of: kind)) }

    /// What link `id` connects.
    public func kind(of id: LinkID) -> LinkKind { links.table.kind(of: id.index) }

    /// The parameters link `id` runs with.
    public func parameters(of id: LinkID) -> LinkParameters { links.parameters(ofLink: id.index) }

    /// Replaces link `id`'s parameters; packets already on their way are
    /// not affected.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)`` for an
    ///   invalid value.
    public mutating func setParameters(_ parameters: LinkParameters, of id: LinkID) throws(WorldError) {
        try parameters.validate()
        links.setParameters(parameters, ofLink: id.index, devices: deviceTable)
    }

    /// Link `id`'s counters.
    public func statistics(of id: LinkID) -> LinkStatistics {
        links.table[id.index].state.statistics
    }

    // MARK: Reachability

    /// Cuts every link between a node of `groupA` and a node of `groupB`,
    /// both ways, during `window`. Packets on such a link are not sent, and
    /// packets that would arrive during the window are lost.
    ///
    /// Partitions add to each other and to each link's own outages.
    public mutating func partition(_ groupA: [NetworkNode], from groupB: [NetworkNode], during window: TimeWindow) {
        links.partition(groupA, from: groupB, during: window)
    }

    /// Whether link `id` carries packets at `instant`: its radios are on
    /// (or its device has internet access), no outage window and no
    /// partition covers the instant.
    public func isUp(_ id: LinkID, at instant: SimInstant) -> Bool {
        links.isUp(linkIndex: id.index, at: instant.nanosecondsSinceStart)
    }

    /// Whether a path of `kind` from `a` to `b` is up at `instant` in both
    /// directions (every link of it, each way).
    public func isPathAvailable(_ kind: PathKind, between a: DeviceID, and b: DeviceID, at instant: SimInstant) -> Bool {
        links.isPathAvailable(kind, between: a, and: b, at: instant.nanosecondsSinceStart)
    }

    // MARK: Sending

    /// Switches AWDL on between `a` and `b` at `now`, as a peer-to-peer
    /// Bonjour browse does, unless it is on already (or the link has no
    /// schedule).
    ///
    /// With a cold ``PeerToPeerSchedule`` the pair is synchronised and
    /// known to each other some time later (the activation, then the
    /// peer's sync frame); until then unicast frames are dropped and
    /// multicast frames wait.
    public mutating func enablePeerToPeer(between a: DeviceID, and b: DeviceID, at now: SimInstant) {
        links.enablePeerToPeer(between: a, and: b, at: now.nanosecondsSinceStart)
    }

    /// Whether AWDL between `a` and `b` is on: switched on, or started warm
    /// (always true for a link without a schedule).
    public func isPeerToPeerOn(between a: DeviceID, and b: DeviceID) -> Bool {
        links.isPeerToPeerOn(between: a, and: b)
    }

    /// Sends a datagram of `bytes` payload bytes straight onto link `id`,
    /// outside any connection: no acknowledgement, no retransmission.
    ///
    /// When it arrives, ``notifications`` gets
    /// ``WorldNotification/datagramDelivered(_:tag:bytes:)``. Useful for
    /// measuring a link on its own. A `multicast` datagram (an mDNS query
    /// or answer) waits for an AWDL link's multicast slot and does not make
    /// the pair active.
    public mutating func sendDatagram(on id: LinkID, bytes: Int, tag: UInt32, multicast: Bool = false, at now: SimInstant) {
        let packet = Packet(
            connection: UInt32(id.index), sequence: tag, word: UInt32(clamping: max(bytes, 0)), hop: 0,
            blockLength: 0, side: .initiator, kind: .datagram)
        links.transmit(
            packet, payloadBytes: max(bytes, 0), onLink: id.index, now: now.nanosecondsSinceStart, multicast: multicast,
            devices: deviceTable, outbox: &outbox)
    }
}
