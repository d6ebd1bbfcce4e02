import HandoffWorld
import SimKernel

/// The receiver's side of continuation streams: opening them, the app's
/// requests and the responses.
extension HandoffEngine {
    mutating func streamsOpened(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        attempts[attempt].outstandingRequests -= 1
        let id = attempts[attempt].activity
        let receiver = attempts[attempt].receiver
        var sourceContext = CallbackContext(now: now, device: deviceName(activities[id.index].device))
        activities[id.index].delegate.userActivity(
            activities[id.index].content, didReceiveStreamsFrom: deviceName(receiver), context: &sourceContext)
        record(now, device: activities[id.index].device, app: .source(id), activity: id,
               .callback(.didReceiveInputStream(from: traceDevice(receiver))))
        guard case let .app(app) = attempts[attempt].target, let activity = attempts[attempt].delivered else { return }
        var context = StreamContext(now: now, device: deviceName(receiver))
        if let delegate = streamsDelegate(device: receiver, app: app) {
            delegate.continuationStreamsOpened(for: activity, context: &context)
        } else {
            context.closeStreams()
        }
        record(now, device: receiver, app: .bundle(app), activity: id, .callback(.continuationStreamsOpened))
        apply(context, of: attempt, now: now, scheduler: &scheduler)
    }

    mutating func streamsFailed(
        _ attempt: Int, error: ContinuationError, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        if attempts[attempt].outstandingRequests > 0 { attempts[attempt].outstandingRequests = 0 }
        guard case let .app(app) = attempts[attempt].target, let activity = attempts[attempt].delivered else { return }
        let receiver = attempts[attempt].receiver
        var context = StreamContext(now: now, device: deviceName(receiver))
        streamsDelegate(device: receiver, app: app)?.continuationStreamsFailed(for: activity, error: error, context: &context)
        record(now, device: receiver, app: .bundle(app), activity: attempts[attempt].activity,
               .callback(.continuationStreamsFailed(error)))
        apply(context, of: attempt, now: now, scheduler: &scheduler)
    }

    mutating func streamResponseArrived(
        _ attempt: Int, round: Int, bytes: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        attempts[attempt].outstandingRequests -= 1
        if round == 0 { attempts[attempt].milestones[.streamResponseArrived] = now }
        guard case let .app(app) = attempts[attempt].target, let activity = attempts[attempt].delivered else { return }
        let receiver = attempts[attempt].receiver
        let requestBytes = round < attempts[attempt].requestSizes.count ? attempts[attempt].requestSizes[round] : 0
        var context = StreamContext(now: now, device: deviceName(receiver))
        streamsDelegate(device: receiver, app: app)?.continuationStreamResponse(
            StreamResponse(round: round, requestBytes: requestBytes, responseBytes: bytes), for: activity,
            context: &context)
        record(now, device: receiver, app: .bundle(app), activity: attempts[attempt].activity,
               .callback(.continuationStreamResponse(round: round, bytes: bytes)))
        apply(context, of: attempt, now: now, scheduler: &scheduler)
    }

    /// The app's stream callbacks, if its delegate adopts them.
    mutating func streamsDelegate(device: DeviceID, app: Int) -> (any ContinuationStreamsDelegate)? {
        appDelegate(device: device, app: app).object as? any ContinuationStreamsDelegate
    }

    /// Carries out what a stream callback asked for once its processing
    /// time has passed.
    mutating func apply(_ context: StreamContext, of attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let delay = context.callback.processingTime
        let first = attempts[attempt].restorations.count
        attempts[attempt].restorations.append(contentsOf: context.restorations)
        for (offset, restoration) in context.restorations.enumerated() {
            later(.restore(Int32(first + offset)), of: attempt, after: delay + restoration.delay, now: now,
                  scheduler: &scheduler)
        }
        attempts[attempt].queuedRequests.append(contentsOf: context.requests)
        if context.closesStreams { attempts[attempt].closesStreamsWhenIdle = true }
        if !context.requests.isEmpty || context.closesStreams {
            later(.streamSend, of: attempt, after: delay, now: now, scheduler: &scheduler)
        }
    }

    mutating func flushStreamRequests(_ attempt: Int, now: SimInstant) {
        guard let connection = attempts[attempt].streamConnection else { return }
        for bytes in attempts[attempt].queuedRequests {
            let round = attempts[attempt].requestSizes.count
            if round == 0 { attempts[attempt].milestones[.streamRequestSent] = now }
            attempts[attempt].requestSizes.append(bytes)
            attempts[attempt].outstandingRequests += 1
            world.send(bytes: bytes, tag: MessageKind.streamRequest.tag(round), on: connection, from: .initiator, at: now)
        }
        attempts[attempt].queuedRequests.removeAll()
        if attempts[attempt].closesStreamsWhenIdle, attempts[attempt].outstandingRequests == 0 {
            world.close(connection)
        }
    }
}
