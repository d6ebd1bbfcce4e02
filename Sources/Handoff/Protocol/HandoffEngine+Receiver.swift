import HandoffWorld
import SimKernel

/// Where an activity would go on a receiver, or the rule that blocks it.
enum Eligibility: Hashable, Sendable {
    case eligible(ContinuationTarget)
    case blocked(NotOfferedReason)
}

extension HandoffEngine {
    // MARK: Discovery and eligibility

    ///
    /// - Returns: whether the advertisement changed anything (a repeat of
    ///   one already acted on does not).
    @discardableResult
    mutating func advertisementReceived(
        from source: DeviceID, to receiver: DeviceID, payload: UInt64, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) -> Bool {
        let index = Int(payload & 0xffff_ffff)
        guard index < activities.count else { return false }
        let id = ActivityID(index)
        // A late advertisement of an activity no longer advertised.
        guard currentActivity[source.index] == id,
            activities[index].advertGeneration == UInt32(truncatingIfNeeded: payload >> 32)
        else { return false }
        if let existing = attemptIndex[pairSlot(index, receiver.index)] {
            // Already offered, or further along: nothing new. A withdrawn
            // offer may come back.
            guard attempts[existing].state == .withdrawn else { return false }
        }
        let target: ContinuationTarget
        switch eligibility(of: id, on: receiver, at: now) {
        case let .blocked(reason):
            reject(id, on: receiver, because: reason, now: now)
            return true
        case let .eligible(eligibleTarget):
            target = eligibleTarget
        }
        // An advertisement under a key the receiver does not know yet can
        // only be read after the keys are exchanged over Bluetooth LE.
        guard world.isTrusted(source, receiver) else {
            startKeyExchange(with: source, on: receiver, for: id, now: now, scheduler: &scheduler)
            return true
        }
        // With two candidates, the more recently current one is offered; of
        // two that became current at the same instant, the one already a
        // candidate stays and the other is superseded (no flip-flopping).
        if let other = latestCandidate[receiver.index], other != id,
            currentActivity[activities[other.index].device.index] == other,
            activities[other.index].lastBecameCurrent ?? .zero >= activities[index].lastBecameCurrent ?? .zero
        {
            reject(id, on: receiver, because: .supersededByMoreRecent, now: now)
            return true
        }
        latestCandidate[receiver.index] = id
        if let shown = visibleOffer[receiver.index], attempts[shown].activity != id {
            apply(.withdraw, to: shown, now: now, note: keepsTrace ? .moreRecent(traceActivity(id)) : nil)
            visibleOffer[receiver.index] = nil
        }
        let attempt = attempts.count
        attempts.append(Attempt(receiver: receiver, activity: id, target: target))
        attemptIndex[pairSlot(index, receiver.index)] = attempt
        rejections[pairSlot(index, receiver.index)] = nil
        record(now, device: receiver, app: .target(attempts[attempt].target), activity: id,
               .system(.discovered(advertisementFrom: traceDevice(source))))
        apply(.offer, to: attempt, now: now, note: target == .browser ? .inBrowser : nil)
        attempts[attempt].milestones[.offered] = now
        attempts[attempt].milestones[.advertised] = activities[index].lastBecameCurrent
        visibleOffer[receiver.index] = attempt
        watchPresence(of: source, on: receiver, now: now, scheduler: &scheduler)
        scheduleAcceptance(of: attempt, now: now, scheduler: &scheduler)
        return true
    }

    mutating func reject(_ id: ActivityID, on receiver: DeviceID, because reason: NotOfferedReason, now: SimInstant) {
        guard rejections[pairSlot(id.index, receiver.index)] != reason else { return }
        rejections[pairSlot(id.index, receiver.index)] = reason
        record(now, device: receiver, app: .system, activity: id, .system(.notOffered(reason)))
    }

