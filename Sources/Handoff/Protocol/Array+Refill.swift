extension Array {
    /// Becomes `count` copies of `value` in its own storage: in place when
    /// it already has `count` elements (a table per device, say), without
    /// allocating once its storage has grown otherwise.
    @inline(__always)
    mutating func refill(with value: Element, count: Int) {
        if self.count == count {
            for index in 0..<count { self[index] = value }
        } else {
            removeAll(keepingCapacity: true)
            append(contentsOf: repeatElement(value, count: count))
        }
    }
}
