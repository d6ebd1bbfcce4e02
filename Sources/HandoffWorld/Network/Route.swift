import SimKernel

/// A connection's endpoints and path, with the link of each hop in each
/// direction worked out once.
struct Route: Sendable {
    let initiator: DeviceID
    let responder: DeviceID
    let path: PathKind
    /// The number of hops (1, or 2 through the cloud).
    let hops: UInt8
    /// Links of the initiator's packets, by hop (the second is unused on a
    /// one-hop path).
    let initiatorLinks: (Int32, Int32)
    /// Links of the responder's packets, by hop.
    let responderLinks: (Int32, Int32)

    /// The link a packet from `sender` crosses on `hop`.
    @inline(__always)
    func link(from sender: ConnectionSide, hop: UInt8) -> Int {
        let links = sender == .initiator ? initiatorLinks : responderLinks
        return Int(hop == 0 ? links.0 : links.1)
    }
}
