import Handoff
import HandoffWorld
import SimKernel

/// Reads scenario files: JSON in, a validated ``Scenario`` or every problem
/// found out.
///
/// Decoding never stops at the first problem: it reads on, skipping only
/// what depends on a value already reported, so one run shows everything
/// to fix. A file with any problem yields no scenario, so nothing of it
/// runs.
public enum ScenarioDecoder {
    /// The account devices are signed in to when the file does not say.
    public static let defaultAccount = "user@icloud.com"
    /// The walking speed of a `move` that gives none, in metres per second.
    public static let defaultWalkingSpeed = 1.4
    /// The trials of a scenario that does not say.
    public static let defaultTrials = 100
    /// The most trials a scenario may ask for.
    public static let maximumTrials = 10_000_000

    /// Decodes the scenario in `bytes`, naming it `file` in problems.
    public static func decode(_ bytes: [UInt8], file: String) -> Result<Scenario, ScenarioProblems> {
        let context = DecodingContext(file: file)
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            let problem = ScenarioProblem(
                file: file, path: "$", position: error.position, message: "malformed JSON: \(error.message)")
            return .failure(ScenarioProblems(problems: [problem]))
        }
        let decoded = ScenarioReader(context: context, digest: SHA256.hexDigest(of: bytes)).read(root)
        if let decoded, context.problems.isEmpty { return .success(decoded) }
        return .failure(ScenarioProblems(problems: context.sortedProblems))
    }
}

/// The keys of each object in a scenario file, in documentation order.
enum ScenarioKeys {
    static let top = [
        "$schema", "name", "description", "seed", "trials", "duration", "limits", "network", "protocol", "apps",
        "siteAssociations", "devices", "activity", "activities", "timeline", "expect",
    ]
    static let limits = ["maxEvents", "maxSimulatedTime"]
    static let network = ["profile", "fetchPath", "wifiPeerToPeer", "bluetooth"]
    static let link = ["latency", "jitter", "bandwidth", "loss", "queueLimit", "mtu", "headerBytes", "outages"]
    static let burst = ["goodToBad", "badToGood", "lossInGood", "lossInBad"]
    static let outage = ["from", "until"]
    static let protocolKeys = [
        "fetchTimeout", "userInfoLimit", "requestBytes", "envelopeBytes", "noticeBytes", "browserLaunch",
        "acceptance",
    ]
    static let app = [
        "bundleID", "teamID", "platforms", "activityTypes", "associatedDomains", "documentTypes", "coldLaunch",
        "warmLaunch", "behaviour",
    ]
    static let documentType = ["name", "contentTypes", "ubiquitousActivityType"]
    static let behaviour = [
        "willContinueTime", "notifiesUser", "continueTime", "handlesContinuation", "restorableObjects",
        "restoreDelay", "restoreTime", "saveTime", "saveEntries", "responderEntries", "streamRounds",
        "streamResponseTime",
    ]
    static let streamRound = ["request", "response"]
    static let device = [
        "name", "kind", "os", "account", "apps", "position", "handoff", "bluetooth", "wifi", "internet",
        "internetAccess", "acceptance",
    ]
    static let thinkTime = ["mean", "standardDeviation"]
    static let activity = [
        "name", "device", "app", "type", "title", "userInfo", "payloadSize", "webpageURL",
        "supportsContinuationStreams", "requiredUserInfoKeys", "needsSave", "eligibleForHandoff", "expiresAfter",
        "documentPath", "responders",
    ]
    static let timeline = ["at", "action", "activity", "device", "account", "value", "entries", "to", "speed"]
    static let timelineActions = [
        "becomeCurrent", "resignCurrent", "invalidate", "setNeedsSave", "addUserInfoEntries",
        "setEligibleForHandoff", "accept", "signIn", "signOut", "bluetoothOff", "bluetoothOn", "wifiOff", "wifiOn",
        "handoffOff", "handoffOn", "move",
    ]
    static let expectationKinds = ["outcome", "successRate", "error", "notOffered", "callbacks", "events", "latency"]
    static let expectation = expectationKinds + [
        "on", "activity", "atLeast", "atMost", "percentile", "below", "above",
    ]
}

/// The app-facing callbacks and calls a `callbacks` expectation may list,
/// as the trace names them.
public let scenarioCallbackNames = [
    "willContinueUserActivity", "continueUserActivity", "restoreUserActivityState",
    "didFailToContinueUserActivity", "userActivityWillSave", "updateUserActivityState",
    "userActivityWasContinued", "getContinuationStreams", "continuationStreamsOpened",
    "continuationStreamsFailed", "didReceiveInputStream", "continuationStreamResponse",
]

/// Reads one file's root object into a scenario.
struct ScenarioReader {
    let context: DecodingContext
    let digest: String

    /// One device as read, before moves become its mobility.
    struct DeviceDraft {
        var description: DeviceDescription
        let path: JSONPath
        var moves: [(time: SimDuration, to: Position, speed: Double, path: JSONPath, position: SourcePosition)] = []
    }

