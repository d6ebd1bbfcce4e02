import SimKernel

extension World {
    /// Starts (or restarts with a new payload) `device`'s Bluetooth LE
    /// advertising at `now`.
    ///
    /// Advertising events follow every ``AdvertisingParameters/interval``
    /// plus a fresh random delay, the first one after a random delay only.
    /// At each event, while the device's Bluetooth is on, every other device
    /// with Bluetooth on that is scanning at that instant receives the
    /// advertisement with the probability the radio model gives for their
    /// distance; each reception adds
    /// ``WorldNotification/advertisementReceived(from:to:payload:)``.
    public mutating func startAdvertising(_ device: DeviceID, payload: UInt64, at now: SimInstant) {
        trial.advertisers[device.index].active = true
        trial.advertisers[device.index].payload = payload
        trial.advertisers[device.index].generation &+= 1
        trial.advertisers[device.index].startedAt = now.nanosecondsSinceStart
        let delay = randomAdvertisingDelay(device.index)
        schedule(
            .advertisement(device: UInt32(device.index), generation: trial.advertisers[device.index].generation),
            at: now.nanosecondsSinceStart + delay)
    }

    /// Stops `device`'s advertising; an event already due does nothing.
    public mutating func stopAdvertising(_ device: DeviceID) {
        trial.advertisers[device.index].active = false
        trial.advertisers[device.index].generation &+= 1
    }

    /// Whether `device` is advertising (whatever its Bluetooth switch says).
    public func isAdvertising(_ device: DeviceID) -> Bool { trial.advertisers[device.index].active }

    /// Advertising events `device` has sent with Bluetooth on.
    public func advertisementsSent(by device: DeviceID) -> Int { trial.advertisers[device.index].sent }

    /// Whether `device` is listening for advertisements at `instant`:
    /// Bluetooth on and inside one of its scan windows (screen-on or
    /// screen-off, by its screen now).
    public func isScanning(_ device: DeviceID, at instant: SimInstant) -> Bool {
        let settings = deviceTable.settings(of: device)
        let scanning = settings.screen == .on ? configuration.scanning : configuration.scanning.screenOff
        return settings.bluetoothEnabled && scanning.isScanning(at: instant, phase: trial.scanPhases[device.index])
    }

    /// When `receiver` last heard an advertisement of `sender`, or nil if
    /// it has heard none in this trial.
    ///
    /// An advertising event of `sender` on air counts inside a scan window
    /// when its reception draw succeeds (the same draw that delivers
    /// ``WorldNotification/advertisementReceived(from:to:payload:)``), and,
    /// while the receiver watches the sender's presence
    /// (``setWatchesPresence(of:by:_:)``), outside one when a draw of the
    /// same probability from the pair's own presence stream succeeds. An assumption: the receiver keeps its list
    /// of nearby devices from all of their Continuity advertisements, not
    /// only from the Handoff scan's windows, so a device in range is not
    /// lost merely because the scan's duty cycle is low. Nothing is heard
    /// while the receiver's scan for `sender` is stopped.
    public func lastHeard(_ sender: DeviceID, by receiver: DeviceID) -> SimInstant? {
        let heard = trial.receptions[sender.index * deviceTable.count + receiver.index].lastHeard
        return heard < 0 ? nil : SimInstant(nanosecondsSinceStart: heard)
    }

    /// Whether `receiver` counts `sender`'s advertisements outside its
    /// scan windows too (for ``lastHeard(_:by:)``), as it does while it
    /// watches whether the device is still there; otherwise only those its
    /// scan receives count. Off at the start of a trial.
    public mutating func setWatchesPresence(of sender: DeviceID, by receiver: DeviceID, _ watches: Bool) {
        trial.receptions[sender.index * deviceTable.count + receiver.index].watchesPresence = watches
    }

    /// Stops `receiver`'s scan for `sender`: it hears nothing from it (no
    /// reception, no presence) until ``restartScanning(_:)``.
    public mutating func stopScanning(for sender: DeviceID, on receiver: DeviceID) {
        trial.receptions[sender.index * deviceTable.count + receiver.index].scanStopped = true
    }

