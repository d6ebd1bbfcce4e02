/// A first-in first-out buffer over one contiguous allocation that grows
/// geometrically and never shrinks, so pushing and popping allocate nothing
/// once it has reached its peak size.
struct RingBuffer<Element> {
    private var storage: [Element?]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int = 0) {
        storage = Array(repeating: nil, count: Swift.max(capacity, 1))
    }

    var isEmpty: Bool { count == 0 }

    /// The oldest element.
    var first: Element? { count == 0 ? nil : storage[head] }

    /// Appends `element` at the back.
    ///
    /// - Complexity: O(1) amortised.
    mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        var index = head + count
        if index >= storage.count { index -= storage.count }
        storage[index] = element
        count += 1
    }

    /// Removes and returns the oldest element.
    ///
    /// - Complexity: O(1).
    @discardableResult
    mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count { head = 0 }
        count -= 1
        return element
    }

    /// Removes every element, keeping the allocation.
    mutating func removeAll() {
        while count > 0 { removeFirst() }
        head = 0
    }

    private mutating func grow() {
        var larger: [Element?] = Array(repeating: nil, count: storage.count * 2)
        for offset in 0..<count {
            var index = head + offset
            if index >= storage.count { index -= storage.count }
            larger[offset] = storage[index]
        }
        storage = larger
        head = 0
    }
}
extension RingBuffer: Sendable where Element: Sendable {}
