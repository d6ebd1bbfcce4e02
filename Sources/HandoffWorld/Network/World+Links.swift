import SimKernel

extension World {
    // MARK: Link table

    /// The index of the cloud among nodes.
    var cloudNode: Int { deviceTable.count }

    /// The link of `kind`.
    ///
    /// - Precondition: the devices `kind` names are devices of this world.
    public func link(_ kind: LinkKind) -> LinkID { LinkID(links.index(of: kind)) }

    /// What link `id` connects.
    public func kind(of id: LinkID) -> LinkKind { links.kind(of: id.index) }

    /// The parameters link `id` runs with.
    public func parameters(of id: LinkID) -> LinkParameters {
        links[id.index].inUse ? links[id.index].state.parameters : defaultParameters(of: kind(of: id))
    }

    /// Replaces link `id`'s parameters; packets already on their way are
    /// not affected.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)`` for an
    ///   invalid value.
    public mutating func setParameters(_ parameters: LinkParameters, of id: LinkID) throws(WorldError) {
        try parameters.validate()
        ensureLink(id.index)
        links[id.index].setParameters(parameters)
        checkLinkInvariants()
    }

    /// Link `id`'s counters.
    public func statistics(of id: LinkID) -> LinkStatistics {
        links[id.index].state.statistics
    }

    /// The payload one packet of link `index` carries.
    func payloadPerPacket(ofLink index: Int) -> Int {
        if links[index].inUse { return links[index].state.parameters.payloadPerPacket }
        return defaultParameters(of: kind(of: LinkID(index))).payloadPerPacket
    }

    /// The parameters the link of `kind` runs with unless set otherwise.
    func defaultParameters(of kind: LinkKind) -> LinkParameters {
        Self.defaultParameters(of: kind, configuration: configuration) { deviceTable.description(of: $0) }
    }

    /// The parameters the link of `kind` runs with unless set otherwise,
    /// given each device's description (also for a world not made yet).
    static func defaultParameters(
        of kind: LinkKind, configuration: WorldConfiguration, device: (DeviceID) -> DeviceDescription
    ) -> LinkParameters {
        switch kind {
        case let .uplink(id): return configuration.internetPath.uplink.impaired(by: device(id).internet.uplink)
        case let .downlink(id): return configuration.internetPath.downlink.impaired(by: device(id).internet.downlink)
        case .wifiPeerToPeer: return configuration.wifiPeerToPeer
        case .bluetooth: return configuration.bluetooth
        case .localNetwork: return configuration.localNetwork
        }
    }

    /// Creates the state of link `index` on first use, with a random stream
    /// named after its endpoints (so adding a device leaves other links'
    /// draws unchanged).
    mutating func ensureLink(_ index: Int) {
        if links[index].inUse { return }
        let kind = links.kind(of: index)
        // The streams link/<kind>/<ends…>/loss and …/jitter, derived without
        // making the intermediate keys.
        let linkStream: RandomStreamKey.Hashed
        switch kind {
        case let .uplink(device):
            linkStream = trial.stream.hashed(StreamNames.link, StreamNames.uplink, deviceStreamNames[device.index])
        case let .downlink(device):
            linkStream = trial.stream.hashed(StreamNames.link, StreamNames.downlink, deviceStreamNames[device.index])
        case let .wifiPeerToPeer(from, to):
            linkStream = trial.stream.hashed(
                StreamNames.link, StreamNames.wifi, deviceStreamNames[from.index], deviceStreamNames[to.index])
        case let .bluetooth(from, to):
            linkStream = trial.stream.hashed(
                StreamNames.link, StreamNames.bluetooth, deviceStreamNames[from.index], deviceStreamNames[to.index])
        case let .localNetwork(from, to):
            linkStream = trial.stream.hashed(
                StreamNames.link, StreamNames.localNetwork, deviceStreamNames[from.index], deviceStreamNames[to.index])
        }
        let loss = linkStream.generator(StreamNames.loss)
        let jitter = linkStream.generator(StreamNames.jitter)
        if links[index].flags.stateHoldsDefaults {
            links[index].start(lossGenerator: loss, jitterGenerator: jitter)
        } else {
            links[index].start(defaults: defaultParameters(of: kind), lossGenerator: loss, jitterGenerator: jitter)
        }
        if case let .wifiPeerToPeer(from, to) = kind {
            // Both directions share the pair's schedule: link/wifi/<a>/<b>/schedule
            // with the devices in index order.
            let (low, high) = from.index < to.index ? (from.index, to.index) : (to.index, from.index)
            var generator = trial.stream.hashed(
                StreamNames.link, StreamNames.wifi, deviceStreamNames[low], deviceStreamNames[high]
            ).generator(StreamNames.schedule)
            links[index].state.clock = ScheduleClock(
                generator: &generator, schedule: links[index].state.parameters.schedule, senderIsLow: from.index == low)
        }
    }

