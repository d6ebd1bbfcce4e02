import Handoff
import ScenarioJSON
import SimKernel

/// The timeline's calls on activities checked against the source state
/// machine before anything runs.
///
/// Every change of a source activity's state comes from the timeline: the
/// app's calls (`becomeCurrent`, `resignCurrent`, `invalidate`) and the
/// supersession of a device's current activity when another of its
/// activities becomes current. The system's own steps on the source (`save`
/// when a payload is fetched, `continued`) leave the state as it is, and
/// the scripted apps make no calls. So the state each call of the timeline
/// meets is known from the file alone, and a call the state does not admit
/// is the file's problem (exit 65), never a violation in the run.
extension TimelineReader {
    /// A call of the timeline on an activity, in the order the run makes
    /// them: time order, file order for ties.
    typealias SourceCall = (time: SimDuration, action: TimelineAction, path: JSONPath, position: SourcePosition)

    /// Reports every call in `calls` that the activity's state does not
    /// admit then, at the call's `action`, with the state and the step that
    /// put the activity in it. A refused call changes nothing, as in the
    /// engine, so every later call is checked against the same states the
    /// run would have.
    ///
    /// - Parameters:
    ///   - calls: The timeline's actions, sorted as the run schedules them.
    ///   - activities: The activities' names, by index.
    ///   - activityDevices: The device each activity is created on, by index.
    /// - Complexity: O(n · a) for n calls and a activities.
    func checkSourceCalls(_ calls: [SourceCall], activities: [String], activityDevices: [String]) {
        guard activities.count == activityDevices.count else { return }
        var states = [SourceActivityMachine.State](repeating: .created, count: activities.count)
        /// What put each activity in its state (nil: it was only created).
        var causes: [String?] = Array(repeating: nil, count: activities.count)
        /// Each activity that is its device's current one (at most one per
        /// device), mirroring the engine's `SourceRole.currentActivity`.
        var isCurrentOnDevice = [Bool](repeating: false, count: activities.count)
        for call in calls {
            let activity: Int
            let event: SourceActivityMachine.Event?
            let name: String
            switch call.action {
            case let .becomeCurrent(index): (activity, event, name) = (index, .becomeCurrent, "becomeCurrent")
            case let .resignCurrent(index): (activity, event, name) = (index, .resignCurrent, "resignCurrent")
            case let .invalidate(index): (activity, event, name) = (index, .invalidate, "invalidate")
            case let .setNeedsSave(index, _): (activity, event, name) = (index, nil, "setNeedsSave")
            case let .addUserInfoEntries(index, _): (activity, event, name) = (index, nil, "addUserInfoEntries")
            case let .setEligibleForHandoff(index, _): (activity, event, name) = (index, nil, "setEligibleForHandoff")
            case .accept, .setSettings, .setAccount, .userInput: continue
            }
            guard states.indices.contains(activity) else { continue }
            let state = states[activity]
            let next: SourceActivityMachine.State?
            let admitting: [SourceActivityMachine.State]
            if let event {
                next = SourceActivityMachine.transition(from: state, on: event)
                admitting = SourceActivityMachine.State.allCases.filter {
                    SourceActivityMachine.transition(from: $0, on: event) != nil
                }
            } else {
                next = SourceActivityMachine.allowsChanges(in: state) ? state : nil
                admitting = SourceActivityMachine.State.allCases.filter(SourceActivityMachine.allowsChanges(in:))
            }
            guard let next else {
                context.report(
                    call.path.key("action"), at: call.position,
                    "expected a call that activity \"\(activities[activity])\" admits, found \"\(name)\" at \(call.time), "
                        + "when it is \(state) (since \(causes[activity] ?? "it was created")); \(name) is allowed only when "
                        + "it is \(Self.words(admitting))" + (state == .invalidated ? ": nothing is allowed after invalidate" : ""))
                continue
            }
            guard let event else { continue }
            let step = "\(name) at \(call.path)"
            if event == .becomeCurrent {
                // The device's previous current activity is superseded.
                for other in activities.indices
                where other != activity && isCurrentOnDevice[other] && activityDevices[other] == activityDevices[activity] {
                    isCurrentOnDevice[other] = false
                    if let superseded = SourceActivityMachine.transition(from: states[other], on: .superseded) {
                        states[other] = superseded
                        causes[other] = "\"\(activities[activity])\" became current at \(call.path)"
                    }
                }
                isCurrentOnDevice[activity] = true
            } else {
                isCurrentOnDevice[activity] = false
            }
            states[activity] = next
            causes[activity] = step
        }
    }

    /// States in words: "current", "created, current or resigned".
    static func words(_ states: [SourceActivityMachine.State]) -> String {
        let names = states.map(\.description)
        guard names.count > 1, let last = names.last else { return names.first ?? "never" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
