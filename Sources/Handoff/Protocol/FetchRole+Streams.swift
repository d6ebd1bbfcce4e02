import HandoffWorld
import SimKernel

/// After `continue`: the "continued" notice to the source over the fetch's
/// connection, and the receiver's side of continuation streams (opening
/// them over the fetch's path, the app's requests and the responses).
extension FetchRole {
    /// `continue` returned: the notice goes to the source and, if the app
    /// asked for them, the streams open (or fail at once when the activity
    /// does not support them).
    mutating func continueReturned(
        _ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard let connection = core.attempts[attempt].connection else { return }
        core.world.send(
            bytes: core.setup.configuration.noticeBytes, tag: MessageKind.continued.tag(), on: connection,
            from: .initiator, at: now)
        core.attempts[attempt].noticeInFlight = true
        guard core.attempts[attempt].outstandingRequests > 0, core.attempts[attempt].streamConnection == nil else { return }
        let id = core.attempts[attempt].activity
        guard core.activities[id.index].content.supportsContinuationStreams else {
            streamsFailed(attempt, error: .handoffFailed, now: now, core: &core, scheduler: &scheduler)
            return
        }
        let stream = core.world.openConnection(
            from: core.attempts[attempt].receiver, to: core.activities[id.index].device,
            over: core.attempts[attempt].rapportPath,
            parameters: core.setup.configuration.streamTransport, at: now)
        own(stream, by: .streams(attempt))
        core.attempts[attempt].streamConnection = stream
    }

    /// The streams are open: the source's delegate hears of them, and the
    /// receiving app's stream callbacks start.
    func streamsOpened(_ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>) {
        core.attempts[attempt].outstandingRequests -= 1
        let id = core.attempts[attempt].activity
        let receiver = core.attempts[attempt].receiver
        let source = core.activities[id.index].device
        var sourceContext = CallbackContext(now: now, device: core.deviceName(source))
        core.activities[id.index].delegate.userActivity(
            core.activities[id.index].content, didReceiveStreamsFrom: core.deviceName(receiver), context: &sourceContext)
        core.record(now, device: source, app: .source(id), activity: id,
                    .callback(.didReceiveInputStream(from: core.traceDevice(receiver))))
        guard case let .app(app) = core.attempts[attempt].target, let activity = core.attempts[attempt].delivered else {
            return
        }
        var context = StreamContext(now: now, device: core.deviceName(receiver))
        if let delegate = core.streamsDelegate(device: receiver, app: app) {
            delegate.continuationStreamsOpened(for: activity, context: &context)
        } else {
            context.closeStreams()
        }
        core.record(now, device: receiver, app: .bundle(app), activity: id, .callback(.continuationStreamsOpened))
        apply(context, of: attempt, now: now, core: &core, scheduler: &scheduler)
    }

    /// The streams could not be opened (or their connection failed): the
    /// receiving app hears it with `error`.
    func streamsFailed(
        _ attempt: Int, error: ContinuationError, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        if core.attempts[attempt].outstandingRequests > 0 { core.attempts[attempt].outstandingRequests = 0 }
        guard case let .app(app) = core.attempts[attempt].target, let activity = core.attempts[attempt].delivered else {
            return
        }
        let receiver = core.attempts[attempt].receiver
        var context = StreamContext(now: now, device: core.deviceName(receiver))
        core.streamsDelegate(device: receiver, app: app)?.continuationStreamsFailed(
            for: activity, error: error, context: &context)
        core.record(now, device: receiver, app: .bundle(app), activity: core.attempts[attempt].activity,
                    .callback(.continuationStreamsFailed(error)))
        apply(context, of: attempt, now: now, core: &core, scheduler: &scheduler)
    }

    /// The source's response to stream request `round` arrived: the
    /// receiving app gets it.
    func streamResponseArrived(
        _ attempt: Int, round: Int, bytes: Int, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        core.attempts[attempt].outstandingRequests -= 1
        if round == 0 { core.attempts[attempt].milestones[.streamResponseArrived] = now }
        guard case let .app(app) = core.attempts[attempt].target, let activity = core.attempts[attempt].delivered else {
            return
        }
        let receiver = core.attempts[attempt].receiver
        let requestSizes = core.attempts[attempt].requestSizes
        let requestBytes = round < requestSizes.count ? requestSizes[round] : 0
        var context = StreamContext(now: now, device: core.deviceName(receiver))
        core.streamsDelegate(device: receiver, app: app)?.continuationStreamResponse(
            StreamResponse(round: round, requestBytes: requestBytes, responseBytes: bytes), for: activity,
            context: &context)
        core.record(now, device: receiver, app: .bundle(app), activity: core.attempts[attempt].activity,
                    .callback(.continuationStreamResponse(round: round, bytes: bytes)))
        apply(context, of: attempt, now: now, core: &core, scheduler: &scheduler)
    }

    /// Carries out what a stream callback asked for once its processing
    /// time has passed.
    func apply(
        _ context: StreamContext, of attempt: Int, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        let delay = context.callback.processingTime
        let first = core.attempts[attempt].restorations.count
        core.attempts[attempt].restorations.append(contentsOf: context.restorations)
        for (offset, restoration) in context.restorations.enumerated() {
            core.later(.restore(Int32(first + offset)), of: attempt, after: delay + restoration.delay, now: now,
                       scheduler: &scheduler)
        }
        core.attempts[attempt].queuedRequests.append(contentsOf: context.requests)
        if context.closesStreams { core.attempts[attempt].closesStreamsWhenIdle = true }
        if !context.requests.isEmpty || context.closesStreams {
            core.later(.streamSend, of: attempt, after: delay, now: now, scheduler: &scheduler)
        }
    }

    /// A stream callback's processing is over: its requests go out, and the
    /// streams close if the app asked and nothing is outstanding.
    func flushStreamRequests(_ attempt: Int, now: SimInstant, core: inout ProtocolCore) {
        guard let connection = core.attempts[attempt].streamConnection else { return }
        for bytes in core.attempts[attempt].queuedRequests {
            let round = core.attempts[attempt].requestSizes.count
            if round == 0 { core.attempts[attempt].milestones[.streamRequestSent] = now }
            core.attempts[attempt].requestSizes.append(bytes)
            core.attempts[attempt].outstandingRequests += 1
            core.world.send(
                bytes: bytes, tag: MessageKind.streamRequest.tag(round), on: connection, from: .initiator, at: now)
        }
        core.attempts[attempt].queuedRequests.removeAll()
        if core.attempts[attempt].closesStreamsWhenIdle, core.attempts[attempt].outstandingRequests == 0 {
            core.world.close(connection)
        }
    }
}