    // MARK: Reachability

    /// Cuts every link between a node of `groupA` and a node of `groupB`,
    /// both ways, during `window`. Packets on such a link are not sent, and
    /// packets that would arrive during the window are lost.
    ///
    /// Partitions add to each other and to each link's own outages.
    public mutating func partition(_ groupA: [NetworkNode], from groupB: [NetworkNode], during window: TimeWindow) {
        var group = Array(repeating: UInt8(0), count: deviceTable.count + 1)
        for node in groupA { group[nodeIndex(node)] = 1 }
        for node in groupB { group[nodeIndex(node)] = 2 }
        trial.partitions.append(Partition(group: group, window: window))
    }

    func nodeIndex(_ node: NetworkNode) -> Int {
        switch node {
        case let .device(id): return id.index
        case .cloud: return cloudNode
        }
    }

    /// Whether link `id` carries packets at `instant`: its radios are on
    /// (or its device has internet access), no outage window and no
    /// partition covers the instant.
    public func isUp(_ id: LinkID, at instant: SimInstant) -> Bool {
        isUp(linkIndex: id.index, at: instant.nanosecondsSinceStart)
    }

    @inline(__always)
    func isUp(linkIndex index: Int, at time: Int64) -> Bool {
        let flags = links[index].flags
        if !flags.radiosUp { return false }
        if flags.hasOutages, links[index].outages.anyContains(time) { return false }
        if !trial.partitions.isEmpty {
            let ends = links[index].ends
            let instant = SimInstant(nanosecondsSinceStart: time)
            for partition in trial.partitions where partition.window.contains(instant) {
                let a = partition.group[Int(ends.from)]
                let b = partition.group[Int(ends.to)]
                if a != 0, b != 0, a != b { return false }
            }
        }
        return true
    }

    /// Whether the radios at both ends of link `index` are on under the
    /// current settings (for an internet link: whether its device has
    /// internet access).
    @inline(__always)
    func radiosUp(linkIndex index: Int) -> Bool {
        let ends = links[index].ends
        let from = Int(ends.from)
        let to = Int(ends.to)
        switch ends.medium {
        case .internet:
            let device = Int(ends.device)
            let access = deviceTable.internetAccess(of: device)
            return !(access == .none || (access == .wifi && !deviceTable.settings(of: DeviceID(device)).wifiEnabled))
        case .wifi:
            return deviceTable.settings(of: DeviceID(from)).wifiEnabled && deviceTable.settings(of: DeviceID(to)).wifiEnabled
        case .bluetooth:
            return deviceTable.settings(of: DeviceID(from)).bluetoothEnabled
                && deviceTable.settings(of: DeviceID(to)).bluetoothEnabled
        case .localNetwork:
            return deviceTable.settings(of: DeviceID(from)).wifiEnabled && deviceTable.settings(of: DeviceID(to)).wifiEnabled
                && deviceTable.shareWiFiNetwork(DeviceID(from), DeviceID(to))
        }
    }

    /// Works out every link's ``LinkFlags/radiosUp`` again after a
    /// settings change.
    mutating func refreshRadios() {
        for index in links.indices {
            let up = radiosUp(linkIndex: index)
            links[index].flags.radiosUp = up
        }
        checkLinkInvariants()
    }

    /// Whether a path of `kind` from `a` to `b` is up at `instant` in both
    /// directions (every link of it, each way).
    public func isPathAvailable(_ kind: PathKind, between a: DeviceID, and b: DeviceID, at instant: SimInstant) -> Bool {
        let time = instant.nanosecondsSinceStart
        for (from, to) in [(a, b), (b, a)] {
            for hop in 0..<hopCount(kind) where !isUp(linkIndex: linkIndex(kind, from: from, to: to, hop: hop), at: time) {
                return false
            }
        }
        return true
    }

    // MARK: Paths

    @inline(__always)
    func hopCount(_ kind: PathKind) -> Int { kind == .cloudRelay ? 2 : 1 }

    @inline(__always)
    func linkIndex(_ kind: PathKind, from: DeviceID, to: DeviceID, hop: Int) -> Int {
        switch kind {
        case .wifiPeerToPeer: return link(.wifiPeerToPeer(from: from, to: to)).index
        case .bluetooth: return link(.bluetooth(from: from, to: to)).index
        case .localNetwork: return link(.localNetwork(from: from, to: to)).index
        case .cloudRelay: return hop == 0 ? 2 * from.index : 2 * to.index + 1
        }
    }

