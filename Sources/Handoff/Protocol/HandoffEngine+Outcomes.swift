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
        } else if let never = neverAdvertised(id) {
            reason = never
        } else if receiver.acceptedWithoutOffer[device.index], isInRadioRange(source, device) {
            reason = .acceptedBeforeOffer
        } else {
            reason = unreached(id, from: source, on: device)
        }
        return ContinuationSummary(
            device: core.deviceName(device), activity: id, outcome: .notOffered(reason), milestones: MilestoneTimes())
    }

    /// Why the source never advertised an activity that became current:
    /// Low Power Mode, a locked iPhone that sends no Handoff advertisement, or its
    /// update paced until it stopped being current; nil when it was
    /// advertised, or is still waiting for the pacing.
    private func neverAdvertised(_ id: ActivityID) -> NotOfferedReason? {
        let activity = core.activities[id.index]
        if activity.everAdvertised { return nil }
        switch activity.advertisingStop {
        case .lowPowerMode?: return .sourceInLowPowerMode
        case .lockedNearbyOnly?: return .sourceLocked
        case .idle?, .locked?, .dimmed?, nil: break
        }
        switch activity.currentEnded {
        case .superseded?: return .supersededWhilePaced
        case .resignedOrInvalidated?: return .resignedWhilePaced
        case nil: return nil
        }
    }

    /// Why an activity every rule allows on `device` never reached it,
    /// when the source advertised it (or was still pacing its update): the
    /// device, in radio range when the trial ended, heard none of it before
    /// it stopped (and why) or before the trial ended; otherwise out of
    /// range.
    private func unreached(_ id: ActivityID, from source: DeviceID, on device: DeviceID) -> NotOfferedReason {
        let activity = core.activities[id.index]
        guard activity.everAdvertised else { return .trialEndedFirst }  // still paced when the trial ended
        guard isInRadioRange(source, device) else { return .outOfRange }
        switch activity.currentEnded {
        case .superseded?: return .supersededBeforeReceived
        case .resignedOrInvalidated?: return .resignedBeforeReceived
        case nil: return activity.advertisingStop == nil ? .trialEndedFirst : .advertisementRemovedFirst
        }
    }

    /// Whether an advertisement from `source` reaches `receiver` more often
    /// than not at their distance now.
    private func isInRadioRange(_ source: DeviceID, _ receiver: DeviceID) -> Bool {
        let distance = core.world.distance(between: source, and: receiver, at: core.clock)
        return core.world.configuration.bluetoothRadio.receptionProbability(atDistance: distance) >= 0.5
    }
}
