import HandoffWorld
import SimKernel

/// The receiver's fetch of the payload, as Rapport does it, with the cloud
/// relay (IDS) as fallback; and the first-contact advertisement-key
/// exchange over Bluetooth LE.
///
/// The fetch starts the moment the user accepts, while the app launches
/// (see ``ContinuationMachine``). Its steps are the system's, so they are in
/// the trace but not in the app's state machine.
extension HandoffEngine {
    // MARK: Starting

    /// Starts the fetch of `attempt`: arms the payload timer (t + 1 s) and
    /// Rapport's request timeout (min(t, 5 s)), then resolves the source
    /// over peer-to-peer, connects over Bluetooth, or asks the cloud
    /// straight away, by the configured fetch path.
    mutating func startFetch(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let id = attempts[attempt].activity
        let receiver = attempts[attempt].receiver
        let configuration = setup.configuration
        attempts[attempt].milestones[.fetchStarted] = now
        attempts[attempt].fetchStage = .rapport
        record(now, device: receiver, app: .system, activity: id,
               .milestone(.fetchStarted, .fetchFrom(traceDevice(activities[id.index].device))))
        later(.fetchTimeout, of: attempt, after: configuration.payloadTimer, now: now, scheduler: &scheduler)
        guard isSourceAvailable(id, for: receiver) else {
            fetchFailed(attempt, with: .handoffFailed, now: now, scheduler: &scheduler)
            return
        }
        attempts[attempt].rapportPath = configuration.fetchPath
        switch configuration.fetchPath {
        case .cloudRelay:
            fetchOverCloud(attempt, now: now, scheduler: &scheduler)
        case .wifiPeerToPeer, .localNetwork:
            later(.rapportDeadline, of: attempt, after: configuration.rapportDeadline, now: now, scheduler: &scheduler)
            attempts[attempt].fetchStage = .resolving
            // The peer-to-peer browse switches AWDL on (if it is not on).
            if configuration.fetchPath == .wifiPeerToPeer {
                world.enablePeerToPeer(between: receiver, and: activities[id.index].device, at: now)
            }
            if configuration.rapport.resolveCached {
                later(.resolvedFromCache, of: attempt, after: configuration.rapport.cachedResolveTime, now: now,
                      scheduler: &scheduler)
            } else {
                sendResolveQuery(attempt, now: now, scheduler: &scheduler)
            }
        case .bluetooth:
            later(.rapportDeadline, of: attempt, after: configuration.rapportDeadline, now: now, scheduler: &scheduler)
            connectRapport(attempt, now: now)
        }
    }

    // MARK: Resolving

    /// The resolve answered from the receiver's Bonjour cache: nothing went
    /// on the air; Rapport connects.
    mutating func resolvedFromCache(_ attempt: Int, now: SimInstant) {
        guard attempts[attempt].fetchStage == .resolving else { return }
        attempts[attempt].milestones.reach(.resolved, at: now)
        attempts[attempt].marks.resolved = now
        record(now, device: attempts[attempt].receiver, app: .system, activity: attempts[attempt].activity,
               .milestone(.resolved, .afterQueries(0)))
        connectRapport(attempt, now: now)
    }

