import SimKernel

/// The physical world of one simulation run: devices and their settings,
/// accounts and pair trust, where devices are, their radios, the links
/// between them and to the cloud, and the connections over those links.
///
/// The world is a plain value driven by its owner. It never touches a
/// scheduler itself: every operation that needs a future event leaves it in
/// ``pendingEvents``, and ``schedulePendingEvents(into:)`` moves those into
/// the owner's scheduler (wrapped in the owner's event type). When a world
/// event comes due, the owner passes it back to ``handle(_:at:)``. What the
/// layer above must hear about (a message delivered, a connection failed,
/// an advertisement received) collects in ``notifications``.
///
/// ```swift
/// var world = try World(devices: [phone, mac], stream: RandomStreamKey(seed: 7).child("trial", 0))
/// let connection = world.openConnection(from: mac, to: phone, over: .wifiPeerToPeer, at: .zero)
/// world.send(bytes: 3072, tag: 1, on: connection, from: .responder, at: .zero)
/// world.schedulePendingEvents(into: &scheduler)
/// ```
///
/// Not guaranteed: a world is not thread-safe; run one world per trial.
/// Everything it does is deterministic given its devices, configuration,
/// random stream and the calls made on it.
public struct World: Sendable {
    /// The configuration the world was made with.
    public let configuration: WorldConfiguration

    var descriptions: [DeviceDescription]
    var settings: [DeviceSettings]
    /// Each device's switches and account at time zero, for ``reset(stream:)``
    /// (reading them from the descriptions copies a whole description).
    let initialSettings: [DeviceSettings]
    let initialAccounts: [AccountID?]
    /// Each device's internet access, kept apart from the descriptions so
    /// the packet path reads plain values only.
    let internetAccess: [InternetAccess]
    var accounts: [AccountHistory]
    var trust: PairTrust
    /// The stream the world draws from, as numbers only (no path text to
    /// build when deriving streams per trial).
    var stream: RandomStreamKey.Hashed

    /// Link states by index; a link's state is made on first use.
    var links: [LinkState]
    /// Whether each link's state has been made.
    var linkInUse: [Bool]
    /// Whether any device's settings changed since the last reset.
    var settingsChanged = false
    /// Per link: whether its loss depends on distance, whether it has
    /// outage windows. Plain values, read on every packet.
    var linkFlags: [LinkFlags]
    /// Per link: its outage windows.
    var linkOutages: [[TimeWindow]]
    /// Per link: its ends and medium.
    var linkEnds: [LinkEnds]
    /// Each device's mobility, kept apart from the descriptions for the
    /// packet path.
    let mobilities: [Mobility]
    /// Per ordered device pair: the distance between two devices that both
    /// stay put, or −1 if either moves. Saves a square root per packet.
    let fixedDistances: [Double]
    /// The scan schedule, read at every advertising event.
    let scanSchedule: ScanSchedule
    /// Connection states: the first ``connectionCount`` are this run's;
    /// any after them are left from before the last ``reset(stream:)``, and
    /// new connections reuse their storage.
    var connections: [ConnectionState] = []
    /// The number of connections opened since the world began or was reset.
    var connectionCount = 0
    /// Each connection's endpoints and path, kept apart from its state so
    /// the packet path reads plain values only.
    var routes: [Route] = []
    var partitions: [Partition] = []
    var advertisers: [Advertiser]
    /// The phase of each device's scan schedule.
    var scanPhases: [SimDuration]
    /// Advertisement reception per ordered device pair (sender × count +
    /// receiver): one array, so the advertising path checks one buffer.
    var receptions: [PairReception]
    /// Each device's name as a stream-path component, hashed once.
    var deviceStreamNames: [RandomStreamKey.Name]

    /// Actions produced by the connection being handled; reused.
    var actions = ReusableBuffer<ConnectionAction>()

    /// Events waiting to be moved into the owner's scheduler.
    @usableFromInline var pendingEvents = ReusableBuffer<ScheduledWorldEvent>()

    /// What happened that the layer above needs to know, in the order it
    /// happened; cleared by ``removeAllNotifications()`` without releasing
    /// its storage.
    @usableFromInline var notificationBuffer = ReusableBuffer<WorldNotification>()

