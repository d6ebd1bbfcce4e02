import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads the transport and CUBIC settings from a scenario file, reporting every problem to
/// its context.
struct TransportReader {
    let context: DecodingContext

    /// What a transport object changes.
    struct TransportOverrides {
        var congestionControl: CongestionControl?
        var lossDetection: LossDetection?
        var delayedAcknowledgement: SimDuration??
        var initialWindow: Int?
        var window: Int?
        var initialRetransmissionTimeout: SimDuration?
        var minimumRetransmissionTimeout: SimDuration?
        var handshakeRetransmission: HandshakeRetransmission?
        var peerToPeerInitialRetransmissionTimeout: SimDuration?
        var connectTimeout: SimDuration?
        var cubic: CubicOverrides?

        /// `base` with these changes, checked.
        func applied(to base: TransportParameters) throws(WorldError) -> TransportParameters {
            var transport = base
            if let congestionControl { transport.congestionControl = congestionControl }
            if let lossDetection { transport.lossDetection = lossDetection }
            if let delayedAcknowledgement { transport.delayedAcknowledgement = delayedAcknowledgement }
            if let initialWindow { transport.initialWindow = initialWindow }
            if let window { transport.window = window }
            if let initialRetransmissionTimeout { transport.initialRetransmissionTimeout = initialRetransmissionTimeout }
            if let minimumRetransmissionTimeout { transport.minimumRetransmissionTimeout = minimumRetransmissionTimeout }
            if let handshakeRetransmission { transport.handshakeRetransmission = handshakeRetransmission }
            if let peerToPeerInitialRetransmissionTimeout {
                transport.peerToPeerInitialRetransmissionTimeout = peerToPeerInitialRetransmissionTimeout
            }
            if let connectTimeout { transport.connectTimeout = connectTimeout }
            if let cubic { transport.cubic = cubic.applied(to: transport.cubic) }
            try transport.validate()
            return transport
        }
    }

    /// What a transport object's `cubic` object changes: a preset first,
    /// then each constant given.
    struct CubicOverrides {
        var preset: CubicParameters?
        var constant: Double?
        var beta: Double?
        var fastConvergence: Bool?
        var renoFriendly: Bool?
        var roundTrip: CubicParameters.RoundTrip?
        var reductionBase: CubicParameters.ReductionBase?

        /// `base` with these changes.
        func applied(to base: CubicParameters) -> CubicParameters {
            var cubic = preset ?? base
            if let constant { cubic.constant = constant }
            if let beta { cubic.beta = beta }
            if let fastConvergence { cubic.fastConvergence = fastConvergence }
            if let renoFriendly { cubic.renoFriendly = renoFriendly }
            if let roundTrip { cubic.roundTrip = roundTrip }
            if let reductionBase { cubic.reductionBase = reductionBase }
            return cubic
        }
    }

    /// The CUBIC presets a scenario names, with their constants.
    static let cubicPresets: [(name: String, parameters: CubicParameters)] = [("xnu", .xnu), ("rfc9438", .rfc9438)]

    /// A loss detection's name in scenario files.
    static func scenarioName(of detection: LossDetection) -> String {
        switch detection {
        case .rackTailLossProbe: "rack"
        case .duplicateThreshold: "duplicateThreshold"
        }
    }

