/// Names one independent random stream: a run seed plus a path such as
/// `trial/3/device/iphone/ble`.
///
/// Every component of a simulation draws from its own stream, derived from
/// (seed, path) by a stable hash, so adding a device or a trial never
/// perturbs the numbers any other component sees, and trial k draws the same
/// numbers whether it runs alone, in a sweep, on any core or on any shard.
///
/// ```swift
/// let run = RandomStreamKey(seed: 42)
/// let trial = run.child("trial", 3)
/// var bleLoss = trial.generator("ble-loss")
/// var thinkTime = trial.generator("user")
/// ```
///
/// Keys are cheap values; deriving one hashes the new component only. The
/// path text is put together only when ``path`` is read, so deriving keys
/// per trial costs one small allocation each, not string building.
/// Equality and hashing use the seed and the path hash.
public struct RandomStreamKey: Hashable, Sendable, CustomStringConvertible {
    /// The run's seed.
    public let seed: UInt64
    /// The stable hash of the path so far.
    public let pathHash: UInt64
    /// The last component and its parent's, for ``path``.
    private let node: PathNode?

    /// One component of a path, linked to its parent.
    private final class PathNode: Sendable {
        let parent: PathNode?
        let name: String
        init(parent: PathNode?, name: String) {
            self.parent = parent
            self.name = name
        }
    }

    /// The root key of a run: the seed with an empty path.
    public init(seed: UInt64) {
        self.seed = seed
        self.pathHash = StableHash().value
        self.node = nil
    }

    private init(seed: UInt64, pathHash: UInt64, node: PathNode?) {
        self.seed = seed
        self.pathHash = pathHash
        self.node = node
    }

    /// The path, for messages and traces: components joined by `/`.
    public var path: String {
        var names: [String] = []
        var current = node
        while let each = current {
            names.append(each.name)
            current = each.parent
        }
        return names.reversed().joined(separator: "/")
    }

    public static func == (lhs: RandomStreamKey, rhs: RandomStreamKey) -> Bool {
        lhs.seed == rhs.seed && lhs.pathHash == rhs.pathHash
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(seed)
        hasher.combine(pathHash)
    }

    /// The key one level down, named `name`.
    public func child(_ name: String) -> RandomStreamKey {
        RandomStreamKey(seed: seed, pathHash: Self.hash(pathHash, name), node: PathNode(parent: node, name: name))
    }

    /// The key two levels down: `name`, then the decimal `index` (e.g. a
    /// trial number). `child("trial", 3)` equals `child("trial").child("3")`.
    public func child(_ name: String, _ index: Int) -> RandomStreamKey {
        child(name).child(String(index))
    }

    /// The generator for this key.
    ///
    /// The seed and the path hash go through SplitMix64 together, so the same
    /// path under different seeds, and different paths under one seed, give
    /// unrelated states.
    public func generator() -> Xoshiro256StarStar {
        Self.generator(seed: seed, hash: pathHash)
    }


    /// The generator of the child key named `name`.
    public func generator(_ name: String) -> Xoshiro256StarStar {
        Self.generator(seed: seed, hash: Self.hash(pathHash, name))
    }

    /// The generator of the key `a/b` below this one: the same as
    /// `child(a).generator(b)`, without making the intermediate key.
    public func generator(_ a: String, _ b: String) -> Xoshiro256StarStar {
        numbersOnly.child(a).generator(b)
    }

    /// The generator of the key `a/b/c` below this one.
    public func generator(_ a: String, _ b: String, _ c: String) -> Xoshiro256StarStar {
        numbersOnly.generator(a, b, c)
    }

    /// A key below this one reduced to its numbers: no path text, so making
    /// it allocates nothing. For deriving several generators under one
    /// prefix on a hot path, e.g. `hashed("link", "wifi").generator("loss")`
    /// and `.generator("jitter")`, which equal `child("link").child("wifi")`'s.
    public struct Hashed: Hashable, Sendable {
        /// The run's seed.
        public let seed: UInt64
        /// The stable hash of the path.
        public let pathHash: UInt64

        /// The generator of this key.
        public func generator() -> Xoshiro256StarStar {
            RandomStreamKey.generator(seed: seed, hash: pathHash)
        }

        /// The generator of the child key named `name`.
        public func generator(_ name: String) -> Xoshiro256StarStar {
            RandomStreamKey.generator(seed: seed, hash: RandomStreamKey.hash(pathHash, name))
        }

        /// The generator of the key `a/b/c` below this one.
        public func generator(_ a: String, _ b: String, _ c: String) -> Xoshiro256StarStar {
            hashed(a, b).generator(c)
        }

        /// The child key named `name`, as numbers only.
        public func child(_ name: String) -> Hashed {
            Hashed(seed: seed, pathHash: RandomStreamKey.hash(pathHash, name))
        }

        /// `name`, then the decimal `index`, as ``RandomStreamKey/child(_:_:)``.
        public func child(_ name: String, _ index: Int) -> Hashed {
            child(name).child(String(index))
        }

        /// The key `a/b` below this one.
        public func hashed(_ a: String, _ b: String) -> Hashed {
            Hashed(seed: seed, pathHash: RandomStreamKey.hash(RandomStreamKey.hash(pathHash, a), b))
        }

        /// The key `a/b/c` below this one.
        public func hashed(_ a: String, _ b: String, _ c: String) -> Hashed {
            hashed(a, b).child(c)
        }

        /// The key `a/b/c/d` below this one.
        public func hashed(_ a: String, _ b: String, _ c: String, _ d: String) -> Hashed {
            hashed(a, b).hashed(c, d)
        }
    }

    /// This key as numbers only (no path text).
    public var numbersOnly: Hashed { Hashed(seed: seed, pathHash: pathHash) }

    /// The key `a/b` below this one, as numbers only.
    public func hashed(_ a: String, _ b: String) -> Hashed { numbersOnly.hashed(a, b) }

    /// The key `a/b/c` below this one, as numbers only.
    public func hashed(_ a: String, _ b: String, _ c: String) -> Hashed { numbersOnly.hashed(a, b, c) }

    /// The key `a/b/c/d` below this one, as numbers only.
    public func hashed(_ a: String, _ b: String, _ c: String, _ d: String) -> Hashed {
        numbersOnly.hashed(a, b, c, d)
    }

    /// The path hash one level below `parent`, named `name` (as ``child(_:)``
    /// computes it).
    @inline(__always)
    fileprivate static func hash(_ parent: UInt64, _ name: String) -> UInt64 {
        var hasher = StableHash(continuing: parent)
        hasher.combine(component: name)
        return hasher.value
    }

    /// The generator of the key with `hash` under `seed`.
    @inline(__always)
    fileprivate static func generator(seed: UInt64, hash: UInt64) -> Xoshiro256StarStar {
        Xoshiro256StarStar(seed: SplitMix64.mix(seed ^ 0x5DEE_CE66_D1CE_4E5B) ^ hash)
    }

    public var description: String { "seed \(seed), stream \"\(path)\"" }
}