    /// What happened that the layer above needs to know, in the order it
    /// happened, as a new array. The owner reads and then clears it
    /// (``removeAllNotifications()``). On a hot path, read
    /// ``notificationCount`` and ``notification(at:)`` instead, which copy
    /// nothing.
    public var notifications: [WorldNotification] {
        (0..<notificationBuffer.count).map { notificationBuffer[$0] }
    }

    /// The number of notifications waiting.
    @inlinable
    public var notificationCount: Int { notificationBuffer.count }

    /// The waiting notification at `index` (0 is the oldest).
    ///
    /// - Precondition: `index < notificationCount`.
    @inlinable
    public func notification(at index: Int) -> WorldNotification {
        precondition(index < notificationBuffer.count, "notification \(index) of \(notificationBuffer.count)")
        return notificationBuffer[index]
    }

    /// Creates a world at time zero.
    ///
    /// - Parameters:
    ///   - devices: the devices, in the order their ``DeviceID``s number
    ///     them; names must be unique.
    ///   - configuration: links, radios and transport; defaults otherwise.
    ///   - stream: the random stream this world draws from; every link,
    ///     radio and device derives its own named stream from it.
    /// - Throws: ``WorldError`` for a duplicate device name or an invalid
    ///   parameter anywhere in the configuration or the devices' profiles.
    public init(
        devices: [DeviceDescription], configuration: WorldConfiguration = WorldConfiguration(),
        stream: RandomStreamKey
    ) throws(WorldError) {
        try configuration.validate()
        var names = Set<String>()
        for device in devices {
            guard names.insert(device.name).inserted else { throw .duplicateDeviceName(device.name) }
            try device.internet.uplink.validate()
            try device.internet.downlink.validate()
        }
        self.configuration = configuration
        self.stream = stream.numbersOnly
        descriptions = devices
        settings = devices.map(\.settings)
        initialSettings = settings
        initialAccounts = AccountID.sharingStorage(devices.map(\.account))
        accounts = initialAccounts.map { AccountHistory(initial: $0) }
        trust = PairTrust(deviceCount: devices.count)
        let count = devices.count
        links = Array(repeating: LinkState.unused, count: 2 * count + 2 * count * count)
        linkInUse = Array(repeating: false, count: links.count)
        internetAccess = devices.map(\.internetAccess)
        mobilities = devices.map(\.mobility)
        fixedDistances = Self.fixedDistances(mobilities)
        scanSchedule = ScanSchedule(configuration.scanning)
        linkFlags = []
        linkOutages = []
        linkEnds = []

        advertisers = Array(repeating: Advertiser(stream: Xoshiro256StarStar(seed: 0)), count: count)
        scanPhases = Array(repeating: .zero, count: count)
        receptions = Array(repeating: PairReception(), count: count * count)
        deviceStreamNames = devices.map { RandomStreamKey.Name($0.name) }
        linkFlags.reserveCapacity(links.count)
        linkOutages.reserveCapacity(links.count)
        linkEnds.reserveCapacity(links.count)
        for index in 0..<links.count {
            let kind = kind(of: LinkID(index))
            let parameters = defaultParameters(of: kind)
            linkFlags.append(LinkFlags(parameters, radiosUp: true))
            linkOutages.append(parameters.outages)
            switch kind {
            case let .uplink(device):
                linkEnds.append(LinkEnds(from: Int32(device.index), to: Int32(count), device: Int32(device.index), medium: .internet))
            case let .downlink(device):
                linkEnds.append(LinkEnds(from: Int32(count), to: Int32(device.index), device: Int32(device.index), medium: .internet))
            case let .wifiPeerToPeer(from, to):
                linkEnds.append(LinkEnds(from: Int32(from.index), to: Int32(to.index), device: -1, medium: .wifi))
            case let .bluetooth(from, to):
                linkEnds.append(LinkEnds(from: Int32(from.index), to: Int32(to.index), device: -1, medium: .bluetooth))
            }
        }
        refreshRadios()
        seedDeviceStreams()
    }

