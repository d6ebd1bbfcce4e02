import SimKernel

/// Every link of a world, one row each: its ends, what the packet path
/// checks before sending (flags and outage windows), and its state.
///
/// Links are numbered densely: the uplink and downlink of each device,
/// then, for each ordered pair of devices, one link per ``PairLink`` (its
/// Wi-Fi peer-to-peer link, its Bluetooth link and its local-network link),
/// in that order. ``index(of:)`` and ``kind(of:)`` convert between a
/// link's kind and its number; nothing else does arithmetic on numbers.
///
/// A link's state is made on first use in a trial (``Row/inUse``); its
/// flags and outage windows always describe the parameters it runs (or
/// will run) with.
///
/// With `HANDOFFWORLD_INVARIANTS` defined (debug builds), every change
/// through the table's subscript checks that row's invariants, and
/// structural changes check the whole table; see `LinkTable+Invariants`.
struct LinkTable: Sendable {
    /// One link.
    struct Row: Sendable {
        /// Its ends and medium.
        let ends: LinkEnds
        /// Whether its state has been made in this trial.
        var inUse = false
        /// What the packet path checks, as plain values.
        var flags: LinkFlags
        /// Its outage windows.
        var outages: [TimeWindow]
        /// Its parameters, queue, loss state and counters (meaningful only
        /// while ``inUse``, or after it, until the next reset).
        var state = LinkState.unused
    }

    /// The links of an ordered pair of devices, in their order within the
    /// pair's block of numbers: the one list of them, from which their
    /// kinds, stream names, short names, ends' media and defaults derive.
    enum PairLink: Int, CaseIterable, Sendable {
        case wifiPeerToPeer
        case bluetooth
        case localNetwork

        /// This link from `from` to `to`.
        func kind(from: DeviceID, to: DeviceID) -> LinkKind {
            switch self {
            case .wifiPeerToPeer: return .wifiPeerToPeer(from: from, to: to)
            case .bluetooth: return .bluetooth(from: from, to: to)
            case .localNetwork: return .localNetwork(from: from, to: to)
            }
        }

        /// The link's name in its random streams' paths
        /// (`link/<name>/<from>/<to>/…`). Changing one changes every
        /// seed's draws on the link.
        var streamName: RandomStreamKey.Name { Self.streamNames[rawValue] }

        /// ``streamName`` of each link by raw value, hashed once.
        private static let streamNames: [RandomStreamKey.Name] = allCases.map { link in
            switch link {
            case .wifiPeerToPeer: return "wifi"
            case .bluetooth: return "bluetooth"
            case .localNetwork: return "lan"
            }
        }

        /// The link's short name in link names (`wifi mac → iphone`).
        var shortName: String {
            switch self {
            case .wifiPeerToPeer: return "wifi"
            case .bluetooth: return "bluetooth"
            case .localNetwork: return "lan"
            }
        }
    }

    /// What the link of a ``LinkKind`` is to the table: a device's uplink
    /// or downlink, or one of the links of an ordered pair of devices.
    enum Slot {
        case uplink(DeviceID)
        case downlink(DeviceID)
        case pair(PairLink, from: DeviceID, to: DeviceID)

        /// The slot of the link of `kind`: the one switch that lists the
        /// pair links' kinds.
        @inline(__always)
        init(_ kind: LinkKind) {
            switch kind {
            case let .uplink(device): self = .uplink(device)
            case let .downlink(device): self = .downlink(device)
            case let .wifiPeerToPeer(from, to): self = .pair(.wifiPeerToPeer, from: from, to: to)
            case let .bluetooth(from, to): self = .pair(.bluetooth, from: from, to: to)
            case let .localNetwork(from, to): self = .pair(.localNetwork, from: from, to: to)
            }
        }
    }

    /// Links per ordered pair of devices: one per ``PairLink``.
    static let linksPerPair = PairLink.allCases.count

    /// The number of devices the table is for.
    let deviceCount: Int
    /// The rows by link number; changed only through the subscript.
    private(set) var rows: [Row]

