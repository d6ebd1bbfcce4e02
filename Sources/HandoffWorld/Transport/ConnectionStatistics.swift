import SimKernel

/// Counters of one connection, per direction.
public struct ConnectionStatistics: Hashable, Sendable {
    /// What the initiator sent.
    public var fromInitiator: TransferStatistics
    /// What the responder sent.
    public var fromResponder: TransferStatistics
    /// Transmissions of handshake packets (SYN and SYN-ACK),
    /// retransmissions included.
    public var setupRequestsSent: Int
}
