import HandoffWorld
import SimKernel

/// The receiver's fetch of the payload, as Rapport does it, with the cloud
/// relay (IDS) as fallback (`FetchRole+Relay.swift`); continuation streams
/// over the fetch's path (`FetchRole+Streams.swift`); and the first-contact
/// advertisement-key exchange over Bluetooth LE
/// (`FetchRole+KeyExchange.swift`). It owns the world's connections the
/// protocol opens, and says what each is for.
///
/// The fetch starts the moment the user accepts, while the app launches
/// (see ``ContinuationMachine``). Its steps are the system's, so they are in
/// the trace but not in the app's state machine. Whatever can end a fetch
/// returns whether it ended it now: the engine then has the receiver
/// continue or fail the app, if it is ready.
///
/// Owned by the ``HandoffEngine``, which passes in the ``ProtocolCore``
/// and the scheduler. Noncopyable, so that it is only ever changed in place.
struct FetchRole: ~Copyable {
    // MARK: What a trial changes (reset by `reset(deviceCount:)`, below)

    /// Per world connection: what it is for.
    var connectionOwners: [ConnectionOwner] = []
    /// Per receiver × source device pair: the advertisement-key exchange.
    var keyExchanges: [KeyExchangeState] = []

    /// Starts a trial of `deviceCount` devices: every per-trial field above
    /// as in a new run, in its own storage.
    mutating func reset(deviceCount: Int) {
        connectionOwners.removeAllKeepingStorage()
        keyExchanges.refill(with: KeyExchangeState(), count: deviceCount * deviceCount)
    }

    /// The fetch side of a run of `deviceCount` devices, at the start of a
    /// trial.
    init(deviceCount: Int) {
        reset(deviceCount: deviceCount)
    }

    /// Records what `connection` is for.
    mutating func own(_ connection: ConnectionID, by owner: ConnectionOwner) {
        while connectionOwners.count <= connection.index { connectionOwners.append(.none) }
        connectionOwners[connection.index] = owner
    }

    /// What `connection` is for (``ConnectionOwner/none`` for one the
    /// protocol did not open).
    func owner(of connection: ConnectionID) -> ConnectionOwner {
        connection.index < connectionOwners.count ? connectionOwners[connection.index] : .none
    }

    // MARK: Starting

    /// Starts the fetch of `attempt`: arms the payload timer (t + 1 s) and
    /// Rapport's request timeout (min(t, 5 s)), then resolves the source
    /// over peer-to-peer, connects over Bluetooth, or asks the cloud
    /// straight away, by the configured fetch path.
    ///
    /// - Returns: whether the fetch has ended already.
    mutating func startFetch(
        _ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) -> Bool {
        let id = core.attempts[attempt].activity
        let receiver = core.attempts[attempt].receiver
        let source = core.activities[id.index].device
        let configuration = core.setup.configuration
        core.attempts[attempt].milestones[.fetchStarted] = now
        core.attempts[attempt].fetchStage = .rapport
        core.record(now, device: receiver, app: .system, activity: id,
                    .milestone(.fetchStarted, .fetchFrom(core.traceDevice(source))))
        core.later(.fetchTimeout, of: attempt, after: configuration.payloadTimer, now: now, scheduler: &scheduler)
        guard core.isSourceAvailable(id, for: receiver) else {
            return fetchFailed(attempt, with: .handoffFailed, now: now, core: &core)
        }
        core.attempts[attempt].rapportPath = configuration.fetchPath
        switch configuration.fetchPath {
        case .cloudRelay:
            return fetchOverCloud(attempt, now: now, core: &core)
        case .wifiPeerToPeer, .localNetwork:
            core.later(.rapportDeadline, of: attempt, after: configuration.rapportDeadline, now: now, scheduler: &scheduler)
            core.attempts[attempt].fetchStage = .resolving
            // The peer-to-peer browse switches AWDL on (if it is not on).
            if configuration.fetchPath == .wifiPeerToPeer {
                core.world.enablePeerToPeer(between: receiver, and: source, at: now)
            }
            if configuration.rapport.resolveCached {
                core.later(.resolvedFromCache, of: attempt, after: configuration.rapport.cachedResolveTime, now: now,
                           scheduler: &scheduler)
            } else {
                // A new question: mDNSResponder holds its first query back
                // (`RandomQueryDelay`); `resolveRetry(-1)` sends it.
                var generator = core.stream.child(HandoffStreamNames.resolveHoldBack, attempt).generator()
                let holdBack = configuration.rapport.resolveHoldBack.sample(using: &generator)
                core.later(.resolveRetry(-1), of: attempt, after: holdBack, now: now, scheduler: &scheduler)
            }
        case .bluetooth:
            core.later(.rapportDeadline, of: attempt, after: configuration.rapportDeadline, now: now, scheduler: &scheduler)
            connectRapport(attempt, now: now, core: &core)
        }
        return false
    }