    /// Sends a Bonjour query for the source's `_companion-link._tcp`
    /// service (multicast) on every interface the browse covers, and arms its repeat
    /// (1 s, then twice as long each time, as mDNS does).
    ///
    /// Bonjour browses every interface, and a peer-to-peer browse adds
    /// AWDL to them rather than replacing them (Apple's `includePeerToPeer`
    /// documentation; pyatv reaches the Companion service on a LAN
    /// address): with the default fetch path, a query goes over
    /// peer-to-peer and, when both devices are on the same Wi-Fi network,
    /// over that network too. The first answer decides the path (an
    /// assumption: which one Rapport prefers is not public).
    mutating func sendResolveQuery(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let id = attempts[attempt].activity
        let receiver = attempts[attempt].receiver
        let source = activities[id.index].device
        let query = attempts[attempt].resolveQueries
        attempts[attempt].resolveQueries += 1
        let rapport = setup.configuration.rapport
        let path = setup.configuration.fetchPath
        let peerToPeer = path == .wifiPeerToPeer
        let localNetwork = path == .localNetwork || world.shareWiFiNetwork(receiver, source)
        if peerToPeer {
            world.sendDatagram(
                on: world.link(.wifiPeerToPeer(from: receiver, to: source)), bytes: rapport.resolveQueryBytes,
                tag: ResolveDatagram.query.tag(attempt), multicast: true, at: now)
        }
        if localNetwork {
            world.sendDatagram(
                on: world.link(.localNetwork(from: receiver, to: source)), bytes: rapport.resolveQueryBytes,
                tag: ResolveDatagram.query.tag(attempt), multicast: true, at: now)
        }
        let interfaces: BrowseInterfaces = !localNetwork ? .peerToPeer : peerToPeer ? .peerToPeerAndLocalNetwork : .localNetwork
        record(now, device: receiver, app: .system, activity: id, .message(.resolveQuery(number: query + 1, on: interfaces)))
        let wait = rapport.resolveRetryInterval * (Int64(1) << Int64(min(query, 16)))
        later(.resolveRetry(Int32(query)), of: attempt, after: wait, now: now, scheduler: &scheduler)
    }

    /// Query `query` went unanswered: ask again, if still resolving.
    mutating func resolveRetry(_ attempt: Int, after query: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard attempts[attempt].fetchStage == .resolving, attempts[attempt].resolveQueries == query + 1 else { return }
        sendResolveQuery(attempt, now: now, scheduler: &scheduler)
    }

    /// A Bonjour query or answer arrived over a link.
    ///
    /// - Returns: whether it changed the protocol's state.
    mutating func datagramDelivered(
        on link: LinkID, tag: UInt32, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) -> Bool {
        guard let (kind, attempt) = ResolveDatagram.parse(tag), attempt < attempts.count else { return false }
        let id = attempts[attempt].activity
        let receiver = attempts[attempt].receiver
        let source = activities[id.index].device
        switch kind {
        case .query:
            // The source's mDNS responder answers every query it hears, to
            // the multicast group (RFC 6762 §6) on the interface it heard it on.
            let back: LinkKind
            if case .localNetwork = world.kind(of: link) {
                back = .localNetwork(from: source, to: receiver)
            } else {
                back = .wifiPeerToPeer(from: source, to: receiver)
            }
            world.sendDatagram(
                on: world.link(back), bytes: setup.configuration.rapport.resolveAnswerBytes,
                tag: ResolveDatagram.answer.tag(attempt), multicast: true, at: now)
            return false
        case .answer:
            guard attempts[attempt].fetchStage == .resolving else { return false }
            if case .localNetwork = world.kind(of: link) { attempts[attempt].rapportPath = .localNetwork }
            attempts[attempt].milestones.reach(.resolved, at: now)
            attempts[attempt].marks.resolved = now
            record(now, device: receiver, app: .system, activity: id,
                   .milestone(.resolved, .afterQueries(attempts[attempt].resolveQueries)))
            connectRapport(attempt, now: now)
            return true
        }
    }

    // MARK: Rapport

    /// Opens the Rapport connection (TCP) to the source over the fetch path.
    mutating func connectRapport(_ attempt: Int, now: SimInstant) {
        let id = attempts[attempt].activity
        attempts[attempt].fetchStage = .rapport
        let connection = world.openConnection(
            from: attempts[attempt].receiver, to: activities[id.index].device, over: attempts[attempt].rapportPath,
            parameters: setup.configuration.fetchTransport, at: now)
        own(connection, by: .fetch(attempt))
        attempts[attempt].connection = connection
        attempts[attempt].milestones.reach(.connecting, at: now)
    }