    /// Gives each device its advertising generator and draws its scan
    /// phase, from the streams device/<name>/advertising and …/scan.
    private mutating func seedDeviceStreams() {
        let scanInterval = UInt64(configuration.scanning.interval.nanoseconds)
        // By index: iterating the descriptions would copy each one.
        for index in descriptions.indices {
            let deviceStream = stream.hashed(StreamNames.device, deviceStreamNames[index])
            advertisers[index] = Advertiser(stream: deviceStream.generator(StreamNames.advertising))
            var generator = deviceStream.generator(StreamNames.scan)
            scanPhases[index] = .nanoseconds(Int64(generator.uniform(below: scanInterval)))
        }
    }

    /// Starts over at time zero drawing from `stream`: exactly the world a
    /// new ``init(devices:configuration:stream:)`` with the same devices and
    /// configuration would make, but reusing this one's storage.
    ///
    /// Running many trials of one setup, this saves building the link
    /// tables and every array again for each trial. Connection identifiers
    /// from before the reset must not be used after it.
    ///
    /// - Complexity: O(links + devices), allocating nothing once every
    ///   buffer has reached its peak size.
    public mutating func reset(stream: RandomStreamKey) {
        reset(stream: stream.numbersOnly)
    }

    /// ``reset(stream:)`` for a key given as numbers only, so a trial's key
    /// can be derived without building its path text.
    public mutating func reset(stream: RandomStreamKey.Hashed) {
        self.stream = stream
        for index in descriptions.indices { accounts[index].reset(initial: initialAccounts[index]) }
        seedDeviceStreams()
        trust.removeAll()
        for index in links.indices where linkInUse[index] {
            linkInUse[index] = false
            if !linkFlags[index].stateHoldsDefaults {
                // Parameters set during the trial: back to the defaults (the
                // state takes them when the link is next used).
                let parameters = defaultParameters(of: kind(of: LinkID(index)))
                linkFlags[index] = LinkFlags(parameters, radiosUp: linkFlags[index].radiosUp)
                linkOutages[index] = parameters.outages
            }
        }
        // Radio flags follow the settings; they only need working out again
        // if a setting changed during the trial.
        if settingsChanged {
            for index in descriptions.indices { settings[index] = initialSettings[index] }
            refreshRadios()
            settingsChanged = false
        }
        connectionCount = 0
        if !partitions.isEmpty { partitions.removeAll(keepingCapacity: true) }
        // The remembered reception probabilities stay: they depend only on
        // the distance and the radio, which a reset does not change.
        receptions.withUnsafeMutableBufferPointer { pairs in
            for index in pairs.indices { pairs[index].generator = nil }
        }
        actions.removeAll()
        pendingEvents.removeAll()
        notificationBuffer.removeAll()
    }

    // MARK: Devices

    /// The number of devices.
    public var deviceCount: Int { descriptions.count }

    /// Every device, in order.
    public var devices: [DeviceID] { (0..<descriptions.count).map(DeviceID.init) }

    /// The device named `name`, if there is one.
    public func device(named name: String) -> DeviceID? {
        descriptions.firstIndex { $0.name == name }.map(DeviceID.init)
    }

    /// How `device` was described (its settings and account at the start).
    public func description(of device: DeviceID) -> DeviceDescription { descriptions[device.index] }

    /// The device's current settings.
    public func settings(of device: DeviceID) -> DeviceSettings { settings[device.index] }

    /// Changes the device's settings from now on.
    ///
    /// Switching a radio off takes effect at once: packets on its links are
    /// lost from now (including those already on their way), and a device
    /// with Bluetooth off neither advertises nor scans.
    public mutating func setSettings(_ newSettings: DeviceSettings, of device: DeviceID) {
        settings[device.index] = newSettings
        settingsChanged = true
        refreshRadios()
    }

    /// Where `device` is at `instant`.
    public func position(of device: DeviceID, at instant: SimInstant) -> Position {
        mobilities[device.index].position(at: instant)
    }

    /// The distance between two devices at `instant`, in metres.
    public func distance(between a: DeviceID, and b: DeviceID, at instant: SimInstant) -> Double {
        position(of: a, at: instant).distance(to: position(of: b, at: instant))
    }

    // MARK: Accounts

    /// The account signed in on `device` now.
    public func account(of device: DeviceID) -> AccountID? { accounts[device.index].current }

