import SimKernel

/// Advertising and scanning: each device's Bluetooth LE advertiser, each
/// device's scan schedule, and what each receiver hears of each sender
/// (reception and presence).
///
/// Owned by the ``World``, which routes its advertising calls and events
/// here; the devices' settings and distances come as a borrowed
/// ``DeviceTable``, and what must be scheduled or told goes into the
/// world's ``WorldOutbox``. Noncopyable, so that it is only ever changed
/// in place.
struct AdvertisingRole: ~Copyable, Sendable {
    // MARK: What a run fixes

    /// How devices advertise.
    let parameters: AdvertisingParameters
    /// How devices scan (the screen-on schedule; its ``ScanParameters/screenOff``
    /// for receivers whose screen is off or locked).
    let scanning: ScanParameters
    /// The radio model advertisements are received through.
    let radio: RadioPropagation
    /// The scan schedule, read at every advertising event.
    let scanSchedule: ScanSchedule
    /// The schedule of receivers whose screen is off or locked.
    let screenOffScanSchedule: ScanSchedule
    /// Each device's name as a stream-path component, hashed once (shared
    /// with the world's other roles).
    let deviceStreamNames: [RandomStreamKey.Name]

    // MARK: What a trial changes (reset by `reset(stream:)`, below)

    /// The stream the world draws from in this trial, as numbers only.
    var stream: RandomStreamKey.Hashed
    /// Each device's advertising state (made as the devices' streams are
    /// seeded, in device order).
    var advertisers: [Advertiser] = []
    /// The phase of each device's scan schedule.
    var scanPhases: [SimDuration] = []
    /// Advertisement reception per ordered device pair (sender × count +
    /// receiver): one array, so the advertising path checks one buffer.
    /// Each pair's reception probability, remembered by distance, outlives
    /// a reset (it depends on the distance and the radio, which no trial
    /// changes).
    var receptions: [PairReception] = []

    /// Starts a trial drawing from `stream`: every per-trial field above as
    /// in a new world, in its own storage, and each device's advertiser
    /// and scan phase drawn from the streams device/<name>/advertising and
    /// …/scan.
    ///
    /// - Complexity: O(devices²), allocating nothing once the buffers have
    ///   grown.
    mutating func reset(stream: RandomStreamKey.Hashed) {
        self.stream = stream
        let count = deviceStreamNames.count
        advertisers.removeAllKeepingStorage()
        // Each pair starts over, remembering only its reception
        // probability by distance.
        receptions.withUnsafeMutableBufferPointer { pairs in
            for index in pairs.indices { pairs[index] = PairReception(remembering: pairs[index]) }
        }
        let scanInterval = UInt64(scanning.interval.nanoseconds)
        // Every device's advertiser is made, and its scan phase drawn, here.
        for index in 0..<count {
            let deviceStream = stream.hashed(StreamNames.device, deviceStreamNames[index])
            advertisers.append(Advertiser(stream: deviceStream.generator(StreamNames.advertising)))
            var generator = deviceStream.generator(StreamNames.scan)
            scanPhases[index] = .nanoseconds(Int64(generator.uniform(below: scanInterval)))
        }
    }

    /// Advertising and scanning as `configuration` has them, for devices
    /// named by `deviceStreamNames`, at the start of a trial drawing from
    /// `stream`.
    init(
        configuration: WorldConfiguration, deviceStreamNames: [RandomStreamKey.Name], stream: RandomStreamKey.Hashed
    ) {
        parameters = configuration.advertising
        scanning = configuration.scanning
        radio = configuration.bluetoothRadio
        scanSchedule = ScanSchedule(configuration.scanning)
        screenOffScanSchedule = ScanSchedule(configuration.scanning.screenOff)
        self.deviceStreamNames = deviceStreamNames
        self.stream = stream
        let count = deviceStreamNames.count
        advertisers.reserveCapacity(count)
        scanPhases = Array(repeating: .zero, count: count)
        receptions = Array(repeating: PairReception(), count: count * count)
        reset(stream: stream)
    }

    // MARK: Advertising

    /// Starts (or restarts with `payload`) `device`'s advertising at `now`:
    /// its first event after a random delay.
    mutating func start(_ device: Int, payload: UInt64, now: Int64, outbox: inout WorldOutbox) {
        advertisers[device].active = true
        advertisers[device].payload = payload
        advertisers[device].generation &+= 1
        advertisers[device].startedAt = now
        let delay = advertisers[device].drawDelay(maximum: parameters.maximumRandomDelay.nanoseconds)
        outbox.schedule(.advertisement(device: UInt32(device), generation: advertisers[device].generation), at: now + delay)
    }

    /// Stops `device`'s advertising; an event already due does nothing.
    mutating func stop(_ device: Int) {
        advertisers[device].active = false
        advertisers[device].generation &+= 1
    }

