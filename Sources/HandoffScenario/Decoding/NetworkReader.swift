import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads the network: limits, profiles, links and their schedules from a scenario file, reporting every problem to
/// its context.
struct NetworkReader {
    let context: DecodingContext

    /// The network object's link between two devices: its key, the
    /// configuration's parameters it sets, and whether it takes a schedule.
    struct PairLinkKey: Sendable {
        let key: String
        let parameters: WritableKeyPath<WorldConfiguration, LinkParameters> & Sendable
        let allowsSchedule: Bool
    }

    /// The network object's links between two devices, in the order they
    /// are read (and listed among the object's keys, ``ScenarioKeys/network``).
    static let pairLinks: [PairLinkKey] = [
        PairLinkKey(key: "wifiPeerToPeer", parameters: \.wifiPeerToPeer, allowsSchedule: true),
        PairLinkKey(key: "bluetooth", parameters: \.bluetooth, allowsSchedule: false),
        PairLinkKey(key: "localNetwork", parameters: \.localNetwork, allowsSchedule: false),
    ]

    func readLimits(_ node: JSONNode, _ path: JSONPath) -> ScenarioLimits? {
        guard let object = context.object(node, path, what: "the limits object", allowed: ScenarioKeys.limits) else {
            return nil
        }
        var limits = ScenarioLimits.defaults
        if let events = object.optional("maxEvents", { context.integer($0, $1, in: 1...InputBounds.maximumEventsPerTrial) }) {
            limits.maxEvents = UInt64(events)
        }
        if let time = object.optional("maxSimulatedTime", { context.duration($0, $1, minimum: .nanoseconds(1)) }) {
            limits.maxSimulatedTime = time
        }
        return limits
    }

    func readNetwork(
        _ node: JSONNode, _ path: JSONPath, world: inout WorldConfiguration,
        configuration: inout HandoffConfiguration, internet: inout NetworkProfile
    ) {
        guard let object = context.object(node, path, what: "the network object", allowed: ScenarioKeys.network) else {
            return
        }
        if let profile = object.optional("profile", { readProfile($0, $1) }) { internet = profile }
        if let fetchPath = object.optional("fetchPath", {
            context.choice($0, $1, what: "path", among: PathKind.allCases.map(\.rawValue))
        }) {
            configuration.fetchPath = PathKind(rawValue: fetchPath)!
        }
        for link in Self.pairLinks {
            if let member = object.member(link.key) {
                world[keyPath: link.parameters] = readLink(
                    member.value, path.key(link.key), base: world[keyPath: link.parameters],
                    allowsSchedule: link.allowsSchedule
                ) ?? world[keyPath: link.parameters]
            }
        }
        if let internetPath = object.optional("internetPath", {
            context.object($0, $1, what: "the internetPath object", allowed: ScenarioKeys.internetPath)
        }) {
            if let member = internetPath.member("uplink") {
                world.internetPath.uplink = readLink(
                    member.value, path.key("internetPath").key("uplink"), base: world.internetPath.uplink
                ) ?? world.internetPath.uplink
            }
            if let member = internetPath.member("downlink") {
                world.internetPath.downlink = readLink(
                    member.value, path.key("internetPath").key("downlink"), base: world.internetPath.downlink
                ) ?? world.internetPath.downlink
            }
        }
        if let member = object.member("transport"),
           let overrides = TransportReader(context: context).readTransport(member.value, path.key("transport"))
        {
            // The same TCP settings for every connection: the fetch (which
            // keeps its own short retry limit), streams, the key exchange.
            do {
                let fetch = try overrides.applied(to: configuration.fetchTransport)
                let stream = try overrides.applied(to: configuration.streamTransport)
                let other = try overrides.applied(to: world.transport)
                configuration.fetchTransport = fetch
                configuration.streamTransport = stream
                world.transport = other
            } catch {
                context.report(path.key("transport"), at: member.value.position, "expected valid transport settings: \(error)")
            }
        }
    }

    func readProfile(_ node: JSONNode, _ path: JSONPath) -> NetworkProfile? {
        let names = NetworkProfile.builtIn.map(\.name)
        guard let name = context.choice(node, path, what: "network profile", among: names) else { return nil }
        return try? NetworkProfile.named(name)
    }

