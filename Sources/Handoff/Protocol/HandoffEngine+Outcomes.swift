import HandoffWorld
import SimKernel

/// What happened to each activity on each device, from the attempts.
extension HandoffEngine {
    /// What happened to `activity` on the device named `device`, with its
    /// latencies; `nil` for an unknown device or activity.
    func summary(of activity: ActivityID, on device: String) -> ContinuationSummary? {
        guard let device = pair(activity, device) else { return nil }
        if let attempt = core.attemptIndex[core.pairSlot(activity.index, device.index)] {
            return summary(ofAttempt: attempt, activity: activity, on: device)
        }
        return notOfferedSummary(of: activity, on: device)
    }

    /// What happened to every activity on every other device, by activity
    /// then device.
    func summaries() -> [ContinuationSummary] {
        var result: [ContinuationSummary] = []
        for activity in core.activities {
            for device in 0..<core.world.deviceCount where device != activity.device.index {
                let other = DeviceID(device)
                if let attempt = core.attemptIndex[core.pairSlot(activity.id.index, device)] {
                    result.append(summary(ofAttempt: attempt, activity: activity.id, on: other))
                } else {
                    result.append(notOfferedSummary(of: activity.id, on: other))
                }
            }
        }
        return result
    }

    /// The receiving device named `device`, if it and `activity` exist.
    @inline(__always)
    private func pair(_ activity: ActivityID, _ device: String) -> DeviceID? {
        guard let number = core.deviceNumber(device), activity.index >= 0, activity.index < core.activities.count else {
            return nil
        }
        return DeviceID(number)
    }

    /// The summary of a pair that has an attempt.
    private func summary(ofAttempt index: Int, activity id: ActivityID, on device: DeviceID) -> ContinuationSummary {
        let outcome: ContinuationOutcome
        switch core.attempts[index].state {
        case .continued, .restored: outcome = .continued
        case .inBrowser: outcome = .continuedInBrowser
        case .failed: outcome = .failed(core.attempts[index].failure ?? .handoffFailed)
        case .withdrawn: outcome = .withdrawn
        case .discovered, .offered: outcome = .notAccepted
        case .accepted, .launching, .willContinue: outcome = .unfinished
        }
        var budget: LatencyBudget?
        if outcome == .continued || outcome == .continuedInBrowser, let accepted = core.attempts[index].milestones[.accepted],
            let continued = core.attempts[index].milestones[.continued]
        {
            budget = core.attempts[index].marks.budget(accepted: accepted, continued: continued)
        }
        return ContinuationSummary(
            device: core.deviceName(device), activity: id, outcome: outcome, milestones: core.attempts[index].milestones,
            budget: budget)
    }

    /// The summary of a pair never offered, with the reason.
    private func notOfferedSummary(of id: ActivityID, on device: DeviceID) -> ContinuationSummary {
        let reason: NotOfferedReason
        let source = core.activities[id.index].device
        if let rejected = receiver.rejections[core.pairSlot(id.index, device.index)] {
            reason = rejected
        } else if core.activities[id.index].lastBecameCurrent == nil {
            reason = .neverCurrent
        } else if case let .blocked(rule) = receiver.eligibility(of: id, on: device, at: core.clock, core: core) {
            reason = rule
        } else if fetch.keyExchanges[device.index * core.world.deviceCount + source.index].generation > 0,
                  !core.world.isTrusted(source, device)
        {
            reason = .keysNotExchanged
        } else if receiver.acceptedWithoutOffer[device.index], isInRadioRange(source, device) {
            reason = .acceptedBeforeOffer
        } else {
            reason = .outOfRange
        }
        return ContinuationSummary(
            device: core.deviceName(device), activity: id, outcome: .notOffered(reason), milestones: MilestoneTimes())
    }

    /// Whether an advertisement from `source` reaches `receiver` more often
    /// than not at their distance now.
    private func isInRadioRange(_ source: DeviceID, _ receiver: DeviceID) -> Bool {
        let distance = core.world.distance(between: source, and: receiver, at: core.clock)
        return core.world.configuration.bluetoothRadio.receptionProbability(atDistance: distance) >= 0.5
    }
}
