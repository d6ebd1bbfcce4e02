/// One pending event in the heap: its key and its payload, stored inline.
@usableFromInline
struct HeapEntry<Event> {
    @usableFromInline var time: Int64
    @usableFromInline var sequence: UInt64
    @usableFromInline var event: Event

    @inlinable
    init(time: Int64, sequence: UInt64, event: Event) {
        self.time = time
        self.sequence = sequence
        self.event = event
    }

    /// Strict event order: earlier time first, then lower sequence number.
    ///
    /// Branch-free: (time, sequence) is compared as one 128-bit number by
    /// subtracting with borrow. The high difference cannot overflow because
    /// event times are never negative (the clock starts at zero and nothing
    /// is scheduled in the past).
    @inlinable @inline(__always)
    func precedes(_ other: HeapEntry) -> Bool {
        let borrow: Int64 = sequence < other.sequence ? 1 : 0
        return (time &- other.time &- borrow) < 0
    }
}

/// A 4-ary min-heap of events ordered by (time, sequence).
///
/// Entries are stored by value in one contiguous buffer, so pushing and
/// popping allocate nothing once the buffer has grown to the peak number of
/// pending events. A 4-ary heap is half as deep as a binary heap and its four
/// children share a cache line or two, which makes it faster than a binary
/// heap for the (time, sequence) keys of a simulation.
///
/// The heap does not guarantee anything about the order of entries with equal
/// keys; keys are unique because every sequence number is.
///
/// With `SIMKERNEL_INVARIANTS` defined (debug builds), every mutation
/// re-checks the heap property over the whole buffer.
@usableFromInline
struct EventHeap<Event> {
    @usableFromInline var storage: ContiguousArray<HeapEntry<Event>>

    @inlinable
    init() {
        storage = []
    }

    @inlinable
    var count: Int { storage.count }

    @inlinable
    var isEmpty: Bool { storage.isEmpty }

    /// The entry that comes first, if any.
    ///
    /// - Complexity: O(1).
    @inlinable
    var first: HeapEntry<Event>? { storage.first }

    /// Adds an entry.
    ///
    /// - Complexity: O(log₄ n); amortised O(1) allocation (none once the
    ///   buffer has reached its peak size).
    @inlinable
    mutating func insert(_ entry: HeapEntry<Event>) {
        storage.append(entry)
        storage.withUnsafeMutableBufferPointer { buffer in
            var hole = buffer.count - 1
            while hole > 0 {
                let parent = (hole &- 1) >> 2
                if entry.precedes(buffer[parent]) {
                    buffer[hole] = buffer[parent]
                    hole = parent
                } else {
                    break
                }
            }
            buffer[hole] = entry
        }
        checkInvariants()
    }

    /// Removes and returns the first entry.
    ///
    /// Uses the bottom-up variant: the hole left at the root walks down to a
    /// leaf along the smallest children, then the last entry is sifted up from
    /// there. The last entry usually belongs near the bottom, so this needs
    /// fewer comparisons than the classic top-down sift.
    ///
    /// - Precondition: the heap is not empty.
    /// - Complexity: O(log₄ n).
    @inlinable
    mutating func removeFirst() -> HeapEntry<Event> {
        let last = storage.removeLast()
        guard !storage.isEmpty else { return last }
        let result = storage.withUnsafeMutableBufferPointer { buffer -> HeapEntry<Event> in
            let result = buffer[0]
            let count = buffer.count
            var hole = 0
            // Walk the hole down to a leaf, always promoting the smallest
            // child. A node with four children picks the smallest in a
            // two-round tournament of branch-free comparisons: which child
            // wins is random, so a branch on it would mispredict half the time.
            while true {
                let firstChild = (hole &<< 2) &+ 1
                var best: Int
                if firstChild &+ 3 < count {
                    let left = firstChild &+ (buffer[firstChild &+ 1].precedes(buffer[firstChild]) ? 1 : 0)
                    let right = firstChild &+ 2 &+ (buffer[firstChild &+ 3].precedes(buffer[firstChild &+ 2]) ? 1 : 0)
                    best = buffer[right].precedes(buffer[left]) ? right : left
                } else if firstChild < count {
                    best = firstChild
                    var child = firstChild &+ 1
                    while child < count {
                        if buffer[child].precedes(buffer[best]) { best = child }
                        child &+= 1
                    }
                } else {
                    break
                }
                buffer[hole] = buffer[best]
                hole = best
            }
            // Sift the former last entry up from the leaf.
            while hole > 0 {
                let parent = (hole &- 1) >> 2
                if last.precedes(buffer[parent]) {
                    buffer[hole] = buffer[parent]
                    hole = parent
                } else {
                    break
                }
            }
            buffer[hole] = last
            return result
        }
        checkInvariants()
        return result
    }

    /// Drops every entry, keeping the storage.
    @inlinable
    mutating func removeAll() {
        storage.removeAllKeepingStorage()
    }

    /// Makes room for `capacity` entries without further allocation.
    @inlinable

    mutating func reserveCapacity(_ capacity: Int) {
        storage.reserveCapacity(capacity)
    }

    /// The number of entries the buffer holds without growing.
    @inlinable
    var capacity: Int { storage.capacity }

    /// Checks the heap property when `SIMKERNEL_INVARIANTS` is defined.
    @inlinable
    func checkInvariants() {
        #if SIMKERNEL_INVARIANTS
        for index in storage.indices.dropFirst() {
            let parent = (index - 1) >> 2
            precondition(
                !storage[index].precedes(storage[parent]),
                "event heap corrupted: entry \(index) precedes its parent \(parent)")
        }
        #endif
    }
}
