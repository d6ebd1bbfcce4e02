/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny generator used only to
/// expand one 64-bit seed into the 256-bit state of ``Xoshiro256StarStar``
/// and to mix hashes.
///
/// Not for simulation draws: its period is 2⁶⁴ and streams derived from
/// nearby seeds overlap. Use ``Xoshiro256StarStar``.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's whole state.
    public var state: UInt64

    /// Creates a generator whose state is `seed`.
    @inlinable
    public init(seed: UInt64) {
        state = seed
    }

    /// Returns the next 64 random bits.
    ///
    /// - Complexity: O(1).
    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The SplitMix64 output function: a bijective 64-bit finaliser with full
    /// avalanche (every input bit flips each output bit with probability ½).
    @inlinable
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
