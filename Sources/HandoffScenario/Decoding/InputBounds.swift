import HandoffWorld
import SimKernel

/// The largest values a scenario file may ask for.
///
/// Every number a file can set is bounded, so that no file, however odd,
/// makes a run overflow its arithmetic, allocate without limit or run for
/// hours: a value past its bound is a validation problem like any other,
/// reported with the file, JSON path and line, and the bound. The bounds
/// are far beyond any handoff a person waits for; together they keep every
/// instant a run computes (the limit plus delays, queueing and
/// serialisation times) well inside the 292 years of `Int64` nanoseconds.
package enum InputBounds {
    /// The longest duration anywhere in a file (delays, latencies, launch
    /// and save times, timeouts, timeline instants, the simulated-time
    /// limit): 7 days.
    package static let maximumDuration: SimDuration = .seconds(7 * 24 * 3600)
    /// The largest size anywhere in a file (payloads, message and envelope
    /// sizes, stream rounds): 1 GiB.
    package static let maximumBytes = 1 << 30
    /// The largest `{"$data": …}` value in a `userInfo`, which validation
    /// builds as bytes: 16 MiB. Larger payloads are given as `payloadSize`.
    static let maximumDataBytes = 16 << 20
    /// The slowest link bandwidth: 10 kbit/s (a 1,500-byte packet takes
    /// 1.2 s to send).
    static let minimumBitsPerSecond: Int64 = 10_000
    /// The furthest a position or move may be from the origin on either
    /// axis, in metres: 1,000 km.
    static let maximumCoordinate = 1e6
    /// The most events one trial may be allowed (`limits.maxEvents`): 10⁸.
    static let maximumEventsPerTrial: Int64 = 100_000_000
    /// The most devices in a file: 64 (the world keeps per-pair link state,
    /// which grows with the square of the device count).
    static let maximumDevices = 64
    /// The most apps in a file: 256.
    static let maximumApps = 256
    /// The most activities in a file: 64.
    static let maximumActivities = 64
    /// The most timeline entries in a file: 10,000.
    static let maximumTimelineEntries = 10_000
    /// The most expectations in a file: 1,000.
    static let maximumExpectations = 1_000
    /// The most points a sweep may have (the product of its axes' value
    /// counts): 10,000.
    static let maximumSweepPoints = 10_000
    /// The most trials a sweep may run under an overlay's bootstrap
    /// replicates (points × trials run × replicates): 10⁷. Each keeps its
    /// latencies until the sweep is rendered (about 80 bytes a trial,
    /// measured), so this bounds that memory near 800 MB, whatever the
    /// replicate count; `--no-intervals`, fewer points or trials, or a shard
    /// stay under it.
    static let maximumReplicateTrials = 10_000_000
    /// The longest scenario path (an overlay's, `--vary`'s, a sweep's
    /// `vary` key, a calibrated parameter's or a `groupBy` path), in bytes
    /// of UTF-8: 1,024.
    static let maximumPathBytes = 1_024
    /// The most keys and indices in a scenario path: 32 (a model setting is at
    /// most 5 steps down; the rest is room for `userInfo` values).
    static let maximumPathSteps = 32
}