    func read(_ root: JSONNode) -> Scenario? {
        let root_ = JSONPath()
        guard let top = context.object(root, root_, what: "a scenario object", allowed: ScenarioKeys.top) else {
            return nil
        }
        let name = top.optional("name") { context.nonEmptyString($0, $1) } ?? defaultName()
        let summary = top.optional("description") { context.string($0, $1) }
        let seed = top.optional("seed") { context.integer($0, $1, in: 0...Int64.max) }.map(UInt64.init) ?? 1
        let trials = top.optional("trials") {
            context.integer($0, $1, in: 1...Int64(ScenarioDecoder.maximumTrials))
        }.map(Int.init) ?? ScenarioDecoder.defaultTrials
        let limits = top.optional("limits") { readLimits($0, $1) } ?? .defaults
        let duration = top.optional("duration") { context.duration($0, $1, minimum: .nanoseconds(1)) }
        if let duration, duration > limits.maxSimulatedTime {
            context.report(root_.key("duration"), at: top.position(of: "duration"),
                           "expected a duration within the simulated-time limit (\(limits.maxSimulatedTime)), found \"\(duration)\"")
        }

        var world = WorldConfiguration()
        var configuration = HandoffConfiguration()
        var internet = NetworkProfile.wifi
        if let network = top.member("network") {
            readNetwork(network.value, root_.key("network"), world: &world, configuration: &configuration,
                        internet: &internet)
        }
        if let protocolMember = top.member("protocol") {
            readProtocol(protocolMember.value, root_.key("protocol"), configuration: &configuration)
        }

        var apps: [AppDescription] = []
        var behaviours: [(String, AppBehaviour)] = []
        if let list = top.required("apps", what: "the apps, an array", { context.array($0, $1, expected: "an array of apps") }) {
            for (index, node) in list.enumerated() {
                guard let (app, behaviour) = readApp(node, root_.key("apps").index(index)) else { continue }
                if apps.contains(where: { $0.bundleID == app.bundleID }) {
                    context.report(root_.key("apps").index(index).key("bundleID"), at: node.member("bundleID")?.value.position,
                                   "duplicate app \"\(app.bundleID)\"")
                    continue
                }
                apps.append(app)
                behaviours.append((app.bundleID, behaviour))
            }
        }
        // References are checked against every name the file declares, valid
        // or not, so one bad app or device is reported once, not again at
        // every use.
        let bundleIDs = declaredNames(top.member("apps")?.value, key: "bundleID")
        let siteAssociations = top.optional("siteAssociations") { readSiteAssociations($0, $1) } ?? SiteAssociations()

        let problemsBeforeDevices = context.problems.count
        var drafts: [DeviceDraft] = []
        if let list = top.required("devices", what: "the devices, an array", {
            context.array($0, $1, expected: "an array of devices")
        }) {
            for (index, node) in list.enumerated() {
                let path = root_.key("devices").index(index)
                guard let description = readDevice(node, path, bundleIDs: bundleIDs, internet: internet,
                                                   configuration: &configuration)
                else { continue }
                if drafts.contains(where: { $0.description.name == description.name }) {
                    context.report(path.key("name"), at: node.member("name")?.value.position,
                                   "duplicate device \"\(description.name)\"")
                    continue
                }
                drafts.append(DeviceDraft(description: description, path: path))
            }
            if list.count < 2, context.problems.isEmpty {
                context.report(root_.key("devices"), at: top.position(of: "devices"),
                               "expected at least two devices (a source and a receiver), found \(list.count)")
            }
        }
        let deviceNames = declaredNames(top.member("devices")?.value, key: "name")
        let devicesClean = context.problems.count == problemsBeforeDevices

        let problemsBeforeActivities = context.problems.count
        let activities = readActivities(top, root_, apps: apps, bundleIDs: bundleIDs, deviceNames: deviceNames,
                                        drafts: drafts)
        let activitiesClean = context.problems.count == problemsBeforeActivities
        let activityNames = activities.map(\.name)
        let timeline = top.optional("timeline") {
            readTimeline($0, $1, activities: activityNames, deviceNames: deviceNames, drafts: &drafts, limits: limits)
        } ?? []
        let expectations = top.optional("expect") {
            readExpectations($0, $1, activities: activities, deviceNames: deviceNames,
                             canInferReceiver: devicesClean && activitiesClean)
        } ?? []
        if !top.has("expect") {
            context.report(root_, at: root.position,
                           "missing required key \"expect\" (the expectations, an array; a scenario that expects nothing checks nothing)")
        }

        var devices: [DeviceDescription] = []
        for draft in drafts {
            var description = draft.description
            if let mobility = mobility(of: draft) { description.mobility = mobility }
            devices.append(description)
        }
        guard context.problems.isEmpty else { return nil }
        let setup = HandoffSetup(
            devices: devices, apps: apps, siteAssociations: siteAssociations, world: world,
            configuration: configuration)
        return Scenario(
            file: context.file, name: name, summary: summary, seed: seed, trials: trials, limits: limits,
            duration: duration, setup: setup, behaviours: behaviours.map { (bundleID: $0.0, behaviour: $0.1) }, activities: activities,
            timeline: timeline, expectations: expectations, digest: digest)
    }

    /// The `key` strings of the objects in `list` (an array node), in order:
    /// the names the file declares, whatever else is wrong with them.
    func declaredNames(_ list: JSONNode?, key: String) -> [String] {
        guard let list, case let .array(elements) = list.value else { return [] }
        return elements.compactMap { element in
            guard case let .string(name)? = element.member(key)?.value.value else { return nil }
            return name
        }
    }

    /// The file name without its directory and `.json`.
    func defaultName() -> String {
        var name = context.file
        if let slash = name.lastIndex(of: "/") { name = String(name[name.index(after: slash)...]) }
        if name.hasSuffix(".json") { name = String(name.dropLast(5)) }
        return name
    }

    // MARK: Limits, network, protocol

    func readLimits(_ node: JSONNode, _ path: JSONPath) -> ScenarioLimits? {
        guard let object = context.object(node, path, what: "the limits object", allowed: ScenarioKeys.limits) else {
            return nil
        }
        var limits = ScenarioLimits.defaults
        if let events = object.optional("maxEvents", { context.integer($0, $1, in: 1...1_000_000_000_000) }) {
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
            world.wifiPeerToPeer = readLink(member.value, path.key("wifiPeerToPeer"), base: world.wifiPeerToPeer)
                ?? world.wifiPeerToPeer
        }
        if let member = object.member("bluetooth") {
            world.bluetooth = readLink(member.value, path.key("bluetooth"), base: world.bluetooth) ?? world.bluetooth
        }
    }

    func readProfile(_ node: JSONNode, _ path: JSONPath) -> NetworkProfile? {
        let names = NetworkProfile.builtIn.map(\.name)
        guard let name = context.choice(node, path, what: "network profile", among: names) else { return nil }
        return try? NetworkProfile.named(name)
    }

