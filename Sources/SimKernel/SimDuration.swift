/// A span of simulated time, in whole nanoseconds.
///
/// Simulated time is integer nanoseconds so that event order never depends on
/// floating-point rounding. A duration may be negative (the difference of two
/// instants), but the run loop never lets time move backwards.
///
/// ```swift
/// let rtt: SimDuration = .milliseconds(40)
/// let budget = try SimDuration(parsing: "1.5s")
/// print(budget - rtt)        // "1.46s"
/// ```
///
/// Arithmetic traps on overflow, like `Int64`; durations that come from input
/// are range-checked when they are parsed (see ``init(parsing:)``).
public struct SimDuration: Hashable, Comparable, Sendable {
    /// The length in nanoseconds.
    public var nanoseconds: Int64

    /// Creates a duration of `nanoseconds` nanoseconds.
    @inlinable
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The empty duration.
    public static let zero = SimDuration(nanoseconds: 0)

    /// The longest representable duration (about 292 years).
    public static let max = SimDuration(nanoseconds: .max)

    /// `duration` (Swift's `Duration`: `.seconds(2)`, `.milliseconds(250)`)
    /// in whole nanoseconds, rounded toward zero.
    ///
    /// - Precondition: the result fits in `Int64` nanoseconds.
    public init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(nanoseconds: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// A duration of `value` nanoseconds.
    @inlinable
    public static func nanoseconds(_ value: Int64) -> SimDuration {
        SimDuration(nanoseconds: value)
    }

    /// A duration of `value` microseconds.
    ///
    /// - Precondition: the result fits in `Int64` nanoseconds.
    @inlinable
    public static func microseconds(_ value: Int64) -> SimDuration {
        SimDuration(nanoseconds: value * 1_000)
    }

    /// A duration of `value` milliseconds.
    ///
    /// - Precondition: the result fits in `Int64` nanoseconds.
    @inlinable
    public static func milliseconds(_ value: Int64) -> SimDuration {
        SimDuration(nanoseconds: value * 1_000_000)
    }

    /// A duration of `value` seconds.
    ///
    /// - Precondition: the result fits in `Int64` nanoseconds.
    @inlinable
    public static func seconds(_ value: Int64) -> SimDuration {
        SimDuration(nanoseconds: value * 1_000_000_000)
    }

    /// The duration in seconds as a `Double`, for reports only.
    ///
    /// Never feed this back into event times: it is rounded.
    @inlinable
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    @inlinable
    public static func < (lhs: SimDuration, rhs: SimDuration) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    @inlinable
    public static func + (lhs: SimDuration, rhs: SimDuration) -> SimDuration {
        SimDuration(nanoseconds: lhs.nanoseconds + rhs.nanoseconds)
    }

    @inlinable
    public static func - (lhs: SimDuration, rhs: SimDuration) -> SimDuration {
        SimDuration(nanoseconds: lhs.nanoseconds - rhs.nanoseconds)
    }

    @inlinable
    public static func * (lhs: SimDuration, rhs: Int64) -> SimDuration {
        SimDuration(nanoseconds: lhs.nanoseconds * rhs)
    }

    @inlinable
    public static func += (lhs: inout SimDuration, rhs: SimDuration) {
        lhs.nanoseconds += rhs.nanoseconds
    }
}