    /// The links of `deviceCount` devices, each with the flags and outages
    /// of `parameters(kind)`, not in use.
    init(deviceCount: Int, parameters: (LinkKind) -> LinkParameters) {
        self.deviceCount = deviceCount
        let count = 2 * deviceCount + Self.linksPerPair * deviceCount * deviceCount
        rows = []
        rows.reserveCapacity(count)
        for index in 0..<count {
            let kind = Self.kind(of: index, deviceCount: deviceCount)
            let linkParameters = parameters(kind)
            rows.append(Row(
                ends: LinkEnds(kind, deviceCount: deviceCount), flags: LinkFlags(linkParameters, radiosUp: true),
                outages: linkParameters.outages))
        }
        checkInvariants()
    }

    /// The number of links.
    var count: Int { rows.count }

    /// Every link number.
    var indices: Range<Int> { rows.indices }

    /// The link with number `index`.
    ///
    /// - Precondition: `index` is a link number of this table.
    subscript(index: Int) -> Row {
        _read { yield rows[index] }
        _modify {
            yield &rows[index]
            #if HANDOFFWORLD_INVARIANTS
            checkInvariants(ofRow: index)
            #endif
        }
    }

    /// The number of the link of `kind`.
    ///
    /// - Precondition: the devices `kind` names are devices of this table.
    /// - Complexity: O(1).
    func index(of kind: LinkKind) -> Int {
        let count = deviceCount
        switch Slot(kind) {
        case let .uplink(device):
            precondition(device.index >= 0 && device.index < count, "no \(device) among \(count) devices")
            return 2 * device.index
        case let .downlink(device):
            precondition(device.index >= 0 && device.index < count, "no \(device) among \(count) devices")
            return 2 * device.index + 1
        case let .pair(link, from, to): return pairIndex(link, from: from, to: to)
        }
    }

    /// The number of the `link` from `from` to `to`.
    private func pairIndex(_ link: PairLink, from: DeviceID, to: DeviceID) -> Int {
        let count = deviceCount
        precondition(
            from.index >= 0 && from.index < count && to.index >= 0 && to.index < count,
            "no link from \(from) to \(to) among \(count) devices")
        return 2 * count + Self.linksPerPair * (from.index * count + to.index) + link.rawValue
    }

    /// What link `index` connects.
    ///
    /// - Complexity: O(1).
    func kind(of index: Int) -> LinkKind { Self.kind(of: index, deviceCount: deviceCount) }

    static func kind(of index: Int, deviceCount count: Int) -> LinkKind {
        if index < 2 * count {
            let device = DeviceID(index / 2)
            return index % 2 == 0 ? .uplink(device) : .downlink(device)
        }
        let pair = (index - 2 * count) / linksPerPair
        let from = DeviceID(pair / count)
        let to = DeviceID(pair % count)
        // The remainder is below linksPerPair, a PairLink's raw value.
        return PairLink(rawValue: (index - 2 * count) % linksPerPair)!.kind(from: from, to: to)
    }
}

extension LinkTable.Row {
    /// Makes the link's state for a trial with the given generators and
    /// the parameters the state already holds (the defaults).
    ///
    /// - Precondition: ``LinkFlags/stateHoldsDefaults``.
    mutating func start(lossGenerator: Xoshiro256StarStar, jitterGenerator: Xoshiro256StarStar) {
        inUse = true
        state.rebuild(lossGenerator: lossGenerator, jitterGenerator: jitterGenerator)
    }

    /// Makes the link's state for a trial with the given generators and
    /// `defaults`, which its state holds from now on.
    mutating func start(
        defaults: LinkParameters, lossGenerator: Xoshiro256StarStar, jitterGenerator: Xoshiro256StarStar
    ) {
        inUse = true
        state.rebuild(parameters: defaults, lossGenerator: lossGenerator, jitterGenerator: jitterGenerator)
        flags.stateHoldsDefaults = true
    }

    /// The link runs with `parameters` from now on.
    mutating func setParameters(_ parameters: LinkParameters) {
        state.setParameters(parameters)
        flags = LinkFlags(parameters, radiosUp: flags.radiosUp)
        outages = parameters.outages
    }

    /// The link is no longer in use (a new trial begins); its state holds
    /// the parameters it will run with next.
    mutating func stopUsing() {
        inUse = false
    }

    /// The link is no longer in use (a new trial begins); `defaults`, which
    /// its state does not hold, are what it will run with next.
    mutating func stopUsing(defaults: LinkParameters) {
        inUse = false
        flags = LinkFlags(defaults, radiosUp: flags.radiosUp)
        outages = defaults.outages
    }
}
