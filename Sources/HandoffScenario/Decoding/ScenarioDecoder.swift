import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads scenario files: JSON in, a validated ``Scenario`` or every problem
/// found out.
///
/// Decoding never stops at the first problem: it reads on, skipping only
/// what depends on a value already reported, so one run shows everything
/// to fix. A file with any problem yields no scenario, so nothing of it
/// runs.
///
/// ```swift
/// switch ScenarioDecoder.decode(Array(data), file: "scenarios/tabs.json") {
/// case let .success(scenario): print(scenario.name, scenario.trials)
/// case let .failure(problems): print(problems)   // FILE:LINE:COLUMN: error: $.path: message
/// }
/// ```
package enum ScenarioDecoder {
    /// The account devices are signed in to when the file does not say.
    static let defaultAccount = "user@icloud.com"
    /// The walking speed of a `move` that gives none, in metres per second.
    static let defaultWalkingSpeed = 1.4
    /// The trials of a scenario that does not say.
    static let defaultTrials = 100
    /// The most trials a scenario may ask for.
    package static let maximumTrials = 10_000_000

    /// Decodes the scenario in `bytes`, naming it `file` in problems.
    package static func decode(_ bytes: [UInt8], file: String) -> Result<Scenario, ScenarioProblems> {
        switch parse(bytes, file: file) {
        case let .success(root): return decode(root: root, file: file, digest: SHA256.hexDigest(of: bytes))
        case let .failure(problems): return .failure(problems)
        }
    }

    /// The JSON tree of a scenario file, or its syntax error as a problem.
    package static func parse(_ bytes: [UInt8], file: String) -> Result<JSONNode, ScenarioProblems> {
        do {
            return .success(try JSONParser.parse(bytes))
        } catch {
            let problem = ScenarioProblem(
                file: file, path: "$", position: error.position, message: "malformed JSON: \(error.message)")
            return .failure(ScenarioProblems(problems: [problem]))
        }
    }

    /// Decodes a scenario from its JSON tree (for sweep points, the file's
    /// tree with values replaced); `digest` is the file's.
    static func decode(root: JSONNode, file: String, digest: String) -> Result<Scenario, ScenarioProblems> {
        let context = DecodingContext(file: file)
        context.keyHomes = ScenarioKeys.homes
        let decoded = ScenarioReader(context: context, digest: digest).read(root)
        if var decoded, context.problems.isEmpty {
            decoded.warnings = context.warnings
            return .success(decoded)
        }
        return .failure(ScenarioProblems(problems: context.sortedProblems))
    }

    /// The folder `file` is in ("" for the current one): what the files a
    /// scenario, an overlay or an experiment names are relative to.
    package static func folder(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "" }
        return String(file[...slash])
    }
}

