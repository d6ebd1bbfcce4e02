/// The ziggurat tables for the standard exponential distribution
/// (Marsaglia and Tsang, 2000), 256 layers.
///
/// The area under e^(−x) is covered by 256 horizontal strips of equal area
/// `layerArea`: the base strip (which also holds the tail beyond `tailStart`)
/// and 255 rectangles stacked on it. A sample picks a strip and a point in
/// it; about 98.9 % of points fall in a rectangle's core, where the answer
/// costs one multiplication and one comparison. Only points in a wedge or in
/// the tail need `exp` or `log`, so sampling is several times faster than
/// inversion while drawing from exactly the same distribution.
///
/// The tables are computed once with ``PortableMath``, so they are the same
/// bits on every platform.
@usableFromInline
final class ExponentialZiggurat: Sendable {
    /// Where the tail starts: x₁ of the 256-layer ziggurat.
    @usableFromInline static let tailStart = 7.697_117_470_131_049_72
    /// The area of every strip.
    @usableFromInline static let layerArea = 3.949_659_822_581_557_199_3e-3

    /// Right edges: x[0] is the base strip's virtual width area/f(r),
    /// x[1] = r, decreasing to x[256] = 0.
    @usableFromInline let edges: [Double]
    /// e^(−x[i]) for every edge.
    @usableFromInline let heights: [Double]

    @usableFromInline static let shared = ExponentialZiggurat()

    private init() {
        let r = Self.tailStart
        let area = Self.layerArea
        var edges = [Double](repeating: 0, count: 257)
        edges[0] = area / PortableMath.exp(-r)
        edges[1] = r
        for layer in 1..<255 {
            edges[layer + 1] = -PortableMath.log(PortableMath.exp(-edges[layer]) + area / edges[layer])
        }
        edges[256] = 0
        self.edges = edges
        self.heights = edges.map { PortableMath.exp(-$0) }
    }

    /// One standard exponential variate (mean 1).
    @inlinable
    func sample(using generator: inout Xoshiro256StarStar) -> Double {
        while true {
            let bits = generator.next()
            let layer = Int(truncatingIfNeeded: bits & 0xFF)
            let x = Double(bits >> 11) * 0x1.0p-53 * edges[layer]
            if x < edges[layer &+ 1] { return x }  // inside the rectangle's core
            if layer == 0 {
                // The tail beyond r: by memorylessness, r + Exp(1).
                return Self.tailStart - PortableMath.log(generator.unitIntervalExcludingZero())
            }
            // In the wedge: accept if a uniform height lies under the curve.
            let low = heights[layer]
            let high = heights[layer &+ 1]
            if low + generator.unitInterval() * (high - low) < PortableMath.exp(-x) { return x }
        }
    }
}