    // MARK: Resolving

    /// The resolve answered from the receiver's Bonjour cache: nothing went
    /// on the air; Rapport connects.
    mutating func resolvedFromCache(_ attempt: Int, now: SimInstant, core: inout ProtocolCore) {
        guard core.attempts[attempt].fetchStage == .resolving else { return }
        core.attempts[attempt].milestones.reach(.resolved, at: now)
        core.attempts[attempt].marks.resolved = now
        core.record(now, device: core.attempts[attempt].receiver, app: .system, activity: core.attempts[attempt].activity,
                    .milestone(.resolved, .afterQueries(0)))
        connectRapport(attempt, now: now, core: &core)
    }

    /// Sends a Bonjour query for the source's `_companion-link._tcp`
    /// service (multicast) on every interface the browse covers, and arms its
    /// repeat (``RapportParameters/resolveWait(after:)``: 1.002 s, then three
    /// times as long each time, as mDNSResponder's `SendQueries` does).
    ///
    /// Bonjour browses every interface, and a peer-to-peer browse adds
    /// AWDL to them rather than replacing them (Apple's `includePeerToPeer`
    /// documentation; pyatv reaches the Companion service on a LAN
    /// address): with the default fetch path, a query goes over
    /// peer-to-peer and, when both devices are on the same Wi-Fi network,
    /// over that network too. The first answer decides the path (an
    /// assumption: which one Rapport prefers is not public).
    func sendResolveQuery(
        _ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let id = core.attempts[attempt].activity
        let receiver = core.attempts[attempt].receiver
        let source = core.activities[id.index].device
        let query = core.attempts[attempt].resolveQueries
        core.attempts[attempt].resolveQueries += 1
        let rapport = core.setup.configuration.rapport
        let path = core.setup.configuration.fetchPath
        let peerToPeer = path == .wifiPeerToPeer
        let localNetwork = path == .localNetwork || core.world.shareWiFiNetwork(receiver, source)
        if peerToPeer {
            core.world.sendDatagram(
                on: core.world.link(.wifiPeerToPeer(from: receiver, to: source)), bytes: rapport.resolveQueryBytes,
                tag: ResolveDatagram.query.tag(attempt), multicast: true, at: now)
        }
        if localNetwork {
            core.world.sendDatagram(
                on: core.world.link(.localNetwork(from: receiver, to: source)), bytes: rapport.resolveQueryBytes,
                tag: ResolveDatagram.query.tag(attempt), multicast: true, at: now)
        }
        let interfaces: BrowseInterfaces = !localNetwork ? .peerToPeer : peerToPeer ? .peerToPeerAndLocalNetwork : .localNetwork
        core.record(now, device: receiver, app: .system, activity: id,
                    .message(.resolveQuery(number: query + 1, on: interfaces)))
        let wait = rapport.resolveWait(after: query)
        core.later(.resolveRetry(Int32(query)), of: attempt, after: wait, now: now, scheduler: &scheduler)
    }

