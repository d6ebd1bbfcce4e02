import HandoffWorld
import SimKernel

/// The source's side of a fetch and of continuation streams: answering the
/// payload request, the "continued" notice, and stream requests.
extension SourceRole {
    // MARK: Serving a fetch

    /// The payload request reached the source over `connection`.
    ///
    /// The source asks the app for an update (`userActivityWillSave` when
    /// `needsSave`, `updateUserActivityState` for each responder of a
    /// responder-managed activity) and waits for it at most
    /// ``HandoffConfiguration/saveWait`` (1 s in UserActivity); an app
    /// slower than that has its update miss this payload, which is sent as
    /// it was. Then it checks the encoded `userInfo` against the
    /// recommended maximum (a warning) and the hard maximum (refused: 4611
    /// at the receiver), and sends the payload or the error after its own
    /// save time. A request that arrives again (over the cloud, after
    /// Rapport gave up) gets the answer already decided.
    func serveFetch(
        for attempt: Int, on connection: ConnectionID, replyingFrom side: ConnectionSide = .responder, now: SimInstant,
        core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let id = core.attempts[attempt].activity
        let source = core.activities[id.index].device
        let receiver = core.attempts[attempt].receiver
        core.attempts[attempt].replyConnection = connection
        core.attempts[attempt].replySide = side
        var generator = core.stream.child(HandoffStreamNames.save, attempt).generator()
        let saveTime = core.setup.configuration.sourceSaveTime.sample(using: &generator)
        core.attempts[attempt].marks.requestReceived = now
        core.attempts[attempt].marks.sourceUpdate = .zero
        core.attempts[attempt].marks.encode = .zero
        if core.attempts[attempt].pendingReply != nil {
            core.attempts[attempt].marks.sourceUpdate = saveTime
            core.record(now, device: source, app: .system, activity: id, .system(.requestAgain))
            core.later(.sourceSend, of: attempt, after: saveTime, now: now, scheduler: &scheduler)
            return
        }
        var context = CallbackContext(now: now, device: core.deviceName(source))
        guard core.isSourceAvailable(id, for: receiver) else {
            core.attempts[attempt].pendingReply = .failure(.handoffFailed)
            core.record(now, device: source, app: .source(id), activity: id, .system(.fetchRefused(.unavailable)))
            core.later(.sourceSend, of: attempt, after: .zero, now: now, scheduler: &scheduler)
            return
        }
        core.apply(.save, to: id, now: now, note: .requestedBy(core.traceDevice(receiver)))
        let configuration = core.setup.configuration
        var sent = core.activities[id.index].content
        if sent.needsSave || sent.isResponderManaged {
            // The delegates change the content through `inout`; the result
            // replaces it.
            var content = sent
            let delegate = core.activities[id.index].delegate
            if content.needsSave {
                delegate.userActivityWillSave(&content, context: &context)
                content.needsSave = false
                core.record(now, device: source, app: .source(id), activity: id, .callback(.userActivityWillSave))
            }
            if content.isResponderManaged {
                content.userInfo.removeAll()
                for responder in content.responders {
                    delegate.updateUserActivityState(&content, responder: responder, context: &context)
                    core.record(now, device: source, app: .source(id), activity: id,
                                .callback(.updateUserActivityState(responder: responder)))
                }
            }
            // A source app in the scene lifecycle has the last word.
            if case let .scene(scene) = core.appDelegate(device: source, app: core.activities[id.index].app) {
                scene.scene(didUpdate: &content, context: &context)
                core.record(now, device: source, app: .source(id), activity: id, .callback(.sceneDidUpdate))
            }
            core.activities[id.index].content = content
            if context.processingTime <= configuration.saveWait {
                sent = content
            } else {
                core.record(now, device: source, app: .system, activity: id,
                            .system(.saveWaitOver(update: context.processingTime, wait: configuration.saveWait)))
            }
        }
        let wait = min(context.processingTime, configuration.saveWait)
        let missing = sent.userInfo.missingKeys(of: sent.requiredUserInfoKeys)
        let size = sent.transferSize
        if !missing.isEmpty {
            core.attempts[attempt].pendingReply = .failure(.handoffFailed)
            core.record(now, device: source, app: .source(id), activity: id, .system(.fetchRefused(.missingKeys(missing))))
        } else if size > configuration.userInfoLimit {
            core.attempts[attempt].pendingReply = .failure(.handoffUserInfoTooLarge)
            core.record(now, device: source, app: .system, activity: id,
                        .system(.fetchRefused(.tooLarge(size: size, limit: configuration.userInfoLimit))))
        } else {
            if size > configuration.userInfoRecommendedLimit {
                core.record(now, device: source, app: .system, activity: id,
                            .system(.userInfoOverRecommended(size: size, recommended: configuration.userInfoRecommendedLimit)))
            }
            core.attempts[attempt].pendingReply = .success(size)
            core.attempts[attempt].delivered = deliveredActivity(
                of: id, content: sent, to: core.attempts[attempt].receiver, target: core.attempts[attempt].target,
                core: core)
        }
        // Encoding and sealing what is sent (``PayloadCoding``).
        var encode = SimDuration.zero
        if case let .success(bytes) = core.attempts[attempt].pendingReply {
            encode = configuration.coding.encodeTime(bytes: bytes + configuration.envelopeBytes)
        }
        core.attempts[attempt].marks.sourceUpdate = wait + saveTime
        core.attempts[attempt].marks.encode = encode
        core.later(.sourceSend, of: attempt, after: wait + saveTime + encode, now: now, scheduler: &scheduler)
    }

