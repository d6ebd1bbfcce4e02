extension RangeReplaceableCollection where Self: BidirectionalCollection {
    /// Empties the collection and keeps its storage, for the short lists
    /// that a reused simulation clears at every reset.
    ///
    /// For an array, `removeAll(keepingCapacity: true)` goes through the
    /// generic `replaceSubrange`, which costs about 150 instructions even
    /// for one element; popping costs about 20 per element. Both are
    /// O(count), so this is only slower, by a constant, for long arrays.
    @inlinable @inline(__always)
    package mutating func removeAllKeepingStorage() {
        while popLast() != nil {}
    }
}

extension Array {
    /// `old`'s storage, emptied, leaving `old` empty: how a value rebuilt
    /// for a new trial takes over the buffers of the one it replaces, so
    /// that rebuilding allocates nothing once they have grown.
    ///
    /// - Complexity: O(n) in the elements dropped.
    @inlinable @inline(__always)
    package static func reusing(_ old: inout [Element]) -> [Element] {
        var storage: [Element] = []
        swap(&storage, &old)
        storage.removeAllKeepingStorage()
        return storage
    }

    /// `count` copies of `value`, in `old`'s storage (leaving `old` empty).
    ///
    /// - Complexity: O(n) in the elements dropped and added; in place when
    ///   `old` already has `count` elements (a table per device, say).
    @inlinable @inline(__always)
    package static func reusing(_ old: inout [Element], repeating value: Element, count: Int) -> [Element] {
        if old.count == count {
            for index in 0..<count { old[index] = value }
        } else {
            old.removeAll(keepingCapacity: true)
            old.append(contentsOf: repeatElement(value, count: count))
        }
        var storage: [Element] = []
        swap(&storage, &old)
        return storage
    }

    /// Takes `old`'s storage, emptied, and leaves `old` this array's: how
    /// a value being built for a new trial takes over the buffers of the
    /// one it replaces (whose destruction then releases only what this
    /// array held, usually nothing).
    ///
    /// - Complexity: O(n) in the elements dropped.
    @inlinable @inline(__always)
    package mutating func takeStorage(of old: inout [Element]) {
        swap(&self, &old)
        removeAllKeepingStorage()
    }

    /// Takes `old`'s storage, filled with `count` copies of `value`, and
    /// leaves `old` this array's.
    ///
    /// - Complexity: O(n) in the elements dropped and added; in place when
    ///   `old` already has `count` elements (a table per device, say).
    @inlinable @inline(__always)
    package mutating func takeStorage(of old: inout [Element], repeating value: Element, count: Int) {
        swap(&self, &old)
        if self.count == count {
            for index in 0..<count { self[index] = value }
        } else {
            removeAll(keepingCapacity: true)
            append(contentsOf: repeatElement(value, count: count))
        }
    }
}
