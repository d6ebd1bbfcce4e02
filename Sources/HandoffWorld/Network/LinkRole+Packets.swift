import SimKernel

extension LinkRole {
    // MARK: Sending

    /// Offers `packet` to link `index` at `now`, scheduling its arrival
    /// unless it is dropped, lost or the link is down.
    /// A `multicast` frame waits for an AWDL link's multicast slot.
    @inline(__always)
    mutating func transmit(
        _ packet: Packet, payloadBytes: Int, onLink index: Int, now: Int64, multicast: Bool = false,
        devices: borrowing DeviceTable, outbox: inout WorldOutbox
    ) {
        if !table[index].inUse { ensureLink(index) }
        guard isUp(linkIndex: index, at: now) else {
            table[index].state.statistics.packetsOffered += 1
            table[index].state.statistics.packetsLostToOutage += 1
            if recordsPackets { recordPacket(packet, payloadBytes: payloadBytes, link: index, at: now, fate: .lost(.linkDown)) }
            return
        }
        let distance = table[index].flags.usesDistance ? linkDistance(index, at: now, devices: devices) : 0
        // What the loss counters were, to tell why a recorded packet is lost.
        let queueDropsBefore = recordsPackets ? table[index].state.statistics.fragmentsDroppedByQueue : 0
        let awayLossesBefore = recordsPackets ? table[index].state.statistics.fragmentsLostToPeerAway : 0
        let unknownBefore = recordsPackets ? table[index].state.statistics.fragmentsDroppedUnknownPeer : 0
        let arrival = table[index].state.offer(
            payloadBytes: payloadBytes, now: now, distance: distance, multicast: multicast,
            awdl: peerToPeerSharingRadio(withLink: index))
        if table[index].state.parameters.schedule != nil { shareSchedule(fromLink: index) }
        if let arrival { outbox.schedule(.packetArrival(packet), at: arrival) }
        if recordsPackets {
            let after = table[index].state.statistics
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

    /// The distance a link's packets cross, for the distance loss model;
    /// 0 for internet and local-network links, which do not use it.
    @inline(__always)
    func linkDistance(_ index: Int, at time: Int64, devices: borrowing DeviceTable) -> Double {
        let ends = table[index].ends
        guard ends.medium != .internet, ends.medium != .pair(.localNetwork) else { return 0 }
        return devices.distance(between: Int(ends.from), and: Int(ends.to), at: time)
    }

    /// Appends `packet` to ``packetLog``, or counts it left out once the
    /// log has reached ``packetLogLimit``.
    mutating func recordPacket(_ packet: Packet, payloadBytes: Int, link: Int, at time: Int64, fate: PacketRecord.Fate) {
        guard packetLog.count < packetLogLimit else {
            packetsLeftOut += 1
            return
        }
        let isDatagram = packet.kind == .datagram
        let sequence: UInt32
        switch packet.kind {
        case .data, .datagram: sequence = packet.sequence
        case .acknowledgement, .duplicateAcknowledgement: sequence = packet.word
        case .handshake, .handshakeReply, .handshakeAcknowledgement: sequence = 0
        }
        packetLog.append(PacketRecord(
            time: SimInstant(nanosecondsSinceStart: time), link: LinkID(link),
            connection: isDatagram ? nil : ConnectionID(Int(packet.connection)), side: packet.side,
            kind: PacketRecord.Kind(packet.kind), sequence: sequence, payloadBytes: payloadBytes, fate: fate))
    }

    // MARK: Peer-to-peer schedules

    /// For a link over the Wi-Fi network from `a` to `b`: the clock and
    /// schedule of the pair's AWDL when it is on, whose infrastructure
    /// absences the link's frames wait out; nil otherwise.
    @inline(__always)
    mutating func peerToPeerSharingRadio(withLink index: Int) -> (clock: ScheduleClock, schedule: PeerToPeerSchedule)? {
        guard case let .localNetwork(from, to) = table.kind(of: index) else { return nil }
        let pair = table.index(of: .wifiPeerToPeer(from: from, to: to))
        // A warm AWDL is up before its first frame: its clock is made now
        // (from the pair's own named streams, so when does not matter).
        if !table[pair].inUse, defaults.parameters(of: table.kind(of: pair)).schedule?.start == .warm { ensureLink(pair) }
        guard table[pair].inUse, let schedule = table[pair].state.parameters.schedule,
              schedule.infrastructureAbsences > 0, table[pair].state.clock.isOn
        else { return nil }
        return (table[pair].state.clock, schedule)
    }

    /// A frame went out on scheduled link `index`: the pair's state
    /// (switched on, synchronised, active) is the same both ways (the
    /// reverse link is made if unused).
    @inline(__always)
    mutating func shareSchedule(fromLink index: Int) {
        guard case let .wifiPeerToPeer(from, to) = table.kind(of: index) else { return }
        let reverse = table.index(of: .wifiPeerToPeer(from: to, to: from))
        if !table[reverse].inUse { ensureLink(reverse) }
        let clock = table[index].state.clock
        if table[reverse].state.clock.activeUntil < clock.activeUntil {
            table[reverse].state.clock.activeFrom = clock.activeFrom
            table[reverse].state.clock.activeUntil = clock.activeUntil
        }
        if table[reverse].state.clock.syncedAt > clock.syncedAt { table[reverse].state.clock.syncedAt = clock.syncedAt }
        if table[reverse].state.clock.knownAt > clock.knownAt { table[reverse].state.clock.knownAt = clock.knownAt }
        if table[reverse].state.clock.extendedSlot < clock.extendedSlot {
            table[reverse].state.clock.extendedSlot = clock.extendedSlot
        }
    }

    /// Switches AWDL on between `a` and `b` at `now`, unless it is on
    /// already (or the link has no schedule).
    mutating func enablePeerToPeer(between a: DeviceID, and b: DeviceID, at now: Int64) {
        let index = table.index(of: .wifiPeerToPeer(from: a, to: b))
        if !table[index].inUse { ensureLink(index) }
        guard let schedule = table[index].state.parameters.schedule else { return }
        table[index].state.clock.switchOn(at: now, schedule: schedule)
        shareSchedule(fromLink: index)
    }

    // MARK: Arrival

    /// `packet` reached the end of its hop on link `index` at `now` while
    /// the link was down: it is counted lost (and recorded, with
    /// `payloadBytes`, while the world records packets).
    mutating func lostOnArrival(_ packet: Packet, payloadBytes: Int, onLink index: Int, now: Int64) {
        table[index].state.statistics.packetsLostToOutage += 1
        if recordsPackets {
            recordPacket(packet, payloadBytes: payloadBytes, link: index, at: now, fate: .lost(.linkDown))
        }
    }

    /// A datagram reached the end of its link at `now`: delivered (and
    /// told) if the link is up, lost otherwise.
    mutating func datagramArrived(_ packet: Packet, now: Int64, outbox: inout WorldOutbox) {
        let index = Int(packet.connection)
        guard isUp(linkIndex: index, at: now) else {
            lostOnArrival(packet, payloadBytes: Int(packet.word), onLink: index, now: now)
            return
        }
        table[index].state.statistics.packetsDelivered += 1
        outbox.notify(.datagramDelivered(LinkID(index), tag: packet.sequence, bytes: Int(packet.word)))
    }
}
