import SimKernel

/// Settings of the reliable transport: connection setup, retransmission and
/// flow control.
///
/// The retransmission timer follows RFC 6298 (smoothed RTT and RTT
/// variation with gains 1/8 and 1/4, timeout = SRTT + 4·RTTVAR clamped to
/// [minimum, maximum], doubled on every expiry, Karn's rule for samples);
/// losses inside a window are found by RACK (RFC 8985: a segment is lost
/// once one sent more than a quarter of the minimum RTT after it has been
/// acknowledged).
public struct TransportParameters: Hashable, Sendable {
    /// The timeout before the first RTT sample.
    public var initialRetransmissionTimeout: SimDuration
    /// The smallest timeout the estimator may give.
    public var minimumRetransmissionTimeout: SimDuration
    /// The largest timeout, also the cap of the exponential backoff.
    public var maximumRetransmissionTimeout: SimDuration
    /// How many timeouts in a row, without any progress in between, a
    /// connection survives; the next one fails it.
    public var retryLimit: Int
    /// Payload bytes of each connection-setup packet (the handshake's
    /// request and reply).
    public var handshakeBytes: Int
    /// How many request/reply rounds a key exchange takes on first contact.
    public var keyExchangeRounds: Int
    /// Payload bytes of each key-exchange packet.
    public var keyExchangeBytes: Int
    /// The flow-control window: the most payload bytes in flight
    /// (sent and not yet acknowledged) in each direction. One segment is
    /// always allowed, even if it is larger.
    public var window: Int
    /// Payload bytes per segment; `nil` fits one segment in one packet of
    /// every link on the path (the path MTU less headers).
    public var segmentSize: Int?

    /// Creates transport settings; see the defaults table (docs/defaults.md) for the
    /// source of each default.
    public init(
        initialRetransmissionTimeout: SimDuration = .seconds(1),
        minimumRetransmissionTimeout: SimDuration = .milliseconds(200),
        maximumRetransmissionTimeout: SimDuration = .seconds(60),
        retryLimit: Int = 5, handshakeBytes: Int = 0, keyExchangeRounds: Int = 1, keyExchangeBytes: Int = 1024,
        window: Int = 65_536, segmentSize: Int? = nil
    ) {
        self.initialRetransmissionTimeout = initialRetransmissionTimeout
        self.minimumRetransmissionTimeout = minimumRetransmissionTimeout
        self.maximumRetransmissionTimeout = maximumRetransmissionTimeout
        self.retryLimit = retryLimit
        self.handshakeBytes = handshakeBytes
        self.keyExchangeRounds = keyExchangeRounds
        self.keyExchangeBytes = keyExchangeBytes
        self.window = window
        self.segmentSize = segmentSize
    }

    /// Checks every value.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)``.
    public func validate() throws(WorldError) {
        guard initialRetransmissionTimeout > .zero else {
            throw .invalidParameter(
                name: "initialRetransmissionTimeout", value: "\(initialRetransmissionTimeout)", expected: "a duration > 0")
        }
        guard minimumRetransmissionTimeout > .zero,
              minimumRetransmissionTimeout <= maximumRetransmissionTimeout
        else {
            throw .invalidParameter(
                name: "minimumRetransmissionTimeout", value: "\(minimumRetransmissionTimeout)",
                expected: "a duration > 0 and at most the maximum (\(maximumRetransmissionTimeout))")
        }
        guard retryLimit >= 0, retryLimit <= 60 else {
            throw .invalidParameter(name: "retryLimit", value: "\(retryLimit)", expected: "a count from 0 to 60")
        }
        guard handshakeBytes >= 0, keyExchangeBytes >= 0 else {
            throw .invalidParameter(
                name: "handshakeBytes", value: "\(min(handshakeBytes, keyExchangeBytes)) B", expected: "a size ≥ 0")
        }
        guard keyExchangeRounds >= 0, keyExchangeRounds <= 16 else {
            throw .invalidParameter(name: "keyExchangeRounds", value: "\(keyExchangeRounds)", expected: "a count from 0 to 16")
        }
        guard window > 0 else {
            throw .invalidParameter(name: "window", value: "\(window) B", expected: "a size > 0")
        }
        if let segmentSize, segmentSize <= 0 || segmentSize > 1 << 24 {
            throw .invalidParameter(name: "segmentSize", value: "\(segmentSize) B", expected: "a size from 1 B to 16 MiB")
        }
    }
}

/// Why a connection failed.
public enum ConnectionFailure: String, Hashable, Sendable, CustomStringConvertible {
    /// Connection setup (handshake or key exchange) got no answer within
    /// the retry limit.
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
    /// Data segments the other side received more than once (and
    /// discarded).
    public var duplicatesDiscarded = 0
    /// Payload bytes delivered to the other side's application.
    public var bytesDelivered = 0
}
