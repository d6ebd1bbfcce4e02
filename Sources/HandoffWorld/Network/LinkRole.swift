import SimKernel

/// Links and the packets on them: the link table (each link's flags,
/// outage windows and state), partitions, which links the radios leave up,
/// the paths' links, sending and arrival on one hop, and the packet log.
///
/// Owned by the ``World``, which routes its link calls and packet events
/// here (a connection's packets come through the world's
/// ``ConnectionRole``); the devices' settings and distances come as a
/// borrowed ``DeviceTable``, and what must be scheduled or told goes into
/// the world's ``WorldOutbox``. Sending is in `LinkRole+Packets.swift`.
/// Noncopyable, so that it is only ever changed in place.
struct LinkRole: ~Copyable, Sendable {
    // MARK: What a run fixes

    /// The parameters each link runs with unless set otherwise.
    let defaults: LinkDefaults
    /// Each device's name as a stream-path component, hashed once (shared
    /// with the world's other roles).
    let deviceStreamNames: [RandomStreamKey.Name]
    /// Whether ``packetLog`` records every packet; it stays as set across
    /// resets.
    var recordsPackets = false
    /// The most packets ``packetLog`` keeps in a trial; it stays as set
    /// across resets.
    var packetLogLimit = Int.max

    // MARK: What a trial changes (reset by `reset(stream:)`, below)

    /// Every link: its ends, flags, outage windows and state (its per-trial
    /// columns rebuilt by a reset; see ``LinkTable``).
    var table: LinkTable
    /// The stream the world draws from in this trial, as numbers only.
    var stream: RandomStreamKey.Hashed
    /// The partitions set in this trial.
    var partitions: [Partition] = []
    /// Every packet put on a link in this trial, while ``recordsPackets``.
    var packetLog: [PacketRecord] = []
    /// Packets not recorded because ``packetLogLimit`` was reached.
    var packetsLeftOut = 0

    /// Starts a trial drawing from `stream`: every per-trial field above as
    /// in a new world, in its own storage; each link used in the last trial
    /// goes back to its defaults (its state is rebuilt with them when it is
    /// next used).
    ///
    /// - Complexity: O(links), allocating nothing once the buffers have
    ///   grown.
    mutating func reset(stream: RandomStreamKey.Hashed) {
        self.stream = stream
        partitions.removeAllKeepingStorage()
        packetLog.removeAllKeepingStorage()
        packetsLeftOut = 0
        for index in table.indices where table[index].inUse {
            // Parameters set during the trial: back to the defaults.
            if table[index].flags.stateHoldsDefaults {
                table[index].stopUsing()
            } else {
                table[index].stopUsing(defaults: defaults.parameters(of: table.kind(of: index)))
            }
        }
    }

    /// The links of a world of `devices` made with `configuration`, named
    /// by `deviceStreamNames`, at the start of a trial drawing from
    /// `stream`; every radio flag up until ``refreshRadios(devices:)``.
    init(
        configuration: WorldConfiguration, devices: [DeviceDescription], deviceStreamNames: [RandomStreamKey.Name],
        stream: RandomStreamKey.Hashed
    ) {
        let defaults = LinkDefaults(configuration: configuration, devices: devices)
        self.defaults = defaults
        self.deviceStreamNames = deviceStreamNames
        self.stream = stream
        table = LinkTable(deviceCount: devices.count) { defaults.parameters(of: $0) }
    }

    // MARK: Links

    /// The parameters link `index` runs with.
    func parameters(ofLink index: Int) -> LinkParameters {
        table[index].inUse ? table[index].state.parameters : defaults.parameters(of: table.kind(of: index))
    }

    /// The payload one packet of link `index` carries.
    func payloadPerPacket(ofLink index: Int) -> Int {
        if table[index].inUse { return table[index].state.parameters.payloadPerPacket }
        return defaults.parameters(of: table.kind(of: index)).payloadPerPacket
    }

    /// Link `index` runs with `parameters` from now on.
    ///
    /// - Precondition: `parameters` are valid.
    mutating func setParameters(_ parameters: LinkParameters, ofLink index: Int, devices: borrowing DeviceTable) {
        ensureLink(index)
        table[index].setParameters(parameters)
        checkInvariants(devices: devices)
    }