    /// The eligibility rules, in order: where the activity would go on
    /// `receiver`, or the first rule that blocks it.
    func eligibility(of id: ActivityID, on receiver: DeviceID, at now: SimInstant) -> Eligibility {
        let source = activities[id.index].device
        let platform = world.deviceTable.platform(of: receiver)
        if platform == .watchOS { return .blocked(.receiverIsWatch) }
        let sourceSettings = world.deviceTable.settings(of: source)
        let receiverSettings = world.deviceTable.settings(of: receiver)
        if !sourceSettings.handoffEnabled { return .blocked(.handoffDisabledOnSource) }
        if !receiverSettings.handoffEnabled { return .blocked(.handoffDisabledOnReceiver) }
        if !sourceSettings.bluetoothEnabled { return .blocked(.bluetoothOffOnSource) }
        if !receiverSettings.bluetoothEnabled { return .blocked(.bluetoothOffOnReceiver) }
        if setup.configuration.fetchPath == .wifiPeerToPeer || setup.configuration.fetchPath == .localNetwork {
            if !sourceSettings.wifiEnabled { return .blocked(.wifiOffOnSource) }
            if !receiverSettings.wifiEnabled { return .blocked(.wifiOffOnReceiver) }
        }
        guard let sourceAccount = world.deviceTable.account(of: source),
            let receiverAccount = world.deviceTable.account(of: receiver)
        else {
            return .blocked(.notSignedIn)
        }
        if sourceAccount != receiverAccount { return .blocked(.differentAccount) }
        if !activities[id.index].content.isEligibleForHandoff { return .blocked(.notEligibleForHandoff) }
        if let expiration = activities[id.index].content.expirationDate, now >= expiration { return .blocked(.expired) }
        let activityType = activities[id.index].content.activityType
        if activityType == browsingWebActivityType {
            guard let url = activities[id.index].content.webpageURL else { return .blocked(.noSuitableApp) }
            for app in installed[receiver.index]
            where setup.apps[app].runs(on: platform)
                && setup.siteAssociations.allowsBrowsingWebContinuation(to: url, by: setup.apps[app])
            {
                return .eligible(.app(app))
            }
            return .eligible(.browser)
        }
        let team = appTeams[activities[id.index].app]
        for app in runnableApps[receiver.index]
        where appTeams[app] == team && setup.apps[app].declares(activityType: activityType) {
            return .eligible(.app(app))
        }
        if activities[id.index].content.webpageURL != nil { return .eligible(.browser) }
        return .blocked(.noSuitableApp)
    }

    // MARK: Accepting and launching

    mutating func scheduleAcceptance(of attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let device = attempts[attempt].receiver
        let policy = acceptancePolicies[device.index]
        switch policy {
        case .explicit:
            return
        case let .after(delay):
            later(.accept, of: attempt, after: delay, now: now, scheduler: &scheduler)
        case let .thinkTime(mean, deviation):
            let seconds: Double
            if deviation == 0 {
                seconds = mean
            } else if let distribution = try? LogNormalDistribution(mean: mean, standardDeviation: deviation) {
                var generator = acceptanceGenerators[device.index]
                    ?? stream.child(HandoffStreamNames.acceptance).generator(deviceName(device))
                seconds = distribution.sample(using: &generator)
                acceptanceGenerators[device.index] = generator
            } else {
                seconds = mean
            }
            let nanoseconds = min(seconds * 1e9, 1e15).rounded()
            later(.accept, of: attempt, after: .nanoseconds(Int64(nanoseconds)), now: now, scheduler: &scheduler)
        }
    }

    /// The user on `device` picks what is offered there.
    mutating func accept(on device: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard let attempt = visibleOffer[device], attempts[attempt].state == .offered else {
            acceptedWithoutOffer[device] = true
            traceCount += 1
            if keepsTrace {
                keep(now, device: DeviceID(device), app: .system, activity: nil, .system(.acceptedWithoutOffer))
            }
            return
        }
        accept(attempt, now: now, scheduler: &scheduler)
    }

    /// The user accepted: the system launches the app (or the browser) and,
    /// for an app, starts fetching the payload at the same instant.
    mutating func accept(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard apply(.accept, to: attempt, now: now) else { return }
        attempts[attempt].milestones[.accepted] = now
        visibleOffer[attempts[attempt].receiver.index] = nil
        offerAccepted(attempt)
        let launch: SimDuration
        let kind: TransitionNote.Launch
        var generator = stream.child(HandoffStreamNames.launch, attempt).generator()
        switch attempts[attempt].target {
        case let .app(app):
            let isRunning = running[attempts[attempt].receiver.index * setup.apps.count + app]
            launch = (isRunning ? setup.apps[app].warmLaunch : setup.apps[app].coldLaunch).sample(using: &generator)
            kind = isRunning ? .warm : .cold
        case .browser:
            launch = setup.configuration.browserLaunch.sample(using: &generator)
            kind = .browser
        }
        apply(.launch, to: attempt, now: now, note: .launch(kind, launch))
        later(.launched, of: attempt, after: launch, now: now, scheduler: &scheduler)
        if case .app = attempts[attempt].target { startFetch(attempt, now: now, scheduler: &scheduler) }
    }

