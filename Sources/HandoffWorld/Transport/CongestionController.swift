/// What the sender knows when it tells its congestion control of an
/// event: the time, what is in flight, and its RTT estimates.
///
/// A plain value built at each call; an algorithm reads what it needs
/// (NewReno the flight, CUBIC the time and the RTTs too).
struct CongestionSignal {
    /// The time of the event, in nanoseconds.
    let now: Int64
    /// RFC 6675's pipe: bytes sent and neither acknowledged nor deemed lost.
    let bytesInFlight: Int
    /// RFC 5681's FlightSize: bytes sent and not cumulatively acknowledged.
    let outstandingBytes: Int
    /// The smoothed RTT (RFC 6298 SRTT), or −1 before the first sample.
    let smoothedRoundTrip: Int64
    /// The smallest RTT sample, or −1 before the first.
    let minimumRoundTrip: Int64
}

/// What the sender tells its congestion control.
///
/// The sender owns loss detection and the recovery state machine (open,
/// fast recovery, loss after a timeout); the algorithm owns the window and
/// how each of these events moves it.
enum CongestionEvent {
    /// New data was cumulatively acknowledged outside fast recovery, on an
    /// ACK that neither reduced the window nor ended a recovery: `bytes`
    /// (at least 1 per empty segment) may grow the window.
    case acknowledged(bytes: Int)
    /// A loss was found outside recovery: fast recovery begins.
    case recoveryStarted
    /// An ACK arrived during fast recovery, newly delivering `bytes` (SACKed
    /// or cumulatively acknowledged; 0 for a reorder timer's expiry).
    case acknowledgedInRecovery(bytes: Int)
    /// `bytes` were (re)transmitted during fast recovery.
    case sentInRecovery(bytes: Int)
    /// Everything sent before fast recovery began is acknowledged.
    case recoveryEnded
    /// The retransmission timer expired; `firstInEpisode` when the sender
    /// was not already recovering from an earlier timeout.
    case timedOut(firstInEpisode: Bool)
    /// A retransmitted tail-loss probe repaired one loss without a
    /// recovery (RFC 8985 §7.4.2): reduce as for a loss episode.
    case probeRepairedLoss
}

/// The hooks of one congestion-control algorithm: its window, and how the
/// sender's events move it. An algorithm is a plain value held in a
/// ``CongestionController`` case, so dispatch is static and nothing is
/// allocated per event.
protocol CongestionAlgorithm: Sendable {
    /// The most bytes this algorithm lets fly (cwnd).
    var window: Int { get }
    /// Where slow start ends (ssthresh).
    var slowStartThreshold: Int { get }
    /// New data acknowledged outside recovery (``CongestionEvent/acknowledged(bytes:)``).
    mutating func acknowledged(bytes: Int, signal: CongestionSignal)
    /// Fast recovery begins.
    mutating func recoveryStarted(signal: CongestionSignal)
    /// An ACK during fast recovery.
    mutating func acknowledgedInRecovery(bytes: Int, signal: CongestionSignal)
    /// Bytes sent during fast recovery.
    mutating func sentInRecovery(bytes: Int)
    /// Fast recovery ends.
    mutating func recoveryEnded(signal: CongestionSignal)
    /// The retransmission timeout.
    mutating func timedOut(firstInEpisode: Bool, signal: CongestionSignal)
    /// A loss repaired by a tail-loss probe.
    mutating func probeRepairedLoss(signal: CongestionSignal)
}

extension CongestionAlgorithm {
    /// Hands `event` to its hook.
    @inline(__always)
    mutating func handle(_ event: CongestionEvent, signal: CongestionSignal) {
        switch event {
        case let .acknowledged(bytes): acknowledged(bytes: bytes, signal: signal)
        case .recoveryStarted: recoveryStarted(signal: signal)
        case let .acknowledgedInRecovery(bytes): acknowledgedInRecovery(bytes: bytes, signal: signal)
        case let .sentInRecovery(bytes): sentInRecovery(bytes: bytes)
        case .recoveryEnded: recoveryEnded(signal: signal)
        case let .timedOut(firstInEpisode): timedOut(firstInEpisode: firstInEpisode, signal: signal)
        case .probeRepairedLoss: probeRepairedLoss(signal: signal)
        }
    }
}

/// A connection side's congestion control: the algorithm its
/// ``TransportParameters/congestionControl`` names, with that algorithm's
/// own state.
///
/// Each algorithm's state is a stored property, and ``choice`` says which
/// one runs: an event mutates that state in place, where an enum's payload
/// would be copied out and back on every event (CUBIC's state is about 150
/// bytes). The others sit unused.
///
/// To add an algorithm: a file with its state as a ``CongestionAlgorithm``,
/// a case in ``CongestionControl`` (the public choice), a property here,
/// and one arm per switch below (the compiler lists them).
struct CongestionController: Sendable {
    /// The algorithm that runs.
    let choice: CongestionControl
    /// CUBIC with PRR (``CongestionControl/cubic``); meaningful when chosen.
    var cubic: Cubic
    /// NewReno with PRR (``CongestionControl/newReno``); meaningful when
    /// chosen.
    var newReno: NewReno
    /// Flow control only (``CongestionControl/none``); meaningful when
    /// chosen.
    var fixed: FixedWindow

    /// The algorithm `choice`, at the start of a connection whose segments
    /// carry `segmentSize` bytes.
    init(_ choice: CongestionControl, parameters: TransportParameters, segmentSize: Int) {
        self.choice = choice
        cubic = Cubic(parameters: parameters, segmentSize: segmentSize)
        newReno = NewReno(parameters: parameters, segmentSize: segmentSize)
        fixed = FixedWindow(parameters: parameters)
    }

    /// The congestion window: the most bytes the algorithm lets fly.
    var window: Int {
        @inline(__always) get {
            switch choice {
            case .cubic: return cubic.window
            case .newReno: return newReno.window
            case .none: return fixed.window
            }
        }
    }

    /// The slow-start threshold.
    var slowStartThreshold: Int {
        switch choice {
        case .cubic: return cubic.slowStartThreshold
        case .newReno: return newReno.slowStartThreshold
        case .none: return fixed.slowStartThreshold
        }
    }

    /// Tells the algorithm of `event`.
    @inline(__always)
    mutating func handle(_ event: CongestionEvent, signal: CongestionSignal) {
        switch choice {
        case .cubic: cubic.handle(event, signal: signal)
        case .newReno: newReno.handle(event, signal: signal)
        case .none: fixed.handle(event, signal: signal)
        }
    }
}
