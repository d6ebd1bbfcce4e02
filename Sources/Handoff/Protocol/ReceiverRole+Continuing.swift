import HandoffWorld
import SimKernel

/// The user's acceptance on the receiver, the app's launch, and its
/// callbacks: `willContinue`, `continue` or `didFail`, and the restoration
/// handler.
extension ReceiverRole {
    // MARK: Accepting and launching

    /// Schedules the user's acceptance of `attempt`, by the receiver's
    /// acceptance policy (none for an explicit one).
    mutating func scheduleAcceptance(
        of attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let device = core.attempts[attempt].receiver
        switch acceptancePolicies[device.index] {
        case .explicit:
            return
        case let .after(delay):
            core.later(.accept, of: attempt, after: delay, now: now, scheduler: &scheduler)
        case let .thinkTime(mean, deviation):
            let seconds: Double
            if deviation == 0 {
                seconds = mean
            } else if let distribution = try? LogNormalDistribution(mean: mean, standardDeviation: deviation) {
                var generator = acceptanceGenerators[device.index]
                    ?? core.stream.child(HandoffStreamNames.acceptance).generator(core.deviceName(device))
                seconds = distribution.sample(using: &generator)
                acceptanceGenerators[device.index] = generator
            } else {
                seconds = mean
            }
            let nanoseconds = min(seconds * 1e9, 1e15).rounded()
            core.later(.accept, of: attempt, after: .nanoseconds(Int64(nanoseconds)), now: now, scheduler: &scheduler)
        }
    }

    /// The user on `device` picks what is offered there.
    ///
    /// - Returns: the attempt offered there, or `nil` when nothing is (the
    ///   acceptance is recorded as made without an offer).
    mutating func offerPicked(on device: Int, now: SimInstant, core: inout ProtocolCore) -> Int? {
        guard let attempt = visibleOffer[device], core.attempts[attempt].state == .offered else {
            acceptedWithoutOffer[device] = true
            core.traceCount += 1
            if core.keepsTrace {
                core.keep(now, device: DeviceID(device), app: .system, activity: nil, .system(.acceptedWithoutOffer))
            }
            return nil
        }
        return attempt
    }

    /// The user accepted `attempt`: the offer goes.
    ///
    /// - Returns: whether the acceptance was legal (then the engine tells
    ///   the offer's lifetime, ``launch(_:now:core:scheduler:)`` launches
    ///   the app and the fetch starts).
    mutating func accept(_ attempt: Int, now: SimInstant, core: inout ProtocolCore) -> Bool {
        guard core.apply(.accept, to: attempt, now: now) else { return false }
        core.attempts[attempt].milestones[.accepted] = now
        visibleOffer[core.attempts[attempt].receiver.index] = nil
        return true
    }

    /// The system launches the app (warm if it is running, cold otherwise)
    /// or the browser.
    func launch(_ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>) {
        let launch: SimDuration
        let kind: TransitionNote.Launch
        var generator = core.stream.child(HandoffStreamNames.launch, attempt).generator()
        switch core.attempts[attempt].target {
        case let .app(app):
            let isRunning = running[core.attempts[attempt].receiver.index * appCount + app]
            launch = (isRunning ? core.setup.apps[app].warmLaunch : core.setup.apps[app].coldLaunch)
                .sample(using: &generator)
            kind = isRunning ? .warm : .cold
        case .browser:
            launch = core.setup.configuration.browserLaunch.sample(using: &generator)
            kind = .browser
        }
        core.apply(.launch, to: attempt, now: now, note: .launch(kind, launch))
        core.later(.launched, of: attempt, after: launch, now: now, scheduler: &scheduler)
    }

    /// The app (or the browser) is up: the browser opens the page; an app
    /// gets `willContinue`, and is ready for the data when it returns.
    mutating func launched(
        _ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let receiver = core.attempts[attempt].receiver
        let activity = core.attempts[attempt].activity
        core.attempts[attempt].marks.launched = now
        guard case let .app(app) = core.attempts[attempt].target else {
            core.apply(.openInBrowser, to: attempt, now: now,
                       note: core.keepsTrace ? .webpage(core.activities[activity.index].content.webpageURL) : nil)
            core.attempts[attempt].milestones[.continued] = now
            return
        }
        running[receiver.index * appCount + app] = true
        guard core.apply(.willContinue, to: attempt, now: now) else { return }
        let type = core.activities[activity.index].content.activityType
        var context = CallbackContext(now: now, device: core.deviceName(receiver))
        let answer: Callback.DelegateAnswer
        switch core.appDelegate(device: receiver, app: app) {
        case let .scene(delegate):
            delegate.scene(willContinueUserActivityWithType: type, context: &context)
            answer = .scene
        case let .application(delegate):
            answer = .returned(delegate.application(willContinueUserActivityWithType: type, context: &context))
        }
        core.record(now, device: receiver, app: .bundle(app), activity: activity,
                    .callback(.willContinueUserActivity(answer)))
        core.later(.appReady, of: attempt, after: context.processingTime, now: now, scheduler: &scheduler)
    }

