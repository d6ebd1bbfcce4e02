import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads the timeline and the moves that become mobility from a scenario file, reporting every problem to
/// its context.
struct TimelineReader {
    let context: DecodingContext

    func readTimeline(
        _ node: JSONNode, _ path: JSONPath, activities: [String], declaredActivities: [String?], activityDevices: [String],
        deviceNames: [String], drafts: inout [ScenarioReader.DeviceDraft], limits: ScenarioLimits
    ) -> [TimelineEntry]? {
        let declaredNames = declaredActivities.compactMap { $0 }
        guard let list = context.array(node, path, expected: "an array of timeline entries") else { return nil }
        /// An entry before settings switches are resolved.
        enum Pending {
            case action(TimelineAction)
            /// A device's switches or state change (Bluetooth, Wi-Fi,
            /// Handoff, the screen, Low Power Mode, idle).
            case switchSetting(device: Int, (inout DeviceSettings) -> Void)
            /// `active`: the system is used again, which is the user's
            /// input on the device whether or not it was idle.
            case active(device: Int)
        }
        var pending: [(time: SimDuration, order: Int, entry: Pending, path: JSONPath, position: SourcePosition)] = []
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
                        // An activity the file declares but that is invalid
                        // was reported where it is declared.
                        if declaredNames.contains(name) { return nil }
                        context.report(entryPath.key("activity"), at: member.value.position,
                                       "unknown activity \"\(name)\"; activities are \(declaredNames.joined(separator: ", "))"
                                           + context.didYouMean(name, among: declaredNames))
                        return nil
                    }
                    return index
                }
                guard declaredActivities.count <= 1 else {
                    context.report(entryPath, at: element.position,
                                   "missing required key \"activity\" (which activity: \(declaredNames.joined(separator: ", ")))")
                    return nil
                }
                return activities.isEmpty ? nil : 0
            }
            func device() -> String? {
                object.required("device", what: "the device it happens on", { ActivityReader(context: context).deviceReference($0, $1, among: deviceNames) })
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
                let entries = object.required("entries", what: "the entries to add", { ActivityReader(context: context).readUserInfo($0, $1) })
                if let index, let entries { made = .action(.addUserInfoEntries(activity: index, entries)) }
            case "accept":
                made = device().map { .action(.accept(device: $0)) }
            case "userInput":
                made = device().map { .action(.userInput(device: $0)) }
            case "signIn":
                let name = device()
                let account = object.required("account", what: "the iCloud account", { context.nonEmptyString($0, $1) })
                if let name, let account { made = .action(.setAccount(device: name, AccountID(account))) }
            case "signOut":
                made = device().map { .action(.setAccount(device: $0, nil)) }
            case "move":
                let name = device()
                let to = object.required("to", what: "where the device goes, [x, y] in metres", { DeviceReader(context: context).readPosition($0, $1) })
                let speed = object.optional("speed") {
                    context.number($0, $1, in: 1e-6...1e6, expected: "a speed in metres per second, greater than 0")
                } ?? ScenarioDecoder.defaultWalkingSpeed
                if let name, let to, let draft = drafts.firstIndex(where: { $0.description.name == name }) {
                    drafts[draft].moves.append((time, to, speed, entryPath, element.position))
                }
            case "active":
                made = device().flatMap { name in drafts.firstIndex { $0.description.name == name } }.map { .active(device: $0) }
            default:
                // bluetoothOff, wifiOn, handoffOff, ...
                guard let name = device(), let index = drafts.firstIndex(where: { $0.description.name == name }) else {
                    continue
                }
                let change: (inout DeviceSettings) -> Void
                switch action {
                case "lock": change = { $0.screen = .locked }
                case "unlock": change = { $0.screen = .on }
                case "screenOff": change = { if $0.screen == .on { $0.screen = .off } }
                case "screenOn": change = { if $0.screen == .off { $0.screen = .on } }
                case "idle": change = { $0.idle = true }
                default:
                    let on = action.hasSuffix("On")
                    let key: WritableKeyPath<DeviceSettings, Bool> = action.hasPrefix("bluetooth")
                        ? \.bluetoothEnabled : action.hasPrefix("wifi") ? \.wifiEnabled
                        : action.hasPrefix("lowPowerMode") ? \.lowPowerMode : \.handoffEnabled
                    change = { $0[keyPath: key] = on }
                }
                made = .switchSetting(device: index, change)
            }
            if let made { pending.append((time, index, made, entryPath, object.position(of: "action"))) }
        }
        // In time order (file order for ties); a switch becomes the device's
        // whole settings after it.
        pending.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        checkSourceCalls(
            pending.compactMap { item in
                guard case let .action(action) = item.entry else { return nil }
                return (item.time, action, item.path, item.position)
            },
            activities: activities, activityDevices: activityDevices)
        var settings = drafts.map(\.description.settings)
        let draftNames = drafts.map(\.description.name)
        return pending.map { item in
            switch item.entry {
            case let .action(action):
                return TimelineEntry(time: .zero + item.time, action: action, path: item.path.description)
            case let .switchSetting(device, change):
                change(&settings[device])
                return TimelineEntry(
                    time: .zero + item.time, action: .setSettings(device: draftNames[device], settings[device]),
                    path: item.path.description)
            case let .active(device):
                // Leaving the idle state is input (the engine counts it);
                // on a device in use, `active` is the user's input as such.
                guard settings[device].idle else {
                    return TimelineEntry(
                        time: .zero + item.time, action: .userInput(device: draftNames[device]), path: item.path.description)
                }
                settings[device].idle = false
                return TimelineEntry(
                    time: .zero + item.time, action: .setSettings(device: draftNames[device], settings[device]),
                    path: item.path.description)
            }
        }
    }

    /// The device's moves as a waypoint path from its position, or nil if it
    /// does not move.
    func mobility(of draft: ScenarioReader.DeviceDraft) -> Mobility? {
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
}
