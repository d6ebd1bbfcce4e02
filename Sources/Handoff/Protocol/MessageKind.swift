import HandoffWorld
import SimKernel

/// What a message on a Handoff connection is, in the low byte of its tag;
/// the bytes above carry an error code or a stream round.
enum MessageKind: UInt64 {
    /// Receiver → source: send me the activity.
    case request = 1
    /// Source → receiver: the activity's data.
    case payload = 2
    /// Source → receiver: an error code instead of data.
    case error = 3
    /// Receiver → source: the activity was continued.
    case continued = 4
    /// Receiver → source over streams: a request of round n.
    case streamRequest = 5
    /// Source → receiver over streams: the answer of round n.
    case streamResponse = 6
    /// A Rapport message before the request; the argument is its
    /// ``FetchMessage``.
    case fetch = 7
    /// Receiver → source over Bluetooth LE: the advertisement-key request.
    case keyRequest = 8
    /// Source → receiver: the keys.
    case keyAnswer = 9
    /// Cloud relay → receiver: a payload too large for a push is stored;
    /// the argument is its size.
    case relayStored = 10
    /// Receiver → cloud relay: send the stored payload (answered with it).
    case relayDownload = 11

    /// The message tag of this kind with `argument` above its byte.
    func tag(_ argument: Int = 0) -> UInt64 { rawValue | UInt64(argument) << 8 }

    /// The kind and argument of a message tag, if it is one of these.
    static func parse(_ tag: UInt64) -> (MessageKind, Int)? {
        guard let kind = MessageKind(rawValue: tag & 0xff) else { return nil }
        return (kind, Int(tag >> 8))
    }
}
