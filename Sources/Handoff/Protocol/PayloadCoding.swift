import HandoffWorld
import SimKernel

/// What the payload's size costs outside the network: the source encodes
/// the activity (a binary property list of `userInfo` and the envelope) and
/// seals it (ChaCha20-Poly1305 once Pair-Verify is done, or the relay's
/// iMessage-style protection); the receiver opens and decodes it before
/// `continue` can run.
///
/// Both are rates over the whole transfer size. Apple publishes neither;
/// the defaults are assumptions (see the defaults table): a binary property
/// list of a few kilobytes of small values encodes and decodes at tens of
/// megabytes a second on a phone, and the cipher runs at gigabytes a
/// second, so the coding dominates. At the 64 KiB limit each side costs a
/// few milliseconds.
public struct PayloadCoding: Hashable, Sendable {
    /// The source's rate: encoding and sealing, after the app's save;
    /// `nil` costs nothing.
    public var encodeRate: Bandwidth?
    /// The receiver's rate: opening and decoding, before `continue`; `nil`
    /// costs nothing.
    public var decodeRate: Bandwidth?

    /// The defaults: 320 Mbit/s (40 MB/s) to encode, 480 Mbit/s (60 MB/s)
    /// to decode. Assumptions; plausible from 80 Mbit/s (10 MB/s) to
    /// 4 Gbit/s (500 MB/s).
    public init(encodeRate: Bandwidth? = .megabitsPerSecond(320), decodeRate: Bandwidth? = .megabitsPerSecond(480)) {
        self.encodeRate = encodeRate
        self.decodeRate = decodeRate
    }

    /// The time to encode `bytes` at the source.
    public func encodeTime(bytes: Int) -> SimDuration {
        .nanoseconds(encodeRate?.serialisationNanoseconds(bytes: max(bytes, 0)) ?? 0)
    }

    /// The time to decode `bytes` at the receiver.
    public func decodeTime(bytes: Int) -> SimDuration {
        .nanoseconds(decodeRate?.serialisationNanoseconds(bytes: max(bytes, 0)) ?? 0)
    }
}
