import SimKernel

/// Where the time between the user's accept and the app's `continue` went
/// in one trial: the critical path of accept → continue cut into phases
/// that add up to it exactly, to the nanosecond.
///
/// After the accept, the app launches while the payload is fetched; the app
/// continues when both are done. The critical path is the later of the
/// two: when the app was ready last, the budget is its ``Phase/launch`` and
/// ``Phase/willContinue``; when the payload was last, it is the fetch's
/// phases, from the resolve to the decode, and the launch is not on it.
///
/// ```swift
/// let budget = run.summary(of: activity, on: "ipad")?.budget
/// budget?[.transfer]   // the payload's time on the wire
/// budget?.total        // == accept → continue
/// ```
public struct LatencyBudget: Hashable, Sendable {
    /// A phase of accept → continue, in the order the critical path goes
    /// through them.
    public enum Phase: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        /// The app's launch, cold or warm (or the browser's), when the app
        /// was ready after the payload.
        case launch
        /// The app's `willContinue` callback, until it returned.
        case willContinue
        /// Rapport's attempt that gave up (its request timeout, or its
        /// connection failing) before the fetch went over the cloud relay.
        case rapportGaveUp
        /// Finding the source: the Bonjour resolve of its Rapport service
        /// (over peer-to-peer this includes switching AWDL on, the
        /// synchronisation and the waits for the slots multicast may use),
        /// or the cached answer.
        case resolve
        /// Setting up the fetch's connection: TCP's handshake (over the
        /// relay, the already open connection to the servers).
        case connect
        /// Pair-Verify's four messages (Rapport only).
        case pairVerify
        /// Rapport's `_systemInfo` exchange, until the request leaves.
        case systemInfo
        /// The request's travel to the source (the relay's delay apart).
        case request
        /// The source app's update of the activity (`userActivityWillSave`,
        /// `updateUserActivityState`, up to the save wait) and the system's
        /// save.
        case sourceUpdate
        /// Encoding and sealing the payload on the source.
        case encode
        /// The cloud relay's own delay (server processing and push
        /// delivery), on the request and on the payload.
        case relay
        /// The payload's transfer to the receiver, with its retransmission
        /// waits (the relay's delay apart; a stored payload's download
        /// included).
        case transfer
        /// Decoding and opening the payload on the receiver.
        case decode

        /// The phase's name in JSON and command lines: `pairVerify`, ….
        public var description: String {
            switch self {
            case .launch: return "launch"
            case .willContinue: return "willContinue"
            case .rapportGaveUp: return "rapportGaveUp"
            case .resolve: return "resolve"
            case .connect: return "connect"
            case .pairVerify: return "pairVerify"
            case .systemInfo: return "systemInfo"
            case .request: return "request"
            case .sourceUpdate: return "sourceUpdate"
            case .encode: return "encode"
            case .relay: return "relay"
            case .transfer: return "transfer"
            case .decode: return "decode"
            }
        }

        /// The phase in words, as reports and charts label it.
        public var label: String {
            switch self {
            case .launch: return "app launch"
            case .willContinue: return "willContinue"
            case .rapportGaveUp: return "Rapport gave up"
            case .resolve: return "resolve"
            case .connect: return "TCP connect"
            case .pairVerify: return "Pair-Verify"
            case .systemInfo: return "_systemInfo"
            case .request: return "request"
            case .sourceUpdate: return "source update"
            case .encode: return "encode"
            case .relay: return "relay delay"
            case .transfer: return "transfer"
            case .decode: return "decode"
            }
        }

        /// The phase's column in `--samples`: `phase_pair_verify_ns`, ….
        public var csvName: String {
            var snake = "phase_"
            for character in description {
                if character.isUppercase {
                    snake += "_" + character.lowercased()
                } else {
                    snake.append(character)
                }
            }
            return snake + "_ns"
        }
    }

    /// Nanoseconds per phase, by raw value.
    @usableFromInline var storage: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64,
                                    Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64)
    /// The room in ``storage``: at least as many phases as there are.
    static let capacity = 16

    /// A budget with no time in any phase.
    public init() {
        storage = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// The time spent in `phase` (zero when the critical path does not go
    /// through it).
    public subscript(phase: Phase) -> SimDuration {
        @inlinable get {
            .nanoseconds(withUnsafeBytes(of: storage) { $0.load(fromByteOffset: phase.rawValue * 8, as: Int64.self) })
        }
        set {
            withUnsafeMutableBytes(of: &storage) {
                $0.storeBytes(of: newValue.nanoseconds, toByteOffset: phase.rawValue * 8, as: Int64.self)
            }
        }
    }

    /// The sum of every phase: accept → continue.
    public var total: SimDuration {
        var sum = SimDuration.zero
        for phase in Phase.allCases { sum += self[phase] }
        return sum
    }

    /// Whether both give every phase the same time.
    public static func == (lhs: LatencyBudget, rhs: LatencyBudget) -> Bool {
        Phase.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }

    /// Hashes every phase's time.
    public func hash(into hasher: inout Hasher) {
        for phase in Phase.allCases { hasher.combine(self[phase].nanoseconds) }
    }
}
