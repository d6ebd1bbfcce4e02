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
        advertising.start(device.index, payload: payload, now: now.nanosecondsSinceStart, outbox: &outbox)
    }

    /// Stops `device`'s advertising; an event already due does nothing.
    public mutating func stopAdvertising(_ device: DeviceID) {
        advertising.stop(device.index)
    }

    /// Whether `device` is advertising (whatever its Bluetooth switch says).
    public func isAdvertising(_ device: DeviceID) -> Bool { advertising.advertisers[device.index].active }

    /// Advertising events `device` has sent with Bluetooth on.
    public func advertisementsSent(by device: DeviceID) -> Int { advertising.advertisers[device.index].sent }

    /// Whether `device` is listening for advertisements at `instant`:
    /// Bluetooth on and inside one of its scan windows (screen-on or
    /// screen-off, by its screen now).
    public func isScanning(_ device: DeviceID, at instant: SimInstant) -> Bool {
        advertising.isScanning(device.index, at: instant, settings: deviceTable.settings(of: device))
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
        let heard = advertising.lastHeard(sender.index, by: receiver.index)
        return heard < 0 ? nil : SimInstant(nanosecondsSinceStart: heard)
    }

    /// Whether `receiver` counts `sender`'s advertisements outside its
    /// scan windows too (for ``lastHeard(_:by:)``), as it does while it
    /// watches whether the device is still there; otherwise only those its
    /// scan receives count. Off at the start of a trial.
    public mutating func setWatchesPresence(of sender: DeviceID, by receiver: DeviceID, _ watches: Bool) {
        advertising.setWatchesPresence(of: sender.index, by: receiver.index, watches)
    }

    /// Stops `receiver`'s scan for `sender`: it hears nothing from it (no
    /// reception, no presence) until ``restartScanning(_:)``.
    public mutating func stopScanning(for sender: DeviceID, on receiver: DeviceID) {
        advertising.stopScanning(for: sender.index, on: receiver.index)
    }

    /// Whether `receiver`'s scan for `sender` is stopped.
    public func isScanStopped(for sender: DeviceID, on receiver: DeviceID) -> Bool {
        advertising.isScanStopped(for: sender.index, on: receiver.index)
    }

    /// Restarts `receiver`'s scans for every device it had stopped
    /// scanning for.
    ///
    /// - Returns: whether any scan was stopped.
    @discardableResult
    public mutating func restartScanning(_ receiver: DeviceID) -> Bool {
        advertising.restartScanning(receiver.index)
    }

    /// The phase of `device`'s scan schedule.
    public func scanPhase(of device: DeviceID) -> SimDuration { advertising.scanPhases[device.index] }
}