    /// The fetch's connection is up: over the cloud the request goes at
    /// once; over Rapport, Pair-Verify starts.
    mutating func fetchConnectionEstablished(
        _ attempt: Int, connection: ConnectionID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard connection == attempts[attempt].connection, attempts[attempt].isFetching else { return }
        attempts[attempt].milestones.reach(.connected, at: now)
        attempts[attempt].marks.connected = now
        if attempts[attempt].fetchStage == .cloud {
            attempts[attempt].milestones.reach(.requested, at: now)
            attempts[attempt].marks.requested = now
            world.send(
                bytes: setup.configuration.rapport.framed(setup.configuration.requestBytes),
                tag: MessageKind.request.tag(), on: connection, from: .initiator, at: now)
            record(now, device: attempts[attempt].receiver, app: .system, activity: attempts[attempt].activity,
                   .message(.cloudRequest))
            return
        }
        record(now, device: attempts[attempt].receiver, app: .system, activity: attempts[attempt].activity,
               .milestone(.connected, .over(attempts[attempt].rapportPath)))
        handle(.pairVerify1, of: attempt, now: now, scheduler: &scheduler)
    }

    /// The device that sends `message` handles what came before it, then
    /// sends it after its processing time.
    mutating func handle(
        _ message: FetchMessage, of attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        var generator = stream.child(HandoffStreamNames.processing, attempt &* 16 &+ Int(message.rawValue)).generator()
        let delay = setup.configuration.rapport.processing.sample(using: &generator)
        later(.fetchSend(message), of: attempt, after: delay, now: now, scheduler: &scheduler)
    }

    /// Sends `message` on the Rapport connection, framed.
    mutating func sendFetchMessage(_ message: FetchMessage, of attempt: Int, now: SimInstant) {
        guard attempts[attempt].fetchStage == .rapport, let connection = attempts[attempt].connection else { return }
        let rapport = setup.configuration.rapport
        let bytes: Int
        switch message {
        case .pairVerify1, .pairVerify2, .pairVerify3, .pairVerify4:
            bytes = rapport.framed(rapport.pairVerifyBytes[Int(message.rawValue) - 1], encrypted: false)
        case .systemInfoRequest:
            bytes = rapport.framed(rapport.systemInfoRequestBytes)
        case .systemInfoAnswer:
            bytes = rapport.framed(rapport.systemInfoAnswerBytes)
        case .request:
            bytes = rapport.framed(setup.configuration.requestBytes)
        }
        if message == .request {
            attempts[attempt].milestones.reach(.requested, at: now)
            attempts[attempt].marks.requested = now
        }
        let tag = message == .request ? MessageKind.request.tag() : MessageKind.fetch.tag(Int(message.rawValue))
        world.send(bytes: bytes, tag: tag, on: connection, from: message.isFromSource ? .responder : .initiator, at: now)
        let id = attempts[attempt].activity
        let device = message.isFromSource ? activities[id.index].device : attempts[attempt].receiver
        record(now, device: device, app: .system, activity: id, .message(.rapport(message.traced, bytes: bytes)))
    }

    /// A Rapport message arrived: the other side answers with the next.
    mutating func fetchMessageArrived(
        _ message: FetchMessage, of attempt: Int, on connection: ConnectionID, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard connection == attempts[attempt].connection, attempts[attempt].fetchStage == .rapport,
            let next = message.next
        else { return }
        if message == .pairVerify4 {
            attempts[attempt].milestones.reach(.verified, at: now)
            attempts[attempt].marks.verified = now
        }
        handle(next, of: attempt, now: now, scheduler: &scheduler)
    }

    // MARK: Falling back and ending

    /// Rapport's request timeout, min(t, 5 s): the request goes over the
    /// cloud relay; without the fallback the fetch fails, with 4609 when
    /// Rapport never found the source (the resolve went unanswered) and
    /// 4610 when it did but no payload came.
    mutating func rapportDeadline(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        let error: ContinuationError
        switch attempts[attempt].fetchStage {
        case .resolving: error = .connectionUnavailable
        case .rapport: error = .remoteApplicationTimedOut
        case .idle, .cloud, .decoding, .arrived, .failed: return
        }
        record(now, device: attempts[attempt].receiver, app: .system, activity: attempts[attempt].activity,
               .system(.rapportTimedOut(after: setup.configuration.rapportDeadline)))
        fallBack(attempt, or: error, now: now, scheduler: &scheduler)
    }

