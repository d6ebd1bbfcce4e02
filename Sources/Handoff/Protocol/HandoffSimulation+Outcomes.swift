import HandoffWorld
import SimKernel

/// What happened to each activity on each device, from the attempts.
extension HandoffSimulation {
    /// What happened to `activity` on the device named `device`, with its
    /// latencies; `nil` for an unknown device or activity.
    public func summary(of activity: ActivityID, on device: String) -> ContinuationSummary? {
        var copy = self
        return copy.summaryInPlace(of: activity, on: device)
    }

    /// ``summary(of:on:)`` through `inout` self, which the compiler passes
    /// in place (see ``HandoffRun/summaryInPlace(of:on:)``); it changes
    /// nothing.
    mutating func summaryInPlace(of activity: ActivityID, on device: String) -> ContinuationSummary? {
        guard let number = deviceNumber(device), activity.index >= 0, activity.index < activities.count else {
            return nil
        }
        return summary(of: activity, on: DeviceID(number))
    }

    /// What happened to every activity on every other device, by activity
    /// then device.
    public func summaries() -> [ContinuationSummary] {
        var copy = self
        var result: [ContinuationSummary] = []
        for activity in activities {
            for device in 0..<setup.devices.count where device != activity.device.index {
                result.append(copy.summary(of: activity.id, on: DeviceID(device)))
            }
        }
        return result
    }

    /// The summary of one pair. Mutating only so that it reads the model in
    /// place: a non-mutating method called from mutating code would copy
    /// the whole simulation first. It changes nothing.
    mutating func summary(of id: ActivityID, on device: DeviceID) -> ContinuationSummary {
        let name = deviceName(device)
        guard let index = attemptIndex[pairSlot(id.index, device.index)] else {
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
                device: name, activity: id, outcome: .notOffered(reason), advertToOffered: nil, acceptToContinue: nil,
                acceptToRestored: nil)
        }
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
            device: name, activity: id, outcome: outcome,
            advertToOffered: difference(attempts[index].offeredAt, attempts[index].advertisingSince),
            acceptToContinue: difference(attempts[index].continuedAt, acceptedAt),
            acceptToRestored: difference(attempts[index].restoredAt, acceptedAt))
    }

    func difference(_ later: SimInstant?, _ earlier: SimInstant?) -> SimDuration? {
        guard let later, let earlier, later >= earlier else { return nil }
        return later - earlier
    }
}
