import HandoffWorld
import SimKernel

/// The receiving device's side of the protocol: discovering advertised
/// activities, the eligibility rules, the offers shown and withdrawn, the
/// user's acceptance, and the app's launch and callbacks up to `continue`
/// (`ReceiverRole+Continuing.swift`).
///
/// Owned by the ``HandoffEngine``, which passes in the ``ProtocolCore``
/// and the scheduler; what it needs of the other roles comes as arguments,
/// and what the others must do next is returned to the engine.
/// Noncopyable, so that it is only ever changed in place.
struct ReceiverRole: ~Copyable {
    // MARK: What a run fixes

    /// The number of apps in the setup (the stride of ``running``).
    let appCount: Int
    /// Per device: the installed apps that run on its platform (the
    /// candidates for a native continuation there).
    let runnableApps: [[Int]]
    /// Per app: its Team ID as a small number (equal IDs, equal numbers),
    /// so the eligibility check compares integers.
    let appTeams: [Int]
    /// How each device's user answers offers.
    let acceptancePolicies: [AcceptancePolicy]
    /// Whether each device's user accepts offers without an action.
    let acceptsAutomatically: [Bool]

    // MARK: What a trial changes (reset by `reset(deviceCount:)`, below)

    /// The attempt offered on each device, if any.
    var visibleOffer: [Int?] = []
    /// The most recently current activity each device has seen advertised
    /// and found eligible.
    var latestCandidate: [ActivityID?] = []
    /// Whether each device's user accepted while nothing was offered there.
    var acceptedWithoutOffer: [Bool] = []
    /// Whether each app is running on each device (device × app).
    var running: [Bool] = []
    /// The latest rule that kept each activity from each device (activity
    /// × device), recorded when an advertisement was rejected.
    var rejections: [NotOfferedReason?] = []
    /// Think-time generators per device, made on first use.
    var acceptanceGenerators: [Xoshiro256StarStar?] = []

    /// Starts a trial of `deviceCount` devices: every per-trial field above
    /// as in a new run, in its own storage.
    mutating func reset(deviceCount: Int) {
        visibleOffer.refill(with: nil, count: deviceCount)
        latestCandidate.refill(with: nil, count: deviceCount)
        acceptedWithoutOffer.refill(with: false, count: deviceCount)
        running.refill(with: false, count: deviceCount * appCount)
        rejections.removeAllKeepingStorage()
        acceptanceGenerators.refill(with: nil, count: deviceCount)
    }

    /// The receiving side of a run of `setup` whose devices have the apps
    /// `installed`, at the start of a trial.
    init(setup: HandoffSetup, installed: [[Int]]) {
        appCount = setup.apps.count
        runnableApps = zip(setup.devices, installed).map { device, apps in
            apps.filter { setup.apps[$0].runs(on: device.kind.platform) }
        }
        var teamNumbers: [TeamID: Int] = [:]
        appTeams = setup.apps.map { app in
            if let number = teamNumbers[app.teamID] { return number }
            teamNumbers[app.teamID] = teamNumbers.count
            return teamNumbers.count - 1
        }
        acceptancePolicies = setup.devices.map { device in
            setup.configuration.acceptance[device.name] ?? setup.configuration.defaultAcceptance
        }
        acceptsAutomatically = acceptancePolicies.map { $0 != .explicit }
        reset(deviceCount: setup.devices.count)
    }

    /// An activity of `app` was created on `device`: the app runs there,
    /// and the activity has a row of rejections, one per device.
    mutating func activityCreated(app: Int, on device: Int, deviceCount: Int) {
        running[device * appCount + app] = true
        for _ in 0..<deviceCount { rejections.append(nil) }
    }

    // MARK: Discovery and eligibility

    /// What an advertisement a receiver heard led to.
    enum Discovery {
        /// Nothing new: a repeat of one already acted on, or stale.
        case ignored
        /// The receiver's state changed and nothing more is needed
        /// (a rejection recorded, or a candidate superseded).
        case changed
        /// The advertisement is under a key the receiver does not know
        /// yet: the keys must be exchanged first (for this activity).
        case needsKeys(ActivityID)
        /// A new offer, this attempt: the receiver now watches the
        /// source's presence, and the user's acceptance is scheduled.
        case offered(Int)
    }

