import HandoffWorld
import SimKernel

/// The cloud relay (IDS, Apple's messaging service over the push service)
/// as the fetch's fallback path: each device's persistent connection to
/// Apple's servers, the servers' own delay, and what they do with a large
/// payload.
///
/// A relayed message goes up the sender's internet link to the servers,
/// waits ``delay`` there (server processing and push delivery), and comes
/// down the other device's internet link. The request crosses once and the
/// payload once, so a relayed fetch costs two relay delays plus each
/// device's round trips to the servers.
///
/// Apple publishes no IDS timings. The delay is an assumption informed by
/// public reports of push delivery (an Apple developer forum thread on VoIP
/// pushes: mean about 800 ms, p95 about 2 s, within the US; LoginTC's 2013
/// measurement: iOS mean 1.07 s); the inline limit is the push service's
/// documented payload limit (4 KB); that a larger payload is stored and
/// fetched, as Messages does with attachments, is an assumption. The
/// defaults table gives the plausible ranges.
public struct RelayParameters: Hashable, Sendable {
    /// The servers' delay per relayed message (processing and push
    /// delivery), drawn for each message.
    public var delay: DurationDistribution
    /// The largest message the relay delivers inside the push itself;
    /// above it the relay stores the message, pushes a notice of
    /// ``noticeBytes``, and the receiver downloads it (one more round trip
    /// to the servers).
    public var inlineLimit: Int
    /// The stored-message notice and the download request, in bytes.
    public var noticeBytes: Int

    /// The defaults (see the type's documentation and the defaults table).
    public init(
        delay: DurationDistribution = RelayParameters.defaultDelay, inlineLimit: Int = 4096, noticeBytes: Int = 256
    ) {
        self.delay = delay
        self.inlineLimit = inlineLimit
        self.noticeBytes = noticeBytes
    }

    /// The default ``delay``: log-normal, median 600 ms, σ 0.7 (mean about
    /// 770 ms, p95 about 1.9 s), matching the public reports of push
    /// delivery the type's documentation names. An assumption.
    public static let defaultDelay = DurationDistribution.logNormal(
        median: .milliseconds(600), sigma: 0.7, offset: .zero)

    /// Checks every setting.
    ///
    /// - Throws: ``HandoffError/invalidParameter(name:value:expected:)``.
    public func validate() throws(HandoffError) {
        try delay.check(named: "relay.delay")
        guard (0...(16 << 20)).contains(inlineLimit) else {
            throw .invalidParameter(name: "relay.inlineLimit", value: "\(inlineLimit) B", expected: "a size from 0 to 16 MiB")
        }
        guard (0...(1 << 20)).contains(noticeBytes) else {
            throw .invalidParameter(name: "relay.noticeBytes", value: "\(noticeBytes) B", expected: "a size from 0 to 1 MiB")
        }
    }
}