    // MARK: Steps

    mutating func run(_ step: ProtocolStep, of attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        switch step {
        case .accept:
            if attempts[attempt].state == .offered { accept(attempt, now: now, scheduler: &scheduler) }
        case .launched:
            launched(attempt, now: now, scheduler: &scheduler)
        case .appReady:
            appReady(attempt, now: now, scheduler: &scheduler)
        case let .resolveRetry(query):
            resolveRetry(attempt, after: Int(query), now: now, scheduler: &scheduler)
        case let .relayForward(leg, kind, argument, bytes):
            guard let kind = MessageKind(rawValue: UInt64(kind)) else { return }
            relayForward(attempt, to: leg, kind: kind, argument: Int(argument), bytes: Int(bytes), now: now)
        case .resolvedFromCache:
            resolvedFromCache(attempt, now: now)
        case let .fetchSend(message):
            sendFetchMessage(message, of: attempt, now: now)
        case .rapportDeadline:
            rapportDeadline(attempt, now: now, scheduler: &scheduler)
        case .fetchTimeout:
            if attempts[attempt].isFetching {
                record(now, device: attempts[attempt].receiver, app: .system, activity: attempts[attempt].activity,
                       .system(.payloadTimerFired(after: setup.configuration.payloadTimer)))
                fetchFailed(attempt, with: .remoteApplicationTimedOut, now: now, scheduler: &scheduler)
            }
        case .sourceSend:
            sourceSend(attempt, now: now)
        case .payloadDecoded:
            payloadDecoded(attempt, now: now, scheduler: &scheduler)
        case .continueReturned:
            continueReturned(attempt, now: now, scheduler: &scheduler)
        case let .restore(call):
            restore(attempt, call: Int(call), now: now)
        case .streamSend:
            flushStreamRequests(attempt, now: now)
        case let .streamRespond(round):
            streamRespond(attempt, round: Int(round), now: now)
        }
    }

    /// The app (or the browser) is up: the browser opens the page; an app
    /// gets `willContinue`, and is ready for the data when it returns.
    mutating func launched(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let receiver = attempts[attempt].receiver
        attempts[attempt].marks.launched = now
        guard case let .app(app) = attempts[attempt].target else {
            apply(.openInBrowser, to: attempt, now: now,
                  note: keepsTrace ? .webpage(activities[attempts[attempt].activity.index].content.webpageURL) : nil)
            attempts[attempt].milestones[.continued] = now
            return
        }
        running[receiver.index * setup.apps.count + app] = true
        guard apply(.willContinue, to: attempt, now: now) else { return }
        let type = activities[attempts[attempt].activity.index].content.activityType
        var context = CallbackContext(now: now, device: deviceName(receiver))
        let answer: Callback.DelegateAnswer
        switch appDelegate(device: receiver, app: app) {
        case let .scene(delegate):
            delegate.scene(willContinueUserActivityWithType: type, context: &context)
            answer = .scene
        case let .application(delegate):
            answer = .returned(delegate.application(willContinueUserActivityWithType: type, context: &context))
        }
        record(now, device: receiver, app: .bundle(app), activity: attempts[attempt].activity,
               .callback(.willContinueUserActivity(answer)))
        later(.appReady, of: attempt, after: context.processingTime, now: now, scheduler: &scheduler)
    }

    /// `willContinue` returned: continue or fail now if the fetch has
    /// ended, otherwise when it ends.
    mutating func appReady(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard attempts[attempt].state == .willContinue else { return }
        attempts[attempt].appReady = true
        attempts[attempt].marks.appReady = now
        switch attempts[attempt].fetchStage {
        case .arrived:
            continueActivity(attempt, now: now, scheduler: &scheduler)
        case let .failed(error):
            fail(attempt, with: error, now: now, scheduler: &scheduler)
        case .idle, .resolving, .rapport, .cloud, .decoding:
            return
        }
    }

