/// A moment in a continuation attempt on one receiving device: what a
/// latency is measured between, and what a trace marks.
///
/// A latency metric is a pair of milestones (its start and its end); a
/// trial's summary holds the time of every milestone the attempt reached.
/// The cases are listed in the order an attempt that continues reaches them
/// (some paths skip some: the cloud relay resolves nothing, connects
/// nothing — its legs are the devices' push connections, already open — and
/// verifies nothing; an attempt without continuation streams has no stream
/// round).
/// An attempt keeps the first time it reached each milestone: after a
/// fallback to the cloud relay, `connecting` and `connected` are those of
/// Rapport's connection when it got that far.
public enum Milestone: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// The activity started advertising on its source (it last became
    /// current there).
    case advertised
    /// The activity was offered on the receiver.
    case offered
    /// The user accepted the offer.
    case accepted
    /// The fetch of the payload started (at the accept).
    case fetchStarted
    /// The source's Rapport service answered the receiver's Bonjour query
    /// (the peer-to-peer path only).
    case resolved
    /// The fetch's connection (TCP) was opened: its SYN left the receiver
    /// (Rapport only: the cloud relay opens no connection).
    case connecting
    /// The fetch's connection (TCP) was established (Rapport only).
    case connected
    /// Pair-Verify's last message (M4) reached the receiver (Rapport only:
    /// the cloud relay has no Pair-Verify).
    case verified
    /// The request for the payload left the receiver (on Rapport after
    /// Pair-Verify and `_systemInfo`; over the cloud relay once connected).
    case requested
    /// The payload arrived at the receiver.
    case payloadArrived
    /// The app's `continue` was called.
    case continued
    /// The first `restoreUserActivityState` was called.
    case restored
    /// The app's first continuation-stream request left the receiver.
    case streamRequestSent
    /// The response to the first continuation-stream request arrived.
    case streamResponseArrived

    /// The milestone's name in traces and JSON: `payloadArrived`, ….
    public var description: String {
        switch self {
        case .advertised: return "advertised"
        case .offered: return "offered"
        case .accepted: return "accepted"
        case .fetchStarted: return "fetchStarted"
        case .resolved: return "resolved"
        case .connecting: return "connecting"
        case .connected: return "connected"
        case .verified: return "verified"
        case .requested: return "requested"
        case .payloadArrived: return "payloadArrived"
        case .continued: return "continued"
        case .restored: return "restored"
        case .streamRequestSent: return "streamRequestSent"
        case .streamResponseArrived: return "streamResponseArrived"
        }
    }
}