    /// Whether `receiver`'s scan for `sender` is stopped.
    public func isScanStopped(for sender: DeviceID, on receiver: DeviceID) -> Bool {
        trial.receptions[sender.index * deviceTable.count + receiver.index].scanStopped
    }

    /// Restarts `receiver`'s scans for every device it had stopped
    /// scanning for.
    ///
    /// - Returns: whether any scan was stopped.
    @discardableResult
    public mutating func restartScanning(_ receiver: DeviceID) -> Bool {
        var restarted = false
        let count = deviceTable.count
        for sender in 0..<count where trial.receptions[sender * count + receiver.index].scanStopped {
            trial.receptions[sender * count + receiver.index].scanStopped = false
            restarted = true
        }
        return restarted
    }

    /// The phase of `device`'s scan schedule.
    public func scanPhase(of device: DeviceID) -> SimDuration { trial.scanPhases[device.index] }

    mutating func randomAdvertisingDelay(_ device: Int) -> Int64 {
        trial.advertisers[device].drawDelay(maximum: configuration.advertising.maximumRandomDelay.nanoseconds)
    }

    mutating func advertise(from device: Int, generation: UInt32, now: Int64) {
        guard trial.advertisers[device].active, trial.advertisers[device].generation == generation else { return }
        let onAir = deviceTable.settings(of: DeviceID(device)).bluetoothEnabled
        // The next event's delay comes from the advertiser's own generator,
        // so drawing it first changes no other draw.
        let delay = trial.advertisers[device].fire(
            onAir: onAir, maximumDelay: configuration.advertising.maximumRandomDelay.nanoseconds)
        if onAir {
            let count = deviceTable.count
            for receiver in 0..<count where receiver != device && deviceTable.settings(of: DeviceID(receiver)).bluetoothEnabled {
                let pair = device * count + receiver
                // A receiver whose scan for this device has stopped hears
                // nothing from it until its scanning restarts.
                if trial.receptions[pair].scanStopped { continue }
                let scanning = (deviceTable.settings(of: DeviceID(receiver)).screen == .on
                    ? scanSchedule : screenOffScanSchedule)
                    .isScanning(at: now, phase: trial.scanPhases[receiver].nanoseconds)
                // Outside the Handoff scan's windows an advertisement still
                // tells a receiver that watches the device's presence that
                // it is there, drawn from a stream of its own (so no
                // reception draw moves).
                guard scanning || trial.receptions[pair].watchesPresence else { continue }
                let distance = distance(between: device, and: receiver, at: now)
                if trial.receptions[pair].distance != distance {
                    trial.receptions[pair].distance = distance
                    trial.receptions[pair].probability = configuration.bluetoothRadio.receptionProbability(atDistance: distance)
                }
                guard scanning else {
                    // The stream's names only on first use: passing them on
                    // every advertisement would retain and release them.
                    if trial.receptions[pair].needsPresenceGenerator {
                        trial.receptions[pair].presenceGenerator = trial.stream.generator(
                            StreamNames.presence, deviceStreamNames[device], deviceStreamNames[receiver])
                    }
                    if trial.receptions[pair].drawPresence() {
                        trial.receptions[pair].lastHeard = now
                    }
                    continue
                }
                if trial.receptions[pair].generator == nil {
                    trial.receptions[pair].generator = trial.stream.generator(
                        StreamNames.advertisement, deviceStreamNames[device], deviceStreamNames[receiver])
                }
                // As RadioPropagation.isReceived(atDistance:using:), with the
                // probability remembered while the pair stays put.
                let received = trial.receptions[pair].draw()
                if received {
                    trial.receptions[pair].lastHeard = now
                    notify(.advertisementReceived(
                        from: DeviceID(device), to: DeviceID(receiver), payload: trial.advertisers[device].payload))
                }
            }
        }
        let advertising = configuration.advertising
        let fast = now - trial.advertisers[device].startedAt < advertising.fastDuration.nanoseconds
        let next = now + (fast ? advertising.fastInterval : advertising.interval).nanoseconds + delay
        schedule(.advertisement(device: UInt32(device), generation: generation), at: next)
    }
}