    /// One advertising event of `device` (of advertising `generation`) at
    /// `now`: while its Bluetooth is on, each other device with Bluetooth
    /// on that scans for it either receives it (inside a scan window) or
    /// hears of its presence (outside one, while it watches); then the
    /// next event is scheduled.
    mutating func advertise(
        from device: Int, generation: UInt32, now: Int64, devices: borrowing DeviceTable, outbox: inout WorldOutbox
    ) {
        guard advertisers[device].active, advertisers[device].generation == generation else { return }
        let onAir = devices.settings(of: DeviceID(device)).bluetoothEnabled
        // The next event's delay comes from the advertiser's own generator,
        // so drawing it first changes no other draw.
        let delay = advertisers[device].fire(onAir: onAir, maximumDelay: parameters.maximumRandomDelay.nanoseconds)
        if onAir {
            let count = devices.count
            for receiver in 0..<count where receiver != device && devices.settings(of: DeviceID(receiver)).bluetoothEnabled {
                let pair = device * count + receiver
                // A receiver whose scan for this device has stopped hears
                // nothing from it until its scanning restarts.
                if receptions[pair].scanStopped { continue }
                let scanning = (devices.settings(of: DeviceID(receiver)).screen == .on
                    ? scanSchedule : screenOffScanSchedule)
                    .isScanning(at: now, phase: scanPhases[receiver].nanoseconds)
                // Outside the Handoff scan's windows an advertisement still
                // tells a receiver that watches the device's presence that
                // it is there, drawn from a stream of its own (so no
                // reception draw moves).
                guard scanning || receptions[pair].watchesPresence else { continue }
                let distance = devices.distance(between: device, and: receiver, at: now)
                if receptions[pair].distance != distance {
                    receptions[pair].distance = distance
                    receptions[pair].probability = radio.receptionProbability(atDistance: distance)
                }
                guard scanning else {
                    // The stream's names only on first use: passing them on
                    // every advertisement would retain and release them.
                    if receptions[pair].needsPresenceGenerator {
                        receptions[pair].presenceGenerator = stream.generator(
                            StreamNames.presence, deviceStreamNames[device], deviceStreamNames[receiver])
                    }
                    if receptions[pair].drawPresence() {
                        receptions[pair].lastHeard = now
                    }
                    continue
                }
                if receptions[pair].generator == nil {
                    receptions[pair].generator = stream.generator(
                        StreamNames.advertisement, deviceStreamNames[device], deviceStreamNames[receiver])
                }
                // As RadioPropagation.isReceived(atDistance:using:), with the
                // probability remembered while the pair stays put.
                let received = receptions[pair].draw()
                if received {
                    receptions[pair].lastHeard = now
                    outbox.notify(.advertisementReceived(
                        from: DeviceID(device), to: DeviceID(receiver), payload: advertisers[device].payload))
                }
            }
        }
        let fast = now - advertisers[device].startedAt < parameters.fastDuration.nanoseconds
        let next = now + (fast ? parameters.fastInterval : parameters.interval).nanoseconds + delay
        outbox.schedule(.advertisement(device: UInt32(device), generation: generation), at: next)
    }

    // MARK: Scanning

    /// Whether a device whose settings are `settings` is listening at
    /// `instant`: Bluetooth on and inside one of its scan windows
    /// (screen-on or screen-off, by its screen).
    func isScanning(_ device: Int, at instant: SimInstant, settings: DeviceSettings) -> Bool {
        let schedule = settings.screen == .on ? scanning : scanning.screenOff
        return settings.bluetoothEnabled && schedule.isScanning(at: instant, phase: scanPhases[device])
    }

    /// When `receiver` last heard `sender` (nanoseconds; −1: never in this
    /// trial).
    func lastHeard(_ sender: Int, by receiver: Int) -> Int64 {
        receptions[sender * deviceStreamNames.count + receiver].lastHeard
    }

    /// Whether `receiver`'s scan for `sender` is stopped.
    func isScanStopped(for sender: Int, on receiver: Int) -> Bool {
        receptions[sender * deviceStreamNames.count + receiver].scanStopped
    }

    /// Sets whether `receiver` counts `sender`'s advertisements outside its
    /// scan windows too.
    mutating func setWatchesPresence(of sender: Int, by receiver: Int, _ watches: Bool) {
        receptions[sender * deviceStreamNames.count + receiver].watchesPresence = watches
    }

    /// Stops `receiver`'s scan for `sender`.
    mutating func stopScanning(for sender: Int, on receiver: Int) {
        receptions[sender * deviceStreamNames.count + receiver].scanStopped = true
    }

    /// Restarts `receiver`'s scans for every device it had stopped scanning
    /// for.
    ///
    /// - Returns: whether any scan was stopped.
    mutating func restartScanning(_ receiver: Int) -> Bool {
        var restarted = false
        let count = deviceStreamNames.count
        for sender in 0..<count where receptions[sender * count + receiver].scanStopped {
            receptions[sender * count + receiver].scanStopped = false
            restarted = true
        }
        return restarted
    }
}
