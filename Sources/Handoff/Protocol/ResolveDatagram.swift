/// The Bonjour messages of the resolve, as datagram tags: the kind in the
/// low byte, the attempt above it.
enum ResolveDatagram: UInt32 {
    /// The receiver's query for the source's service.
    case query = 1
    /// The source's answer.
    case answer = 2

    /// The datagram tag of this message for `attempt`.
    func tag(_ attempt: Int) -> UInt32 { rawValue | UInt32(truncatingIfNeeded: attempt) << 8 }

    /// The message and attempt of a datagram tag, if it is one.
    static func parse(_ tag: UInt32) -> (ResolveDatagram, Int)? {
        guard let kind = ResolveDatagram(rawValue: tag & 0xff) else { return nil }
        return (kind, Int(tag >> 8))
    }
}