/// The keys of each object in a scenario file, in documentation order.
enum ScenarioKeys {
    static let top = [
        "$schema", "name", "description", "seed", "trials", "duration", "limits", "network", "protocol", "apps",
        "siteAssociations", "devices", "activity", "activities", "timeline", "expect", "sweep", "overlay",
        "measured",
    ]
    static let measuredMark = ["path", "source"]
    static let sweep = ["payload", "profile", "vary"]
    static let limits = ["maxEvents", "maxSimulatedTime"]
    static let network = ["profile", "fetchPath"] + NetworkReader.pairLinks.map(\.key) + ["internetPath", "transport"]
    static let internetPath = ["uplink", "downlink"]
    static let relay = ["delay", "inlineLimit", "noticeBytes"]
    static let coding = ["encodeRate", "decodeRate"]
    static let transport = [
        "congestionControl", "lossDetection", "delayedAcknowledgement", "initialWindow", "window",
        "initialRetransmissionTimeout", "minimumRetransmissionTimeout", "handshakeRetransmission",
        "peerToPeerInitialRetransmissionTimeout", "connectTimeout", "cubic",
    ]
    static let cubic = ["preset", "constant", "beta", "fastConvergence", "renoFriendly", "roundTrip", "reductionBase"]
    static let link = [
        "latency", "jitter", "bandwidth", "bandwidthSpread", "loss", "queueLimit", "mtu", "headerBytes", "outages",
    ]
    static let peerToPeerLink = link + ["schedule"]
    static let schedule = [
        "slot", "slotsPerSequence", "sharedSlots", "multicastSlots", "idlePresence", "syncInterval", "start", "activation",
        "excursionInterval", "excursionDuration", "awaySlots", "idleAfter",
        "infrastructureAbsences",
    ]
    static let burst = ["goodToBad", "badToGood", "lossInGood", "lossInBad"]
    static let outage = ["from", "until"]
    static let protocolKeys = [
        "fetchTimeout", "payloadTimerExtra", "userInfoLimit", "userInfoRecommendedLimit", "saveWait", "sourceSaveTime",
        "requestBytes", "envelopeBytes", "noticeBytes", "browserLaunch", "acceptance", "rapport", "relay", "coding", "keyExchange",
        "advertising",
    ]
    static let advertising = [
        "removalAfterLock", "removalAfterDim", "removalAfterIdle", "resumeWindow", "minimumUpdateInterval",
        "maximumUpdatesPerWindow", "updateWindow", "minimumLife", "userIdleAfter", "activePayloadUpdateInterval",
        "lostDeviceGrace", "scanStopAfterLoss",
    ]
    static let rapport = [
        "resolveQueryBytes", "resolveAnswerBytes", "resolveHoldBack", "resolveRetryInterval", "resolveRetryFactor",
        "resolveCached", "cachedResolveTime", "pairVerifyBytes", "systemInfoRequestBytes", "systemInfoAnswerBytes", "frameHeaderBytes", "frameTagBytes", "processing", "requestTimeoutCap", "cloudFallback",
    ]
    static let keyExchange = ["firstContact", "requestBytes", "answerBytes", "timeout", "retryHold", "overCloud"]
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
        "name", "kind", "os", "account", "apps", "position", "handoff", "bluetooth", "wifi", "screen", "lowPowerMode",
        "idle", "internet", "internetAccess", "wifiNetwork", "acceptance", "inUse",
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
        "handoffOff", "handoffOn", "move", "lock", "unlock", "screenOff", "screenOn", "lowPowerModeOn", "lowPowerModeOff",
        "idle", "active", "userInput",
    ]
    /// The objects whose keys an unknown key is looked up among, with where
    /// each is in words: `"fetchPath"` on a device is `the "network"
    /// object`'s.
    static let homes: [(keys: [String], home: String)] = [
        (network, "the \"network\" object"), (protocolKeys, "the \"protocol\" object"),
        (device, "a device (under \"devices\")"), (activity, "an activity (\"activity\" or under \"activities\")"),
        (app, "an app (under \"apps\")"), (behaviour, "an app's \"behaviour\""), (advertising, "\"protocol.advertising\""),
        (rapport, "\"protocol.rapport\""), (transport, "\"network.transport\""), (link, "a link of \"network\""),
        (top, "the top level of the file"),
    ]
    static let expectationKinds = HandoffScenario.expectationKinds.map { $0.key }
    static let expectation = expectationKinds + ["on", "activity", "atLeast", "atMost"]
        + HandoffScenario.expectationKinds.flatMap { $0.otherKeys }
}

/// The app-facing callbacks and calls a `callbacks` expectation may list,
/// as the trace names them (``TraceEvent/Name/scenarioCallbacks``).
let scenarioCallbackNames = CallbacksExpectation.allowed

