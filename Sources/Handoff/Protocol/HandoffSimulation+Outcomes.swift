import HandoffWorld
import SimKernel

/// What happened to each activity on each device, from the attempts.
extension HandoffSimulation {
    /// What happened to `activity` on the device named `device`, with its
    /// latencies; `nil` for an unknown device or activity.
    public func summary(of activity: ActivityID, on device: String) -> ContinuationSummary? {
        guard let receiver = pair(activity, device) else { return nil }
        if let attempt = attemptIndex[pairSlot(activity.index, receiver.index)] {
            return summary(ofAttempt: attempt, activity: activity, on: receiver)
        }
        // Never offered (rare): working out why needs the mutating
        // eligibility check, so on a copy.
        var copy = self
        return copy.notOfferedSummary(of: activity, on: receiver)
    }

    /// ``summary(of:on:)`` through `inout` self, which the compiler passes
    /// in place (see ``HandoffRun/summaryInPlace(of:on:)``); it changes
    /// nothing.
    mutating func summaryInPlace(of activity: ActivityID, on device: String) -> ContinuationSummary? {
        guard let receiver = pair(activity, device) else { return nil }
        if let attempt = attemptIndex[pairSlot(activity.index, receiver.index)] {
            return summary(ofAttempt: attempt, activity: activity, on: receiver)
        }
        return notOfferedSummary(of: activity, on: receiver)
    }

    /// What happened to every activity on every other device, by activity
    /// then device.
    public func summaries() -> [ContinuationSummary] {
        var copy = self
        var result: [ContinuationSummary] = []
        for activity in activities {
            for device in 0..<setup.devices.count where device != activity.device.index {
                let receiver = DeviceID(device)
                if let attempt = attemptIndex[pairSlot(activity.id.index, device)] {
                    result.append(summary(ofAttempt: attempt, activity: activity.id, on: receiver))
                } else {
                    result.append(copy.notOfferedSummary(of: activity.id, on: receiver))
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

    /// The summary of a pair that has an attempt. Always inlined, so that
    /// the mutating ``summaryInPlace(of:on:)`` does not call it as a
    /// non-mutating method, which would copy the whole simulation first.
    @inline(__always)
    private func summary(ofAttempt index: Int, activity id: ActivityID, on device: DeviceID) -> ContinuationSummary {
        // Fields read one by one: copying the whole attempt would copy (and
        // retain) its activity too, once per trial of a sweep.
        let outcome: ContinuationOutcome
        switch attempts[index].state {
        case .continued, .restored: outcome = .continued
        case .inBrowser: outcome = .continuedInBrowser
        case .failed: outcome = .failed(attempts[index].failure ?? .handoffFailed)
        case .withdrawn: outcome = .withdrawn
        case .discovered, .offered: outcome = .notAccepted
        case .accepted, .launching, .willContinue, .fetching: outcome = .unfinished
        }
        let acceptedAt = attempts[index].acceptedAt
        return ContinuationSummary(
            device: deviceName(device), activity: id, outcome: outcome,
            advertToOffered: difference(attempts[index].offeredAt, attempts[index].advertisingSince),
            acceptToContinue: difference(attempts[index].continuedAt, acceptedAt),
            acceptToRestored: difference(attempts[index].restoredAt, acceptedAt))
    }

    /// The summary of a pair never offered, with the reason. Mutating only
    /// for the eligibility check, which changes nothing.
    private mutating func notOfferedSummary(of id: ActivityID, on device: DeviceID) -> ContinuationSummary {
        let reason: NotOfferedReason
        if let rejected = rejections[pairSlot(id.index, device.index)] {
            reason = rejected
        } else if activities[id.index].lastBecameCurrent == nil {
            reason = .neverCurrent
        } else if case let .blocked(rule) = eligibility(of: id, on: device, at: clock) {
            reason = rule
        } else {
            reason = .outOfRange
        }
        return ContinuationSummary(
            device: deviceName(device), activity: id, outcome: .notOffered(reason), advertToOffered: nil,
            acceptToContinue: nil, acceptToRestored: nil)
    }

    func difference(_ later: SimInstant?, _ earlier: SimInstant?) -> SimDuration? {
        guard let later, let earlier, later >= earlier else { return nil }
        return later - earlier
    }
}
