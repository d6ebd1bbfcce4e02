import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads expectations from a scenario file, reporting every problem to
/// its context.
struct ExpectationReader {
    let context: DecodingContext

    func readExpectations(
        _ node: JSONNode, _ path: JSONPath, activities: [ScenarioActivity], declaredActivities: [String?], sources: [String],
        deviceNames: [String], canInferReceiver: Bool
    ) -> [Expectation]? {
        guard let list = context.array(
            node, path, expected: "an array of expectations", maximumCount: InputBounds.maximumExpectations) else { return nil }
        if list.isEmpty {
            context.report(path, at: node.position, "expected at least one expectation")
        }
        var result: [Expectation] = []
        for (index, element) in list.enumerated() {
            if let expectation = readExpectation(element, path.index(index), activities: activities,
                                                 declaredActivities: declaredActivities, sources: sources,
                                                 deviceNames: deviceNames, canInferReceiver: canInferReceiver) {
                result.append(expectation)
            }
        }
        return result
    }

    func readExpectation(
        _ node: JSONNode, _ path: JSONPath, activities: [ScenarioActivity], declaredActivities: [String?], sources: [String],
        deviceNames: [String], canInferReceiver: Bool
    ) -> Expectation? {
        guard let object = context.object(node, path, what: "an expectation object", allowed: ScenarioKeys.expectation)
        else { return nil }
        let kinds = expectationKinds.filter { object.has($0.key) }
        guard kinds.count == 1, let kindType = kinds.first else {
            context.report(path, at: node.position,
                           kinds.isEmpty
                               ? "expected one of the keys \(ScenarioKeys.expectationKinds.joined(separator: ", ")) saying what to expect"
                               : "expected one kind of expectation per object, found \(kinds.map { $0.key }.joined(separator: ", "))")
            return nil
        }
        // Which activity.
        var activity: Int?
        // Activities are named among every one the file declares, so one
        // reported invalid where it is declared is not reported again here.
        let declaredNames = declaredActivities.compactMap { $0 }
        if let member = object.member("activity") {
            let names = activities.map(\.name)
            if let name = context.string(member.value, path.key("activity")) {
                activity = names.firstIndex(of: name)
                if activity == nil, !declaredNames.contains(name) {
                    context.report(path.key("activity"), at: member.value.position,
                                   "unknown activity \"\(name)\"; activities are \(declaredNames.joined(separator: ", "))"
                                       + context.didYouMean(name, among: declaredNames))
                }
            }
        } else if declaredActivities.count <= 1 || kindType.coversDevice {
            // A device's callbacks and events cover all its activities.
            activity = activities.isEmpty ? nil : 0
        } else {
            context.report(path, at: node.position,
                           "missing required key \"activity\" (which activity: \(declaredNames.joined(separator: ", ")))")
        }
        // Which receiving device: the only device that is no activity's
        // source (as the file names them), unless named.
        var device: String?
        if let member = object.member("on") {
            device = ActivityReader(context: context).deviceReference(member.value, path.key("on"), among: deviceNames)
        } else {
            let sources = Set(sources)
            let receivers = deviceNames.filter { !sources.contains($0) }
            if receivers.count == 1 {
                device = receivers[0]
            } else if canInferReceiver, !deviceNames.isEmpty {
                context.report(path, at: node.position,
                               "missing required key \"on\" (the receiving device: one of \(deviceNames.joined(separator: ", ")))")
            }
        }
        let rate = readRateBound(object, path)
        let kind = kindType.read(object.member(kindType.key)!.value, path.key(kindType.key), object, rate, context)
        if rate != nil, !kindType.takesRate {
            let names = expectationKinds.filter(\.takesRate).map(\.key)
            context.report(path, at: node.position, "\"atLeast\" and \"atMost\" apply to "
                               + names.dropLast().joined(separator: ", ") + " and " + names.last! + " only")
        }
        guard let kind, let device, let activity else { return nil }
        if !kindType.coversDevice, activities[activity].device == device {
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
}
