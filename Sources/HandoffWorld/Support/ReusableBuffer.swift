/// A list that is filled, read, and emptied over and over: emptying only
/// resets the count, so once it has reached its peak size it never
/// allocates or releases memory again. Meant for plain values.
@usableFromInline
struct ReusableBuffer<Element>: Sendable where Element: Sendable {
    @usableFromInline var storage: [Element] = []
    @usableFromInline var count = 0

    @usableFromInline init() {}

    @inlinable var isEmpty: Bool { count == 0 }

    @inlinable @inline(__always) mutating func append(_ element: Element) {
        if count < storage.count {
            storage[count] = element
        } else {
            storage.append(element)
        }
        count += 1
    }

    @inlinable subscript(index: Int) -> Element { storage[index] }

    /// An empty buffer in `old`'s storage (leaving `old` empty).
    @inlinable static func reusing(_ old: inout ReusableBuffer) -> ReusableBuffer {
        var buffer = ReusableBuffer()
        swap(&buffer, &old)
        buffer.removeAll()
        return buffer
    }

    /// Forgets every element (the storage is kept and overwritten later).
    @inlinable mutating func removeAll() { count = 0 }
}
