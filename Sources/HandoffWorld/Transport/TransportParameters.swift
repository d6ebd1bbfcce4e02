import SimKernel

/// How a connection's sending rate reacts to loss.
public enum CongestionControl: String, Hashable, Sendable, CaseIterable {
    /// CUBIC (RFC 9438) with SACK-based loss recovery (RFC 6675) and
    /// Proportional Rate Reduction (RFC 6937), with the constants of
    /// ``TransportParameters/cubic``: what XNU runs on every Apple device
    /// unless `net.inet.tcp.use_newreno` is set (apple-oss-distributions/xnu
    /// `bsd/netinet/tcp_subr.c`, `bsd/netinet/tcp_cubic.c`). Slow start from
    /// the initial window; past a loss the window follows a cubic function
    /// of the time since the loss, plateauing at the window of that loss;
    /// β of the window kept on a loss, one segment after a timeout.
    case cubic
    /// NewReno (RFC 5681, RFC 6582) with SACK-based loss recovery (RFC 6675)
    /// and Proportional Rate Reduction (RFC 6937): slow start from the
    /// initial window, congestion avoidance past the slow-start threshold,
    /// the window halved once per loss episode, one segment after a timeout.
    case newReno
    /// Flow control only: the window is always the flow-control window,
    /// whatever is lost (a link model's upper bound; ns-3's "noCongestion").
    case none
}

/// How a connection finds out that a segment was lost, short of its
/// retransmission timeout.
public enum LossDetection: String, Hashable, Sendable, CaseIterable {
    /// RACK-TLP (RFC 8985): a segment is lost once one sent more than a
    /// reordering window after it has been delivered (the window adapts to
    /// reordering reported by D-SACK); a reorder timer covers the last
    /// segments of a flight, a tail-loss probe the last flight itself, and
    /// a lost retransmission is found like any other loss.
    case rackTailLossProbe
    /// The duplicate-ACK threshold of RFC 6675: a segment is lost once three
    /// segments above it have been selectively acknowledged; a lost
    /// retransmission and a loss among the last three segments of a flight
    /// wait for the retransmission timeout (ns-3 3.37's behaviour).
    case duplicateThreshold
}

/// How a connection's handshake retransmits and when its set-up gives up.
public enum HandshakeRetransmission: String, Hashable, Sendable, CaseIterable {
    /// XNU's (apple-oss-distributions/xnu, every release from
    /// xnu-6153.141.1 to xnu-11417.101.15): the SYN is retransmitted after
    /// 1, 1, 1, 1, 1, 2, 4, 8, 16, 32, 64 and 64 times its initial timeout
    /// (`tcp_syn_backoff`, `bsd/netinet/tcp_timer.c`), the SYN-ACK after
    /// doubling ones (`tcp_backoff`), each at most 64 s, with no slop before
    /// the connection is established (`TCP_ADD_REXMTSLOP`,
    /// `tcp_timer.h`); set-up gives up after 12 retransmissions
    /// (`TCP_MAXRXTSHIFT`) or at
    /// ``TransportParameters/connectTimeout`` (`tcp_keepinit`), whichever
    /// comes first. Over AWDL, a device whose kernel has
    /// `tcp_awdl_rtobase` (xnu-10002.41.9 and later) starts from
    /// ``TransportParameters/peerToPeerInitialRetransmissionTimeout``
    /// (`tcp_getrt_rtt`, `bsd/netinet/tcp_subr.c`).
    case xnu
    /// RFC 6298 §5.5: every expiry doubles the timeout; set-up gives up
    /// after ``TransportParameters/retryLimit`` retransmissions (what ns-3
    /// and the transport's reference programs do).
    case doubling
}

