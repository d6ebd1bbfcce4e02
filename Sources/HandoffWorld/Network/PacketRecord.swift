import SimKernel

/// One packet put on a link, and what became of it: an entry of
/// ``World/packetLog``, kept only while ``World/recordsPackets`` is on.
public struct PacketRecord: Hashable, Sendable {
    /// What a packet is.
    public enum Kind: String, Hashable, Sendable {
        /// TCP's SYN.
        case syn
        /// TCP's SYN-ACK.
        case synAcknowledgement
        /// The handshake's final ACK, sent alone.
        case handshakeAcknowledgement
        /// A data segment; ``PacketRecord/sequence`` is its segment number.
        case data
        /// An acknowledgement (cumulative, with a SACK block).
        case acknowledgement
        /// An acknowledgement reporting a duplicate segment (D-SACK).
        case duplicateAcknowledgement
        /// A datagram outside any connection (a Bonjour query or answer).
        case datagram
    }

    /// Why a packet was lost.
    public enum Loss: String, Hashable, Sendable {
        /// The link's queue was full.
        case queue
        /// The link's loss model (Bernoulli, burst, distance) lost it.
        case lossModel
        /// The link was down: an outage, a partition, a radio switched off
        /// (when it was sent, or when it would have arrived).
        case linkDown
        /// An idle AWDL pair sent it while the peer was away from the
        /// channel (``PeerToPeerSchedule/excursionDuration``).
        case peerAway
        /// The AWDL peer did not know the sender yet (AWDL just switched
        /// on): a unicast frame dropped before it was sent.
        case unknownPeer
    }

    /// What became of the packet.
    public enum Fate: Hashable, Sendable {
        /// It arrives at the end of its link at this instant.
        case arrives(SimInstant)
        /// It was lost, and why.
        case lost(Loss)
    }

    /// When the packet was handed to the link (for a loss found on
    /// arrival, when it would have arrived).
    public let time: SimInstant
    /// The link.
    public let link: LinkID
    /// The connection, or nil for a datagram.
    public let connection: ConnectionID?
    /// The side that sent it.
    public let side: ConnectionSide
    /// What it is.
    public let kind: Kind
    /// A data segment's number; an acknowledgement's cumulative
    /// acknowledgement; a datagram's tag; 0 otherwise.
    public let sequence: UInt32
    /// Payload bytes (headers not included).
    public let payloadBytes: Int
    /// What became of it.
    public let fate: Fate
}

extension PacketRecord.Kind {
    init(_ kind: PacketKind) {
        switch kind {
        case .handshake: self = .syn
        case .handshakeReply: self = .synAcknowledgement
        case .handshakeAcknowledgement: self = .handshakeAcknowledgement
        case .data: self = .data
        case .acknowledgement: self = .acknowledgement
        case .duplicateAcknowledgement: self = .duplicateAcknowledgement
        case .datagram: self = .datagram
        }
    }
}
