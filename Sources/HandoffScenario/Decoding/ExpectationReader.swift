import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads expectations from a scenario file, reporting every problem to
/// its context.
struct ExpectationReader {
    let context: DecodingContext

    func readExpectations(
        _ node: JSONNode, _ path: JSONPath, activities: [ScenarioActivity], deviceNames: [String],
        canInferReceiver: Bool
    ) -> [Expectation]? {
        guard let list = context.array(
            node, path, expected: "an array of expectations", maximumCount: InputBounds.maximumExpectations) else { return nil }
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
                                       + context.didYouMean(name, among: names))
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
            device = ActivityReader(context: context).deviceReference(member.value, path.key("on"), among: deviceNames)
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
            let allowed = kindKey == "callbacks" ? scenarioCallbackNames : scenarioEventNames
            var events: [TraceEvent.Name] = []
            for (index, name) in names.enumerated() {
                if let event = TraceEvent.Name(rawValue: name), allowed.contains(name) {
                    events.append(event)
                } else if kindKey == "callbacks" {
                    context.report(kindPath.index(index), at: context.array(kindNode, kindPath, expected: "")?[index].position,
                                   "unknown callback \"\(name)\"; expected one of \(scenarioCallbackNames.joined(separator: ", "))"
                                       + context.didYouMean(name, among: scenarioCallbackNames))
                } else {
                    context.report(kindPath.index(index), at: context.array(kindNode, kindPath, expected: "")?[index].position,
                                   "unknown trace event \"\(name)\"; expected an event name such as \"payload arrived\""
                                       + context.didYouMean(name, among: scenarioEventNames))
                }
            }
            guard events.count == names.count else { return nil }
            kind = kindKey == "callbacks" ? .callbacks(events, rate) : .events(events, rate)
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
        if rate != nil, !["outcome", "successRate", "error", "notOffered", "callbacks", "events"].contains(kindKey) {
            context.report(path, at: node.position, "\"atLeast\" and \"atMost\" apply to outcome, successRate, error, notOffered, callbacks and events only")
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
                           "expected \(expected), found \"\(text)\"" + context.didYouMean(text, among: known.map(\.name)))
            return nil
        case .null, .bool, .array, .object:
            break
        }
        context.mismatch(node, path, expected: expected)
        return nil
    }
}
