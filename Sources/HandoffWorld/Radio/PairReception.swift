import SimKernel

/// Advertisement reception from one device to another.
struct PairReception: Sendable {
    /// The pair's reception generator, made on first use in a trial.
    var generator: Xoshiro256StarStar?
    /// The distance of the last advertisement (−1 before the first) and its
    /// reception probability: a pair that has not moved skips the logarithm
    /// and the normal tail. Both outlive a reset, as they depend only on
    /// the distance and the radio.
    var distance: Double = -1
    var probability: Double = 0
    /// When the receiver last heard the sender (nanoseconds; −1: never in
    /// this trial).
    var lastHeard: Int64 = -1
    /// The pair's presence generator (advertisements outside the scan
    /// windows), made on first use in a trial.
    var presenceGenerator: Xoshiro256StarStar?
    /// Whether the receiver's scan for the sender has stopped.
    var scanStopped = false
    /// Whether advertisements outside the scan windows count too.
    var watchesPresence = false

    /// A pair without a generator or a remembered probability.
    init() {}

    /// A pair that has drawn nothing yet in this trial, remembering
    /// `earlier`'s reception probability and its distance.
    init(remembering earlier: PairReception) {
        distance = earlier.distance
        probability = earlier.probability
    }

    /// Whether one advertisement is received: certain outcomes draw
    /// nothing, the rest draw one uniform number against the probability.
    @inline(__always)
    mutating func draw() -> Bool {
        if probability >= 1 { return true }
        guard probability > 0, generator != nil else { return false }
        return generator!.unitInterval() < probability
    }

    /// Whether an advertisement outside the scan windows tells the
    /// receiver the sender is there: certain outcomes draw nothing, the
    /// rest one uniform number from the presence stream, which the caller
    /// makes first when ``needsPresenceGenerator``.
    @inline(__always)
    mutating func drawPresence() -> Bool {
        if probability >= 1 { return true }
        guard probability > 0 else { return false }
        return presenceGenerator!.unitInterval() < probability
    }

    /// Whether the next presence draw needs the presence stream made: the
    /// draw is random (0 < p < 1) and the stream is not made yet.
    @inline(__always)
    var needsPresenceGenerator: Bool { presenceGenerator == nil && probability > 0 && probability < 1 }
}