/// Settings of the reliable transport: a TCP model (RFC 9293) with its
/// handshake, congestion control, loss detection and acknowledgement
/// policy.
///
/// The retransmission timer follows RFC 6298 (smoothed RTT and RTT
/// variation with gains 1/8 and 1/4, timeout = SRTT + 4·RTTVAR clamped to
/// [minimum, maximum], doubled on every expiry, Karn's rule for samples).
public struct TransportParameters: Hashable, Sendable {
    /// The timeout before the first RTT sample (the SYN's).
    public var initialRetransmissionTimeout: SimDuration
    /// How the handshake retransmits and gives up.
    public var handshakeRetransmission: HandshakeRetransmission
    /// With ``HandshakeRetransmission/xnu``: the initial timeout of a
    /// handshake over Wi-Fi peer-to-peer (AWDL) sent by a device whose OS
    /// has XNU's `tcp_awdl_rtobase` (100 ms; from xnu-10002.41.9, see
    /// ``DeviceKind/firstOSWithPeerToPeerRetransmissionBase``).
    public var peerToPeerInitialRetransmissionTimeout: SimDuration
    /// With ``HandshakeRetransmission/xnu``: how long after its first SYN a
    /// connection's set-up gives up (XNU's `tcp_keepinit`, 75 s, unless the
    /// app sets `TCP_CONNECTIONTIMEOUT`).
    public var connectTimeout: SimDuration
    /// The smallest timeout the estimator may give.
    public var minimumRetransmissionTimeout: SimDuration
    /// The largest timeout, also the cap of the exponential backoff.
    public var maximumRetransmissionTimeout: SimDuration
    /// How many timeouts in a row, without any progress in between, a
    /// connection survives; the next one fails it.
    public var retryLimit: Int
    /// Payload bytes of each handshake packet (SYN and SYN-ACK options).
    public var handshakeBytes: Int
    /// The flow-control window: the most payload bytes in flight
    /// (sent and neither acknowledged nor deemed lost) in each direction.
    /// One segment is always allowed, even if it is larger.
    public var window: Int
    /// Payload bytes per segment; `nil` fits one segment in one packet of
    /// every link on the path (the path MTU less headers).
    public var segmentSize: Int?
    /// The congestion window at the start, in segments (RFC 6928 and XNU's
    /// `TCP_CC_CWND_INIT_PKTS`: 10).
    public var initialWindow: Int
    /// How the sending rate reacts to loss.
    public var congestionControl: CongestionControl
    /// CUBIC's constants, used when ``congestionControl`` is
    /// ``CongestionControl/cubic``.
    public var cubic: CubicParameters
    /// How losses are found before the retransmission timeout.
    public var lossDetection: LossDetection
    /// The receiver's delayed-acknowledgement timer: with a value, in-order
    /// segments are acknowledged every second segment or when the timer
    /// expires (RFC 5681 §4.2; out-of-order and duplicate segments at
    /// once); `nil` acknowledges every segment at once.
    public var delayedAcknowledgement: SimDuration?
    /// The worst case of the peer's delayed-ACK timer the tail-loss probe
    /// allows for when one segment is in flight (RFC 8985 §7.2, WCDelAckT).
    public var worstCaseDelayedAcknowledgement: SimDuration
    /// Halves the pipe rather than the flight on a loss (ns-3 3.37's
    /// `GetSsThresh(tcb, BytesInFlight())`): a validation switch, so that
    /// `handoff-bench transfer --ssthresh pipe` can show how much of the
    /// difference from ns-3 this one rule makes. Not part of the model.
    package var thresholdFromPipe = false

    /// Creates transport settings; see the defaults table (docs/defaults.md) for the
    /// source of each default.
    public init(
        initialRetransmissionTimeout: SimDuration = .seconds(1),
        handshakeRetransmission: HandshakeRetransmission = .xnu,
        peerToPeerInitialRetransmissionTimeout: SimDuration = .milliseconds(100),
        connectTimeout: SimDuration = .seconds(75),
        minimumRetransmissionTimeout: SimDuration = .milliseconds(200),
        maximumRetransmissionTimeout: SimDuration = .seconds(64),
        retryLimit: Int = 5, handshakeBytes: Int = 0,
        window: Int = 65_536, segmentSize: Int? = nil, initialWindow: Int = 10,
        congestionControl: CongestionControl = .cubic, cubic: CubicParameters = .xnu,
        lossDetection: LossDetection = .rackTailLossProbe,
        delayedAcknowledgement: SimDuration? = nil,
        worstCaseDelayedAcknowledgement: SimDuration = .milliseconds(200)
    ) {
        self.initialRetransmissionTimeout = initialRetransmissionTimeout
        self.handshakeRetransmission = handshakeRetransmission
        self.peerToPeerInitialRetransmissionTimeout = peerToPeerInitialRetransmissionTimeout
        self.connectTimeout = connectTimeout
        self.minimumRetransmissionTimeout = minimumRetransmissionTimeout
        self.maximumRetransmissionTimeout = maximumRetransmissionTimeout
        self.retryLimit = retryLimit
        self.handshakeBytes = handshakeBytes
        self.window = window
        self.segmentSize = segmentSize
        self.initialWindow = initialWindow
        self.congestionControl = congestionControl
        self.cubic = cubic
        self.lossDetection = lossDetection
        self.delayedAcknowledgement = delayedAcknowledgement
        self.worstCaseDelayedAcknowledgement = worstCaseDelayedAcknowledgement
    }

