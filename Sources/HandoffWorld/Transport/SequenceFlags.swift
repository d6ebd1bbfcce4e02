/// Which sequence numbers at or above a base have arrived: a sliding bit
/// window over a power-of-two ring that grows when a number lands beyond
/// it, so marking and advancing allocate nothing once it has reached the
/// largest gap seen. An empty set allocates nothing (the ring is made, 64
/// wide, on the first mark).
struct SequenceFlags: Sendable {
    private var storage: [Bool] = []
    private var mask = 63

    /// Whether `sequence` is marked, for `sequence ≥ base`.
    func contains(_ sequence: UInt32, base: UInt32) -> Bool {
        let offset = sequence &- base
        guard Int(offset) < storage.count else { return false }
        return storage[Int(sequence) & mask]
    }

    /// Marks `sequence ≥ base`.
    mutating func insert(_ sequence: UInt32, base: UInt32) {
        let offset = Int(sequence &- base)
        if offset >= storage.count { grow(toHold: offset, base: base) }
        storage[Int(sequence) & mask] = true
    }

    /// No marks, in `old`'s storage (leaving `old` empty).
    static func reusing(_ old: inout SequenceFlags) -> SequenceFlags {
        var flags = SequenceFlags()
        swap(&flags, &old)
        for index in flags.storage.indices { flags.storage[index] = false }
        return flags
    }

    /// Clears the mark of `base` (done as the base moves past it).
    mutating func clear(_ sequence: UInt32) {
        storage[Int(sequence) & mask] = false
    }

    private mutating func grow(toHold offset: Int, base: UInt32) {
        var size = max(storage.count, 64)
        while size <= offset { size *= 2 }
        var larger = Array(repeating: false, count: size)
        for step in 0..<storage.count {
            let sequence = base &+ UInt32(step)
            if storage[Int(sequence) & mask] { larger[Int(sequence) & (size - 1)] = true }
        }
        storage = larger
        mask = size - 1
    }
}