    /// Creates the state of link `index` on first use, with a random stream
    /// named after its endpoints (so adding a device leaves other links'
    /// draws unchanged).
    mutating func ensureLink(_ index: Int) {
        if table[index].inUse { return }
        let kind = table.kind(of: index)
        // The streams link/<kind>/<ends…>/loss and …/jitter, derived without
        // making the intermediate keys.
        let linkStream: RandomStreamKey.Hashed
        switch LinkTable.Slot(kind) {
        case let .uplink(device):
            linkStream = stream.hashed(StreamNames.link, StreamNames.uplink, deviceStreamNames[device.index])
        case let .downlink(device):
            linkStream = stream.hashed(StreamNames.link, StreamNames.downlink, deviceStreamNames[device.index])
        case let .pair(link, from, to):
            linkStream = stream.hashed(
                StreamNames.link, link.streamName, deviceStreamNames[from.index], deviceStreamNames[to.index])
        }
        let loss = linkStream.generator(StreamNames.loss)
        let jitter = linkStream.generator(StreamNames.jitter)
        if table[index].flags.stateHoldsDefaults {
            table[index].start(lossGenerator: loss, jitterGenerator: jitter)
        } else {
            table[index].start(defaults: defaults.parameters(of: kind), lossGenerator: loss, jitterGenerator: jitter)
        }
        if case let .wifiPeerToPeer(from, to) = kind {
            // Both directions share the pair's schedule: link/wifi/<a>/<b>/schedule
            // with the devices in index order.
            let (low, high) = from.index < to.index ? (from.index, to.index) : (to.index, from.index)
            var generator = stream.hashed(
                StreamNames.link, LinkTable.PairLink.wifiPeerToPeer.streamName, deviceStreamNames[low],
                deviceStreamNames[high]
            ).generator(StreamNames.schedule)
            table[index].state.clock = ScheduleClock(
                generator: &generator, schedule: table[index].state.parameters.schedule, senderIsLow: from.index == low)
        }
    }

    // MARK: Reachability

    /// The index of the cloud among nodes (devices, then the cloud).
    var cloudNode: Int { table.deviceCount }

    /// The index of `node` among nodes.
    func nodeIndex(_ node: NetworkNode) -> Int {
        switch node {
        case let .device(id): return id.index
        case .cloud: return cloudNode
        }
    }

    /// Cuts every link between a node of `groupA` and a node of `groupB`,
    /// both ways, during `window`.
    mutating func partition(_ groupA: [NetworkNode], from groupB: [NetworkNode], during window: TimeWindow) {
        var group = Array(repeating: UInt8(0), count: table.deviceCount + 1)
        for node in groupA { group[nodeIndex(node)] = 1 }
        for node in groupB { group[nodeIndex(node)] = 2 }
        partitions.append(Partition(group: group, window: window))
    }

    /// Whether link `index` carries packets at `time`: its radios are on
    /// (or its device has internet access), no outage window and no
    /// partition covers the instant.
    @inline(__always)
    func isUp(linkIndex index: Int, at time: Int64) -> Bool {
        let flags = table[index].flags
        if !flags.radiosUp { return false }
        if flags.hasOutages, table[index].outages.anyContains(time) { return false }
        if !partitions.isEmpty {
            let ends = table[index].ends
            let instant = SimInstant(nanosecondsSinceStart: time)
            for partition in partitions where partition.window.contains(instant) {
                let a = partition.group[Int(ends.from)]
                let b = partition.group[Int(ends.to)]
                if a != 0, b != 0, a != b { return false }
            }
        }
        return true
    }

    /// Whether the radios at both ends of link `index` are on under the
    /// devices' settings now (for an internet link: whether its device has
    /// internet access).
    @inline(__always)
    func radiosUp(linkIndex index: Int, devices: borrowing DeviceTable) -> Bool {
        let ends = table[index].ends
        let from = Int(ends.from)
        let to = Int(ends.to)
        switch ends.medium {
        case .internet:
            let device = Int(ends.device)
            let access = devices.internetAccess(of: device)
            return !(access == .none || (access == .wifi && !devices.settings(of: DeviceID(device)).wifiEnabled))
        case .pair(.wifiPeerToPeer):
            return devices.settings(of: DeviceID(from)).wifiEnabled && devices.settings(of: DeviceID(to)).wifiEnabled
        case .pair(.bluetooth):
            return devices.settings(of: DeviceID(from)).bluetoothEnabled
                && devices.settings(of: DeviceID(to)).bluetoothEnabled
        case .pair(.localNetwork):
            return devices.settings(of: DeviceID(from)).wifiEnabled && devices.settings(of: DeviceID(to)).wifiEnabled
                && devices.shareWiFiNetwork(DeviceID(from), DeviceID(to))
        }
    }

