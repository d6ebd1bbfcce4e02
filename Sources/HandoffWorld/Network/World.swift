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
public struct World: ~Copyable, Sendable {
    /// Makes the world, and every model that embeds it, address-only: a
    /// borrowed world is passed by address, never as a copy of its bytes.
    let layout = AddressOnlyLayout()

    /// The configuration the world was made with.
    public let configuration: WorldConfiguration

    // The world's parts, each owning what a run fixes for it and what a
    // trial changes, with its reset beside its fields: the device table,
    // pair trust, and three roles (advertising and scanning, links and
    // packets, connections), which write what they need scheduled or told
    // into the outbox. The world keeps the public API and routes each call
    // and event to its role, passing it what it needs of the others.

    /// Every device and its state now: the one table the layers above read.
    package private(set) var deviceTable: DeviceTable
    /// The account each pair of devices last exchanged keys under, in this
    /// trial.
    var trust: PairTrust
    /// Advertising and scanning: advertisers, scan phases, reception.
    var advertising: AdvertisingRole
    /// Links and the packets on them: the link table, partitions, radios,
    /// the packet log.
    var links: LinkRole
    /// Connections: their states and routes, and what they ask for.
    var connections: ConnectionRole
    /// The events and notifications on their way out.
    @usableFromInline var outbox = WorldOutbox()

    /// Whether ``packetLog`` records every packet: off by default, since it
    /// costs memory per packet (for `handoff-sim replay --packets`). It
    /// stays as set across resets.
    public var recordsPackets: Bool {
        get { links.recordsPackets }
        set { links.recordsPackets = newValue }
    }
    /// The most packets ``packetLog`` keeps in a trial; later ones are only
    /// counted (``packetsLeftOut``), so memory stays bounded however many
    /// events a trial handles. It stays as set across resets.
    package var packetLogLimit: Int {
        get { links.packetLogLimit }
        set { links.packetLogLimit = newValue }
    }
    /// Packets sent in this trial after ``packetLog`` reached
    /// ``packetLogLimit``.
    package var packetsLeftOut: Int { links.packetsLeftOut }

    /// Every packet put on a link since the last reset, in the order sent
    /// (a loss found on arrival is recorded when it happens), while
    /// ``recordsPackets`` is on.
    public var packetLog: [PacketRecord] { links.packetLog }

    /// What happened that the layer above needs to know, in the order it
    /// happened. The owner reads and then clears it
    /// (``removeAllNotifications()``).
    public var notifications: [WorldNotification] {
        (0..<outbox.notifications.count).map { outbox.notifications[$0] }
    }

    /// The number of notifications waiting.
    @inlinable
    package var notificationCount: Int { outbox.notifications.count }

