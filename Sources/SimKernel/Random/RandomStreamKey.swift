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
/// Keys are cheap values. Each component of a path is hashed on its own
/// (a ``Name``), and a child's path hash is SplitMix64's mix of the parent's
/// path hash XOR the name's hash, so a model that keeps its ``Name``s
/// derives a key with one mix per level and no string work. The path text
/// is put together only when ``path`` is read. Equality and hashing use the
/// seed and the path hash.
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
        child(Name(name))
    }

    /// The key one level down, named `name` (hashed beforehand).
    package func child(_ name: Name) -> RandomStreamKey {
        RandomStreamKey(
            seed: seed, pathHash: Self.hash(pathHash, name.hash), node: PathNode(parent: node, name: name.text))
    }

    /// The key two levels down: `name`, then the decimal `index` (e.g. a
    /// trial number). `child("trial", 3)` equals `child("trial").child("3")`.
    public func child(_ name: String, _ index: Int) -> RandomStreamKey {
        child(name).child(Name(index: index))
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
        numbersOnly.generator(Name(name))
    }

    /// The generator of the key `a/b` below this one: the same as
    /// `child(a).generator(b)`, without making the intermediate key.
    public func generator(_ a: String, _ b: String) -> Xoshiro256StarStar {
        numbersOnly.hashed(Name(a), Name(b)).generator()
    }

    /// The generator of the key `a/b/c` below this one.
    public func generator(_ a: String, _ b: String, _ c: String) -> Xoshiro256StarStar {
        numbersOnly.hashed(Name(a), Name(b), Name(c)).generator()
    }

    /// One component of a stream path with its hash, computed once.
    ///
    /// A model that derives the same components every trial (`"device"`,
    /// a device's name, `"loss"`) keeps their `Name`s and derives keys from
    /// them with one SplitMix64 mix per level. The hash is the FNV-1a state
    /// after the component's UTF-8 bytes and a 0xFF separator (as
    /// ``StableHash/combine(component:)`` leaves it), so it is the same on
    /// every platform and in every process.
    package struct Name: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The component's text, for ``RandomStreamKey/path``.
        package let text: String
        /// The component's stable hash.
        package let hash: UInt64

        /// The component `text`.
        package init(_ text: String) {
            var hasher = StableHash()
            hasher.combine(component: text)
            self.text = text
            self.hash = hasher.state
        }

        /// The component spelled as the decimal `index`: equal to
        /// `Name(String(index))`.
        package init(index: Int) {
            self.text = String(index)
            self.hash = Self.hash(index: index)
        }

        package init(stringLiteral value: String) {
            self.init(value)
        }

        package var description: String { text }

        /// The hash of the decimal spelling of `index`, as ``init(index:)``
        /// computes it, without building the text.
        @inlinable
        package static func hash(index: Int) -> UInt64 {
            let prime = StableHash.prime
            var state = StableHash.offsetBasis
            if index < 0 { state = (state ^ 0x2D) &* prime }  // "-"
            var magnitude = UInt64(index.magnitude)
            // The digits, most significant first.
            var divisor: UInt64 = 1
            while magnitude / divisor >= 10 { divisor &*= 10 }
            while divisor > 0 {
                let digit = magnitude / divisor
                state = (state ^ (0x30 &+ digit)) &* prime
                magnitude &-= digit &* divisor
                divisor /= 10
            }
            return (state ^ UInt64(StableHash.separator)) &* prime
        }
    }

    /// A key below this one reduced to its numbers: no path text, so making
    /// it allocates nothing. For deriving several generators under one
    /// prefix on a hot path, e.g. `hashed("link", "wifi").generator("loss")`
    /// and `.generator("jitter")`, which equal `child("link").child("wifi")`'s.
    /// With ``Name``s kept by the caller, every derivation here is a few
    /// multiplications.
    package struct Hashed: Hashable, Sendable {
        /// The run's seed.
        package let seed: UInt64
        /// The stable hash of the path.
        package let pathHash: UInt64

        @inlinable
        init(seed: UInt64, pathHash: UInt64) {
            self.seed = seed
            self.pathHash = pathHash
        }

        /// The generator of this key.
        @inlinable
        package func generator() -> Xoshiro256StarStar {
            RandomStreamKey.generator(seed: seed, hash: pathHash)
        }

        /// The generator of the child key named `name`.
        package func generator(_ name: String) -> Xoshiro256StarStar {
            generator(Name(name))
        }

        /// The generator of the child key named `name`.
        @inlinable
        package func generator(_ name: Name) -> Xoshiro256StarStar {
            RandomStreamKey.generator(seed: seed, hash: RandomStreamKey.hash(pathHash, name.hash))
        }

        /// The generator of the key `a/b/c` below this one.
        package func generator(_ a: String, _ b: String, _ c: String) -> Xoshiro256StarStar {
            hashed(Name(a), Name(b), Name(c)).generator()
        }

        /// The generator of the key `a/b/c` below this one.
        @inlinable
        package func generator(_ a: Name, _ b: Name, _ c: Name) -> Xoshiro256StarStar {
            hashed(a, b, c).generator()
        }

        /// The child key named `name`, as numbers only.
        package func child(_ name: String) -> Hashed {
            child(Name(name))
        }

        /// The child key named `name`, as numbers only.
        @inlinable
        package func child(_ name: Name) -> Hashed {
            Hashed(seed: seed, pathHash: RandomStreamKey.hash(pathHash, name.hash))
        }

        /// `name`, then the decimal `index`, as ``RandomStreamKey/child(_:_:)``.
        package func child(_ name: String, _ index: Int) -> Hashed {
            child(Name(name), index)
        }

        /// `name`, then the decimal `index`, as ``RandomStreamKey/child(_:_:)``.
        @inlinable
        package func child(_ name: Name, _ index: Int) -> Hashed {
            let named = RandomStreamKey.hash(pathHash, name.hash)
            return Hashed(seed: seed, pathHash: RandomStreamKey.hash(named, Name.hash(index: index)))
        }

        /// The key `a/b` below this one.
        package func hashed(_ a: String, _ b: String) -> Hashed {
            hashed(Name(a), Name(b))
        }

        /// The key `a/b/c` below this one.
        package func hashed(_ a: String, _ b: String, _ c: String) -> Hashed {
            hashed(Name(a), Name(b), Name(c))
        }

        /// The key `a/b/c/d` below this one.
        package func hashed(_ a: String, _ b: String, _ c: String, _ d: String) -> Hashed {
            hashed(Name(a), Name(b), Name(c), Name(d))
        }

        /// The key `a/b` below this one.
        @inlinable
        package func hashed(_ a: Name, _ b: Name) -> Hashed {
            Hashed(seed: seed, pathHash: RandomStreamKey.hash(RandomStreamKey.hash(pathHash, a.hash), b.hash))
        }

        /// The key `a/b/c` below this one.
        @inlinable
        package func hashed(_ a: Name, _ b: Name, _ c: Name) -> Hashed {
            hashed(a, b).child(c)
        }

        /// The key `a/b/c/d` below this one.
        @inlinable
        package func hashed(_ a: Name, _ b: Name, _ c: Name, _ d: Name) -> Hashed {
            hashed(a, b).hashed(c, d)
        }
    }

    /// This key as numbers only (no path text).
    package var numbersOnly: Hashed { Hashed(seed: seed, pathHash: pathHash) }

    /// The key `a/b` below this one, as numbers only.
    package func hashed(_ a: String, _ b: String) -> Hashed { numbersOnly.hashed(a, b) }

    /// The key `a/b/c` below this one, as numbers only.
    package func hashed(_ a: String, _ b: String, _ c: String) -> Hashed { numbersOnly.hashed(a, b, c) }

    /// The key `a/b/c/d` below this one, as numbers only.
    package func hashed(_ a: String, _ b: String, _ c: String, _ d: String) -> Hashed {
        numbersOnly.hashed(a, b, c, d)
    }

    /// The path hash one level below `parent` for a component whose
    /// ``Name/hash`` is `name`: SplitMix64's mix of the two XORed.
    @inlinable @inline(__always)
    static func hash(_ parent: UInt64, _ name: UInt64) -> UInt64 {
        SplitMix64.mix(parent ^ name)
    }

    /// The generator of the key with `hash` under `seed`.
    @inlinable @inline(__always)
    static func generator(seed: UInt64, hash: UInt64) -> Xoshiro256StarStar {
        Xoshiro256StarStar(seed: SplitMix64.mix(seed ^ 0x5DEE_CE66_D1CE_4E5B) ^ hash)
    }

    public var description: String { "seed \(seed), stream \"\(path)\"" }
}
