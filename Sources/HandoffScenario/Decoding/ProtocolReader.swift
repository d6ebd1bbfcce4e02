import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads the continuity protocol's settings and acceptance from a scenario file, reporting every problem to
/// its context.
struct ProtocolReader {
    let context: DecodingContext

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
        if let value = object.optional("resolveHoldBack", { context.durationDistribution($0, $1) }) {
            rapport.resolveHoldBack = value
        }
        if let value = object.optional("resolveRetryInterval", { context.duration($0, $1, minimum: .milliseconds(1)) }) {
            if value <= RapportParameters.longestResolveRetry {
                rapport.resolveRetryInterval = value
            } else {
                context.report(object.path.key("resolveRetryInterval"), at: object.position(of: "resolveRetryInterval"),
                               "expected a duration from 1ms to 1h, found \(value)")
            }
        }
        if let value = object.optional("resolveRetryFactor", { context.integer($0, $1, in: 1...16) }) {
            rapport.resolveRetryFactor = Int(value)
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
    /// " (did you mean …?)" for an acceptance written as a string: the
    /// object form for a delay written in words (`"after 1s"`, `"1s"`), or
    /// `"explicit"` for a misspelling of it; nothing otherwise.
    func acceptanceSuggestion(_ text: String) -> String {
        var delay = text.drop { $0 == " " }
        if delay.lowercased().hasPrefix("after") { delay = delay.dropFirst("after".count) }
        delay = delay.drop { $0 == " " || $0 == ":" || $0 == "=" }
        while delay.last == " " { delay = delay.dropLast() }
        if !delay.isEmpty, case .success = Quantities.duration(String(delay)) {
            return " (did you mean {\"after\": \"\(delay)\"}?)"
        }
        return context.didYouMean(text, among: ["explicit"])
    }

    func readAcceptance(_ node: JSONNode, _ path: JSONPath) -> AcceptancePolicy? {
        let expected = "\"explicit\", {\"after\": \"500ms\"} or {\"thinkTime\": {\"mean\": \"2s\", \"standardDeviation\": \"1s\"}}"
        switch node.value {
        case let .string(text):
            guard text == "explicit" else {
                context.report(path, at: node.position,
                               "unknown acceptance \(context.found(node)); expected \(expected)" + acceptanceSuggestion(text))
                return nil
            }
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
        case .null, .bool, .number, .array:
            context.mismatch(node, path, expected: expected)
            return nil
        }
    }
}
