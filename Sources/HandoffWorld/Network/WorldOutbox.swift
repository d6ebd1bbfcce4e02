import SimKernel

/// What the world has for its owner: the events it needs scheduled and the
/// notifications the layer above must hear, in the order they arose.
///
/// Every role of the world writes into it (each gets it passed `inout`);
/// the world's owner empties it (``World/schedulePendingEvents(into:)``,
/// ``World/removeAllNotifications()``). Both buffers keep their storage, so
/// nothing is allocated once they have reached their peak size.
/// Noncopyable, so that it is only ever changed in place.
@usableFromInline
struct WorldOutbox: ~Copyable, Sendable {
    /// Events waiting to be moved into the owner's scheduler.
    @usableFromInline var pendingEvents = ReusableBuffer<ScheduledWorldEvent>()
    /// What happened that the layer above needs to know, in the order it
    /// happened.
    @usableFromInline var notifications = ReusableBuffer<WorldNotification>()

    /// An empty outbox.
    init() {}

    /// Empties both buffers for a new trial, keeping their storage.
    mutating func reset() {
        pendingEvents.removeAll()
        notifications.removeAll()
    }

    /// Leaves `event` to be scheduled at `time` (nanoseconds).
    @inline(__always)
    mutating func schedule(_ event: WorldEvent, at time: Int64) {
        pendingEvents.append(ScheduledWorldEvent(time: SimInstant(nanosecondsSinceStart: time), event: event))
    }

    /// Tells the layer above about `notification`.
    @inline(__always)
    mutating func notify(_ notification: WorldNotification) {
        notifications.append(notification)
    }
}