    /// CUBIC's constants: `{"preset": "xnu" | "rfc9438", "constant": C,
    /// "beta": β, "fastConvergence", "renoFriendly", "roundTrip",
    /// "reductionBase"}`, every key optional.
    func readCubic(_ node: JSONNode, _ path: JSONPath) -> CubicOverrides? {
        guard let object = context.object(node, path, what: "a CUBIC object", allowed: ScenarioKeys.cubic) else {
            return nil
        }
        var overrides = CubicOverrides()
        if let name = object.optional("preset", {
            context.choice($0, $1, what: "CUBIC preset", among: Self.cubicPresets.map(\.name))
        }), let preset = Self.cubicPresets.first(where: { $0.name == name }) {
            overrides.preset = preset.parameters
        }
        overrides.constant = object.optional("constant", {
            context.number($0, $1, in: 0.01...100, expected: "C, a number from 0.01 to 100 (segments per second cubed)")
        })
        overrides.beta = object.optional("beta", {
            context.number($0, $1, in: 0.1...0.95, expected: "β, the share of the window kept on a loss, from 0.1 to 0.95")
        })
        overrides.fastConvergence = object.optional("fastConvergence", { context.bool($0, $1) })
        overrides.renoFriendly = object.optional("renoFriendly", { context.bool($0, $1) })
        if let name = object.optional("roundTrip", {
            context.choice($0, $1, what: "CUBIC round trip", among: CubicParameters.RoundTrip.allCases.map(\.rawValue))
        }) {
            overrides.roundTrip = CubicParameters.RoundTrip(rawValue: name)
        }
        if let name = object.optional("reductionBase", {
            context.choice($0, $1, what: "CUBIC reduction base", among: CubicParameters.ReductionBase.allCases.map(\.rawValue))
        }) {
            overrides.reductionBase = CubicParameters.ReductionBase(rawValue: name)
        }
        return overrides
    }

    /// The TCP settings a transport object changes.
    func readTransport(_ node: JSONNode, _ path: JSONPath) -> TransportOverrides? {
        guard let object = context.object(node, path, what: "a transport object", allowed: ScenarioKeys.transport) else {
            return nil
        }
        var overrides = TransportOverrides()
        if let name = object.optional("congestionControl", {
            context.choice($0, $1, what: "congestion control", among: CongestionControl.allCases.map(\.rawValue))
        }) {
            overrides.congestionControl = CongestionControl(rawValue: name)
        }
        if let name = object.optional("lossDetection", {
            context.choice($0, $1, what: "loss detection", among: LossDetection.allCases.map(Self.scenarioName))
        }) {
            overrides.lossDetection = LossDetection.allCases.first { Self.scenarioName(of: $0) == name }
        }
        if let member = object.member("delayedAcknowledgement") {
            if case .null = member.value.value {
                overrides.delayedAcknowledgement = .some(nil)
            } else if let delay = context.duration(member.value, path.key("delayedAcknowledgement"), minimum: .nanoseconds(1)) {
                overrides.delayedAcknowledgement = .some(delay)
            }
        }
        if let segments = object.optional("initialWindow", { context.integer($0, $1, in: 1...1_000) }) {
            overrides.initialWindow = Int(segments)
        }
        if let window = object.optional("window", { context.bytes($0, $1, minimum: 1, maximum: 1 << 30, maximumText: "1 GiB") }) {
            overrides.window = window
        }
        if let timeout = object.optional("initialRetransmissionTimeout", { context.duration($0, $1, minimum: .nanoseconds(1)) }) {
            overrides.initialRetransmissionTimeout = timeout
        }
        if let timeout = object.optional("minimumRetransmissionTimeout", { context.duration($0, $1, minimum: .nanoseconds(1)) }) {
            overrides.minimumRetransmissionTimeout = timeout
        }
        if let name = object.optional("handshakeRetransmission", {
            context.choice($0, $1, what: "handshake retransmission", among: HandshakeRetransmission.allCases.map(\.rawValue))
        }) {
            overrides.handshakeRetransmission = HandshakeRetransmission(rawValue: name)
        }
        if let timeout = object.optional("peerToPeerInitialRetransmissionTimeout", {
            context.duration($0, $1, minimum: .nanoseconds(1))
        }) {
            overrides.peerToPeerInitialRetransmissionTimeout = timeout
        }
        if let timeout = object.optional("connectTimeout", { context.duration($0, $1, minimum: .nanoseconds(1)) }) {
            overrides.connectTimeout = timeout
        }
        if let member = object.member("cubic") {
            overrides.cubic = readCubic(member.value, path.key("cubic"))
        }
        return overrides
    }
}