    /// Works out every link's ``LinkFlags/radiosUp`` again after a
    /// settings change.
    mutating func refreshRadios(devices: borrowing DeviceTable) {
        for index in table.indices {
            let up = radiosUp(linkIndex: index, devices: devices)
            table[index].flags.radiosUp = up
        }
        checkInvariants(devices: devices)
    }

    // MARK: Paths

    /// The number of hops of a path of `kind` (1, or 2 through the cloud).
    @inline(__always)
    func hopCount(_ kind: PathKind) -> Int { kind == .cloudRelay ? 2 : 1 }

    /// The link a packet from `from` to `to` crosses on `hop` of a path of
    /// `kind`.
    @inline(__always)
    func linkIndex(_ kind: PathKind, from: DeviceID, to: DeviceID, hop: Int) -> Int {
        switch kind {
        case .wifiPeerToPeer: return table.index(of: .wifiPeerToPeer(from: from, to: to))
        case .bluetooth: return table.index(of: .bluetooth(from: from, to: to))
        case .localNetwork: return table.index(of: .localNetwork(from: from, to: to))
        case .cloudRelay: return hop == 0 ? 2 * from.index : 2 * to.index + 1
        }
    }

    /// The route of a connection from `initiator` to `responder` over a
    /// path of `kind`: the link of each hop, each way.
    func route(_ kind: PathKind, from initiator: DeviceID, to responder: DeviceID) -> Route {
        let hops = hopCount(kind)
        let forward = (
            Int32(linkIndex(kind, from: initiator, to: responder, hop: 0)),
            Int32(hops > 1 ? linkIndex(kind, from: initiator, to: responder, hop: 1) : -1))
        let backward = (
            Int32(linkIndex(kind, from: responder, to: initiator, hop: 0)),
            Int32(hops > 1 ? linkIndex(kind, from: responder, to: initiator, hop: 1) : -1))
        return Route(
            initiator: initiator, responder: responder, path: kind, hops: UInt8(hops), initiatorLinks: forward,
            responderLinks: backward)
    }

    /// The route of a connection from `device` to Apple's servers (the
    /// cloud node): one hop, up the device's uplink and down its downlink.
    func serverRoute(from device: DeviceID) -> Route {
        let up = table.index(of: .uplink(device))
        let down = table.index(of: .downlink(device))
        return Route(
            initiator: device, responder: device, path: .cloudRelay, hops: 1, initiatorLinks: (Int32(up), -1),
            responderLinks: (Int32(down), -1))
    }

    /// The largest payload one packet carries on every hop of `route`,
    /// both ways: the segment size of a connection over it.
    func payloadPerPacket(along route: Route) -> Int {
        var smallest = Int.max
        for hop in 0..<route.hops {
            smallest = min(smallest, payloadPerPacket(ofLink: route.link(from: .initiator, hop: hop)))
            smallest = min(smallest, payloadPerPacket(ofLink: route.link(from: .responder, hop: hop)))
        }
        return smallest
    }

    /// Whether a path of `kind` from `a` to `b` is up at `time` in both
    /// directions (every link of it, each way).
    func isPathAvailable(_ kind: PathKind, between a: DeviceID, and b: DeviceID, at time: Int64) -> Bool {
        for (from, to) in [(a, b), (b, a)] {
            for hop in 0..<hopCount(kind) where !isUp(linkIndex: linkIndex(kind, from: from, to: to, hop: hop), at: time) {
                return false
            }
        }
        return true
    }

    /// Whether AWDL between `a` and `b` is on: switched on, or started warm
    /// (always true for a link without a schedule).
    func isPeerToPeerOn(between a: DeviceID, and b: DeviceID) -> Bool {
        let index = table.index(of: .wifiPeerToPeer(from: a, to: b))
        guard table[index].inUse else { return defaults.parameters(of: table.kind(of: index)).schedule?.start != .cold }
        return table[index].state.parameters.schedule == nil || table[index].state.clock.isOn
    }
}