    /// What the receiving app gets: the data sent, a document URL moved to
    /// the receiver's container, an empty `userInfo` for a web page handed
    /// to a native app.
    func deliveredActivity(
        of id: ActivityID, content: ActivityContent, to receiver: DeviceID, target: ContinuationTarget,
        core: borrowing ProtocolCore
    ) -> ContinuedActivity {
        let activityType = content.activityType
        var userInfo = activityType == browsingWebActivityType ? UserInfo() : content.sentUserInfo
        if let path = content.documentPath, case let .app(app) = target {
            userInfo[documentURLKey] = .url(UbiquityContainer.url(
                of: path, bundleID: core.appBundleIDs[app], device: core.deviceName(receiver),
                platform: core.world.deviceTable.platform(of: receiver)))
        }
        return ContinuedActivity(
            activityType: activityType, title: content.title, userInfo: userInfo,
            webpageURL: content.webpageURL,
            supportsContinuationStreams: content.supportsContinuationStreams,
            sourceDevice: core.deviceName(core.activities[id.index].device))
    }

    /// The source's processing is done: send what it decided, framed, on
    /// the connection the request came over.
    func sourceSend(_ attempt: Int, now: SimInstant, core: inout ProtocolCore) {
        guard let connection = core.attempts[attempt].replyConnection, let reply = core.attempts[attempt].pendingReply
        else { return }
        let id = core.attempts[attempt].activity
        let configuration = core.setup.configuration
        let rapport = configuration.rapport
        core.attempts[attempt].marks.payloadSent = now
        switch reply {
        case let .success(size):
            let bytes = rapport.framed(size + configuration.envelopeBytes)
            core.world.send(
                bytes: bytes, tag: MessageKind.payload.tag(), on: connection, from: core.attempts[attempt].replySide,
                at: now)
            core.record(now, device: core.activities[id.index].device, app: .source(id), activity: id,
                        .message(.payload(userInfoBytes: size, totalBytes: bytes)))
        case let .failure(error):
            core.world.send(
                bytes: rapport.framed(configuration.noticeBytes), tag: MessageKind.error.tag(error.code),
                on: connection, from: core.attempts[attempt].replySide, at: now)
        }
    }

    /// The receiver says it continued: tell the source's delegate, unless
    /// the activity was invalidated meanwhile (nothing follows invalidate).
    func continuedNoticeArrived(for attempt: Int, now: SimInstant, core: inout ProtocolCore) {
        let id = core.attempts[attempt].activity
        core.attempts[attempt].noticeInFlight = false
        if let connection = core.attempts[attempt].connection { core.world.close(connection) }
        let device = core.activities[id.index].device
        guard core.activities[id.index].state != .invalidated else {
            core.record(now, device: device, app: .source(id), activity: id, .system(.continuedNoticeIgnored))
            return
        }
        let receiver = core.attempts[attempt].receiver
        guard core.apply(.continued, to: id, now: now, note: .continuedBy(core.traceDevice(receiver))) else { return }
        var context = CallbackContext(now: now, device: core.deviceName(device))
        core.activities[id.index].delegate.userActivityWasContinued(
            core.activities[id.index].content, by: core.deviceName(receiver), context: &context)
        core.record(now, device: device, app: .source(id), activity: id,
                    .callback(.userActivityWasContinued(by: core.traceDevice(receiver))))
    }

    // MARK: Serving streams

    /// A stream request of round `round` reached the source: its delegate
    /// decides the response, sent after the delegate's processing time.
    func streamRequestArrived(
        for attempt: Int, round: Int, bytes: Int, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        let id = core.attempts[attempt].activity
        let device = core.activities[id.index].device
        var context = CallbackContext(now: now, device: core.deviceName(device))
        let response = max(0, core.activities[id.index].delegate.userActivity(
            core.activities[id.index].content, respondToStreamRequest: round, requestBytes: bytes, context: &context))
        core.attempts[attempt].responseSizes[round] = response
        core.record(now, device: device, app: .source(id), activity: id,
                    .message(.streamRequest(round: round, requestBytes: bytes, responseBytes: response)))
        core.later(.streamRespond(Int32(round)), of: attempt, after: context.processingTime, now: now, scheduler: &scheduler)
    }

    /// The source's response to stream request `round` goes out.
    func streamRespond(_ attempt: Int, round: Int, now: SimInstant, core: inout ProtocolCore) {
        guard let connection = core.attempts[attempt].streamConnection,
            let bytes = core.attempts[attempt].responseSizes[round]
        else { return }
        core.world.send(bytes: bytes, tag: MessageKind.streamResponse.tag(round), on: connection, from: .responder, at: now)
    }
}