    /// Query `query` went unanswered (or, for −1, the hold-back of a new
    /// question is over): ask, if still resolving.
    func resolveRetry(
        _ attempt: Int, after query: Int, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard core.attempts[attempt].fetchStage == .resolving, core.attempts[attempt].resolveQueries == query + 1
        else { return }
        sendResolveQuery(attempt, now: now, core: &core, scheduler: &scheduler)
    }

    /// A Bonjour query or answer arrived over a link.
    ///
    /// - Returns: whether it changed the protocol's state.
    mutating func datagramDelivered(on link: LinkID, tag: UInt32, now: SimInstant, core: inout ProtocolCore) -> Bool {
        guard let (kind, attempt) = ResolveDatagram.parse(tag), attempt < core.attempts.count else { return false }
        let id = core.attempts[attempt].activity
        let receiver = core.attempts[attempt].receiver
        let source = core.activities[id.index].device
        switch kind {
        case .query:
            // The source's mDNS responder answers every query it hears, to
            // the multicast group (RFC 6762 §6) on the interface it heard it on.
            let back: LinkKind
            if case .localNetwork = core.world.kind(of: link) {
                back = .localNetwork(from: source, to: receiver)
            } else {
                back = .wifiPeerToPeer(from: source, to: receiver)
            }
            core.world.sendDatagram(
                on: core.world.link(back), bytes: core.setup.configuration.rapport.resolveAnswerBytes,
                tag: ResolveDatagram.answer.tag(attempt), multicast: true, at: now)
            return false
        case .answer:
            guard core.attempts[attempt].fetchStage == .resolving else { return false }
            if case .localNetwork = core.world.kind(of: link) { core.attempts[attempt].rapportPath = .localNetwork }
            core.attempts[attempt].milestones.reach(.resolved, at: now)
            core.attempts[attempt].marks.resolved = now
            core.record(now, device: receiver, app: .system, activity: id,
                        .milestone(.resolved, .afterQueries(core.attempts[attempt].resolveQueries)))
            connectRapport(attempt, now: now, core: &core)
            return true
        }
    }

    // MARK: Rapport

    /// Opens the Rapport connection (TCP) to the source over the fetch path.
    mutating func connectRapport(_ attempt: Int, now: SimInstant, core: inout ProtocolCore) {
        let id = core.attempts[attempt].activity
        core.attempts[attempt].fetchStage = .rapport
        let connection = core.world.openConnection(
            from: core.attempts[attempt].receiver, to: core.activities[id.index].device,
            over: core.attempts[attempt].rapportPath, parameters: core.setup.configuration.fetchTransport, at: now)
        own(connection, by: .fetch(attempt))
        core.attempts[attempt].connection = connection
        core.attempts[attempt].milestones.reach(.connecting, at: now)
    }

    /// The fetch's connection is up: over the cloud the request goes at
    /// once; over Rapport, Pair-Verify starts.
    func fetchConnectionEstablished(
        _ attempt: Int, connection: ConnectionID, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard connection == core.attempts[attempt].connection, core.attempts[attempt].isFetching else { return }
        core.attempts[attempt].marks.connected = now
        let receiver = core.attempts[attempt].receiver
        let id = core.attempts[attempt].activity
        if core.attempts[attempt].fetchStage == .cloud {
            // The relay's leg was already open: no TCP connect (see
            // `fetchOverCloud`).
            core.attempts[attempt].milestones.reach(.requested, at: now)
            core.attempts[attempt].marks.requested = now
            core.world.send(
                bytes: core.setup.configuration.rapport.framed(core.setup.configuration.requestBytes),
                tag: MessageKind.request.tag(), on: connection, from: .initiator, at: now)
            core.record(now, device: receiver, app: .system, activity: id, .message(.cloudRequest))
            return
        }
        core.attempts[attempt].milestones.reach(.connected, at: now)
        core.record(now, device: receiver, app: .system, activity: id,
                    .milestone(.connected, .over(core.attempts[attempt].rapportPath)))
        handle(.pairVerify1, of: attempt, now: now, core: &core, scheduler: &scheduler)
    }