    /// `willContinue` returned: continue or fail now if the fetch has
    /// ended, otherwise when it ends.
    func appReady(_ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>) {
        guard core.attempts[attempt].state == .willContinue else { return }
        core.attempts[attempt].appReady = true
        core.attempts[attempt].marks.appReady = now
        fetchEnded(attempt, now: now, core: &core, scheduler: &scheduler)
    }

    /// The fetch of `attempt` has ended (or the app has just become
    /// ready): an app that is ready continues if the payload is in and
    /// decoded, or fails with the fetch's error; otherwise nothing yet.
    func fetchEnded(_ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>) {
        guard core.attempts[attempt].appReady else { return }
        switch core.attempts[attempt].fetchStage {
        case .arrived:
            continueActivity(attempt, now: now, core: &core, scheduler: &scheduler)
        case let .failed(error):
            fail(attempt, with: error, now: now, core: &core)
        case .idle, .resolving, .rapport, .cloud, .decoding:
            return
        }
    }

    // MARK: Continuing or failing

    /// The app gets `didFail` (the attempt must be in `willContinue`).
    func fail(_ attempt: Int, with error: ContinuationError, now: SimInstant, core: inout ProtocolCore) {
        guard core.apply(.fail, to: attempt, now: now, note: .error(error)) else { return }
        core.attempts[attempt].failure = error
        guard case let .app(app) = core.attempts[attempt].target else { return }
        let receiver = core.attempts[attempt].receiver
        let activity = core.attempts[attempt].activity
        let type = core.activities[activity.index].content.activityType
        var context = CallbackContext(now: now, device: core.deviceName(receiver))
        switch core.appDelegate(device: receiver, app: app) {
        case let .scene(delegate):
            delegate.scene(didFailToContinueUserActivityWithType: type, error: error, context: &context)
        case let .application(delegate):
            delegate.application(didFailToContinueUserActivityWithType: type, error: error, context: &context)
        }
        core.record(now, device: receiver, app: .bundle(app), activity: activity,
                    .callback(.didFailToContinueUserActivity(error)))
    }

    /// The app is ready and the payload is in: `continue`.
    func continueActivity(
        _ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard core.attempts[attempt].state == .willContinue, case let .app(app) = core.attempts[attempt].target,
            let delivered = core.attempts[attempt].delivered
        else { return }
        guard core.apply(.continue, to: attempt, now: now) else { return }
        core.attempts[attempt].milestones[.continued] = now
        let receiver = core.attempts[attempt].receiver
        let activity = core.attempts[attempt].activity
        var context = core.restorationLists.continueContext(now: now, device: core.deviceName(receiver))
        let answer: Callback.DelegateAnswer
        switch core.appDelegate(device: receiver, app: app) {
        case let .scene(delegate):
            delegate.scene(continue: delivered, context: &context)
            answer = .scene
        case let .application(delegate):
            answer = .returned(delegate.application(continue: delivered, context: &context))
        }
        core.record(now, device: receiver, app: .bundle(app), activity: activity, .callback(.continueUserActivity(answer)))
        core.attempts[attempt].restorations = context.restorations
        for (call, restoration) in context.restorations.enumerated() {
            core.later(.restore(Int32(call)), of: attempt, after: context.callback.processingTime + restoration.delay,
                       now: now, scheduler: &scheduler)
        }
        if context.requestedStreams {
            core.record(now, device: receiver, app: .bundle(app), activity: activity, .callback(.getContinuationStreams))
            core.attempts[attempt].outstandingRequests += 1  // the streams being opened
        }
        core.later(.continueReturned, of: attempt, after: context.callback.processingTime, now: now, scheduler: &scheduler)
    }

    /// The restoration handler's call `call`: each of its objects gets
    /// `restoreUserActivityState`.
    func restore(_ attempt: Int, call: Int, now: SimInstant, core: inout ProtocolCore) {
        guard call < core.attempts[attempt].restorations.count, case let .app(app) = core.attempts[attempt].target,
            let delivered = core.attempts[attempt].delivered
        else { return }
        let receiver = core.attempts[attempt].receiver
        let activity = core.attempts[attempt].activity
        for object in core.attempts[attempt].restorations[call].objects {
            let name = core.keepsTrace ? object.restorationIdentifier : ""
            guard core.apply(.restore, to: attempt, now: now, note: core.keepsTrace ? .restoring(name) : nil) else { return }
            core.attempts[attempt].milestones.reach(.restored, at: now)
            var context = CallbackContext(now: now, device: core.deviceName(receiver))
            object.restoreUserActivityState(delivered, context: &context)
            core.record(now, device: receiver, app: .bundle(app), activity: activity,
                        .callback(.restoreUserActivityState(name)))
        }
    }
}