    @inline(__always)
    func appDelegateIndex(device: DeviceID, app: Int) -> Int { device.index * setup.apps.count + app }

    mutating func appDelegate(device: DeviceID, app: Int) -> HandoffDelegate {
        let index = appDelegateIndex(device: device, app: app)
        if let delegate = appDelegates[index] { return delegate }
        let delegate = makeAppDelegate(deviceName(device), setup.apps[app])
        appDelegates[index] = delegate
        return delegate
    }

    mutating func own(_ connection: ConnectionID, by owner: ConnectionOwner) {
        while connectionOwners.count <= connection.index { connectionOwners.append(.none) }
        connectionOwners[connection.index] = owner
    }

    /// The app gets `didFail` (the attempt must be in `willContinue`).
    mutating func fail(
        _ attempt: Int, with error: ContinuationError, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard apply(.fail, to: attempt, now: now, note: .error(error)) else { return }
        attempts[attempt].failure = error
        guard case let .app(app) = attempts[attempt].target else { return }
        let receiver = attempts[attempt].receiver
        let type = activities[attempts[attempt].activity.index].content.activityType
        var context = CallbackContext(now: now, device: deviceName(receiver))
        switch appDelegate(device: receiver, app: app) {
        case let .scene(delegate):
            delegate.scene(didFailToContinueUserActivityWithType: type, error: error, context: &context)
        case let .application(delegate):
            delegate.application(didFailToContinueUserActivityWithType: type, error: error, context: &context)
        }
        record(now, device: receiver, app: .bundle(app), activity: attempts[attempt].activity,
               .callback(.didFailToContinueUserActivity(error)))
    }

    // MARK: Connections and messages

    mutating func connectionEstablished(
        _ connection: ConnectionID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard connection.index < connectionOwners.count else { return }
        switch connectionOwners[connection.index] {
        case .none:
            return
        case let .fetch(attempt), let .relay(attempt, .receiver):
            fetchConnectionEstablished(attempt, connection: connection, now: now, scheduler: &scheduler)
        case .relay(_, .source):
            return
        case let .streams(attempt):
            streamsOpened(attempt, now: now, scheduler: &scheduler)
        case let .keyExchange(pair):
            keyExchangeConnected(pair: pair, connection: connection, now: now)
        }
    }

    mutating func connectionFailed(
        _ connection: ConnectionID, failure: ConnectionFailure, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard connection.index < connectionOwners.count else { return }
        switch connectionOwners[connection.index] {
        case .none:
            return
        case let .fetch(attempt), let .relay(attempt, .receiver):
            attempts[attempt].noticeInFlight = false
            fetchConnectionFailed(attempt, connection: connection, failure: failure, now: now, scheduler: &scheduler)
        case let .relay(attempt, .source):
            // Whatever the servers still had for the source is lost with
            // its connection; the receiver's payload timer decides the fetch.
            attempts[attempt].noticeInFlight = false
        case let .streams(attempt):
            streamsFailed(attempt, error: .connectionUnavailable, now: now, scheduler: &scheduler)
        case let .keyExchange(pair):
            keyExchangeConnectionFailed(pair: pair, failure: failure, now: now)
        }
    }

    mutating func messageDelivered(
        on connection: ConnectionID, to side: ConnectionSide, tag: UInt64, bytes: Int, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard connection.index < connectionOwners.count, let (kind, argument) = MessageKind.parse(tag) else { return }
        let owner = connectionOwners[connection.index]
        if case let .keyExchange(pair) = owner {
            keyExchangeMessage(kind, pair: pair, connection: connection, now: now)
            return
        }
        let attempt: Int
        switch owner {
        case let .fetch(number), let .streams(number): attempt = number
        case let .relay(number, leg):
            relayMessageDelivered(
                kind, argument: argument, bytes: bytes, attempt: number, leg: leg, on: connection, to: side,
                now: now, scheduler: &scheduler)
            return
        case .none, .keyExchange: return
        }
        switch kind {
        case .fetch:
            guard let message = FetchMessage(rawValue: UInt8(truncatingIfNeeded: argument)) else { return }
            fetchMessageArrived(message, of: attempt, on: connection, now: now, scheduler: &scheduler)
        case .request:
            serveFetch(for: attempt, on: connection, now: now, scheduler: &scheduler)
        case .payload:
            guard connection == attempts[attempt].connection else { return }
            fetchArrived(attempt, now: now, scheduler: &scheduler)
        case .error:
            guard connection == attempts[attempt].connection else { return }
            fetchFailed(attempt, with: ContinuationError(code: argument), now: now, scheduler: &scheduler)
        case .continued:
            continuedNoticeArrived(for: attempt, now: now)
        case .streamRequest:
            streamRequestArrived(for: attempt, round: argument, bytes: bytes, now: now, scheduler: &scheduler)
        case .streamResponse:
            streamResponseArrived(attempt, round: argument, bytes: bytes, now: now, scheduler: &scheduler)
        case .keyRequest, .keyAnswer, .relayStored, .relayDownload:
            return
        }
    }

