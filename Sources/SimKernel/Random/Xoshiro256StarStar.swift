/// xoshiro256** (Blackman and Vigna, 2018): the project's random generator.
///
/// Fast, 256 bits of state, period 2²⁵⁶ − 1, and it passes the standard
/// statistical batteries. Its output depends on nothing but its state, so a
/// simulation draws the same numbers on every platform and every run.
///
/// Obtain generators from a ``RandomStreamKey`` rather than from raw seeds,
/// so that every component of a simulation has its own independent stream.
///
/// ```swift
/// var rng = RandomStreamKey(seed: 42).child("trial", 3).generator("ble")
/// let delay = rng.uniform(below: 10_000_001)   // 0...10 ms in ns
/// ```
///
/// It conforms to `RandomNumberGenerator`, but the standard library's
/// `random(in:using:)` algorithms may change between Swift releases; use the
/// generator's own methods and ``Distribution`` types on any path whose
/// result must be reproducible.
public struct Xoshiro256StarStar: RandomNumberGenerator, Hashable, Sendable {
    @usableFromInline var s0: UInt64
    @usableFromInline var s1: UInt64
    @usableFromInline var s2: UInt64
    @usableFromInline var s3: UInt64

    /// Creates a generator whose state is expanded from `seed` by SplitMix64,
    /// as the algorithm's authors recommend.
    public init(seed: UInt64) {
        var expander = SplitMix64(seed: seed)
        s0 = expander.next()
        s1 = expander.next()
        s2 = expander.next()
        s3 = expander.next()
        // SplitMix64 is a bijection of its counter, so four consecutive
        // outputs are never all zero; the all-zero state would be a fixed point.
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
    }

    /// Returns the next 64 random bits.
    ///
    /// - Complexity: O(1).
    @inlinable
    public mutating func next() -> UInt64 {
        let result = Self.rotateLeft(s1 &* 5, by: 7) &* 9
        let shifted = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= shifted
        s3 = Self.rotateLeft(s3, by: 45)
        return result
    }

    @inlinable
    static func rotateLeft(_ value: UInt64, by amount: UInt64) -> UInt64 {
        (value << amount) | (value >> (64 &- amount))
    }

    /// A uniformly distributed integer in `0..<bound`, without modulo bias.
    ///
    /// Lemire's multiply-and-reject method: one multiplication, and a
    /// rejection only with probability below `bound / 2⁶⁴`.
    ///
    /// - Precondition: `bound > 0`.
    /// - Complexity: O(1) expected.
    @inlinable
    public mutating func uniform(below bound: UInt64) -> UInt64 {
        precondition(bound > 0, "uniform(below:) needs a positive bound")
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }

    /// A uniformly distributed integer in `range`.
    ///
    /// - Precondition: the range is not empty.
    @inlinable
    public mutating func uniform(in range: ClosedRange<Int64>) -> Int64 {
        let span = UInt64(bitPattern: range.upperBound &- range.lowerBound)
        if span == .max { return Int64(bitPattern: next()) }
        return range.lowerBound &+ Int64(bitPattern: uniform(below: span &+ 1))
    }

    /// A uniformly distributed `Double` in [0, 1), with 53 random bits.
    ///
    /// - Complexity: O(1).
    @inlinable
    public mutating func unitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniformly distributed `Double` in (0, 1]: never zero, so its
    /// logarithm is finite.
    @inlinable
    public mutating func unitIntervalExcludingZero() -> Double {
        Double((next() >> 11) &+ 1) * 0x1.0p-53
    }
}