    /// `receiver` heard an advertisement of `source` with `payload` (the
    /// activity and its advertising generation); `currentActivity` is
    /// each device's current activity.
    mutating func advertisementReceived(
        from source: DeviceID, to receiver: DeviceID, payload: UInt64, now: SimInstant,
        currentActivity: borrowing [ActivityID?], core: inout ProtocolCore
    ) -> Discovery {
        let index = Int(payload & 0xffff_ffff)
        guard index < core.activities.count else { return .ignored }
        let id = ActivityID(index)
        // A late advertisement of an activity no longer advertised.
        guard currentActivity[source.index] == id,
            core.activities[index].advertGeneration == UInt32(truncatingIfNeeded: payload >> 32)
        else { return .ignored }
        if let existing = core.attemptIndex[core.pairSlot(index, receiver.index)] {
            // Already offered, or further along: nothing new. A withdrawn
            // offer may come back.
            guard core.attempts[existing].state == .withdrawn else { return .ignored }
        }
        let target: ContinuationTarget
        switch eligibility(of: id, on: receiver, at: now, core: core) {
        case let .blocked(reason):
            reject(id, on: receiver, because: reason, now: now, core: &core)
            return .changed
        case let .eligible(eligibleTarget):
            target = eligibleTarget
        }
        // An advertisement under a key the receiver does not know yet can
        // only be read after the keys are exchanged over Bluetooth LE.
        guard core.world.isTrusted(source, receiver) else { return .needsKeys(id) }
        // With two candidates, the more recently current one is offered; of
        // two that became current at the same instant, the one already a
        // candidate stays and the other is superseded (no flip-flopping).
        if let other = latestCandidate[receiver.index], other != id,
            currentActivity[core.activities[other.index].device.index] == other,
            core.activities[other.index].lastBecameCurrent ?? .zero >= core.activities[index].lastBecameCurrent ?? .zero
        {
            reject(id, on: receiver, because: .supersededByMoreRecent, now: now, core: &core)
            return .changed
        }
        latestCandidate[receiver.index] = id
        if let shown = visibleOffer[receiver.index], core.attempts[shown].activity != id {
            core.apply(.withdraw, to: shown, now: now, note: core.keepsTrace ? .moreRecent(core.traceActivity(id)) : nil)
            visibleOffer[receiver.index] = nil
        }
        let attempt = core.attempts.count
        core.attempts.append(Attempt(receiver: receiver, activity: id, target: target))
        core.attemptIndex[core.pairSlot(index, receiver.index)] = attempt
        rejections[core.pairSlot(index, receiver.index)] = nil
        core.record(now, device: receiver, app: .target(target), activity: id,
                    .system(.discovered(advertisementFrom: core.traceDevice(source))))
        core.apply(.offer, to: attempt, now: now, note: target == .browser ? .inBrowser : nil)
        core.attempts[attempt].milestones[.offered] = now
        core.attempts[attempt].milestones[.advertised] = core.activities[index].lastBecameCurrent
        visibleOffer[receiver.index] = attempt
        return .offered(attempt)
    }

    /// Records that `reason` keeps `id` from `receiver` (once per reason).
    mutating func reject(
        _ id: ActivityID, on receiver: DeviceID, because reason: NotOfferedReason, now: SimInstant,
        core: inout ProtocolCore
    ) {
        let slot = core.pairSlot(id.index, receiver.index)
        guard rejections[slot] != reason else { return }
        rejections[slot] = reason
        core.record(now, device: receiver, app: .system, activity: id, .system(.notOffered(reason)))
    }