    /// A link's rate spread: a number (σ of a half-normal slowdown) or
    /// `{"logNormal": {"median": m, "sigma": s}}`, where a member left out
    /// keeps `base`'s when `base` is log-normal (so a calibration or a
    /// sensitivity run can set one of them) and is an error otherwise.
    func readRateSpread(_ node: JSONNode, _ path: JSONPath, base: RateSpread) -> RateSpread? {
        let expected = "a σ from 0 to 1 (the rate slowed by e^(−σ|Z|) each trial) or "
            + "{\"logNormal\": {\"median\": 0.12, \"sigma\": 0.5}} (each transfer's extra time over the bandwidth, log-normal)"
        if case .number = node.value {
            return context.number(node, path, in: 0...1, expected: expected).map { .halfNormal($0) }
        }
        guard case .object = node.value,
              let outer = context.object(node, path, what: "a rate spread", allowed: ["logNormal"]) else {
            if case .object = node.value {} else { context.mismatch(node, path, expected: expected) }
            return nil
        }
        // Another key alone was reported as unknown (with "did you mean").
        if !outer.has("logNormal"), !outer.members.isEmpty { return nil }
        return outer.required("logNormal", what: "{\"median\": 0.12, \"sigma\": 0.5}") { node, path in
            guard let inner = context.object(node, path, what: "a log-normal slowdown", allowed: ["median", "sigma"]) else {
                return nil
            }
            var kept: (median: Double, sigma: Double)?
            if case let .logNormal(median, sigma) = base { kept = (median, sigma) }
            func value(_ key: String, _ range: ClosedRange<Double>, _ what: String, _ fallback: Double?) -> Double? {
                if inner.has(key) {
                    return inner.optional(key) { context.number($0, $1, in: range, expected: what) }
                }
                if let fallback { return fallback }
                context.report(path, at: node.position,
                               "missing required key \"\(key)\" (\(what); this link has no log-normal spread by default to keep it from)")
                return nil
            }
            let median = value("median", 0...1, "the median extra time over the bandwidth's, from 0 to 1", kept?.median)
            let sigma = value("sigma", 0...1, "σ of the extra time's logarithm, from 0 to 1", kept?.sigma)
            guard let median, let sigma else { return nil }
            return .logNormal(median: median, sigma: sigma)
        }
    }

    /// Link parameters: `base` with the object's values replacing its own
    /// (`schedule` only where `allowsSchedule`: the peer-to-peer link).
    func readLink(_ node: JSONNode, _ path: JSONPath, base: LinkParameters, allowsSchedule: Bool = false) -> LinkParameters? {
        let keys = allowsSchedule ? ScenarioKeys.peerToPeerLink : ScenarioKeys.link
        guard let object = context.object(node, path, what: "a link object", allowed: keys) else {
            return nil
        }
        var link = base
        if let latency = object.optional("latency", { context.duration($0, $1) }) { link.latency = latency }
        if let jitter = object.optional("jitter", { context.duration($0, $1) }) { link.jitter = jitter }
        if let member = object.member("bandwidth") {
            if case .null = member.value.value {
                link.bandwidth = nil
            } else if case let .string(text) = member.value.value, case let .success(rate) = Quantities.bandwidth(text) {
                if rate.bitsPerSecond < InputBounds.minimumBitsPerSecond {
                    context.report(path.key("bandwidth"), at: member.value.position,
                                   "expected a rate of at least 10kbit/s, found \"\(text)\"")
                } else {
                    link.bandwidth = rate
                }
            } else {
                context.mismatch(member.value, path.key("bandwidth"),
                                 expected: "a rate such as \"54Mbit/s\" or \"256kbit/s\" (units bit/s, kbit/s, Mbit/s, Gbit/s), or null for no limit")
            }
        }
        if let spread = object.optional("bandwidthSpread", { readRateSpread($0, $1, base: base.bandwidthSpread) }) {
            link.bandwidthSpread = spread
        }
        if let loss = object.optional("loss", { readLoss($0, $1, base: base) }) { link.loss = loss }
        if let limit = object.optional("queueLimit", { context.integer($0, $1, in: 0...1_000_000) }) {
            link.queueLimit = Int(limit)
        }
        if let header = object.optional("headerBytes", { context.integer($0, $1, in: 0...65_535) }) {
            link.headerBytes = Int(header)
        }
        if let mtu = object.optional("mtu", { context.integer($0, $1, in: 1...1_000_000) }) {
            if Int(mtu) > link.headerBytes {
                link.mtu = Int(mtu)
            } else {
                context.report(path.key("mtu"), at: object.position(of: "mtu"),
                               "expected an MTU larger than the header (\(link.headerBytes) bytes), found \(mtu)")
            }
        }
        if let list = object.optional("outages", { context.array($0, $1, expected: "an array of outages") }) {
            var outages: [TimeWindow] = []
            for (index, element) in list.enumerated() {
                let elementPath = path.key("outages").index(index)
                guard let window = context.object(element, elementPath, what: "an outage object", allowed: ScenarioKeys.outage),
                    let from = window.required("from", what: "when the outage starts", { context.duration($0, $1) }),
                    let until = window.required("until", what: "when it ends", { context.duration($0, $1) })
                else { continue }
                do {
                    outages.append(try TimeWindow(from: .zero + from, until: .zero + until))
                } catch {
                    context.report(elementPath, at: element.position, "expected an outage that ends after it starts (\(error))")
                }
            }
            link.outages = outages
        }
        if allowsSchedule, let member = object.member("schedule") {
            if case .null = member.value.value {
                link.schedule = nil
            } else {
                link.schedule = readSchedule(member.value, path.key("schedule"), base: base.schedule ?? PeerToPeerSchedule())
                    ?? link.schedule
            }
        }
        return link
    }