    /// The distance a link's packets cross, for the distance loss model;
    /// 0 for internet links, which do not use it.
    @inline(__always)
    func linkDistance(_ index: Int, at time: Int64) -> Double {
        let ends = links[index].ends
        guard ends.medium != .internet, ends.medium != .localNetwork else { return 0 }
        return distance(between: Int(ends.from), and: Int(ends.to), at: time)
    }

    /// The distance between two devices at `time`.
    @inline(__always)
    func distance(between a: Int, and b: Int, at time: Int64) -> Double {
        let fixed = fixedDistances[a * deviceTable.count + b]
        if fixed >= 0 { return fixed }
        let instant = SimInstant(nanosecondsSinceStart: time)
        return deviceTable.mobility(of: a).position(at: instant).distance(to: deviceTable.mobility(of: b).position(at: instant))
    }

    /// ``fixedDistances`` for the given mobilities.
    static func fixedDistances(_ mobilities: [Mobility]) -> [Double] {
        var distances: [Double] = []
        distances.reserveCapacity(mobilities.count * mobilities.count)
        for a in mobilities {
            for b in mobilities {
                if case let .stationary(p) = a, case let .stationary(q) = b {
                    distances.append(p.distance(to: q))
                } else {
                    distances.append(-1)
                }
            }
        }
        return distances
    }

    // MARK: Sending

    /// Offers `packet` to the link of its hop at `now`, scheduling its
    /// arrival unless it is dropped, lost or the link is down.
    /// A `multicast` frame waits for an AWDL link's multicast slot.
    @inline(__always)
    mutating func transmit(_ packet: Packet, payloadBytes: Int, onLink index: Int, now: Int64, multicast: Bool = false) {
        if !links[index].inUse { ensureLink(index) }
        guard isUp(linkIndex: index, at: now) else {
            links[index].state.statistics.packetsOffered += 1
            links[index].state.statistics.packetsLostToOutage += 1
            if recordsPackets { recordPacket(packet, payloadBytes: payloadBytes, link: index, at: now, fate: .lost(.linkDown)) }
            return
        }
        let distance = links[index].flags.usesDistance ? linkDistance(index, at: now) : 0
        // What the loss counters were, to tell why a recorded packet is lost.
        let queueDropsBefore = recordsPackets ? links[index].state.statistics.fragmentsDroppedByQueue : 0
        let awayLossesBefore = recordsPackets ? links[index].state.statistics.fragmentsLostToPeerAway : 0
        let unknownBefore = recordsPackets ? links[index].state.statistics.fragmentsDroppedUnknownPeer : 0
        let arrival = links[index].state.offer(
            payloadBytes: payloadBytes, now: now, distance: distance, multicast: multicast)
        if links[index].state.parameters.schedule != nil { shareSchedule(fromLink: index) }
        if let arrival { schedule(.packetArrival(packet), at: arrival) }
        if recordsPackets {
            let after = links[index].state.statistics
            let fate: PacketRecord.Fate
            if let arrival {
                fate = .arrives(SimInstant(nanosecondsSinceStart: arrival))
            } else if after.fragmentsDroppedByQueue > queueDropsBefore {
                fate = .lost(.queue)
            } else if after.fragmentsDroppedUnknownPeer > unknownBefore {
                fate = .lost(.unknownPeer)
            } else if after.fragmentsLostToPeerAway > awayLossesBefore {
                fate = .lost(.peerAway)
            } else {
                fate = .lost(.lossModel)
            }
            recordPacket(packet, payloadBytes: payloadBytes, link: index, at: now, fate: fate)
        }
    }

    /// Appends `packet` to ``packetLog``.
    mutating func recordPacket(_ packet: Packet, payloadBytes: Int, link: Int, at time: Int64, fate: PacketRecord.Fate) {
        guard trial.packetLog.count < packetLogLimit else {
            trial.packetsLeftOut += 1
            return
        }
        let isDatagram = packet.kind == .datagram
        let sequence: UInt32
        switch packet.kind {
        case .data, .datagram: sequence = packet.sequence
        case .acknowledgement, .duplicateAcknowledgement: sequence = packet.word
        case .handshake, .handshakeReply, .handshakeAcknowledgement: sequence = 0
        }
        trial.packetLog.append(PacketRecord(
            time: SimInstant(nanosecondsSinceStart: time), link: LinkID(link),
            connection: isDatagram ? nil : ConnectionID(Int(packet.connection)), side: packet.side,
            kind: PacketRecord.Kind(packet.kind), sequence: sequence, payloadBytes: payloadBytes, fate: fate))
    }

