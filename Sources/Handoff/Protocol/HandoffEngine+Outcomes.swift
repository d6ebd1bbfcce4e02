import HandoffWorld
import SimKernel

/// What happened to each activity on each device, from the attempts.
extension HandoffEngine {
    /// What happened to `activity` on the device named `device`, with its
    /// latencies; `nil` for an unknown device or activity.
    func summary(of activity: ActivityID, on device: String) -> ContinuationSummary? {
        guard let receiver = pair(activity, device) else { return nil }
        if let attempt = attemptIndex[pairSlot(activity.index, receiver.index)] {
            return summary(ofAttempt: attempt, activity: activity, on: receiver)
        }
        return notOfferedSummary(of: activity, on: receiver)
    }

    /// What happened to every activity on every other device, by activity
    /// then device.
    func summaries() -> [ContinuationSummary] {
        var result: [ContinuationSummary] = []
        for activity in activities {
            for device in 0..<world.deviceCount where device != activity.device.index {
                let receiver = DeviceID(device)
                if let attempt = attemptIndex[pairSlot(activity.id.index, device)] {
                    result.append(summary(ofAttempt: attempt, activity: activity.id, on: receiver))
                } else {
                    result.append(notOfferedSummary(of: activity.id, on: receiver))
                }
            }
        }
        return result
    }

    /// The receiving device named `device`, if it and `activity` exist.
    @inline(__always)
    private func pair(_ activity: ActivityID, _ device: String) -> DeviceID? {
        guard let number = deviceNumber(device), activity.index >= 0, activity.index < activities.count else {
            return nil
        }
        return DeviceID(number)
    }

    /// The summary of a pair that has an attempt.
    private func summary(ofAttempt index: Int, activity id: ActivityID, on device: DeviceID) -> ContinuationSummary {
        let outcome: ContinuationOutcome
        switch attempts[index].state {
        case .continued, .restored: outcome = .continued
        case .inBrowser: outcome = .continuedInBrowser
        case .failed: outcome = .failed(attempts[index].failure ?? .handoffFailed)
        case .withdrawn: outcome = .withdrawn
        case .discovered, .offered: outcome = .notAccepted
        case .accepted, .launching, .willContinue: outcome = .unfinished
        }
        var budget: LatencyBudget?
        if outcome == .continued || outcome == .continuedInBrowser, let accepted = attempts[index].milestones[.accepted],
            let continued = attempts[index].milestones[.continued]
        {
            budget = attempts[index].marks.budget(accepted: accepted, continued: continued)
        }
        return ContinuationSummary(
            device: deviceName(device), activity: id, outcome: outcome, milestones: attempts[index].milestones,
            budget: budget)
    }

    /// The summary of a pair never offered, with the reason.
    private func notOfferedSummary(of id: ActivityID, on device: DeviceID) -> ContinuationSummary {
        let reason: NotOfferedReason
        if let rejected = rejections[pairSlot(id.index, device.index)] {
            reason = rejected
        } else if activities[id.index].lastBecameCurrent == nil {
            reason = .neverCurrent
        } else if case let .blocked(rule) = eligibility(of: id, on: device, at: clock) {
            reason = rule
        } else if keyExchanges[device.index * world.deviceCount + activities[id.index].device.index].generation > 0,
                  !world.isTrusted(activities[id.index].device, device)
        {
            reason = .keysNotExchanged
        } else if acceptedWithoutOffer[device.index], isInRadioRange(activities[id.index].device, device) {
            reason = .acceptedBeforeOffer
        } else {
            reason = .outOfRange
        }
        return ContinuationSummary(
            device: deviceName(device), activity: id, outcome: .notOffered(reason), milestones: MilestoneTimes())
    }

    /// Whether an advertisement from `source` reaches `receiver` more often
    /// than not at their distance now.
    private func isInRadioRange(_ source: DeviceID, _ receiver: DeviceID) -> Bool {
        let distance = world.distance(between: source, and: receiver, at: clock)
        return world.configuration.bluetoothRadio.receptionProbability(atDistance: distance) >= 0.5
    }
}
