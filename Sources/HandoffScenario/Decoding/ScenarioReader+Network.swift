import Handoff
import HandoffWorld
import SimKernel

/// Reading a scenario file: limits, network, protocol.
extension ScenarioReader {
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
        if let member = object.member("wifiPeerToPeer") {
            world.wifiPeerToPeer = readLink(
                member.value, path.key("wifiPeerToPeer"), base: world.wifiPeerToPeer, allowsSchedule: true
            ) ?? world.wifiPeerToPeer
        }
        if let member = object.member("bluetooth") {
            world.bluetooth = readLink(member.value, path.key("bluetooth"), base: world.bluetooth) ?? world.bluetooth
        }
        if let member = object.member("localNetwork") {
            world.localNetwork = readLink(member.value, path.key("localNetwork"), base: world.localNetwork)
                ?? world.localNetwork
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
           let overrides = readTransport(member.value, path.key("transport"))
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

    /// What a transport object changes.
    struct TransportOverrides {
        var congestionControl: CongestionControl?
        var lossDetection: LossDetection?
        var delayedAcknowledgement: SimDuration??
        var initialWindow: Int?
        var window: Int?
        var initialRetransmissionTimeout: SimDuration?
        var minimumRetransmissionTimeout: SimDuration?
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

    /// CUBIC's constants: `{"preset": "xnu" | "rfc9438", "constant": C,
    /// "beta": β, "fastConvergence", "renoFriendly", "roundTrip",
    /// "reductionBase"}`, every key optional.
    func readCubic(_ node: JSONNode, _ path: JSONPath) -> CubicOverrides? {
        guard let object = context.object(node, path, what: "a CUBIC object", allowed: ScenarioKeys.cubic) else {
            return nil
        }
        var overrides = CubicOverrides()
        if let name = object.optional("preset", {
            context.choice($0, $1, what: "CUBIC preset", among: ["xnu", "rfc9438"])
        }) {
            overrides.preset = name == "xnu" ? .xnu : .rfc9438
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
            context.choice($0, $1, what: "loss detection", among: ["rack", "duplicateThreshold"])
        }) {
            overrides.lossDetection = name == "rack" ? .rackTailLossProbe : .duplicateThreshold
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
        if let member = object.member("cubic") {
            overrides.cubic = readCubic(member.value, path.key("cubic"))
        }
        return overrides
    }

    func readProfile(_ node: JSONNode, _ path: JSONPath) -> NetworkProfile? {
        let names = NetworkProfile.builtIn.map(\.name)
        guard let name = context.choice(node, path, what: "network profile", among: names) else { return nil }
        return try? NetworkProfile.named(name)
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
        if let spread = object.optional("bandwidthSpread", {
            context.number($0, $1, in: 0...1, expected: "a σ from 0 to 1 (the spread of the logarithm of each trial's rate)")
        }) {
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
        default:
            context.mismatch(node, path, expected: expected)
            return nil
        }
    }

    func readProtocol(_ node: JSONNode, _ path: JSONPath, configuration: inout HandoffConfiguration) {
        guard let object = context.object(node, path, what: "the protocol object", allowed: ScenarioKeys.protocolKeys)
        else { return }
        if let value = object.optional("fetchTimeout", { context.duration($0, $1, minimum: .nanoseconds(1)) }) {
            configuration.fetchTimeout = value
        }
        if let value = object.optional("payloadTimerExtra", { context.duration($0, $1) }) {
            configuration.payloadTimerExtra = value
        }
        if let value = object.optional("userInfoLimit", { context.bytes($0, $1, minimum: 1) }) {
            configuration.userInfoLimit = value
        }
        if let value = object.optional("userInfoRecommendedLimit", { context.bytes($0, $1) }) {
            configuration.userInfoRecommendedLimit = value
        }
        if let value = object.optional("saveWait", { context.duration($0, $1) }) {
            configuration.saveWait = value
        }
        if let value = object.optional("sourceSaveTime", { context.durationDistribution($0, $1) }) {
            configuration.sourceSaveTime = value
        }
        if let rapport = object.optional("rapport", { context.object($0, $1, what: "the rapport object", allowed: ScenarioKeys.rapport) }) {
            readRapport(rapport, into: &configuration.rapport)
        }
        if let relay = object.optional("relay", {
            context.object($0, $1, what: "the relay object", allowed: ScenarioKeys.relay)
        }) {
            if let value = relay.optional("delay", { context.durationDistribution($0, $1) }) {
                configuration.relay.delay = value
            }
            if let value = relay.optional("inlineLimit", { context.bytes($0, $1, maximum: 16 << 20, maximumText: "16 MiB") }) {
                configuration.relay.inlineLimit = value
            }
            if let value = relay.optional("noticeBytes", { context.bytes($0, $1, maximum: 1 << 20, maximumText: "1 MiB") }) {
                configuration.relay.noticeBytes = value
            }
        }
        if let coding = object.optional("coding", {
            context.object($0, $1, what: "the coding object", allowed: ScenarioKeys.coding)
        }) {
            for (key, keyPath) in [("encodeRate", \PayloadCoding.encodeRate), ("decodeRate", \PayloadCoding.decodeRate)] {
                guard let member = coding.member(key) else { continue }
                if case .null = member.value.value {
                    configuration.coding[keyPath: keyPath] = nil
                } else if case let .string(text) = member.value.value, case let .success(rate) = Quantities.bandwidth(text),
                   rate.bitsPerSecond >= 1_000_000
                {
                    configuration.coding[keyPath: keyPath] = rate
                } else {
                    context.mismatch(member.value, path.key("coding").key(key),
                                     expected: "a rate of at least 1Mbit/s such as \"320Mbit/s\" (units bit/s, kbit/s, Mbit/s, Gbit/s), or null for no cost")
                }
            }
        }
        if let policy = object.optional("advertising", {
            context.object($0, $1, what: "the advertising object", allowed: ScenarioKeys.advertising)
        }) {
            let delays: [(String, WritableKeyPath<AdvertisingPolicy, SimDuration>)] = [
                ("removalAfterLock", \.removalAfterLock), ("removalAfterDim", \.removalAfterDim),
                ("removalAfterIdle", \.removalAfterIdle), ("resumeWindow", \.resumeWindow),
                ("minimumUpdateInterval", \.minimumUpdateInterval), ("updateWindow", \.updateWindow),
                ("minimumLife", \.minimumLife),
            ]
            for (key, keyPath) in delays {
                if let value = policy.optional(key, { context.duration($0, $1) }) {
                    configuration.advertising[keyPath: keyPath] = value
                }
            }
            let positive: [(String, WritableKeyPath<AdvertisingPolicy, SimDuration>)] = [
                ("userIdleAfter", \.userIdleAfter), ("activePayloadUpdateInterval", \.activePayloadUpdateInterval),
                ("lostDeviceGrace", \.lostDeviceGrace), ("scanStopAfterLoss", \.scanStopAfterLoss),
            ]
            for (key, keyPath) in positive {
                if let value = policy.optional(key, { context.duration($0, $1, minimum: .nanoseconds(1)) }) {
                    configuration.advertising[keyPath: keyPath] = value
                }
            }
            let advertising = configuration.advertising
            if advertising.scanStopAfterLoss < advertising.lostDeviceGrace {
                let key = policy.member("scanStopAfterLoss") != nil ? "scanStopAfterLoss" : "lostDeviceGrace"
                context.report(
                    path.key("advertising").key(key), at: policy.position(of: key),
                    "expected scanStopAfterLoss (\(advertising.scanStopAfterLoss)) of at least lostDeviceGrace "
                        + "(\(advertising.lostDeviceGrace)): the scan stops after the device is removed")
            }
            if let value = policy.optional("maximumUpdatesPerWindow", { context.integer($0, $1, in: 1...64) }) {
                configuration.advertising.maximumUpdatesPerWindow = Int(value)
            }
        }
        if let exchange = object.optional("keyExchange", {
            context.object($0, $1, what: "the keyExchange object", allowed: ScenarioKeys.keyExchange)
        }) {
            if let value = exchange.optional("firstContact", { context.bool($0, $1) }) {
                configuration.keyExchange.firstContact = value
            }
            if let value = exchange.optional("requestBytes", { context.bytes($0, $1, maximum: 1 << 20, maximumText: "1 MiB") }) {
                configuration.keyExchange.requestBytes = value
            }
            if let value = exchange.optional("answerBytes", { context.bytes($0, $1, maximum: 1 << 20, maximumText: "1 MiB") }) {
                configuration.keyExchange.answerBytes = value
            }
            if let value = exchange.optional("timeout", { context.duration($0, $1, minimum: .nanoseconds(1)) }) {
                configuration.keyExchange.timeout = value
            }
            if let value = exchange.optional("retryHold", { context.duration($0, $1) }) {
                configuration.keyExchange.retryHold = value
            }
            if let value = exchange.optional("overCloud", { context.bool($0, $1) }) {
                configuration.keyExchange.overCloud = value
            }
        }
        if let value = object.optional("requestBytes", { context.bytes($0, $1, minimum: 1) }) {
            configuration.requestBytes = value
        }
        if let value = object.optional("envelopeBytes", { context.bytes($0, $1) }) {
            configuration.envelopeBytes = value
        }
        if let value = object.optional("noticeBytes", { context.bytes($0, $1, minimum: 1) }) {
            configuration.noticeBytes = value
        }
        if let value = object.optional("browserLaunch", { context.durationDistribution($0, $1) }) {
            configuration.browserLaunch = value
        }
        if let policy = object.optional("acceptance", { readAcceptance($0, $1) }) {
            configuration.defaultAcceptance = policy
        }
    }

    /// The `rapport` object's settings.
    func readRapport(_ object: ObjectReader, into rapport: inout RapportParameters) {
        let sizes: [(String, WritableKeyPath<RapportParameters, Int>)] = [
            ("resolveQueryBytes", \.resolveQueryBytes), ("resolveAnswerBytes", \.resolveAnswerBytes),
            ("systemInfoRequestBytes", \.systemInfoRequestBytes), ("systemInfoAnswerBytes", \.systemInfoAnswerBytes),
            ("frameHeaderBytes", \.frameHeaderBytes), ("frameTagBytes", \.frameTagBytes),
        ]
        for (key, keyPath) in sizes {
            if let value = object.optional(key, { context.bytes($0, $1, maximum: 1 << 20, maximumText: "1 MiB") }) { rapport[keyPath: keyPath] = value }
        }
        if let list = object.optional("pairVerifyBytes", { context.array($0, $1, expected: "an array of 4 sizes, M1 to M4") }) {
            let path = object.path.key("pairVerifyBytes")
            if list.count != 4 {
                context.report(path, at: object.position(of: "pairVerifyBytes"),
                               "expected an array of 4 sizes, M1 to M4, found \(list.count) elements")
            } else {
                let sizes = list.enumerated().compactMap { context.bytes($0.element, path.index($0.offset), maximum: 1 << 20, maximumText: "1 MiB") }
                if sizes.count == 4 { rapport.pairVerifyBytes = sizes }
            }
        }
        if let value = object.optional("resolveRetryInterval", { context.duration($0, $1, minimum: .milliseconds(1)) }) {
            rapport.resolveRetryInterval = value
        }
        if let value = object.optional("resolveCached", { context.bool($0, $1) }) { rapport.resolveCached = value }
        if let value = object.optional("cachedResolveTime", { context.duration($0, $1) }) {
            if value <= .seconds(10) {
                rapport.cachedResolveTime = value
            } else {
                context.report(object.path.key("cachedResolveTime"), at: object.position(of: "cachedResolveTime"),
                               "expected a duration from 0 to 10s, found \(value)")
            }
        }
        if let value = object.optional("processing", { context.durationDistribution($0, $1) }) {
            rapport.processing = value
        }
        if let value = object.optional("requestTimeoutCap", { context.duration($0, $1, minimum: .nanoseconds(1)) }) {
            rapport.requestTimeoutCap = value
        }
        if let value = object.optional("cloudFallback", { context.bool($0, $1) }) {
            rapport.cloudFallback = value
        }
    }

    /// `"explicit"`, `{"after": "500ms"}` or `{"thinkTime": {"mean", "standardDeviation"}}`.
    func readAcceptance(_ node: JSONNode, _ path: JSONPath) -> AcceptancePolicy? {
        let expected = "\"explicit\", {\"after\": \"500ms\"} or {\"thinkTime\": {\"mean\": \"2s\", \"standardDeviation\": \"1s\"}}"
        switch node.value {
        case .string:
            guard context.choice(node, path, what: "acceptance", among: ["explicit"]) != nil else { return nil }
            return .explicit
        case .object:
            guard let object = context.object(node, path, what: "an acceptance object", allowed: ["after", "thinkTime"])
            else { return nil }
            if let delay = object.optional("after", { context.duration($0, $1) }) { return .after(delay) }
            if let think = object.member("thinkTime") {
                let thinkPath = path.key("thinkTime")
                guard let parameters = context.object(think.value, thinkPath, what: "a think-time object",
                                                      allowed: ScenarioKeys.thinkTime),
                    let mean = parameters.required("mean", what: "the mean think time", {
                        context.duration($0, $1, minimum: .nanoseconds(1))
                    }),
                    let deviation = parameters.required("standardDeviation", what: "its standard deviation", {
                        context.duration($0, $1)
                    })
                else { return nil }
                return .thinkTime(meanSeconds: mean.seconds, standardDeviationSeconds: deviation.seconds)
            }
            if !object.has("after") { context.mismatch(node, path, expected: expected) }
            return nil
        default:
            context.mismatch(node, path, expected: expected)
            return nil
        }
    }
}
