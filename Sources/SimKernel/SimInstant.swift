/// A point in simulated time: whole nanoseconds since the start of the run.
///
/// Every simulation starts at ``zero``. Instants are totally ordered by their
/// nanosecond count; together with the sequence number the scheduler assigns,
/// that order decides which event runs next.
///
/// ```swift
/// let t = SimInstant.zero + .milliseconds(250)
/// print(t)                   // "250ms"
/// ```
public struct SimInstant: Hashable, Comparable, Sendable {
    /// Nanoseconds since the start of the simulation.
    public var nanosecondsSinceStart: Int64

    /// Creates the instant `nanosecondsSinceStart` nanoseconds after the start.
    @inlinable
    public init(nanosecondsSinceStart: Int64) {
        self.nanosecondsSinceStart = nanosecondsSinceStart
    }

    /// The start of every simulation.
    public static let zero = SimInstant(nanosecondsSinceStart: 0)

    /// The instant `value` seconds after the start, so that an instant
    /// reads like a duration: `run.schedule(.accept(device: "ipad"), at: .seconds(6))`.
    ///
    /// - Precondition: the result fits in `Int64` nanoseconds.
    @inlinable
    public static func seconds(_ value: Int64) -> SimInstant { zero + .seconds(value) }

    /// The instant `value` milliseconds after the start.
    @inlinable
    public static func milliseconds(_ value: Int64) -> SimInstant { zero + .milliseconds(value) }

    /// The instant `value` microseconds after the start.
    @inlinable
    public static func microseconds(_ value: Int64) -> SimInstant { zero + .microseconds(value) }

    /// The instant `value` nanoseconds after the start.
    @inlinable
    public static func nanoseconds(_ value: Int64) -> SimInstant { zero + .nanoseconds(value) }

    /// The last representable instant; used as "never".
    public static let distantFuture = SimInstant(nanosecondsSinceStart: .max)

    /// The time elapsed since the start of the simulation.
    @inlinable
    public var sinceStart: SimDuration { SimDuration(nanoseconds: nanosecondsSinceStart) }

    @inlinable
    public static func < (lhs: SimInstant, rhs: SimInstant) -> Bool {
        lhs.nanosecondsSinceStart < rhs.nanosecondsSinceStart
    }

    /// The instant `rhs` after `lhs`.
    ///
    /// - Precondition: the result is representable.
    @inlinable
    public static func + (lhs: SimInstant, rhs: SimDuration) -> SimInstant {
        SimInstant(nanosecondsSinceStart: lhs.nanosecondsSinceStart + rhs.nanoseconds)
    }

    /// The instant `rhs` before `lhs`.
    @inlinable
    public static func - (lhs: SimInstant, rhs: SimDuration) -> SimInstant {
        SimInstant(nanosecondsSinceStart: lhs.nanosecondsSinceStart - rhs.nanoseconds)
    }

    /// The duration from `rhs` to `lhs` (negative when `lhs` is earlier).
    @inlinable
    public static func - (lhs: SimInstant, rhs: SimInstant) -> SimDuration {
        SimDuration(nanoseconds: lhs.nanosecondsSinceStart - rhs.nanosecondsSinceStart)
    }

    /// The instant `duration` after `self`, or `nil` when it would overflow.
    @inlinable
    public func advanced(byChecked duration: SimDuration) -> SimInstant? {
        let (sum, overflow) = nanosecondsSinceStart.addingReportingOverflow(duration.nanoseconds)
        return overflow ? nil : SimInstant(nanosecondsSinceStart: sum)
    }
}

extension SimInstant: CustomStringConvertible {
    /// The time since the start, written as a duration (`"1.5s"`).
    public var description: String { sinceStart.description }
}