    /// Checks every value.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)``.
    public func validate() throws(WorldError) {
        guard initialRetransmissionTimeout > .zero, initialRetransmissionTimeout <= .seconds(3600) else {
            throw .invalidParameter(
                name: "initialRetransmissionTimeout", value: "\(initialRetransmissionTimeout)",
                expected: "a duration > 0 and at most 1 h")
        }
        guard peerToPeerInitialRetransmissionTimeout > .zero, peerToPeerInitialRetransmissionTimeout <= .seconds(3600) else {
            throw .invalidParameter(
                name: "peerToPeerInitialRetransmissionTimeout", value: "\(peerToPeerInitialRetransmissionTimeout)",
                expected: "a duration > 0 and at most 1 h")
        }
        guard connectTimeout > .zero, connectTimeout <= .seconds(3600) else {
            throw .invalidParameter(
                name: "connectTimeout", value: "\(connectTimeout)", expected: "a duration > 0 and at most 1 h")
        }
        guard minimumRetransmissionTimeout > .zero,
              minimumRetransmissionTimeout <= maximumRetransmissionTimeout,
              maximumRetransmissionTimeout <= .seconds(3600)
        else {
            throw .invalidParameter(
                name: "minimumRetransmissionTimeout", value: "\(minimumRetransmissionTimeout)",
                expected: "a duration > 0 and at most the maximum (\(maximumRetransmissionTimeout), itself at most 1 h)")
        }
        guard retryLimit >= 0, retryLimit <= 60 else {
            throw .invalidParameter(name: "retryLimit", value: "\(retryLimit)", expected: "a count from 0 to 60")
        }
        guard handshakeBytes >= 0, handshakeBytes <= 65_535 else {
            throw .invalidParameter(name: "handshakeBytes", value: "\(handshakeBytes) B", expected: "a size from 0 to 65,535 B")
        }
        guard window > 0, window <= 1 << 30 else {
            throw .invalidParameter(name: "window", value: "\(window) B", expected: "a size from 1 B to 1 GiB")
        }
        if let segmentSize, segmentSize <= 0 || segmentSize > 1 << 24 {
            throw .invalidParameter(name: "segmentSize", value: "\(segmentSize) B", expected: "a size from 1 B to 16 MiB")
        }
        guard initialWindow >= 1, initialWindow <= 1_000 else {
            throw .invalidParameter(name: "initialWindow", value: "\(initialWindow)", expected: "a count of segments from 1 to 1,000")
        }
        try cubic.validate()
        if let delay = delayedAcknowledgement, delay <= .zero || delay > .seconds(1) {
            throw .invalidParameter(
                name: "delayedAcknowledgement", value: "\(delay)", expected: "a duration > 0 and at most 1 s")
        }
        guard worstCaseDelayedAcknowledgement >= .zero, worstCaseDelayedAcknowledgement <= .seconds(1) else {
            throw .invalidParameter(
                name: "worstCaseDelayedAcknowledgement", value: "\(worstCaseDelayedAcknowledgement)",
                expected: "a duration from 0 to 1 s")
        }
    }
}

/// Why a connection failed.
public enum ConnectionFailure: String, Hashable, Sendable, CustomStringConvertible {
    /// The handshake got no answer within the retry limit (or the connect
    /// timeout).
    case setupTimedOut
    /// Data went unacknowledged through more timeouts in a row than the
    /// retry limit allows.
    case retransmissionsExhausted

    public var description: String {
        switch self {
        case .setupTimedOut: return "connection setup timed out"
        case .retransmissionsExhausted: return "retransmissions exhausted"
        }
    }
}

/// One end of a connection.
public enum ConnectionSide: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The end that opened the connection.
    case initiator = 0
    /// The end that accepted it.
    case responder = 1

    /// The other end.
    public var peer: ConnectionSide { self == .initiator ? .responder : .initiator }

    public var description: String { self == .initiator ? "initiator" : "responder" }
}

/// A connection in a world, named by the order it was opened in.
public struct ConnectionID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The index in the world's connection list.
    public let index: Int

    init(_ index: Int) { self.index = index }

    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.index < rhs.index }

    public var description: String { "connection #\(index)" }
}

/// Counters of one direction of a connection (what one side sent).
public struct TransferStatistics: Hashable, Sendable {
    /// Data segments put on the path, first transmissions and
    /// retransmissions together.
    public var segmentTransmissions = 0
    /// Of those, retransmissions.
    public var retransmissions = 0
    /// Distinct segments created from the messages sent.
    public var segmentsCreated = 0
    /// Retransmission timeouts that expired.
    public var timeouts = 0
    /// The most payload bytes ever in flight at once.
    public var peakBytesInFlight = 0
    /// Tail-loss probes sent (RFC 8985 §7), new data or a retransmission.
    public var probes = 0
    /// Loss episodes recovered without a timeout (fast recovery entries).
    public var fastRecoveries = 0
    /// Retransmissions found lost and sent again before any timeout (by
    /// RACK; with the duplicate threshold only a timeout finds them).
    public var lostRetransmissionsDetected = 0
    /// Acknowledgements that reported a duplicate segment (D-SACK, RFC 2883).
    public var duplicateReports = 0
    /// Data segments the other side received more than once (and
    /// discarded).
    public var duplicatesDiscarded = 0
    /// Payload bytes delivered to the other side's application.
    public var bytesDelivered = 0
}
