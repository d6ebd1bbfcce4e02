/// A first-in first-out buffer of plain values over one contiguous
/// allocation that grows geometrically and never shrinks, so pushing and
/// popping allocate nothing once it has reached its peak size. An empty
/// buffer allocates nothing at all.
struct RingBuffer<Element: BitwiseCopyable>: Sendable where Element: Sendable {
    private var storage: [Element] = []
    private let filler: Element
    private var head = 0
    private(set) var count = 0

    /// An empty buffer; `filler` fills unused slots.
    init(filler: Element) {
        self.filler = filler
    }

    var isEmpty: Bool { count == 0 }

    /// The oldest element.
    var first: Element? {
        @inline(__always) get { count == 0 ? nil : storage[head] }
    }

    /// Appends `element` at the back.
    ///
    /// - Complexity: O(1) amortised.
    @inline(__always)
    mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        var index = head + count
        if index >= storage.count { index -= storage.count }
        storage[index] = element
        count += 1
    }

    /// Removes the oldest element.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func removeFirst() {
        guard count > 0 else { return }
        head += 1
        if head == storage.count { head = 0 }
        count -= 1
    }

    /// Removes every element (the storage is kept).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func removeAll() {
        head = 0
        count = 0
    }

    /// An empty buffer in `old`'s storage (leaving `old` empty).
    ///
    /// - Complexity: O(1).
    static func reusing(_ old: inout RingBuffer) -> RingBuffer {
        var storage = RingBuffer(filler: old.filler)
        swap(&storage, &old)
        storage.removeAll()
        return storage
    }

    private mutating func grow() {
        var larger = Array(repeating: filler, count: Swift.max(16, storage.count * 2))
        for offset in 0..<count {
            var index = head + offset
            if index >= storage.count { index -= storage.count }
            larger[offset] = storage[index]
        }
        storage = larger
        head = 0
    }
}