    /// The device that sends `message` handles what came before it, then
    /// sends it after its processing time.
    func handle(
        _ message: FetchMessage, of attempt: Int, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        var generator = core.stream.child(HandoffStreamNames.processing, attempt &* 16 &+ Int(message.rawValue))
            .generator()
        let delay = core.setup.configuration.rapport.processing.sample(using: &generator)
        core.later(.fetchSend(message), of: attempt, after: delay, now: now, scheduler: &scheduler)
    }

    /// Sends `message` on the Rapport connection, framed.
    func sendFetchMessage(_ message: FetchMessage, of attempt: Int, now: SimInstant, core: inout ProtocolCore) {
        guard core.attempts[attempt].fetchStage == .rapport, let connection = core.attempts[attempt].connection
        else { return }
        let rapport = core.setup.configuration.rapport
        let bytes: Int
        switch message {
        case .pairVerify1, .pairVerify2, .pairVerify3, .pairVerify4:
            bytes = rapport.framed(rapport.pairVerifyBytes[Int(message.rawValue) - 1], encrypted: false)
        case .systemInfoRequest:
            bytes = rapport.framed(rapport.systemInfoRequestBytes)
        case .systemInfoAnswer:
            bytes = rapport.framed(rapport.systemInfoAnswerBytes)
        case .request:
            bytes = rapport.framed(core.setup.configuration.requestBytes)
        }
        if message == .request {
            core.attempts[attempt].milestones.reach(.requested, at: now)
            core.attempts[attempt].marks.requested = now
        }
        let tag = message == .request ? MessageKind.request.tag() : MessageKind.fetch.tag(Int(message.rawValue))
        core.world.send(
            bytes: bytes, tag: tag, on: connection, from: message.isFromSource ? .responder : .initiator, at: now)
        let id = core.attempts[attempt].activity
        let device = message.isFromSource ? core.activities[id.index].device : core.attempts[attempt].receiver
        core.record(now, device: device, app: .system, activity: id, .message(.rapport(message.traced, bytes: bytes)))
    }

    /// A Rapport message arrived: the other side answers with the next.
    func fetchMessageArrived(
        _ message: FetchMessage, of attempt: Int, on connection: ConnectionID, now: SimInstant,
        core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard connection == core.attempts[attempt].connection, core.attempts[attempt].fetchStage == .rapport,
            let next = message.next
        else { return }
        if message == .pairVerify4 {
            core.attempts[attempt].milestones.reach(.verified, at: now)
            core.attempts[attempt].marks.verified = now
        }
        handle(next, of: attempt, now: now, core: &core, scheduler: &scheduler)
    }

    // MARK: Falling back and ending

    /// Rapport's request timeout, min(t, 5 s): the request goes over the
    /// cloud relay; without the fallback the fetch fails, with 4609 when
    /// Rapport never found the source (the resolve went unanswered) and
    /// 4610 when it did but no payload came.
    ///
    /// - Returns: whether the fetch ended now.
    mutating func rapportDeadline(_ attempt: Int, now: SimInstant, core: inout ProtocolCore) -> Bool {
        let error: ContinuationError
        switch core.attempts[attempt].fetchStage {
        case .resolving: error = .connectionUnavailable
        case .rapport: error = .remoteApplicationTimedOut
        case .idle, .cloud, .decoding, .arrived, .failed: return false
        }
        core.record(now, device: core.attempts[attempt].receiver, app: .system, activity: core.attempts[attempt].activity,
                    .system(.rapportTimedOut(after: core.setup.configuration.rapportDeadline)))
        return fallBack(attempt, or: error, now: now, core: &core)
    }

    /// Rapport failed: ask over the cloud relay, or fail with `error`.
    ///
    /// - Returns: whether the fetch ended now.
    mutating func fallBack(_ attempt: Int, or error: ContinuationError, now: SimInstant, core: inout ProtocolCore) -> Bool {
        guard core.setup.configuration.rapport.cloudFallback else {
            return fetchFailed(attempt, with: error, now: now, core: &core)
        }
        if let connection = core.attempts[attempt].connection { core.world.close(connection) }
        core.attempts[attempt].marks.fallBack(at: now)
        return fetchOverCloud(attempt, now: now, core: &core)
    }

