import SimKernel

/// A latency HandoffSim measures: the time from one ``Milestone`` of a
/// continuation attempt to another.
///
/// This table is the one place a metric is defined. Its name in scenario
/// files, JSON and command lines (`rawValue`), its label in reports
/// (``label``), its short name in narrow tables (``shortName``) and its CSV
/// column (``csvName``) are properties of the case; summaries, samples,
/// observations, sweep aggregates, baselines, reports and the command line
/// iterate `allCases`. Adding a metric is adding a case here (and, for a
/// milestone the engine does not mark yet, marking it there).
///
/// A trial has a value for a metric when the attempt reached both of its
/// milestones, the end no earlier than the start.
///
/// ```swift
/// let summary = run.summary(of: activity, on: "ipad")
/// let wait = summary?[.acceptToContinue]   // what the person waited for
/// ```
public enum LatencyMetric: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// From the activity starting to advertise (becoming current) to the
    /// offer on the receiver: discovery.
    case advertToOffered
    /// From the user's accept to the app's `continue`: what the person
    /// waits for.
    case acceptToContinue
    /// From the user's accept to the first `restoreUserActivityState`.
    case acceptToRestored
    /// From the fetch's start (the accept) to the payload's arrival: the
    /// network and connection set-up, without the app's launch.
    case fetch
    /// From the receiver app's first continuation-stream request leaving
    /// to its response arriving: a round trip on the established stream
    /// connection, the source's response time and the response's transfer.
    case streamRound
    /// From the fetch's start to the source's answer to the Bonjour query
    /// for its Rapport service (peer-to-peer only): finding the source.
    case resolve
    /// From the fetch's connection being opened to it being established:
    /// the TCP handshake (Rapport only: over the cloud relay no connection
    /// is set up, so the metric has no value).
    case connect
    /// From the fetch's connection being established to Pair-Verify's last
    /// message reaching the receiver (Rapport only).
    case pairVerify
    /// From the payload request leaving the receiver to the payload's
    /// arrival: the source's save and processing and the payload's
    /// transfer.
    case transfer

    /// The milestone the latency starts at.
    @inlinable
    public var start: Milestone {
        switch self {
        case .advertToOffered: return .advertised
        case .acceptToContinue, .acceptToRestored: return .accepted
        case .fetch, .resolve: return .fetchStarted
        case .streamRound: return .streamRequestSent
        case .connect: return .connecting
        case .pairVerify: return .connected
        case .transfer: return .requested
        }
    }

    /// The milestone the latency ends at.
    @inlinable
    public var end: Milestone {
        switch self {
        case .advertToOffered: return .offered
        case .acceptToContinue: return .continued
        case .acceptToRestored: return .restored
        case .fetch, .transfer: return .payloadArrived
        case .streamRound: return .streamResponseArrived
        case .resolve: return .resolved
        case .connect: return .connected
        case .pairVerify: return .verified
        }
    }

    /// The metric in words, as reports and charts label it:
    /// `accept → continue`, `fetch → payload`, ….
    public var label: String {
        switch self {
        case .advertToOffered: return "advert → offered"
        case .acceptToContinue: return "accept → continue"
        case .acceptToRestored: return "accept → restored"
        case .fetch: return "fetch → payload"
        case .streamRound: return "stream request → response"
        case .resolve: return "fetch → resolved"
        case .connect: return "TCP connect"
        case .pairVerify: return "Pair-Verify"
        case .transfer: return "request → payload"
        }
    }

    /// A short name for narrow table headers: `a→c`, `fetch`, ….
    public var shortName: String {
        switch self {
        case .advertToOffered: return "ad→o"
        case .acceptToContinue: return "a→c"
        case .acceptToRestored: return "a→r"
        case .fetch: return "fetch"
        case .streamRound: return "stream"
        case .resolve: return "resolve"
        case .connect: return "connect"
        case .pairVerify: return "verify"
        case .transfer: return "transfer"
        }
    }

    /// The name in CSV headers, in snake case: `accept_to_continue`, ….
    /// A sample's column is this name with `_ns` after it.
    public var csvName: String {
        switch self {
        case .advertToOffered: return "advert_to_offered"
        case .acceptToContinue: return "accept_to_continue"
        case .acceptToRestored: return "accept_to_restored"
        case .fetch: return "fetch"
        case .streamRound: return "stream_round"
        case .resolve: return "resolve"
        case .connect: return "connect"
        case .pairVerify: return "pair_verify"
        case .transfer: return "transfer"
        }
    }

    /// The name in scenario files, JSON and command lines (the raw value).
    public var description: String { rawValue }

    /// The metrics a sweep's table shows, in its column order (the others
    /// are in its samples, its JSON Lines and its baseline figures).
    public static let tabulated: [LatencyMetric] = [.acceptToContinue, .acceptToRestored, .advertToOffered, .fetch]

    /// The metrics, in words, for help texts: `advertToOffered,
    /// acceptToContinue, …`.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// The time an attempt reached each ``Milestone``: fixed storage, no heap.
///
/// ```swift
/// var times = MilestoneTimes()
/// times[.accepted] = .milliseconds(20)
/// times[.continued] = .milliseconds(470)
/// times.latency(.acceptToContinue)  // 450ms
/// ```
public struct MilestoneTimes: Hashable, Sendable {
    /// Nanoseconds since the start per milestone, by raw value; `unset`
    /// where not reached.
    @usableFromInline var storage: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64,
                          Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64)
    /// The room in ``storage``: at least as many milestones as there are.
    static let capacity = 16
    @inlinable static var unset: Int64 { .min }

    /// No milestone reached.
    public init() {
        let unset = Self.unset
        storage = (unset, unset, unset, unset, unset, unset, unset, unset,
                   unset, unset, unset, unset, unset, unset, unset, unset)
    }

    /// When `milestone` was reached, or nil.
    public subscript(milestone: Milestone) -> SimInstant? {
        @inlinable get {
            let value = withUnsafeBytes(of: storage) { $0.load(fromByteOffset: milestone.rawValue * 8, as: Int64.self) }
            return value == Self.unset ? nil : SimInstant(nanosecondsSinceStart: value)
        }
        set {
            let value = newValue?.nanosecondsSinceStart ?? Self.unset
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: value, toByteOffset: milestone.rawValue * 8, as: Int64.self) }
        }
    }

    /// Marks `milestone` at `instant` unless it was reached before.
    public mutating func reach(_ milestone: Milestone, at instant: SimInstant) {
        if self[milestone] == nil { self[milestone] = instant }
    }

    /// The value of `metric`: from its start to its end, when both were
    /// reached and the end is no earlier than the start.
    @inlinable
    public func latency(_ metric: LatencyMetric) -> SimDuration? {
        guard let start = self[metric.start], let end = self[metric.end], end >= start else { return nil }
        return end - start
    }

    /// Whether both reached the same milestones at the same times.
    public static func == (lhs: MilestoneTimes, rhs: MilestoneTimes) -> Bool {
        Milestone.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }

    /// Hashes every milestone's time.
    public func hash(into hasher: inout Hasher) {
        for milestone in Milestone.allCases { hasher.combine(self[milestone]) }
    }
}