    /// An AWDL schedule: `base` with the object's values replacing its own.
    func readSchedule(_ node: JSONNode, _ path: JSONPath, base: PeerToPeerSchedule) -> PeerToPeerSchedule? {
        guard let object = context.object(
            node, path, what: "a schedule object (or null for a link that is always available)",
            allowed: ScenarioKeys.schedule)
        else { return nil }
        var schedule = base
        if let slot = object.optional("slot", { context.duration($0, $1) }) { schedule.slot = slot }
        if let slots = object.optional("slotsPerSequence", { context.integer($0, $1, in: 1...64) }) {
            schedule.slotsPerSequence = Int(slots)
        }
        for (key, keyPath) in [("sharedSlots", \PeerToPeerSchedule.sharedSlots), ("multicastSlots", \.multicastSlots)] {
            if let slots = object.optional(key, { readSlots($0, $1) }) { schedule[keyPath: keyPath] = slots }
        }
        if let presence = object.optional("idlePresence", { context.duration($0, $1) }) { schedule.idlePresence = presence }
        if let interval = object.optional("syncInterval", { context.duration($0, $1) }) { schedule.syncInterval = interval }
        if let start = object.optional("start", {
            context.choice($0, $1, what: "AWDL start", among: PeerToPeerSchedule.Start.allCases.map(\.rawValue))
        }) {
            schedule.start = PeerToPeerSchedule.Start(rawValue: start) ?? schedule.start
        }
        if let activation = object.optional("activation", { context.duration($0, $1) }) { schedule.activation = activation }
        if let interval = object.optional("excursionInterval", { context.duration($0, $1) }) {
            schedule.excursionInterval = interval
        }
        if let duration = object.optional("excursionDuration", { context.duration($0, $1) }) {
            schedule.excursionDuration = duration
        }
        if let away = object.optional("awaySlots", { context.integer($0, $1, in: 0...63) }) { schedule.awaySlots = Int(away) }
        if let idle = object.optional("idleAfter", { context.duration($0, $1) }) { schedule.idleAfter = idle }
        if let absences = object.optional("infrastructureAbsences", { context.integer($0, $1, in: 0...63) }) {
            schedule.infrastructureAbsences = Int(absences)
        }
        do {
            try schedule.validate()
        } catch {
            context.report(path, at: node.position, "expected a valid schedule: \(error)")
            return nil
        }
        return schedule
    }

    /// A list of slot numbers within a sequence (each from 0 to 63; the
    /// schedule's validation checks them against its sequence).
    func readSlots(_ node: JSONNode, _ path: JSONPath) -> PeerToPeerSchedule.Slots? {
        guard let list = context.array(node, path, expected: "an array of slot numbers such as [0, 8, 9, 10]") else {
            return nil
        }
        var slots: [Int] = []
        for (index, element) in list.enumerated() {
            guard let slot = context.integer(element, path.index(index), in: 0...63) else { return nil }
            slots.append(Int(slot))
        }
        return PeerToPeerSchedule.Slots(slots)
    }

    /// A loss model: a probability, `"distance"`, or a burst object.
    func readLoss(_ node: JSONNode, _ path: JSONPath, base: LinkParameters) -> LossModel? {
        let expected = "a loss probability from 0 to 1 (or a percentage), \"distance\", or a burst object {\"goodToBad\", \"badToGood\", \"lossInGood\", \"lossInBad\"}"
        switch node.value {
        case .number:
            guard let probability = context.fraction(node, path) else { return nil }
            return probability > 0 ? .bernoulli(probability) : LossModel.none
        case let .string(text):
            if text == "distance" {
                if case .distance = base.loss { return base.loss }
                return .distance(.bluetoothLowEnergy)
            }
            guard case let .success(probability) = Quantities.percentage(text) else {
                context.mismatch(node, path, expected: expected)
                return nil
            }
            return probability > 0 ? .bernoulli(probability) : LossModel.none
        case .object:
            guard let burst = context.object(node, path, what: "a burst-loss object", allowed: ScenarioKeys.burst),
                let goodToBad = burst.required("goodToBad", what: "the chance per packet of entering the bad state", {
                    context.fraction($0, $1)
                }),
                let badToGood = burst.required("badToGood", what: "the chance per packet of leaving it", {
                    context.fraction($0, $1)
                })
            else { return nil }
            let lossInGood = burst.optional("lossInGood") { context.fraction($0, $1) } ?? 0
            let lossInBad = burst.optional("lossInBad") { context.fraction($0, $1) } ?? 1
            do {
                return .gilbertElliott(try GilbertElliott(
                    goodToBad: goodToBad, badToGood: badToGood, lossInGood: lossInGood, lossInBad: lossInBad))
            } catch {
                context.report(path, at: node.position, "invalid burst loss: \(error)")
                return nil
            }
        case .null, .bool, .array:
            context.mismatch(node, path, expected: expected)
            return nil
        }
    }
}
