import SimKernel

/// One device's advertising state.
struct Advertiser: Sendable {
    var active = false
    var payload: UInt64 = 0
    var generation: UInt32 = 0
    /// When advertising last started (or restarted with a new payload).
    var startedAt: Int64 = 0
    var generator: Xoshiro256StarStar
    var sent = 0

    init(stream generator: Xoshiro256StarStar) { self.generator = generator }

    /// Counts an advertising event (when it went on air) and draws the
    /// random delay of the next one, in one access.
    @inline(__always)
    mutating func fire(onAir: Bool, maximumDelay: Int64) -> Int64 {
        if onAir { sent += 1 }
        return drawDelay(maximum: maximumDelay)
    }

    /// A random advertising delay from 0 to `maximum` nanoseconds.
    @inline(__always)
    mutating func drawDelay(maximum: Int64) -> Int64 {
        // The same draw as uniform(in: 0...maximum), one call shallower.
        maximum > 0 ? Int64(generator.uniform(below: UInt64(maximum) &+ 1)) : 0
    }
}
