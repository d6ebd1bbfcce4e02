/// A model driven by the kernel: it handles one event at a time.
///
/// Events are small values (typically an enum with integer payloads), not
/// closures, so scheduling one allocates nothing. The model keeps its own
/// state and decides what each event means.
///
/// ```swift
/// struct PingPong: SimulationModel {
///     var volleys = 0
///     mutating func handle(_ event: Int, scheduler: inout Scheduler<Int>) {
///         volleys += 1
///         scheduler.schedule(1 - event, after: .milliseconds(5))
///     }
/// }
/// ```
///
/// A model may be noncopyable (`~Copyable`): a large model then cannot be
/// copied by accident, and ``Simulation`` holds it in place.
public protocol SimulationModel: ~Copyable {
    /// The value that describes one event.
    associatedtype Event

    /// Handles `event`, which is due now (`scheduler.now`).
    ///
    /// The handler may schedule and cancel events and call
    /// ``Scheduler/stop()``.
    mutating func handle(_ event: Event, scheduler: inout Scheduler<Event>)
}

/// Why a call to `run` returned.
public enum StopReason: Hashable, Sendable {
    /// No event is pending (only when running without a time limit).
    case idle
    /// Every event due at or before the time limit has run; the clock now
    /// reads the limit.
    case reachedTime
    /// The event limit of this call was reached.
    case reachedEventLimit
    /// A handler called ``Scheduler/stop()``.
    case stopped
}

/// The run loop: a model plus its scheduler.
///
/// `Simulation` is the handle a caller drives; the model is the world it
/// runs. Time moves forward only, to the time of each event in turn.
///
/// ```swift
/// var simulation = Simulation(model: PingPong())
/// simulation.scheduler.schedule(0, at: .zero)
/// simulation.run(until: .zero + .seconds(1))
/// print(simulation.model.volleys)   // 201
/// ```
///
/// A simulation of a noncopyable model is itself noncopyable.
public struct Simulation<Model: SimulationModel & ~Copyable>: ~Copyable {
    /// The model being simulated.
    public var model: Model

    /// The clock and the pending events.
    public var scheduler: Scheduler<Model.Event>

    /// The number of events handled so far (cancelled events never count).
    @inlinable
    public var handledEventCount: UInt64 { handled }

    @usableFromInline var handled: UInt64 = 0

    /// Creates a simulation of `model` at time zero with no pending events.
    ///
    /// - Parameter expectedPendingEvents: passed to the scheduler to reserve
    ///   queue room up front.
    public init(model: consuming Model, expectedPendingEvents: Int = 0) {
        self.model = model
        self.scheduler = Scheduler(expectedPendingEvents: expectedPendingEvents)
    }

    /// The current simulated time.
    @inlinable
    public var now: SimInstant { scheduler.now }

    /// Starts over at time zero with `model`: no pending events, no events
    /// handled, the queue's storage kept for reuse.
    @inlinable
    public mutating func reset(model: consuming Model) {
        self.model = model
        scheduler.reset()
        handled = 0
    }

    /// Starts over at time zero with the same model, changed in place by
    /// `prepare` (so a model can reuse its own storage too).
    @inlinable
    public mutating func reset(_ prepare: (inout Model) throws -> Void) rethrows {
        scheduler.reset()
        handled = 0
        try prepare(&model)
    }

    /// Handles the next pending event, if there is one.
    ///
    /// - Returns: `true` if an event ran, `false` if none was pending.
    /// - Complexity: O(log n).
    @inlinable
    @discardableResult
    public mutating func step() -> Bool {
        guard let event = scheduler.popNext(notAfter: .max) else { return false }
        handled &+= 1
        model.handle(event, scheduler: &scheduler)
        return true
    }

    /// Runs events until one of the limits is reached, no event is pending,
    /// or a handler stops the run.
    ///
    /// Events due exactly at `time` do run. When the run returns
    /// ``StopReason/reachedTime``, the clock reads `time` even if the last
    /// event ran earlier (as when waiting on a real clock).
    ///
    /// - Parameters:
    ///   - time: the last instant whose events run; `.distantFuture` for none.
    ///   - maxEvents: the most events this call handles.
    /// - Returns: why the run returned.
    /// - Complexity: O(k log n) for k events handled.
    @inlinable
    @discardableResult
    public mutating func run(until time: SimInstant = .distantFuture, maxEvents: UInt64 = .max) -> StopReason {
        let limit = time.nanosecondsSinceStart
        var handled: UInt64 = 0
        while true {
            if scheduler.stopRequested {
                scheduler.stopRequested = false
                self.handled &+= handled
                return .stopped
            }
            if handled >= maxEvents {
                self.handled &+= handled
                return .reachedEventLimit
            }
            guard let event = scheduler.popNext(notAfter: limit) else { break }
            handled &+= 1
            model.handle(event, scheduler: &scheduler)
        }
        self.handled &+= handled
        if time == .distantFuture { return .idle }
        if scheduler.clock < limit { scheduler.clock = limit }
        return .reachedTime
    }

    /// Runs at most `count` events.
    ///
    /// - Returns: ``StopReason/reachedEventLimit`` when `count` events ran,
    ///   otherwise ``StopReason/idle`` or ``StopReason/stopped``.
    @inlinable
    @discardableResult
    public mutating func run(maxEvents count: UInt64) -> StopReason {
        run(until: .distantFuture, maxEvents: count)
    }
}

extension Simulation: Copyable where Model: Copyable {}
