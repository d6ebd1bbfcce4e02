/// Identifies one scheduled event, so that it can be cancelled.
///
/// The scheduler hands out an `EventID` for every event it schedules. The
/// pair (time, sequence) is also the event's place in the total order of
/// events: earlier time first, and among equal times the one scheduled first.
public struct EventID: Hashable, Comparable, Sendable {
    /// When the event is due.
    public let time: SimInstant

    /// The scheduler's running count at the moment the event was scheduled;
    /// unique within one scheduler.
    public let sequence: UInt64

    @inlinable
    init(time: SimInstant, sequence: UInt64) {
        self.time = time
        self.sequence = sequence
    }

    /// Event order: by time, then by scheduling order.
    @inlinable
    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        lhs.time < rhs.time || (lhs.time == rhs.time && lhs.sequence < rhs.sequence)
    }
}
