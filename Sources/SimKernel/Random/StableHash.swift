/// A 64-bit hash that is the same on every platform, process and run.
///
/// Swift's `Hasher` is seeded per process, so it cannot name random streams.
/// This is FNV-1a over bytes, each component followed by a separator byte
/// that never occurs in UTF-8 (so `["ab", "c"]` and `["a", "bc"]` differ),
/// finished with the SplitMix64 mixer for avalanche.
///
/// Not a cryptographic hash: do not use it where an adversary chooses input.
public struct StableHash: Sendable {
    /// The running FNV-1a state.
    public private(set) var state: UInt64

    /// FNV-1a's 64-bit offset basis.
    public static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
    @usableFromInline static let prime: UInt64 = 0x0000_0100_0000_01B3
    @usableFromInline static let separator: UInt8 = 0xFF

    /// Starts a hash, optionally continuing from an earlier ``value``.
    public init(continuing previous: UInt64 = StableHash.offsetBasis) {
        state = previous
    }

    /// Adds raw bytes.
    public mutating func combine<Bytes: Sequence>(bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            state = (state ^ UInt64(byte)) &* Self.prime
        }
    }

    /// Adds one path component: its UTF-8 bytes, then the separator.
    public mutating func combine(component: String) {
        // Native strings hand over their bytes at once; iterating the UTF-8
        // view byte by byte costs several times more.
        let done: Void? = component.utf8.withContiguousStorageIfAvailable { buffer in
            var state = self.state
            for byte in buffer { state = (state ^ UInt64(byte)) &* Self.prime }
            self.state = state
        }
        if done == nil { combine(bytes: component.utf8) }
        state = (state ^ UInt64(Self.separator)) &* Self.prime
    }

    /// Adds an integer as eight little-endian bytes, then the separator.
    public mutating func combine(_ value: UInt64) {
        var remaining = value
        for _ in 0..<8 {
            state = (state ^ (remaining & 0xFF)) &* Self.prime
            remaining >>= 8
        }
        combine(bytes: CollectionOfOne(Self.separator))
    }

    /// The finished hash.
    public var value: UInt64 { SplitMix64.mix(state) }

    /// The hash of a sequence of path components.
    public static func hash(components: [String]) -> UInt64 {
        var hasher = StableHash()
        for component in components { hasher.combine(component: component) }
        return hasher.value
    }
}
