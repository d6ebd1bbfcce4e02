import SimKernel

/// A packet on its way across one hop of a path. Small and trivially
/// copyable, so scheduling its arrival allocates nothing.
public struct Packet: Sendable {
    /// The connection it belongs to, or the link index for a datagram.
    let connection: UInt32
    /// The segment number, or the tag of a datagram.
    let sequence: UInt32
    /// Payload size for data and datagrams, the cumulative acknowledgement
    /// for acknowledgements.
    let word: UInt32
    /// The hop of the path it is crossing (0 or 1).
    let hop: UInt8
    /// An acknowledgement's SACK block length, in segments (0 otherwise).
    /// With `hop` it fills two bytes, so that the packet fills 16 bytes
    /// exactly: the event enums then fit their tags in spare bits and move
    /// as two 8-byte words.
    let blockLength: UInt8
    /// The side that sent it.
    let side: ConnectionSide
    let kind: PacketKind
}

/// An event of the world: what the world needs the kernel to deliver back
/// to it at a later instant.
///
/// A model that embeds a ``World`` wraps these in its own event type (see
/// ``WorldEventRepresentable``) and passes them back to
/// ``World/handle(_:at:)`` when they come due.
public enum WorldEvent: Sendable {
    /// A packet reaches the end of a hop.
    case packetArrival(Packet)
    /// A connection side's retransmission timer fires.
    case retransmissionTimer(connection: UInt32, side: ConnectionSide, generation: UInt32)
    /// A connection side's delayed-acknowledgement timer fires.
    case acknowledgementTimer(connection: UInt32, side: ConnectionSide, generation: UInt32)
    /// A device sends one Bluetooth LE advertisement.
    case advertisement(device: UInt32, generation: UInt32)
}

/// An event type that can carry world events, so that a model built on a
/// ``World`` can keep one event enum for itself and the world.
///
/// An enum case `world(WorldEvent)` satisfies the requirement:
///
/// ```swift
/// enum HandoffEvent: WorldEventRepresentable {
///     case world(WorldEvent)
///     case userAccepts(device: Int)
/// }
/// ```
public protocol WorldEventRepresentable {
    /// Wraps a world event.
    static func world(_ event: WorldEvent) -> Self
}

extension WorldEvent: WorldEventRepresentable {
    /// A world event is its own representation.
    @inlinable
    public static func world(_ event: WorldEvent) -> WorldEvent { event }
}

/// A world event together with the instant it is due.
public struct ScheduledWorldEvent: Sendable {
    /// When the event is due.
    public let time: SimInstant
    /// The event.
    public let event: WorldEvent

    @usableFromInline
    init(time: SimInstant, event: WorldEvent) {
        self.time = time
        self.event = event
    }
}

/// Something the world tells the layer above.
public enum WorldNotification: Sendable, Equatable {
    /// `to` received an advertisement from `from` carrying `payload`.
    case advertisementReceived(from: DeviceID, to: DeviceID, payload: UInt64)
    /// The connection finished its setup at the initiator.
    case connectionEstablished(ConnectionID)
    /// The connection failed; nothing more will be sent or delivered on it.
    case connectionFailed(ConnectionID, ConnectionFailure)
    /// A whole message arrived at side `to`, in order.
    case messageDelivered(ConnectionID, to: ConnectionSide, tag: UInt64, bytes: Int)
    /// Every segment of a message sent by the other side of `by` has been
    /// acknowledged by `by`.
    case messageAcknowledged(ConnectionID, by: ConnectionSide, tag: UInt64)
    /// A datagram sent with ``World/sendDatagram(on:bytes:tag:at:)`` arrived.
    case datagramDelivered(LinkID, tag: UInt32, bytes: Int)
}
