import SimKernel

/// How a device advertises over Bluetooth LE: one advertising event every
/// `fastInterval` for the first `fastDuration` after advertising starts (or
/// restarts with a new payload), then every `interval`; each event delayed
/// by a fresh random `advDelay` drawn uniformly from 0 to
/// `maximumRandomDelay` (Bluetooth Core Specification, Vol 6, Part B,
/// §4.4.2.2.1), so that two advertisers never stay in lock-step.
public struct AdvertisingParameters: Hashable, Sendable {
    /// The fixed part of the time between advertising events after the
    /// fast period.
    public var interval: SimDuration
    /// The fixed part of the time between advertising events during the
    /// fast period.
    public var fastInterval: SimDuration
    /// How long the fast period lasts after advertising starts (zero: no
    /// fast period).
    public var fastDuration: SimDuration
    /// The largest random delay added to each event (10 ms in the
    /// specification).
    public var maximumRandomDelay: SimDuration

    /// Creates advertising parameters.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)`` for an
    ///   interval that is not positive or a negative delay.
    public init(
        interval: SimDuration, fastInterval: SimDuration? = nil, fastDuration: SimDuration = .zero,
        maximumRandomDelay: SimDuration = .milliseconds(10)
    ) throws(WorldError) {
        guard interval > .zero else {
            throw .invalidParameter(name: "advertisingInterval", value: "\(interval)", expected: "a duration > 0")
        }
        let fast = fastInterval ?? interval
        guard fast > .zero else {
            throw .invalidParameter(name: "advertisingFastInterval", value: "\(fast)", expected: "a duration > 0")
        }
        guard fastDuration >= .zero else {
            throw .invalidParameter(name: "advertisingFastDuration", value: "\(fastDuration)", expected: "a duration ≥ 0")
        }
        self.fastInterval = fast
        self.fastDuration = fastDuration
        guard maximumRandomDelay >= .zero else {
            throw .invalidParameter(name: "advertisingDelay", value: "\(maximumRandomDelay)", expected: "a duration ≥ 0")
        }
        self.interval = interval
        self.maximumRandomDelay = maximumRandomDelay
    }
}

/// How a device scans for advertisements: it listens for `window` out of
/// every `interval` while its screen is on, and out of every
/// `screenOffInterval` while it is off or locked (scan requests carry a
/// screen-on and a screen-off interval; the screen state picks one). A
/// window equal to the interval scans continuously.
///
/// Each device's scan schedule starts at its own phase, drawn once from its
/// named random stream, so receivers do not listen in lock-step.
public struct ScanParameters: Hashable, Sendable {
    /// How long each scan lasts.
    public var window: SimDuration
    /// The time from the start of one scan to the start of the next, while
    /// the screen is on.
    public var interval: SimDuration
    /// The same while the screen is off or locked.
    public var screenOffInterval: SimDuration

    /// Creates scan parameters.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)`` unless
    ///   0 < window ≤ interval.
    public init(window: SimDuration, interval: SimDuration, screenOffInterval: SimDuration? = nil) throws(WorldError) {
        guard interval > .zero else {
            throw .invalidParameter(name: "scanInterval", value: "\(interval)", expected: "a duration > 0")
        }
        guard window > .zero, window <= interval else {
            throw .invalidParameter(
                name: "scanWindow", value: "\(window)", expected: "a duration > 0 and at most the scan interval (\(interval))")
        }
        let offInterval = screenOffInterval ?? interval
        guard offInterval >= window else {
            throw .invalidParameter(
                name: "scanScreenOffInterval", value: "\(offInterval)",
                expected: "a duration of at least the scan window (\(window))")
        }
        self.window = window
        self.interval = interval
        self.screenOffInterval = offInterval
    }

    /// The same parameters with the screen-off interval in place of the
    /// screen-on one.
    var screenOff: ScanParameters {
        var parameters = self
        parameters.interval = screenOffInterval
        return parameters
    }

    /// The fraction of time spent scanning.
    public var dutyCycle: Double { Double(window.nanoseconds) / Double(interval.nanoseconds) }

    /// Whether a receiver whose scan schedule starts at `phase` is listening
    /// at `instant`.
    ///
    /// Scans occupy [phase + k·interval, phase + k·interval + window) for
    /// every integer k.
    public func isScanning(at instant: SimInstant, phase: SimDuration) -> Bool {
        let interval = self.interval.nanoseconds
        var offset = (instant.nanosecondsSinceStart &- phase.nanoseconds) % interval
        if offset < 0 { offset += interval }
        return offset < window.nanoseconds
    }
}