    // MARK: Continuing

    /// The app is ready and the payload is in: `continue`.
    mutating func continueActivity(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard attempts[attempt].state == .willContinue, case let .app(app) = attempts[attempt].target,
            let activity = attempts[attempt].delivered
        else { return }
        guard apply(.continue, to: attempt, now: now) else { return }
        attempts[attempt].milestones[.continued] = now
        let receiver = attempts[attempt].receiver
        var context = restorationLists.continueContext(now: now, device: deviceName(receiver))
        let answer: Callback.DelegateAnswer
        switch appDelegate(device: receiver, app: app) {
        case let .scene(delegate):
            delegate.scene(continue: activity, context: &context)
            answer = .scene
        case let .application(delegate):
            answer = .returned(delegate.application(continue: activity, context: &context))
        }
        record(now, device: receiver, app: .bundle(app), activity: attempts[attempt].activity,
               .callback(.continueUserActivity(answer)))
        attempts[attempt].restorations = context.restorations
        for (call, restoration) in context.restorations.enumerated() {
            later(.restore(Int32(call)), of: attempt, after: context.callback.processingTime + restoration.delay,
                  now: now, scheduler: &scheduler)
        }
        if context.requestedStreams {
            record(now, device: receiver, app: .bundle(app), activity: attempts[attempt].activity,
                   .callback(.getContinuationStreams))
            attempts[attempt].outstandingRequests += 1  // the streams being opened
        }
        later(.continueReturned, of: attempt, after: context.callback.processingTime, now: now, scheduler: &scheduler)
    }

    mutating func continueReturned(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard let connection = attempts[attempt].connection else { return }
        world.send(
            bytes: setup.configuration.noticeBytes, tag: MessageKind.continued.tag(), on: connection, from: .initiator,
            at: now)
        attempts[attempt].noticeInFlight = true
        guard attempts[attempt].outstandingRequests > 0, attempts[attempt].streamConnection == nil else { return }
        let id = attempts[attempt].activity
        guard activities[id.index].content.supportsContinuationStreams else {
            streamsFailed(attempt, error: .handoffFailed, now: now, scheduler: &scheduler)
            return
        }
        let stream = world.openConnection(
            from: attempts[attempt].receiver, to: activities[id.index].device,
            over: attempts[attempt].rapportPath,
            parameters: setup.configuration.streamTransport, at: now)
        own(stream, by: .streams(attempt))
        attempts[attempt].streamConnection = stream
    }

    mutating func restore(_ attempt: Int, call: Int, now: SimInstant) {
        guard call < attempts[attempt].restorations.count, case let .app(app) = attempts[attempt].target,
            let activity = attempts[attempt].delivered
        else { return }
        let receiver = attempts[attempt].receiver
        for object in attempts[attempt].restorations[call].objects {
            let name = keepsTrace ? object.restorationIdentifier : ""
            guard apply(.restore, to: attempt, now: now, note: keepsTrace ? .restoring(name) : nil) else { return }
            attempts[attempt].milestones.reach(.restored, at: now)
            var context = CallbackContext(now: now, device: deviceName(receiver))
            object.restoreUserActivityState(activity, context: &context)
            record(now, device: receiver, app: .bundle(app), activity: attempts[attempt].activity,
                   .callback(.restoreUserActivityState(name)))
        }
    }
}