    /// Rapport failed: ask over the cloud relay, or fail with `error`.
    mutating func fallBack(
        _ attempt: Int, or error: ContinuationError, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard setup.configuration.rapport.cloudFallback else {
            fetchFailed(attempt, with: error, now: now, scheduler: &scheduler)
            return
        }
        if let connection = attempts[attempt].connection { world.close(connection) }
        attempts[attempt].marks.fallBack(at: now)
        fetchOverCloud(attempt, now: now, scheduler: &scheduler)
    }

    /// The fetch's connection failed: Rapport's falls back to the cloud;
    /// the cloud's fails the fetch (4609 when it never came up).
    mutating func fetchConnectionFailed(
        _ attempt: Int, connection: ConnectionID, failure: ConnectionFailure, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard connection == attempts[attempt].connection, attempts[attempt].isFetching else { return }
        let error: ContinuationError = failure == .setupTimedOut ? .connectionUnavailable : .handoffFailed
        record(now, device: attempts[attempt].receiver, app: .system, activity: attempts[attempt].activity,
               .system(.connectionFailed(failure)))
        if attempts[attempt].fetchStage == .rapport {
            fallBack(attempt, or: error, now: now, scheduler: &scheduler)
        } else {
            fetchFailed(attempt, with: error, now: now, scheduler: &scheduler)
        }
    }

    /// The payload arrived: the receiver decodes it (``PayloadCoding``).
    mutating func fetchArrived(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard attempts[attempt].isFetching, case .some = attempts[attempt].delivered else { return }
        attempts[attempt].fetchStage = .decoding
        attempts[attempt].milestones[.payloadArrived] = now
        attempts[attempt].marks.payloadArrived = now
        record(now, device: attempts[attempt].receiver, app: .system, activity: attempts[attempt].activity,
               .milestone(.payloadArrived, .fetchTook(now - (attempts[attempt].milestones[.fetchStarted] ?? now))))
        var bytes = setup.configuration.envelopeBytes
        if case let .success(size) = attempts[attempt].pendingReply { bytes += size }
        later(.payloadDecoded, of: attempt, after: setup.configuration.coding.decodeTime(bytes: bytes), now: now,
              scheduler: &scheduler)
    }

    /// The payload is decoded: the app continues now if it is ready, else
    /// when it is.
    mutating func payloadDecoded(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard attempts[attempt].fetchStage == .decoding else { return }
        attempts[attempt].fetchStage = .arrived
        attempts[attempt].marks.decoded = now
        if attempts[attempt].appReady { continueActivity(attempt, now: now, scheduler: &scheduler) }
    }

    /// The fetch failed: the app fails now if it is ready, else when it is.
    mutating func fetchFailed(
        _ attempt: Int, with error: ContinuationError, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard attempts[attempt].isFetching else { return }
        attempts[attempt].fetchStage = .failed(error)
        if let connection = attempts[attempt].connection { world.close(connection) }
        record(now, device: attempts[attempt].receiver, app: .system, activity: attempts[attempt].activity,
               .system(.fetchFailed(error)))
        if attempts[attempt].appReady { fail(attempt, with: error, now: now, scheduler: &scheduler) }
    }

    // MARK: The advertisement-key exchange

    /// Starts the key exchange of `receiver` with `source` over Bluetooth
    /// LE, unless one is under way or the last failed less than the hold
    /// (5 s) ago.
    mutating func startKeyExchange(
        with source: DeviceID, on receiver: DeviceID, for activity: ActivityID, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        let pair = receiver.index * world.deviceCount + source.index
        guard keyExchanges[pair].connection == nil else { return }
        if let failed = keyExchanges[pair].failedAt, now < failed + setup.configuration.keyExchange.retryHold { return }
        keyExchanges[pair].generation &+= 1
        keyExchanges[pair].activity = activity
        let connection = world.openConnection(
            from: receiver, to: source, over: .bluetooth, parameters: setup.configuration.fetchTransport, at: now)
        own(connection, by: .keyExchange(pair))
        keyExchanges[pair].connection = connection
        record(now, device: receiver, app: .system, activity: activity, .message(.keyExchange(with: traceDevice(source))))
        scheduler.schedule(
            .keyExchangeTimeout(pair: Int32(pair), generation: keyExchanges[pair].generation),
            at: now + setup.configuration.keyExchange.timeout)
    }