/// The trace events an `events` expectation may list, as the trace names
/// them (every ``TraceEvent/Name``).
let scenarioEventNames = EventsExpectation.allowed

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
        let limits = top.optional("limits") { NetworkReader(context: context).readLimits($0, $1) } ?? .defaults
        let duration = top.optional("duration") { context.duration($0, $1, minimum: .nanoseconds(1)) }
        if let duration, duration > limits.maxSimulatedTime {
            context.report(root_.key("duration"), at: top.position(of: "duration"),
                           "expected a duration within the simulated-time limit (\(limits.maxSimulatedTime)), found \"\(duration)\"")
        }

        var world = WorldConfiguration()
        var configuration = HandoffConfiguration()
        var internet = NetworkProfile.wifi
        if let network = top.member("network") {
            NetworkReader(context: context).readNetwork(network.value, root_.key("network"), world: &world, configuration: &configuration,
                        internet: &internet)
        }
        if let protocolMember = top.member("protocol") {
            ProtocolReader(context: context).readProtocol(protocolMember.value, root_.key("protocol"), configuration: &configuration)
        }

        var apps: [AppDescription] = []
        var behaviours: [(String, AppBehaviour)] = []
        if let list = top.required("apps", what: "the apps, an array", {
            context.array($0, $1, expected: "an array of apps", maximumCount: InputBounds.maximumApps)
        }) {
            for (index, node) in list.enumerated() {
                guard let (app, behaviour) = AppReader(context: context).readApp(node, root_.key("apps").index(index)) else { continue }
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
        let siteAssociations = top.optional("siteAssociations") { AppReader(context: context).readSiteAssociations($0, $1) } ?? SiteAssociations()

        let problemsBeforeDevices = context.problems.count
        var drafts: [DeviceDraft] = []
        if let list = top.required("devices", what: "the devices, an array", {
            context.array($0, $1, expected: "an array of devices", maximumCount: InputBounds.maximumDevices)
        }) {
            for (index, node) in list.enumerated() {
                let path = root_.key("devices").index(index)
                guard let description = DeviceReader(context: context).readDevice(node, path, bundleIDs: bundleIDs, internet: internet,
                                                   configuration: &configuration)
                else { continue }
                if drafts.contains(where: { $0.description.name == description.name }) {
                    context.report(path.key("name"), at: node.member("name")?.value.position,
                                   "duplicate device \"\(description.name)\"")
                    continue
                }
                drafts.append(DeviceDraft(description: description, path: path))
            }
            if list.count < 2 {
                context.report(root_.key("devices"), at: top.position(of: "devices"),
                               "expected at least two devices (a source and a receiver), found \(list.count)")
            }
        }
        let deviceNames = declaredNames(top.member("devices")?.value, key: "name")
        let devicesClean = context.problems.count == problemsBeforeDevices

        let activities = ActivityReader(context: context).readActivities(
            top, root_, apps: apps, bundleIDs: bundleIDs, declaredTypes: declaredActivityTypes(top.member("apps")?.value),
            deviceNames: deviceNames, drafts: drafts, userInfoLimit: configuration.userInfoLimit)
        // Like apps and devices, activities are referred to by every name
        // the file declares, so an activity reported invalid is not reported
        // again as unknown wherever the timeline or an expectation names it.
        let declared = declaredActivities(top)
        let timeline = top.optional("timeline") {
            TimelineReader(context: context).readTimeline(
                $0, $1, activities: activities.map(\.name), declaredActivities: declared.map(\.name),
                activityDevices: activities.map(\.device), deviceNames: deviceNames,
                drafts: &drafts, limits: limits)
        } ?? []
        // The receiver an expectation leaves out is inferred from the
        // sources the file names, valid or not; it cannot be when a device
        // or an activity's device is unreadable.
        let sources = declared.compactMap(\.device)
        let expectations = top.optional("expect") {
            ExpectationReader(context: context).readExpectations(
                $0, $1, activities: activities, declaredActivities: declared.map(\.name), sources: sources,
                deviceNames: deviceNames,
                canInferReceiver: devicesClean && sources.count == declared.count && sources.allSatisfy(deviceNames.contains))
        } ?? []
        readFetchPath(top, root_, configuration: configuration, drafts: drafts, activities: activities,
                      devicesClean: devicesClean)
        if !top.has("expect"), !top.has("sweep") {
            context.report(root_, at: root.position,
                           "missing required key \"expect\" (the expectations, an array; a scenario that expects nothing checks nothing; a file for sweeps only has a \"sweep\" block instead)")
        }
        let sweep = top.optional("sweep") { readSweep($0, $1) }
        // The overlay file the scenario names is read and applied before
        // decoding (ScenarioSuite.load, SweepRunner.prepare); here only its form.
        _ = top.optional("overlay") { context.nonEmptyString($0, $1, expected: "the path of an overlay file, relative to this file") }
        _ = top.optional("measured") { readMeasuredMarks($0, $1, root: root) }

        var devices: [DeviceDescription] = []
        for draft in drafts {
            var description = draft.description
            if let mobility = TimelineReader(context: context).mobility(of: draft) { description.mobility = mobility }
            devices.append(description)
        }
        guard context.problems.isEmpty else { return nil }
        let setup = HandoffSetup(
            devices: devices, apps: apps, siteAssociations: siteAssociations, world: world,
            configuration: configuration)
        return Scenario(
            file: context.file, name: name, summary: summary, seed: seed, trials: trials, limits: limits,
            duration: duration, setup: setup, behaviours: behaviours.map { (bundleID: $0.0, behaviour: $0.1) },
            activities: activities, timeline: timeline, expectations: expectations, sweep: sweep, digest: digest)
    }

    /// The `key` strings of the objects in `list` (an array node), in order:
    /// the names the file declares, whatever else is wrong with them.
    func declaredNames(_ list: JSONNode?, key: String) -> [String] {
        guard let list, case let .array(elements) = list.value else { return [] }
        return elements.prefix(InputBounds.maximumTimelineEntries).compactMap { element in
            guard case let .string(name)? = element.member(key)?.value.value else { return nil }
            return name
        }
    }

    /// The activity types each app declares (`activityTypes` and its
    /// document types' `ubiquitousActivityType`), by bundle ID, as written:
    /// for apps that are invalid for some other reason too, so that an
    /// activity's undeclared type is reported in the same round. An app
    /// whose types cannot be read is left out (its problem is reported
    /// where it is declared).
    func declaredActivityTypes(_ list: JSONNode?) -> [String: [String]] {
        guard let list, case let .array(elements) = list.value else { return [:] }
        var result: [String: [String]] = [:]
        for element in elements.prefix(InputBounds.maximumApps) {
            guard case let .string(bundleID)? = element.member("bundleID")?.value.value, result[bundleID] == nil else {
                continue
            }
            var types: [String] = []
            if let node = element.member("activityTypes")?.value {
                guard case let .array(names) = node.value else { continue }
                let strings = names.compactMap { name -> String? in
                    guard case let .string(text) = name.value else { return nil }
                    return text
                }
                guard strings.count == names.count else { continue }
                types += strings
            }
            if let node = element.member("documentTypes")?.value {
                guard case let .array(documents) = node.value else { continue }
                var readable = true
                for document in documents {
                    switch document.member("ubiquitousActivityType")?.value.value {
                    case nil: continue
                    case let .string(text)?: types.append(text)
                    case .null?, .bool?, .number?, .array?, .object?: readable = false
                    }
                }
                guard readable else { continue }
            }
            result[bundleID] = types
        }
        return result
    }

    /// Each activity the file declares, valid or not: its name (the
    /// default `"activity"` for a single `activity`) and its device, each
    /// nil when it is not a string.
    func declaredActivities(_ top: ObjectReader) -> [(name: String?, device: String?)] {
        func declared(_ node: JSONNode, defaultName: String?) -> (name: String?, device: String?) {
            var name = defaultName
            if let member = node.member("name") {
                if case let .string(text) = member.value.value { name = text } else { name = nil }
            }
            guard case let .string(device)? = node.member("device")?.value.value else { return (name, nil) }
            return (name, device)
        }
        switch (top.member("activity"), top.member("activities")) {
        case let (.some(single), nil):
            return [declared(single.value, defaultName: "activity")]
        case let (nil, .some(list)):
            guard case let .array(elements) = list.value.value else { return [] }
            return elements.prefix(InputBounds.maximumActivities).map { declared($0, defaultName: nil) }
        case (nil, nil), (.some, .some):
            return []
        }
    }

    /// Checks that `network.fetchPath` can be taken: `localNetwork` needs
    /// each activity's source to share a `wifiNetwork` with another device,
    /// or the fetch could never go that way (Rapport would give up and the
    /// cloud relay carry every payload, not what the file asks for).
    func readFetchPath(
        _ top: ObjectReader, _ root: JSONPath, configuration: HandoffConfiguration,
        drafts: [DeviceDraft], activities: [ScenarioActivity], devicesClean: Bool
    ) {
        guard configuration.fetchPath == .localNetwork, devicesClean,
            let network = top.member("network"), let member = network.value.member("fetchPath")
        else { return }
        var reported = Set<String>()
        for activity in activities where !reported.contains(activity.device) {
            guard let source = drafts.first(where: { $0.description.name == activity.device }) else { continue }
            let joined = source.description.wifiNetwork
            let peers = drafts.filter { $0.description.name != activity.device && joined != nil && $0.description.wifiNetwork == joined }
            guard peers.isEmpty else { continue }
            reported.insert(activity.device)
            let why = joined.map { "no other device is on its Wi-Fi network \"\($0)\"" }
                ?? "it names no \"wifiNetwork\" (\(source.path.key("wifiNetwork")))"
            context.report(root.key("network").key("fetchPath"), at: member.value.position,
                           "the fetch path \"localNetwork\" needs the source \"\(activity.device)\" and a receiver on the same Wi-Fi network, but \(why); "
                               + "give both devices the same \"wifiNetwork\", or use \"wifiPeerToPeer\" (which also goes over a shared network when there is one)")
        }
    }

    /// The `sweep` block: `payload` and `profile` arrays and `vary`, an
    /// object of parameter paths to arrays of values.
    func readSweep(_ node: JSONNode, _ path: JSONPath) -> ScenarioSweep? {
        guard let object = context.object(node, path, what: "a sweep object", allowed: ScenarioKeys.sweep) else {
            return nil
        }
        func values(_ node: JSONNode, _ valuesPath: JSONPath) -> [String]? {
            guard let elements = context.array(node, valuesPath, expected: "an array of values") else { return nil }
            if elements.isEmpty { context.report(valuesPath, at: node.position, "expected at least one value") }
            var result: [String] = []
            for (index, element) in elements.enumerated() {
                switch element.value {
                case let .string(text): result.append(text)
                case let .number(number): result.append(number.text)
                case let .bool(value): result.append(value ? "true" : "false")
                case .null, .array, .object:
                    context.mismatch(element, valuesPath.index(index), expected: "a string, number or boolean")
                }
            }
            return result
        }
        let payloads = object.optional("payload") { node, payloadPath -> [String]? in
            guard let list = values(node, payloadPath) else { return nil }
            // A size as everywhere else (and as the schema says): a size
            // string, or a whole number of bytes written as a JSON number.
            for (index, element) in (context.array(node, payloadPath, expected: "") ?? []).enumerated() {
                let isSize: Bool
                switch element.value {
                case let .string(text): isSize = (try? Quantities.bytes(text).get()) != nil
                case let .number(number): isSize = (number.int64Value ?? -1) >= 0
                case .bool: isSize = false
                case .null, .array, .object: continue  // reported above
                }
                if !isSize {
                    context.report(payloadPath.index(index), at: element.position,
                                   "expected a size such as \"3KiB\" or a whole number of bytes, found \(context.found(element))")
                }
            }
            return list
        } ?? []
        let profiles = object.optional("profile") { node, profilePath -> [String]? in
            guard let elements = context.array(node, profilePath, expected: "an array of network profile names") else {
                return nil
            }
            return elements.enumerated().compactMap { index, element in NetworkReader(context: context).readProfile(element, profilePath.index(index))?.name }
        } ?? []
        var parameters: [(String, [String])] = []
        if let member = object.member("vary") {
            let varyPath = path.key("vary")
            if case let .object(members) = member.value.value {
                for parameter in members {
                    let parameterPath = varyPath.key(parameter.key)
                    if let problem = ParameterPath.expected(parameter.key, example: "network.wifiPeerToPeer.loss") {
                        // A key past the bound is not repeated in the JSON path.
                        let shown = parameter.key.utf8.count <= InputBounds.maximumPathBytes ? parameterPath : varyPath
                        context.report(shown, at: parameter.keyPosition, problem)
                        continue
                    }
                    if let list = values(parameter.value, parameterPath) { parameters.append((parameter.key, list)) }
                }
            } else {
                context.mismatch(member.value, varyPath, expected: "an object of parameter paths to arrays of values")
            }
        }
        return ScenarioSweep(payloads: payloads, profiles: profiles, parameters: parameters)
    }

    /// The file name without its directory and `.json`.
    func defaultName() -> String {
        var name = context.file
        if let slash = name.lastIndex(of: "/") { name = String(name[name.index(after: slash)...]) }
        if name.hasSuffix(".json") { name = String(name.dropLast(5)) }
        return name
    }
}
