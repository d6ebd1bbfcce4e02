/// The clock and the pending events of one simulation.
///
/// A model receives the scheduler in every call to
/// ``SimulationModel/handle(_:scheduler:)`` and uses it to read the current
/// time, schedule future events, cancel pending ones, and stop the run.
///
/// Events are ordered by (time, sequence number assigned at scheduling), so
/// two events due at the same instant run in the order they were scheduled.
/// The order never depends on heap layout, hashing or memory addresses.
///
/// ```swift
/// let id = scheduler.schedule(.retransmit(segment: 7), after: .milliseconds(200))
/// // ... the acknowledgement arrives first:
/// scheduler.cancel(id)
/// ```
///
/// Not guaranteed: the scheduler is not thread-safe (one simulation runs on
/// one thread; run independent trials on separate schedulers), and it does not
/// reclaim a cancelled event's slot until that event's time is reached.
public struct Scheduler<Event> {
    /// The current simulated time: the time of the event being handled, or of
    /// the last one handled.
    @inlinable
    public var now: SimInstant { SimInstant(nanosecondsSinceStart: clock) }

    /// ``now`` in nanoseconds; written only by the run loop.
    @usableFromInline var clock: Int64

    @usableFromInline var heap: EventHeap<Event>
    @usableFromInline var nextSequence: UInt64
    /// Sequence numbers of pending events that were cancelled. Checked only
    /// when not empty, so models that never cancel pay nothing.
    @usableFromInline var cancelled: Set<UInt64>
    /// The key of the last event removed from the heap. Every pending event
    /// has a larger key, which is how ``cancel(_:)`` tells pending from past.
    @usableFromInline var lastRemoved: EventID
    @usableFromInline var stopRequested: Bool

    /// Creates an empty scheduler at time zero.
    ///
    /// - Parameter expectedPendingEvents: the number of events expected to be
    ///   pending at once; the queue reserves room for them up front.
    public init(expectedPendingEvents: Int = 0) {
        clock = 0
        heap = EventHeap()
        nextSequence = 0
        cancelled = []
        lastRemoved = EventID(time: SimInstant(nanosecondsSinceStart: .min), sequence: 0)
        stopRequested = false
        if expectedPendingEvents > 0 { heap.reserveCapacity(expectedPendingEvents) }
    }

    /// Empties the scheduler and sets the clock back to zero, as a new
    /// scheduler would be, keeping the queue's storage for reuse.
    ///
    /// Running many short simulations one after another (trials) with
    /// ``Simulation/reset(model:)`` allocates no new queue per run.
    ///
    /// - Complexity: O(n) in the pending events dropped.
    @inlinable
    public mutating func reset() {
        clock = 0
        heap.removeAll()
        nextSequence = 0
        if !cancelled.isEmpty { cancelled.removeAll(keepingCapacity: true) }
        lastRemoved = EventID(time: SimInstant(nanosecondsSinceStart: .min), sequence: 0)
        stopRequested = false
    }

    /// Schedules `event` to run at `time`.
    ///
    /// - Parameters:
    ///   - event: the value handed to the model when the time comes.
    ///   - time: when the event runs; must not be before ``now``.
    /// - Returns: an identifier for ``cancel(_:)``.
    /// - Precondition: `time >= now`. Scheduling in the past is a programming
    ///   error; the process stops with a message naming both times
    ///   (``SimKernelError/scheduledInThePast(now:requested:)``).
    /// - Complexity: O(log n) for n pending events; no allocation once the
    ///   queue has grown to its peak size.
    @inlinable
    @discardableResult
    public mutating func schedule(_ event: Event, at time: SimInstant) -> EventID {
        if time.nanosecondsSinceStart < clock { Self.reportPastScheduling(now: now, requested: time) }
        let sequence = nextSequence
        nextSequence &+= 1
        heap.insert(HeapEntry(time: time.nanosecondsSinceStart, sequence: sequence, event: event))
        return EventID(time: time, sequence: sequence)
    }

    /// Schedules `event` to run `delay` after ``now``.
    ///
    /// - Precondition: `delay` is not negative and `now + delay` is
    ///   representable.
    /// - Complexity: O(log n).
    @inlinable
    @discardableResult
    public mutating func schedule(_ event: Event, after delay: SimDuration) -> EventID {
        schedule(event, at: now + delay)
    }

    @usableFromInline
    static func reportPastScheduling(now: SimInstant, requested: SimInstant) -> Never {
        preconditionFailure(SimKernelError.scheduledInThePast(now: now, requested: requested).description)
    }

    /// Cancels a pending event: it will never run.
    ///
    /// - Returns: `true` if the event was pending and is now cancelled;
    ///   `false` if it already ran, was already cancelled, or was never
    ///   scheduled by this scheduler.
    /// - Complexity: O(1) expected. The cancelled entry stays in the queue
    ///   until its time comes and is then dropped without running.
    @inlinable
    @discardableResult
    public mutating func cancel(_ id: EventID) -> Bool {
        guard lastRemoved < id, id.sequence < nextSequence else { return false }
        return cancelled.insert(id.sequence).inserted
    }

    /// Asks the run loop to return after the event being handled.
    ///
    /// Called from inside a handler, the current `run` returns
    /// ``StopReason/stopped`` once the handler finishes; pending events stay
    /// queued and a later `run` carries on with them. Called outside a run,
    /// the next `run` returns at once.
    @inlinable
    public mutating func stop() {
        stopRequested = true
    }

    /// The number of events that will still run (cancelled ones excluded).
    public var pendingCount: Int { heap.count - cancelled.count }

    /// Whether no event is pending.
    public var isEmpty: Bool { pendingCount == 0 }

    /// The number of events scheduled so far, including cancelled and
    /// already handled ones.
    public var scheduledCount: UInt64 { nextSequence }

    /// How many events the queue holds before it must grow its buffer.
    ///
    /// Grows with the peak number of pending events only, never with the
    /// number of events handled.
    public var queueCapacity: Int { heap.capacity }

    /// The time of the next event that will run, if any.
    ///
    /// - Complexity: O(1), plus dropping any cancelled events at the front.
    public mutating func nextEventTime() -> SimInstant? {
        dropCancelledFront()
        return heap.first.map { SimInstant(nanosecondsSinceStart: $0.time) }
    }

    /// Removes cancelled entries from the front of the queue.
    @inlinable
    mutating func dropCancelledFront() {
        while !cancelled.isEmpty, let front = heap.first, cancelled.contains(front.sequence) {
            let entry = heap.removeFirst()
            cancelled.remove(entry.sequence)
            lastRemoved = EventID(time: SimInstant(nanosecondsSinceStart: entry.time), sequence: entry.sequence)
        }
    }

    /// Removes the next live event if it is due at or before `limit`, and
    /// moves the clock to its time.
    ///
    /// - Complexity: O(log n).
    @inlinable
    mutating func popNext(notAfter limit: Int64) -> Event? {
        while let front = heap.first {
            if front.time > limit { return nil }
            let entry = heap.removeFirst()
            lastRemoved = EventID(time: SimInstant(nanosecondsSinceStart: entry.time), sequence: entry.sequence)
            if !cancelled.isEmpty, cancelled.remove(entry.sequence) != nil { continue }
            clock = entry.time
            return entry.event
        }
        return nil
    }
}