    /// The key exchange's connection is up: ask for the keys.
    mutating func keyExchangeConnected(pair: Int, connection: ConnectionID, now: SimInstant) {
        guard keyExchanges[pair].connection == connection else { return }
        world.send(
            bytes: setup.configuration.keyExchange.requestBytes, tag: MessageKind.keyRequest.tag(), on: connection,
            from: .initiator, at: now)
    }

    /// A key-exchange message arrived: the source answers a request; the
    /// receiver records the keys.
    mutating func keyExchangeMessage(_ kind: MessageKind, pair: Int, connection: ConnectionID, now: SimInstant) {
        guard keyExchanges[pair].connection == connection else { return }
        switch kind {
        case .keyRequest:
            world.send(
                bytes: setup.configuration.keyExchange.answerBytes, tag: MessageKind.keyAnswer.tag(), on: connection,
                from: .responder, at: now)
        case .keyAnswer:
            let receiver = DeviceID(pair / world.deviceCount)
            let source = DeviceID(pair % world.deviceCount)
            world.recordTrust(receiver, source)
            world.close(connection)
            keyExchanges[pair].connection = nil
            if let activity = keyExchanges[pair].activity {
                record(now, device: receiver, app: .system, activity: activity,
                       .system(.keysExchanged(with: traceDevice(source))))
            }
        case .request, .payload, .error, .continued, .streamRequest, .streamResponse, .fetch, .relayStored, .relayDownload:
            return
        }
    }

    /// The key exchange failed: no new try for the hold time.
    mutating func keyExchangeFailed(pair: Int, now: SimInstant, reason: SystemEvent.KeyExchangeFailure) {
        guard let connection = keyExchanges[pair].connection else { return }
        world.close(connection)
        keyExchanges[pair].connection = nil
        keyExchanges[pair].failedAt = now
        if let activity = keyExchanges[pair].activity {
            record(now, device: DeviceID(pair / world.deviceCount), app: .system, activity: activity,
                   .system(.keyExchangeFailed(reason)))
        }
    }

    /// The key exchange's timer fired.
    mutating func keyExchangeTimedOut(pair: Int, generation: UInt32, now: SimInstant) {
        guard keyExchanges[pair].generation == generation else { return }
        keyExchangeFailed(pair: pair, now: now, reason: .timedOut(after: setup.configuration.keyExchange.timeout))
    }

    /// Records trust for every pair signed in to the same account, unless
    /// the setup says the devices meet for the first time.
    mutating func trustPairsAtStart() {
        guard !setup.configuration.keyExchange.firstContact else { return }
        for a in 0..<world.deviceCount {
            for b in (a + 1)..<max(a + 1, world.deviceCount) {
                world.recordTrust(DeviceID(a), DeviceID(b))
            }
        }
    }
}

/// The Bonjour messages of the resolve, as datagram tags: the kind in the
/// low byte, the attempt above it.
enum ResolveDatagram: UInt32 {
    case query = 1
    case answer = 2

    func tag(_ attempt: Int) -> UInt32 { rawValue | UInt32(truncatingIfNeeded: attempt) << 8 }

    static func parse(_ tag: UInt32) -> (ResolveDatagram, Int)? {
        guard let kind = ResolveDatagram(rawValue: tag & 0xff) else { return nil }
        return (kind, Int(tag >> 8))
    }
}

extension FetchMessage {
    /// The message as a trace names it.
    var traced: RapportMessage {
        switch self {
        case .pairVerify1: return .pairVerifyM1
        case .pairVerify2: return .pairVerifyM2
        case .pairVerify3: return .pairVerifyM3
        case .pairVerify4: return .pairVerifyM4
        case .systemInfoRequest: return .systemInfoRequest
        case .systemInfoAnswer: return .systemInfoAnswer
        case .request: return .payloadRequest
        }
    }
}