    /// The waiting notification at `index` (0 is the oldest).
    ///
    /// - Precondition: `index < notificationCount`.
    @inlinable
    package func notification(at index: Int) -> WorldNotification {
        precondition(index < outbox.notifications.count, "notification \(index) of \(outbox.notifications.count)")
        return outbox.notifications[index]
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
        deviceTable = DeviceTable(devices)
        trust = PairTrust(deviceCount: devices.count)
        // Each device's name as a stream-path component, hashed once and
        // shared by the roles that derive streams from it.
        let deviceStreamNames = devices.map { RandomStreamKey.Name($0.name) }
        advertising = AdvertisingRole(
            configuration: configuration, deviceStreamNames: deviceStreamNames, stream: stream.numbersOnly)
        links = LinkRole(
            configuration: configuration, devices: devices, deviceStreamNames: deviceStreamNames,
            stream: stream.numbersOnly)
        connections = ConnectionRole(configuration: configuration)
        links.refreshRadios(devices: deviceTable)
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

    /// ``reset(stream:)`` for a key given as numbers only.
    package mutating func reset(stream: RandomStreamKey.Hashed) {
        trust = PairTrust(deviceCount: deviceTable.count, reusing: &trust)
        advertising.reset(stream: stream)
        links.reset(stream: stream)
        connections.reset()
        outbox.reset()
        links.checkInvariants(devices: deviceTable)
        // Radio flags follow the settings; they only need working out again
        // if a setting changed during the trial.
        let settingsChanged = deviceTable.settingsChanged
        deviceTable.reset()
        if settingsChanged { links.refreshRadios(devices: deviceTable) }
    }

    // MARK: Devices

    /// The number of devices.
    public var deviceCount: Int { deviceTable.count }

    /// Every device, in order.
    public var devices: [DeviceID] { (0..<deviceTable.count).map(DeviceID.init) }

    /// The device named `name`, if there is one.
    public func device(named name: String) -> DeviceID? { deviceTable.device(named: name) }

    /// How `device` was described (its settings and account at the start).
    public func description(of device: DeviceID) -> DeviceDescription { deviceTable.description(of: device) }

    /// The device's current settings.
    public func settings(of device: DeviceID) -> DeviceSettings { deviceTable.settings(of: device) }

    /// Changes the device's settings from now on.
    ///
    /// Switching a radio off takes effect at once: packets on its links are
    /// lost from now (including those already on their way), and a device
    /// with Bluetooth off neither advertises nor scans.
    public mutating func setSettings(_ newSettings: DeviceSettings, of device: DeviceID) {
        deviceTable.setSettings(newSettings, of: device)
        links.refreshRadios(devices: deviceTable)
    }

    /// Where `device` is at `instant`.
    public func position(of device: DeviceID, at instant: SimInstant) -> Position {
        deviceTable.mobility(of: device.index).position(at: instant)
    }

    /// The distance between two devices at `instant`, in metres.
    public func distance(between a: DeviceID, and b: DeviceID, at instant: SimInstant) -> Double {
        position(of: a, at: instant).distance(to: position(of: b, at: instant))
    }

    // MARK: Accounts

    /// The account signed in on `device` now.
    public func account(of device: DeviceID) -> AccountID? { deviceTable.account(of: device).map(deviceTable.accountName) }

    /// The account that was signed in on `device` at `instant`.
    public func account(of device: DeviceID, at instant: SimInstant) -> AccountID? {
        deviceTable.accountHistory(of: device).account(at: instant)
    }

    /// Every account change of `device`, from time zero.
    public func accountHistory(of device: DeviceID) -> AccountHistory { deviceTable.accountHistory(of: device) }

    /// Signs `device` in to `account` (or out, for `nil`) at `instant`.
    ///
    /// - Precondition: `instant` is not before the device's last change.
    public mutating func setAccount(_ account: AccountID?, of device: DeviceID, at instant: SimInstant) {
        deviceTable.setAccount(account, of: device, at: instant)
    }

    /// Whether `a` and `b` can skip the key exchange: both are signed in to
    /// the same account, and they exchanged keys under it before.
    @inline(__always)
    public func isTrusted(_ a: DeviceID, _ b: DeviceID) -> Bool {
        guard deviceTable.shareAccount(a, b) else { return false }
        return trust.account(a, b) == deviceTable.account(of: a)
    }

    /// Records that `a` and `b` exchanged keys under the account they both
    /// are signed in to now (nothing when they do not share one).
    public mutating func recordTrust(_ a: DeviceID, _ b: DeviceID) {
        guard deviceTable.shareAccount(a, b), let account = deviceTable.account(of: a) else { return }
        trust.record(a, b, account: account)
    }

    // MARK: Notifications and events

    /// Clears ``notifications`` (keeping its storage).
    @inlinable
    public mutating func removeAllNotifications() {
        outbox.notifications.removeAll()
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
        if outbox.pendingEvents.isEmpty { return }
        for index in 0..<outbox.pendingEvents.count {
            let item = outbox.pendingEvents[index]
            scheduler.schedule(Event.world(item.event), at: item.time)
        }
        outbox.pendingEvents.removeAll()
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
            if packet.kind == .datagram {
                links.datagramArrived(packet, now: now.nanosecondsSinceStart, outbox: &outbox)
            } else {
                connections.packetArrived(
                    packet, now: now.nanosecondsSinceStart, links: &links, devices: deviceTable, outbox: &outbox)
            }
        case let .retransmissionTimer(connection, side, generation):
            connections.retransmissionTimerFired(
                Int(connection), side: side, generation: generation, now: now.nanosecondsSinceStart, links: &links,
                devices: deviceTable, outbox: &outbox)
        case let .acknowledgementTimer(connection, side, generation):
            connections.acknowledgementTimerFired(
                Int(connection), side: side, generation: generation, now: now.nanosecondsSinceStart, links: &links,
                devices: deviceTable, outbox: &outbox)
        case let .advertisement(device, generation):
            advertising.advertise(
                from: Int(device), generation: generation, now: now.nanosecondsSinceStart, devices: deviceTable,
                outbox: &outbox)
        }
    }
}