    /// The eligibility rules, in order: where the activity would go on
    /// `receiver`, or the first rule that blocks it.
    func eligibility(
        of id: ActivityID, on receiver: DeviceID, at now: SimInstant, core: borrowing ProtocolCore
    ) -> Eligibility {
        let source = core.activities[id.index].device
        let platform = core.world.deviceTable.platform(of: receiver)
        if platform == .watchOS { return .blocked(.receiverIsWatch) }
        let sourceSettings = core.world.deviceTable.settings(of: source)
        let receiverSettings = core.world.deviceTable.settings(of: receiver)
        if !sourceSettings.handoffEnabled { return .blocked(.handoffDisabledOnSource) }
        if !receiverSettings.handoffEnabled { return .blocked(.handoffDisabledOnReceiver) }
        if !sourceSettings.bluetoothEnabled { return .blocked(.bluetoothOffOnSource) }
        if !receiverSettings.bluetoothEnabled { return .blocked(.bluetoothOffOnReceiver) }
        if core.setup.configuration.fetchPath == .wifiPeerToPeer || core.setup.configuration.fetchPath == .localNetwork {
            if !sourceSettings.wifiEnabled { return .blocked(.wifiOffOnSource) }
            if !receiverSettings.wifiEnabled { return .blocked(.wifiOffOnReceiver) }
        }
        guard let sourceAccount = core.world.deviceTable.account(of: source),
            let receiverAccount = core.world.deviceTable.account(of: receiver)
        else {
            return .blocked(.notSignedIn)
        }
        if sourceAccount != receiverAccount { return .blocked(.differentAccount) }
        if !core.activities[id.index].content.isEligibleForHandoff { return .blocked(.notEligibleForHandoff) }
        if let expiration = core.activities[id.index].content.expirationDate, now >= expiration {
            return .blocked(.expired)
        }
        let activityType = core.activities[id.index].content.activityType
        if activityType == browsingWebActivityType {
            guard let url = core.activities[id.index].content.webpageURL else { return .blocked(.noSuitableApp) }
            for app in core.installed[receiver.index]
            where core.setup.apps[app].runs(on: platform)
                && core.setup.siteAssociations.allowsBrowsingWebContinuation(to: url, by: core.setup.apps[app])
            {
                return .eligible(.app(app))
            }
            return .eligible(.browser)
        }
        let team = appTeams[core.activities[id.index].app]
        for app in runnableApps[receiver.index]
        where appTeams[app] == team && core.setup.apps[app].declares(activityType: activityType) {
            return .eligible(.app(app))
        }
        if core.activities[id.index].content.webpageURL != nil { return .eligible(.browser) }
        return .blocked(.noSuitableApp)
    }

    // MARK: Withdrawing offers

    /// Offers of `id` not yet picked go away on every device, with `note`.
    mutating func withdrawOffers(of id: ActivityID, note: TransitionNote?, now: SimInstant, core: inout ProtocolCore) {
        for device in 0..<core.world.deviceCount {
            guard let attempt = core.attemptIndex[core.pairSlot(id.index, device)] else { continue }
            withdrawIfPending(attempt, on: device, note: note, now: now, core: &core)
        }
    }

    /// Offers from `source` not yet picked go away on `receiver`, with
    /// `note`.
    mutating func withdrawOffers(
        from source: DeviceID, on receiver: Int, note: TransitionNote?, now: SimInstant, core: inout ProtocolCore
    ) {
        for activity in core.activities.indices where core.activities[activity].device == source {
            guard let attempt = core.attemptIndex[core.pairSlot(activity, receiver)] else { continue }
            withdrawIfPending(attempt, on: receiver, note: note, now: now, core: &core)
        }
    }

    /// Withdraws `attempt` on `device` if it is discovered or offered.
    private mutating func withdrawIfPending(
        _ attempt: Int, on device: Int, note: TransitionNote?, now: SimInstant, core: inout ProtocolCore
    ) {
        switch core.attempts[attempt].state {
        case .discovered, .offered:
            core.apply(.withdraw, to: attempt, now: now, note: note)
            if visibleOffer[device] == attempt { visibleOffer[device] = nil }
        case .accepted, .launching, .willContinue, .continued, .restored, .failed, .withdrawn, .inBrowser:
            return
        }
    }
}