    /// The fetch's connection failed: Rapport's falls back to the cloud;
    /// the cloud's fails the fetch (4609 when it never came up).
    ///
    /// - Returns: whether the fetch ended now.
    mutating func fetchConnectionFailed(
        _ attempt: Int, connection: ConnectionID, failure: ConnectionFailure, now: SimInstant, core: inout ProtocolCore
    ) -> Bool {
        guard connection == core.attempts[attempt].connection, core.attempts[attempt].isFetching else { return false }
        let error: ContinuationError = failure == .setupTimedOut ? .connectionUnavailable : .handoffFailed
        core.record(now, device: core.attempts[attempt].receiver, app: .system, activity: core.attempts[attempt].activity,
                    .system(.connectionFailed(failure)))
        if core.attempts[attempt].fetchStage == .rapport {
            return fallBack(attempt, or: error, now: now, core: &core)
        }
        return fetchFailed(attempt, with: error, now: now, core: &core)
    }

    /// The payload timer fired: a fetch still under way fails with 4610.
    ///
    /// - Returns: whether the fetch ended now.
    func fetchTimeout(_ attempt: Int, now: SimInstant, core: inout ProtocolCore) -> Bool {
        guard core.attempts[attempt].isFetching else { return false }
        core.record(now, device: core.attempts[attempt].receiver, app: .system, activity: core.attempts[attempt].activity,
                    .system(.payloadTimerFired(after: core.setup.configuration.payloadTimer)))
        return fetchFailed(attempt, with: .remoteApplicationTimedOut, now: now, core: &core)
    }

    /// The payload arrived: the receiver decodes it (``PayloadCoding``).
    func fetchArrived(_ attempt: Int, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>) {
        guard core.attempts[attempt].isFetching, case .some = core.attempts[attempt].delivered else { return }
        core.attempts[attempt].fetchStage = .decoding
        core.attempts[attempt].milestones[.payloadArrived] = now
        core.attempts[attempt].marks.payloadArrived = now
        let took = now - (core.attempts[attempt].milestones[.fetchStarted] ?? now)
        core.record(now, device: core.attempts[attempt].receiver, app: .system, activity: core.attempts[attempt].activity,
                    .milestone(.payloadArrived, .fetchTook(took)))
        var bytes = core.setup.configuration.envelopeBytes
        if case let .success(size) = core.attempts[attempt].pendingReply { bytes += size }
        core.later(.payloadDecoded, of: attempt, after: core.setup.configuration.coding.decodeTime(bytes: bytes), now: now,
                   scheduler: &scheduler)
    }

    /// The payload is decoded: the app continues now if it is ready, else
    /// when it is.
    ///
    /// - Returns: whether the fetch ended now (with the payload).
    func payloadDecoded(_ attempt: Int, now: SimInstant, core: inout ProtocolCore) -> Bool {
        guard core.attempts[attempt].fetchStage == .decoding else { return false }
        core.attempts[attempt].fetchStage = .arrived
        core.attempts[attempt].marks.decoded = now
        return true
    }

    /// The fetch failed: the app fails now if it is ready, else when it is.
    ///
    /// - Returns: whether the fetch ended now (it had not already).
    func fetchFailed(_ attempt: Int, with error: ContinuationError, now: SimInstant, core: inout ProtocolCore) -> Bool {
        guard core.attempts[attempt].isFetching else { return false }
        core.attempts[attempt].fetchStage = .failed(error)
        if let connection = core.attempts[attempt].connection { core.world.close(connection) }
        core.record(now, device: core.attempts[attempt].receiver, app: .system, activity: core.attempts[attempt].activity,
                    .system(.fetchFailed(error)))
        return true
    }
}