    /// A frame went out on scheduled link `index`: the pair's state
    /// (switched on, synchronised, active) is the same both ways (the
    /// reverse link is made if unused).
    @inline(__always)
    mutating func shareSchedule(fromLink index: Int) {
        guard case let .wifiPeerToPeer(from, to) = links.kind(of: index) else { return }
        let reverse = link(.wifiPeerToPeer(from: to, to: from)).index
        if !links[reverse].inUse { ensureLink(reverse) }
        let clock = links[index].state.clock
        if links[reverse].state.clock.activeUntil < clock.activeUntil {
            links[reverse].state.clock.activeFrom = clock.activeFrom
            links[reverse].state.clock.activeUntil = clock.activeUntil
        }
        if links[reverse].state.clock.syncedAt > clock.syncedAt { links[reverse].state.clock.syncedAt = clock.syncedAt }
        if links[reverse].state.clock.knownAt > clock.knownAt { links[reverse].state.clock.knownAt = clock.knownAt }
        if links[reverse].state.clock.extendedSlot < clock.extendedSlot {
            links[reverse].state.clock.extendedSlot = clock.extendedSlot
        }
    }

    /// Switches AWDL on between `a` and `b` at `now`, as a peer-to-peer
    /// Bonjour browse does, unless it is on already (or the link has no
    /// schedule).
    ///
    /// With a cold ``PeerToPeerSchedule`` the pair is synchronised and
    /// known to each other some time later (the activation, then the
    /// peer's sync frame); until then unicast frames are dropped and
    /// multicast frames wait.
    public mutating func enablePeerToPeer(between a: DeviceID, and b: DeviceID, at now: SimInstant) {
        let index = link(.wifiPeerToPeer(from: a, to: b)).index
        if !links[index].inUse { ensureLink(index) }
        guard let schedule = links[index].state.parameters.schedule else { return }
        links[index].state.clock.switchOn(at: now.nanosecondsSinceStart, schedule: schedule)
        shareSchedule(fromLink: index)
    }

    /// Whether AWDL between `a` and `b` is on: switched on, or started warm
    /// (always true for a link without a schedule).
    public func isPeerToPeerOn(between a: DeviceID, and b: DeviceID) -> Bool {
        let index = link(.wifiPeerToPeer(from: a, to: b)).index
        guard links[index].inUse else { return defaultParameters(of: kind(of: LinkID(index))).schedule?.start != .cold }
        return links[index].state.parameters.schedule == nil || links[index].state.clock.isOn
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
        transmit(packet, payloadBytes: max(bytes, 0), onLink: id.index, now: now.nanosecondsSinceStart, multicast: multicast)
    }

    /// A packet reached the end of its hop.
    @inline(__always)
    mutating func packetArrived(_ packet: Packet, now: Int64) {
        if packet.kind == .datagram {
            let index = Int(packet.connection)
            guard isUp(linkIndex: index, at: now) else {
                links[index].state.statistics.packetsLostToOutage += 1
                if recordsPackets {
                    recordPacket(packet, payloadBytes: Int(packet.word), link: index, at: now, fate: .lost(.linkDown))
                }
                return
            }
            links[index].state.statistics.packetsDelivered += 1
            notify(.datagramDelivered(LinkID(index), tag: packet.sequence, bytes: Int(packet.word)))
            return
        }
        let connectionIndex = Int(packet.connection)
        let route = trial.routes[connectionIndex]
        let index = route.link(from: packet.side, hop: packet.hop)
        guard isUp(linkIndex: index, at: now) else {
            links[index].state.statistics.packetsLostToOutage += 1
            if recordsPackets {
                recordPacket(
                    packet, payloadBytes: payloadBytes(of: packet, connection: connectionIndex), link: index, at: now,
                    fate: .lost(.linkDown))
            }
            return
        }
        links[index].state.statistics.packetsDelivered += 1
        let nextHop = packet.hop + 1
        if nextHop < route.hops {
            let forwarded = Packet(
                connection: packet.connection, sequence: packet.sequence, word: packet.word, hop: nextHop,
                blockLength: packet.blockLength, side: packet.side, kind: packet.kind)
            transmit(
                forwarded, payloadBytes: payloadBytes(of: packet, connection: connectionIndex),
                onLink: route.link(from: packet.side, hop: nextHop), now: now)
            return
        }
        trial.connections[connectionIndex].receive(
            at: packet.side.peer, kind: packet.kind, sequence: packet.sequence, word: packet.word,
            blockLength: packet.blockLength, now: now, into: &trial.actions)
        performActions(of: connectionIndex, now: now)
    }

    @inline(__always)
    func payloadBytes(of packet: Packet, connection: Int) -> Int {
        switch packet.kind {
        case .data, .datagram: return Int(packet.word)
        case .acknowledgement, .duplicateAcknowledgement, .handshakeAcknowledgement: return 0
        case .handshake, .handshakeReply: return trial.connections[connection].parameters.handshakeBytes
        }
    }
}