    /// The account that was signed in on `device` at `instant`.
    public func account(of device: DeviceID, at instant: SimInstant) -> AccountID? {
        accounts[device.index].account(at: instant)
    }

    /// Every account change of `device`, from time zero.
    public func accountHistory(of device: DeviceID) -> AccountHistory { accounts[device.index] }

    /// Signs `device` in to `account` (or out, for `nil`) at `instant`.
    ///
    /// - Precondition: `instant` is not before the device's last change.
    public mutating func setAccount(_ account: AccountID?, of device: DeviceID, at instant: SimInstant) {
        // Share the name's storage with an equal account already known.
        var known = AccountID.sharing(account, with: initialAccounts)
        if let candidate = known {
            for index in accounts.indices where accounts[index].current == candidate {
                known = accounts[index].current
                break
            }
        }
        accounts[device.index].record(known, at: instant)
    }

    /// Whether `a` and `b` can skip the key exchange: both are signed in to
    /// the same account, and they exchanged keys under it before.
    @inline(__always)
    public func isTrusted(_ a: DeviceID, _ b: DeviceID) -> Bool {
        guard let account = accounts[a.index].current, accounts[b.index].current == account else { return false }
        return trust.account(a, b) == account
    }

    // MARK: Notifications and events

    /// Clears ``notifications`` (keeping its storage).
    @inlinable
    public mutating func removeAllNotifications() {
        notificationBuffer.removeAll()
    }

    /// Moves the world's pending events into `scheduler`, wrapped in the
    /// scheduler's event type.
    ///
    /// Call it after every call that may schedule (handling an event,
    /// opening a connection, sending, advertising).
    ///
    /// - Complexity: O(k log n) for k pending events; no allocation once the
    ///   buffers have reached their peak size.
    @inlinable @inline(__always)
    public mutating func schedulePendingEvents<Event: WorldEventRepresentable>(into scheduler: inout Scheduler<Event>) {
        if pendingEvents.isEmpty { return }
        for index in 0..<pendingEvents.count {
            let item = pendingEvents[index]
            scheduler.schedule(Event.world(item.event), at: item.time)
        }
        pendingEvents.removeAll()
    }

    /// Handles a due world event, then moves any new events into
    /// `scheduler`.
    @inlinable
    public mutating func handle<Event: WorldEventRepresentable>(_ event: WorldEvent, scheduler: inout Scheduler<Event>) {
        handle(event, at: scheduler.now)
        schedulePendingEvents(into: &scheduler)
    }

    /// Handles a world event that is due at `now`.
    public mutating func handle(_ event: WorldEvent, at now: SimInstant) {
        switch event {
        case let .packetArrival(packet):
            packetArrived(packet, now: now.nanosecondsSinceStart)
        case let .retransmissionTimer(connection, side, generation):
            let index = Int(connection)
            connections[index].timerFired(
                side: side, generation: generation, now: now.nanosecondsSinceStart, into: &actions)
            performActions(of: index, now: now.nanosecondsSinceStart)
        case let .advertisement(device, generation):
            advertise(from: Int(device), generation: generation, now: now.nanosecondsSinceStart)
        }
    }

    @inline(__always)
    mutating func schedule(_ event: WorldEvent, at time: Int64) {
        pendingEvents.append(ScheduledWorldEvent(time: SimInstant(nanosecondsSinceStart: time), event: event))
    }

    mutating func notify(_ notification: WorldNotification) {
        notificationBuffer.append(notification)
    }
}

/// The fixed components of the world's stream paths, hashed once.
enum StreamNames {
    static let device: RandomStreamKey.Name = "device"
    static let advertising: RandomStreamKey.Name = "advertising"
    static let scan: RandomStreamKey.Name = "scan"
    static let advertisement: RandomStreamKey.Name = "advertisement"
    static let link: RandomStreamKey.Name = "link"
    static let uplink: RandomStreamKey.Name = "uplink"
    static let downlink: RandomStreamKey.Name = "downlink"
    static let wifi: RandomStreamKey.Name = "wifi"
    static let bluetooth: RandomStreamKey.Name = "bluetooth"
    static let loss: RandomStreamKey.Name = "loss"
    static let jitter: RandomStreamKey.Name = "jitter"
}