    /// Link parameters: `base` with the object's values replacing its own.
    func readLink(_ node: JSONNode, _ path: JSONPath, base: LinkParameters) -> LinkParameters? {
        guard let object = context.object(node, path, what: "a link object", allowed: ScenarioKeys.link) else {
            return nil
        }
        var link = base
        if let latency = object.optional("latency", { context.duration($0, $1) }) { link.latency = latency }
        if let jitter = object.optional("jitter", { context.duration($0, $1) }) { link.jitter = jitter }
        if let member = object.member("bandwidth") {
            if case .null = member.value.value {
                link.bandwidth = nil
            } else if case let .string(text) = member.value.value, case let .success(rate) = Quantities.bandwidth(text) {
                link.bandwidth = rate
            } else {
                context.mismatch(member.value, path.key("bandwidth"),
                                 expected: "a rate such as \"54Mbit/s\" or \"256kbit/s\" (units bit/s, kbit/s, Mbit/s, Gbit/s), or null for no limit")
            }
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
        return link
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
        if let value = object.optional("userInfoLimit", { context.bytes($0, $1, minimum: 1) }) {
            configuration.userInfoLimit = value
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
        if let value = object.optional("browserLaunch", { context.duration($0, $1) }) {
            configuration.browserLaunch = value
        }
        if let policy = object.optional("acceptance", { readAcceptance($0, $1) }) {
            configuration.defaultAcceptance = policy
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

    // MARK: Apps and sites

    func readApp(_ node: JSONNode, _ path: JSONPath) -> (AppDescription, AppBehaviour)? {
        guard let object = context.object(node, path, what: "an app object", allowed: ScenarioKeys.app) else {
            return nil
        }
        let bundleID = object.required("bundleID", what: "the app's bundle ID", { context.nonEmptyString($0, $1) })
        let team: TeamID? = object.required("teamID", what: "the app's Team ID", { node, teamPath in
            guard let text = context.string(node, teamPath) else { return nil }
            do {
                return try TeamID(text)
            } catch {
                context.report(teamPath, at: node.position, "invalid \(error)")
                return nil
            }
        })
        let platforms = object.optional("platforms") { node, listPath -> [Platform]? in
            guard let names = context.array(node, listPath, expected: "an array of platforms") else { return nil }
            var result: [Platform] = []
            for (index, element) in names.enumerated() {
                if let name = context.choice(element, listPath.index(index), what: "platform",
                                             among: Platform.allCases.map(\.rawValue)) {
                    result.append(Platform(rawValue: name)!)
                }
            }
            return result
        } ?? Platform.allCases
        let activityTypes = object.optional("activityTypes") { context.strings($0, $1) } ?? []
        let domains = object.optional("associatedDomains") { node, listPath -> [AssociatedDomain]? in
            guard let entries = context.strings(node, listPath) else { return nil }
            var result: [AssociatedDomain] = []
            for (index, entry) in entries.enumerated() {
                do {
                    result.append(try AssociatedDomain(parsing: entry))
                } catch {
                    context.report(listPath.index(index), at: context.array(node, listPath, expected: "")?[index].position,
                                   "invalid \(error)")
                }
            }
            return result
        } ?? []
        let documentTypes = object.optional("documentTypes") { node, listPath -> [DocumentType]? in
            guard let list = context.array(node, listPath, expected: "an array of document types") else { return nil }
            var result: [DocumentType] = []
            for (index, element) in list.enumerated() {
                let elementPath = listPath.index(index)
                guard let type = context.object(element, elementPath, what: "a document type object",
                                                allowed: ScenarioKeys.documentType),
                    let name = type.required("name", what: "the document type's name", { context.nonEmptyString($0, $1) })
                else { continue }
                result.append(DocumentType(
                    name: name, contentTypes: type.optional("contentTypes") { context.strings($0, $1) } ?? [],
                    ubiquitousActivityType: type.optional("ubiquitousActivityType") { context.nonEmptyString($0, $1) }))
            }
            return result
        } ?? []
        let cold = object.optional("coldLaunch") { context.duration($0, $1) } ?? AppDescription.defaultColdLaunch
        let warm = object.optional("warmLaunch") { context.duration($0, $1) } ?? AppDescription.defaultWarmLaunch
        let behaviour = object.optional("behaviour") { readBehaviour($0, $1) } ?? AppBehaviour()
        guard let bundleID, let team else { return nil }
        do {
            let app = try AppDescription(
                bundleID: bundleID, teamID: team, platforms: platforms, activityTypes: activityTypes,
                associatedDomains: domains, documentTypes: documentTypes, coldLaunch: cold, warmLaunch: warm)
            return (app, behaviour)
        } catch {
            context.report(path, at: node.position, "invalid app: \(error)")
            return nil
        }
    }

    func readBehaviour(_ node: JSONNode, _ path: JSONPath) -> AppBehaviour? {
        guard let object = context.object(node, path, what: "a behaviour object", allowed: ScenarioKeys.behaviour)
        else { return nil }
        var behaviour = AppBehaviour()
        if let value = object.optional("willContinueTime", { context.duration($0, $1) }) { behaviour.willContinueTime = value }
        if let value = object.optional("notifiesUser", { context.bool($0, $1) }) { behaviour.notifiesUser = value }
        if let value = object.optional("continueTime", { context.duration($0, $1) }) { behaviour.continueTime = value }
        if let value = object.optional("handlesContinuation", { context.bool($0, $1) }) {
            behaviour.handlesContinuation = value
        }
        if let value = object.optional("restorableObjects", { context.strings($0, $1) }) {
            behaviour.restorableObjects = value
        }
        if let value = object.optional("restoreDelay", { context.duration($0, $1) }) { behaviour.restoreDelay = value }
        if let value = object.optional("restoreTime", { context.duration($0, $1) }) { behaviour.restoreTime = value }
        if let value = object.optional("saveTime", { context.duration($0, $1) }) { behaviour.saveTime = value }
        if let value = object.optional("saveEntries", { readUserInfo($0, $1) }) { behaviour.saveEntries = value }
        if let value = object.optional("responderEntries", { node, mapPath -> [String: UserInfo]? in
            guard case let .object(members) = node.value else {
                context.mismatch(node, mapPath, expected: "an object of responder names to userInfo entries")
                return nil
            }
            var result: [String: UserInfo] = [:]
            for member in members {
                if let entries = readUserInfo(member.value, mapPath.key(member.key)) { result[member.key] = entries }
            }
            return result
        }) {
            behaviour.responderEntries = value
        }
        if let value = object.optional("streamRounds", { node, listPath -> [StreamRound]? in
            guard let list = context.array(node, listPath, expected: "an array of stream rounds") else { return nil }
            var rounds: [StreamRound] = []
            for (index, element) in list.enumerated() {
                let elementPath = listPath.index(index)
                guard let round = context.object(element, elementPath, what: "a stream round object",
                                                 allowed: ScenarioKeys.streamRound),
                    let request = round.required("request", what: "the request size", { context.bytes($0, $1) }),
                    let response = round.required("response", what: "the response size", { context.bytes($0, $1) })
                else { continue }
                rounds.append(StreamRound(requestBytes: request, responseBytes: response))
            }
            return rounds
        }) {
            behaviour.streamRounds = value
        }
        if let value = object.optional("streamResponseTime", { context.duration($0, $1) }) {
            behaviour.streamResponseTime = value
        }
        return behaviour
    }

    /// `{"example.com": ["ABCDE12345.com.example.app"]}`.
    func readSiteAssociations(_ node: JSONNode, _ path: JSONPath) -> SiteAssociations? {
        guard case let .object(members) = node.value else {
            context.mismatch(node, path, expected: "an object of domains to app IDs (\"TEAMID.bundleID\")")
            return nil
        }
        var associations: [SiteAssociation] = []
        for member in members {
            let memberPath = path.key(member.key)
            guard let apps = context.strings(member.value, memberPath, expected: "an array of app IDs (\"TEAMID.bundleID\")")
            else { continue }
            do {
                associations.append(try SiteAssociation(domain: member.key, activityContinuationApps: apps))
            } catch {
                context.report(memberPath, at: member.value.position, "invalid site association: \(error)")
            }
        }
        return SiteAssociations(associations)
    }

    // MARK: Devices

    func readDevice(
        _ node: JSONNode, _ path: JSONPath, bundleIDs: [String], internet: NetworkProfile,
        configuration: inout HandoffConfiguration
    ) -> DeviceDescription? {
        guard let object = context.object(node, path, what: "a device object", allowed: ScenarioKeys.device) else {
            return nil
        }
        let name = object.required("name", what: "the device's name", { context.nonEmptyString($0, $1) })
        let kind = object.required("kind", what: "the device kind", { node, kindPath -> DeviceKind? in
            context.choice(node, kindPath, what: "device kind", among: DeviceKind.allCases.map(\.rawValue))
                .flatMap(DeviceKind.init(rawValue:))
        })
        let os = object.optional("os") { node, osPath -> OSVersion? in
            guard let text = context.string(node, osPath, expected: "an OS version such as \"17.4\"") else { return nil }
            do {
                return try OSVersion(parsing: text)
            } catch {
                context.report(osPath, at: node.position, "expected an OS version such as \"17.4\", found \"\(text)\"")
                return nil
            }
        }
        var account: AccountID? = AccountID(ScenarioDecoder.defaultAccount)
        if let member = object.member("account") {
            if case .null = member.value.value {
                account = nil
            } else if let text = context.nonEmptyString(member.value, path.key("account"),
                                                        expected: "an iCloud account name, or null for signed out") {
                account = AccountID(text)
            }
        }
        let installed = object.optional("apps") { node, listPath -> [String]? in
            guard let list = context.array(node, listPath, expected: "an array of bundle IDs") else { return nil }
            var result: [String] = []
            for (index, element) in list.enumerated() {
                guard let bundleID = context.string(element, listPath.index(index)) else { continue }
                if bundleIDs.contains(bundleID) {
                    result.append(bundleID)
                } else {
                    context.report(listPath.index(index), at: element.position,
                                   "unknown app \"\(bundleID)\"; apps are declared under \"apps\""
                                       + didYouMean(bundleID, among: bundleIDs))
                }
            }
            return result
        } ?? []
        let position = object.optional("position") { readPosition($0, $1) } ?? .origin
        var settings = DeviceSettings()
        if let value = object.optional("handoff", { context.bool($0, $1) }) { settings.handoffEnabled = value }
        if let value = object.optional("bluetooth", { context.bool($0, $1) }) { settings.bluetoothEnabled = value }
        if let value = object.optional("wifi", { context.bool($0, $1) }) { settings.wifiEnabled = value }
        let profile = object.optional("internet") { readProfile($0, $1) } ?? internet
        let access = object.optional("internetAccess") { node, accessPath -> InternetAccess? in
            context.choice(node, accessPath, what: "internet access", among: InternetAccess.allCases.map(\.rawValue))
                .flatMap(InternetAccess.init(rawValue:))
        } ?? .wifi
        let acceptance = object.optional("acceptance") { readAcceptance($0, $1) }
        guard let name, let kind else { return nil }
        if let acceptance { configuration.acceptance[name] = acceptance }
        return DeviceDescription(
            name: name, kind: kind, osVersion: os ?? Self.defaultOS(kind), account: account, settings: settings,
            installedApps: installed, mobility: .stationary(position), internet: profile, internetAccess: access)
    }

    /// A recent OS for each kind of device.
    static func defaultOS(_ kind: DeviceKind) -> OSVersion {
        switch kind {
        case .iPhone, .iPad: return OSVersion(17, 4)
        case .mac: return OSVersion(14, 4)
        case .watch: return OSVersion(10, 4)
        case .visionPro: return OSVersion(1, 1)
        }
    }

    /// `[x, y]` in metres.
    func readPosition(_ node: JSONNode, _ path: JSONPath) -> Position? {
        let expected = "a position [x, y] in metres"
        guard case let .array(elements) = node.value, elements.count == 2,
            case let .number(x) = elements[0].value, case let .number(y) = elements[1].value,
            x.doubleValue.isFinite, y.doubleValue.isFinite
        else {
            context.mismatch(node, path, expected: expected)
            return nil
        }
        return Position(x: x.doubleValue, y: y.doubleValue)
    }

    // MARK: Activities

    func readActivities(
        _ top: ObjectReader, _ root: JSONPath, apps: [AppDescription], bundleIDs: [String], deviceNames: [String],
        drafts: [DeviceDraft]
    ) -> [ScenarioActivity] {
        var nodes: [(JSONNode, JSONPath, String?)] = []
        switch (top.member("activity"), top.member("activities")) {
        case (nil, nil):
            context.report(root, at: top.node.position,
                           "missing required key \"activity\" (the activity, an object; or \"activities\", an array)")
        case (.some, .some):
            context.report(root.key("activities"), at: top.member("activities")!.keyPosition,
                           "give either \"activity\" or \"activities\", not both")
        case let (.some(single), nil):
            nodes.append((single.value, root.key("activity"), "activity"))
        case let (nil, .some(list)):
            if let elements = context.array(list.value, root.key("activities"), expected: "an array of activities") {
                if elements.isEmpty {
                    context.report(root.key("activities"), at: list.value.position, "expected at least one activity")
                }
                for (index, element) in elements.enumerated() {
                    nodes.append((element, root.key("activities").index(index), nil))
                }
            }
        }
        var activities: [ScenarioActivity] = []
        for (node, path, defaultName) in nodes {
            guard let activity = readActivity(
                node, path, defaultName: defaultName, apps: apps, bundleIDs: bundleIDs, deviceNames: deviceNames,
                drafts: drafts)
            else { continue }
            if activities.contains(where: { $0.name == activity.name }) {
                context.report(path.key("name"), at: node.member("name")?.value.position,
                               "duplicate activity \"\(activity.name)\"")
                continue
            }
            activities.append(activity)
        }
        return activities
    }

    func readActivity(
        _ node: JSONNode, _ path: JSONPath, defaultName: String?, apps: [AppDescription], bundleIDs: [String],
        deviceNames: [String], drafts: [DeviceDraft]
    ) -> ScenarioActivity? {
        guard let object = context.object(node, path, what: "an activity object", allowed: ScenarioKeys.activity) else {
            return nil
        }
        let name: String?
        if let defaultName {
            name = object.optional("name") { context.nonEmptyString($0, $1) } ?? defaultName
        } else {
            name = object.required("name", what: "the name the timeline and expectations use", {
                context.nonEmptyString($0, $1)
            })
        }
        let device = object.required("device", what: "the device that creates it", { node, devicePath in
            deviceReference(node, devicePath, among: deviceNames)
        })
        let app = object.required("app", what: "the bundle ID of the app that creates it", { node, appPath -> AppDescription? in
            guard let bundleID = context.string(node, appPath) else { return nil }
            guard let app = apps.first(where: { $0.bundleID == bundleID }) else {
                // A declared app that is invalid was reported where it is declared.
                if bundleIDs.contains(bundleID) { return nil }
                context.report(appPath, at: node.position,
                               "unknown app \"\(bundleID)\"; apps are declared under \"apps\"" + didYouMean(bundleID, among: bundleIDs))
                return nil
            }
            return app
        })
        let type = object.required("type", what: "the activity type", { context.nonEmptyString($0, $1) })
        var content = ActivityContent(type: type ?? "")
        if let title = object.optional("title", { context.string($0, $1) }) { content.title = title }
        if let userInfo = object.optional("userInfo", { readUserInfo($0, $1) }) { content.userInfo = userInfo }
        if let size = object.optional("payloadSize", { context.bytes($0, $1) }) { content.payloadSize = size }
        if let member = object.member("webpageURL"), let text = context.string(member.value, path.key("webpageURL")) {
            do {
                try content.setWebpageURL(text)
            } catch {
                context.report(path.key("webpageURL"), at: member.value.position, "\(error)")
            }
        }
        if let value = object.optional("supportsContinuationStreams", { context.bool($0, $1) }) {
            content.supportsContinuationStreams = value
        }
        if let keys = object.optional("requiredUserInfoKeys", { context.strings($0, $1) }) {
            content.requiredUserInfoKeys = Set(keys)
        }
        if let value = object.optional("needsSave", { context.bool($0, $1) }) { content.needsSave = value }
        if let value = object.optional("eligibleForHandoff", { context.bool($0, $1) }) {
            content.isEligibleForHandoff = value
        }
        if let value = object.optional("expiresAfter", { context.duration($0, $1) }) {
            content.expirationDate = .zero + value
        }
        if let value = object.optional("documentPath", { context.nonEmptyString($0, $1) }) { content.documentPath = value }
        if let value = object.optional("responders", { context.strings($0, $1) }) { content.responders = value }
        guard let name, let device, let app, let type else { return nil }
        // Cross-references: the app runs on the device and declares the type.
        if let draft = drafts.first(where: { $0.description.name == device }),
            !draft.description.installedApps.contains(app.bundleID)
        {
            context.report(path.key("app"), at: object.position(of: "app"),
                           "app \"\(app.bundleID)\" is not installed on device \"\(device)\"; add it to the device's \"apps\"")
        }
        let declared = app.activityTypes + app.documentTypes.compactMap(\.ubiquitousActivityType)
        if type != browsingWebActivityType, !declared.contains(type) {
            context.report(path.key("type"), at: object.position(of: "type"),
                           "activity type \"\(type)\" is not declared by app \"\(app.bundleID)\" (its activityTypes: \(declared.isEmpty ? "none" : declared.joined(separator: ", ")))"
                               + didYouMean(type, among: declared))
        }
        return ScenarioActivity(name: name, device: device, app: app.bundleID, content: content)
    }

    /// A device name that must exist.
    func deviceReference(_ node: JSONNode, _ path: JSONPath, among names: [String]) -> String? {
        guard let name = context.string(node, path, expected: "a device name") else { return nil }
        guard names.contains(name) else {
            context.report(path, at: node.position,
                           "unknown device \"\(name)\"; devices are \(names.joined(separator: ", "))"
                               + didYouMean(name, among: names))
            return nil
        }
        return name
    }

    /// userInfo: JSON values as property-list values. Strings, whole
    /// numbers, other numbers, booleans, null, arrays and objects map
    /// directly; `{"$url": "…"}`, `{"$data": "3KiB"}` (that many zero
    /// bytes), `{"$date": seconds since 2001}` and `{"$uuid": "…"}` give the
    /// other allowed types.
    func readUserInfo(_ node: JSONNode, _ path: JSONPath) -> UserInfo? {
        guard case let .object(members) = node.value else {
            context.mismatch(node, path, expected: "an object of userInfo entries")
            return nil
        }
        var entries: [String: UserInfoValue] = [:]
        var valid = true
        for member in members {
            if let value = userInfoValue(member.value, path.key(member.key)) {
                entries[member.key] = value
            } else {
                valid = false
            }
        }
        return valid ? UserInfo(entries) : nil
    }

    func userInfoValue(_ node: JSONNode, _ path: JSONPath) -> UserInfoValue? {
        switch node.value {
        case .null: return .null
        case let .bool(value): return .boolean(value)
        case let .string(text): return .string(text)
        case let .number(number):
            if let whole = number.int64Value { return .integer(whole) }
            guard number.doubleValue.isFinite else {
                context.mismatch(node, path, expected: "a finite number")
                return nil
            }
            return .real(number.doubleValue)
        case let .array(elements):
            var values: [UserInfoValue] = []
            for (index, element) in elements.enumerated() {
                guard let value = userInfoValue(element, path.index(index)) else { return nil }
                values.append(value)
            }
            return .array(values)
        case let .object(members):
            if members.count == 1, members[0].key.hasPrefix("$") {
                return taggedValue(members[0], path)
            }
            var entries: [String: UserInfoValue] = [:]
            for member in members {
                guard let value = userInfoValue(member.value, path.key(member.key)) else { return nil }
                entries[member.key] = value
            }
            return .dictionary(entries)
        }
    }

    func taggedValue(_ member: JSONMember, _ path: JSONPath) -> UserInfoValue? {
        let tags = ["$url", "$data", "$date", "$uuid"]
        let valuePath = path.key(member.key)
        switch member.key {
        case "$url":
            guard let text = context.string(member.value, valuePath), let url = UserInfoValue.url(string: text) else {
                context.mismatch(member.value, valuePath, expected: "a URL")
                return nil
            }
            return url
        case "$data":
            guard let size = context.bytes(member.value, valuePath) else { return nil }
            return UserInfoValue.zeroBytes(size)
        case "$date":
            guard let seconds = context.number(member.value, valuePath, in: -1e12...1e12,
                                               expected: "seconds since 1 January 2001")
            else { return nil }
            return UserInfoValue.date(secondsSinceReferenceDate: seconds)
        case "$uuid":
            guard let text = context.string(member.value, valuePath), let uuid = UserInfoValue.uuid(string: text) else {
                context.mismatch(member.value, valuePath, expected: "a UUID such as \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"")
                return nil
            }
            return uuid
        default:
            context.report(valuePath, at: member.keyPosition,
                           "unknown tagged value \"\(member.key)\"; expected one of \(tags.joined(separator: ", "))"
                               + didYouMean(member.key, among: tags))
            return nil
        }
    }

    // MARK: Timeline

    func readTimeline(
        _ node: JSONNode, _ path: JSONPath, activities: [String], deviceNames: [String], drafts: inout [DeviceDraft],
        limits: ScenarioLimits
    ) -> [TimelineEntry]? {
        guard let list = context.array(node, path, expected: "an array of timeline entries") else { return nil }
        /// An entry before settings switches are resolved.
        enum Pending {
            case action(TimelineAction)
            /// Bluetooth, Wi-Fi or Handoff of a device goes on or off.
            case switchSetting(device: Int, WritableKeyPath<DeviceSettings, Bool>, Bool)
        }
        var pending: [(time: SimDuration, order: Int, entry: Pending, path: String)] = []
        for (index, element) in list.enumerated() {
            let entryPath = path.index(index)
            guard let object = context.object(element, entryPath, what: "a timeline entry object",
                                              allowed: ScenarioKeys.timeline)
            else { continue }
            let time = object.required("at", what: "when it happens, such as \"2s\"", { context.duration($0, $1) })
            let action = object.required("action", what: "what happens", { node, actionPath in
                context.choice(node, actionPath, what: "action", among: ScenarioKeys.timelineActions)
            })
            guard let time, let action else { continue }
            if time > limits.maxSimulatedTime {
                context.report(entryPath.key("at"), at: object.position(of: "at"),
                               "expected a time within the simulated-time limit (\(limits.maxSimulatedTime)), found \"\(time)\"")
                continue
            }
            func activity() -> Int? {
                if let member = object.member("activity") {
                    guard let name = context.string(member.value, entryPath.key("activity")) else { return nil }
                    guard let index = activities.firstIndex(of: name) else {
                        context.report(entryPath.key("activity"), at: member.value.position,
                                       "unknown activity \"\(name)\"; activities are \(activities.joined(separator: ", "))"
                                           + didYouMean(name, among: activities))
                        return nil
                    }
                    return index
                }
                guard activities.count <= 1 else {
                    context.report(entryPath, at: element.position,
                                   "missing required key \"activity\" (which activity: \(activities.joined(separator: ", ")))")
                    return nil
                }
                return activities.isEmpty ? nil : 0
            }
            func device() -> String? {
                object.required("device", what: "the device it happens on", { deviceReference($0, $1, among: deviceNames) })
            }
            func value() -> Bool? {
                object.required("value", what: "true or false", { context.bool($0, $1) })
            }
            var made: Pending?
            switch action {
            case "becomeCurrent": made = activity().map { .action(.becomeCurrent(activity: $0)) }
            case "resignCurrent": made = activity().map { .action(.resignCurrent(activity: $0)) }
            case "invalidate": made = activity().map { .action(.invalidate(activity: $0)) }
            case "setNeedsSave":
                let (index, flag) = (activity(), value())
                if let index, let flag { made = .action(.setNeedsSave(activity: index, flag)) }
            case "setEligibleForHandoff":
                let (index, flag) = (activity(), value())
                if let index, let flag { made = .action(.setEligibleForHandoff(activity: index, flag)) }
            case "addUserInfoEntries":
                let index = activity()
                let entries = object.required("entries", what: "the entries to add", { readUserInfo($0, $1) })
                if let index, let entries { made = .action(.addUserInfoEntries(activity: index, entries)) }
            case "accept":
                made = device().map { .action(.accept(device: $0)) }
            case "signIn":
                let name = device()
                let account = object.required("account", what: "the iCloud account", { context.nonEmptyString($0, $1) })
                if let name, let account { made = .action(.setAccount(device: name, AccountID(account))) }
            case "signOut":
                made = device().map { .action(.setAccount(device: $0, nil)) }
            case "move":
                let name = device()
                let to = object.required("to", what: "where the device goes, [x, y] in metres", { readPosition($0, $1) })
                let speed = object.optional("speed") {
                    context.number($0, $1, in: 1e-6...1e6, expected: "a speed in metres per second, greater than 0")
                } ?? ScenarioDecoder.defaultWalkingSpeed
                if let name, let to, let draft = drafts.firstIndex(where: { $0.description.name == name }) {
                    drafts[draft].moves.append((time, to, speed, entryPath, element.position))
                }
            default:
                // bluetoothOff, wifiOn, handoffOff, ...
                guard let name = device(), let index = drafts.firstIndex(where: { $0.description.name == name }) else {
                    continue
                }
                let key: WritableKeyPath<DeviceSettings, Bool> = action.hasPrefix("bluetooth")
                    ? \.bluetoothEnabled : action.hasPrefix("wifi") ? \.wifiEnabled : \.handoffEnabled
                made = .switchSetting(device: index, key, action.hasSuffix("On"))
            }
            if let made { pending.append((time, index, made, entryPath.description)) }
        }
        // In time order (file order for ties); a switch becomes the device's
        // whole settings after it.
        pending.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        var settings = drafts.map(\.description.settings)
        let draftNames = drafts.map(\.description.name)
        return pending.map { item in
            switch item.entry {
            case let .action(action):
                return TimelineEntry(time: .zero + item.time, action: action, path: item.path)
            case let .switchSetting(device, key, on):
                settings[device][keyPath: key] = on
                return TimelineEntry(
                    time: .zero + item.time, action: .setSettings(device: draftNames[device], settings[device]),
                    path: item.path)
            }
        }
    }

    /// The device's moves as a waypoint path from its position, or nil if it
    /// does not move.
    func mobility(of draft: DeviceDraft) -> Mobility? {
        guard !draft.moves.isEmpty, case let .stationary(start) = draft.description.mobility else { return nil }
        let moves = draft.moves.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        let departure = SimInstant.zero + moves[0].time
        var waypoints: [WaypointPath.Waypoint] = []
        for (index, move) in moves.enumerated() {
            waypoints.append(WaypointPath.Waypoint(move.to, speed: move.speed))
            guard index + 1 < moves.count else { break }
            // Pause at this waypoint until the next move starts.
            guard let path = try? WaypointPath(start: start, departure: departure, waypoints: waypoints),
                let arrival = path.arrival
            else { return nil }
            let next = SimInstant.zero + moves[index + 1].time
            guard next >= arrival else {
                context.report(moves[index + 1].path, at: moves[index + 1].position,
                               "the move at \(moves[index + 1].time) starts before the previous move of \"\(draft.description.name)\" ends (at \(arrival - SimInstant.zero))")
                return nil
            }
            waypoints[index] = WaypointPath.Waypoint(move.to, speed: move.speed, pause: next - arrival)
        }
        do {
            return .waypoints(try WaypointPath(start: start, departure: departure, waypoints: waypoints))
        } catch {
            context.report(moves[0].path, at: moves[0].position, "invalid move: \(error)")
            return nil
        }
    }

    // MARK: Expectations

    func readExpectations(
        _ node: JSONNode, _ path: JSONPath, activities: [ScenarioActivity], deviceNames: [String],
        canInferReceiver: Bool
    ) -> [Expectation]? {
        guard let list = context.array(node, path, expected: "an array of expectations") else { return nil }
        if list.isEmpty {
            context.report(path, at: node.position, "expected at least one expectation")
        }
        var result: [Expectation] = []
        for (index, element) in list.enumerated() {
            if let expectation = readExpectation(element, path.index(index), activities: activities,
                                                 deviceNames: deviceNames, canInferReceiver: canInferReceiver) {
                result.append(expectation)
            }
        }
        return result
    }

    func readExpectation(
        _ node: JSONNode, _ path: JSONPath, activities: [ScenarioActivity], deviceNames: [String],
        canInferReceiver: Bool
    ) -> Expectation? {
        guard let object = context.object(node, path, what: "an expectation object", allowed: ScenarioKeys.expectation)
        else { return nil }
        let kinds = ScenarioKeys.expectationKinds.filter { object.has($0) }
        guard kinds.count == 1, let kindKey = kinds.first else {
            context.report(path, at: node.position,
                           kinds.isEmpty
                               ? "expected one of the keys \(ScenarioKeys.expectationKinds.joined(separator: ", ")) saying what to expect"
                               : "expected one kind of expectation per object, found \(kinds.joined(separator: ", "))")
            return nil
        }
        // Which activity.
        var activity: Int?
        if let member = object.member("activity") {
            let names = activities.map(\.name)
            if let name = context.string(member.value, path.key("activity")) {
                activity = names.firstIndex(of: name)
                if activity == nil {
                    context.report(path.key("activity"), at: member.value.position,
                                   "unknown activity \"\(name)\"; activities are \(names.joined(separator: ", "))"
                                       + didYouMean(name, among: names))
                }
            }
        } else if activities.count == 1 || ["callbacks", "events"].contains(kindKey) {
            // A device's callbacks and events cover all its activities.
            activity = activities.isEmpty ? nil : 0
        } else if activities.count > 1 {
            context.report(path, at: node.position,
                           "missing required key \"activity\" (which activity: \(activities.map(\.name).joined(separator: ", ")))")
        }
        // Which receiving device: the only device that is no activity's source, unless named.
        var device: String?
        if let member = object.member("on") {
            device = deviceReference(member.value, path.key("on"), among: deviceNames)
        } else {
            let sources = Set(activities.map(\.device))
            let receivers = deviceNames.filter { !sources.contains($0) }
            if receivers.count == 1 {
                device = receivers[0]
            } else if canInferReceiver, !deviceNames.isEmpty {
                context.report(path, at: node.position,
                               "missing required key \"on\" (the receiving device: one of \(deviceNames.joined(separator: ", ")))")
            }
        }
        let rate = readRateBound(object, path)
        let kindPath = path.key(kindKey)
        let kindNode = object.member(kindKey)!.value
        let kind: Expectation.Kind?
        switch kindKey {
        case "outcome":
            kind = context.choice(kindNode, kindPath, what: "outcome", among: OutcomeKind.allCases.map(\.rawValue))
                .map { .outcome(OutcomeKind(rawValue: $0)!, rate) }
        case "successRate":
            if case .bool(true) = kindNode.value, let rate {
                kind = .successRate(rate)
            } else if let fraction = context.fraction(kindNode, kindPath) {
                kind = .successRate(.atLeast(fraction))
            } else {
                kind = nil
            }
        case "error":
            kind = readError(kindNode, kindPath).map { .error($0, rate) }
        case "notOffered":
            kind = context.choice(kindNode, kindPath, what: "reason", among: NotOfferedReason.allCases.map(\.rawValue))
                .map { .notOffered(NotOfferedReason(rawValue: $0)!, rate) }
        case "callbacks", "events":
            guard let names = context.strings(kindNode, kindPath) else { return nil }
            if kindKey == "callbacks" {
                for (index, name) in names.enumerated() where !scenarioCallbackNames.contains(name) {
                    context.report(kindPath.index(index), at: context.array(kindNode, kindPath, expected: "")?[index].position,
                                   "unknown callback \"\(name)\"; expected one of \(scenarioCallbackNames.joined(separator: ", "))"
                                       + didYouMean(name, among: scenarioCallbackNames))
                }
                kind = .callbacks(names)
            } else {
                kind = .events(names)
            }
        case "latency":
            let metric = context.choice(kindNode, kindPath, what: "latency", among: LatencyMetric.allCases.map(\.rawValue))
                .flatMap(LatencyMetric.init(rawValue:))
            let percentile = object.required("percentile", what: "which percentile, such as 95", {
                context.number($0, $1, in: 0.001...100, expected: "a percentile above 0 and at most 100")
            })
            let below = object.optional("below") { context.duration($0, $1) }
            let above = object.optional("above") { context.duration($0, $1) }
            let bound: DurationBound?
            switch (below, above) {
            case let (below?, nil): bound = .below(below)
            case let (nil, above?): bound = .above(above)
            case (.some, .some):
                context.report(path, at: node.position, "give either \"below\" or \"above\", not both")
                bound = nil
            case (nil, nil):
                if !object.has("below"), !object.has("above") {
                    context.report(path, at: node.position, "missing required key \"below\" (the bound, such as \"1.5s\"; or \"above\")")
                }
                bound = nil
            }
            if let metric, let percentile, let bound {
                kind = .latency(metric, percentile: percentile, bound)
            } else {
                kind = nil
            }
        default:
            kind = nil
        }
        if rate != nil, !["outcome", "successRate", "error", "notOffered"].contains(kindKey) {
            context.report(path, at: node.position, "\"atLeast\" and \"atMost\" apply to outcome, successRate, error and notOffered only")
        }
        if kindKey == "successRate", rate != nil, !(kindNode.value == .bool(true)) {
            context.report(kindPath, at: kindNode.position, "give the rate either as \"successRate\": \"99%\" or with \"atLeast\"/\"atMost\", not both")
        }
        guard let kind, let device, let activity else { return nil }
        if !["callbacks", "events"].contains(kindKey), activities[activity].device == device {
            context.report(path.key("on"), at: object.member("on")?.value.position ?? node.position,
                           "\"\(device)\" is the source of activity \"\(activities[activity].name)\"; outcomes and latencies are observed on a receiving device")
            return nil
        }
        return Expectation(kind: kind, device: device, activity: activity, path: path.description,
                           line: node.position.line)
    }

    /// `"atLeast": "99%"` or `"atMost": "1%"`, if given.
    func readRateBound(_ object: ObjectReader, _ path: JSONPath) -> RateBound? {
        let atLeast = object.optional("atLeast") { context.fraction($0, $1) }
        let atMost = object.optional("atMost") { context.fraction($0, $1) }
        switch (atLeast, atMost) {
        case let (least?, nil): return .atLeast(least)
        case let (nil, most?): return .atMost(most)
        case (.some, .some):
            context.report(path, at: object.node.position, "give either \"atLeast\" or \"atMost\", not both")
            return nil
        default: return nil
        }
    }

    /// An error code (4608…4611) or its name.
    func readError(_ node: JSONNode, _ path: JSONPath) -> ContinuationError? {
        let known: [ContinuationError] = [.handoffFailed, .connectionUnavailable, .remoteApplicationTimedOut,
                                          .handoffUserInfoTooLarge]
        let expected = "an error code (" + known.map { "\($0.code) \($0.name)" }.joined(separator: ", ") + ")"
        switch node.value {
        case let .number(number):
            if let code = number.int64Value, let error = known.first(where: { Int64($0.code) == code }) { return error }
        case let .string(text):
            if let error = known.first(where: { $0.name == text }) { return error }
            context.report(path, at: node.position,
                           "expected \(expected), found \"\(text)\"" + didYouMean(text, among: known.map(\.name)))
            return nil
        default:
            break
        }
        context.mismatch(node, path, expected: expected)
        return nil
    }
}
