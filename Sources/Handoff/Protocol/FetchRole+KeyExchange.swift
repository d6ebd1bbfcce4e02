import HandoffWorld
import SimKernel

/// The first-contact advertisement-key exchange over Bluetooth LE, and
/// through the cloud when its Bluetooth LE connection fails.
extension FetchRole {
    /// Starts the key exchange of `receiver` with `source` over Bluetooth
    /// LE, unless one is under way or the last failed less than the hold
    /// (5 s) ago.
    mutating func startKeyExchange(
        with source: DeviceID, on receiver: DeviceID, for activity: ActivityID, now: SimInstant,
        core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let pair = receiver.index * core.world.deviceCount + source.index
        guard keyExchanges[pair].connection == nil else { return }
        if let failed = keyExchanges[pair].failedAt, now < failed + core.setup.configuration.keyExchange.retryHold {
            return
        }
        keyExchanges[pair].generation &+= 1
        keyExchanges[pair].activity = activity
        let connection = core.world.openConnection(
            from: receiver, to: source, over: .bluetooth, parameters: core.setup.configuration.fetchTransport, at: now)
        own(connection, by: .keyExchange(pair))
        keyExchanges[pair].connection = connection
        core.record(now, device: receiver, app: .system, activity: activity,
                    .message(.keyExchange(with: core.traceDevice(source))))
        scheduler.schedule(
            .keyExchangeTimeout(pair: Int32(pair), generation: keyExchanges[pair].generation),
            at: now + core.setup.configuration.keyExchange.timeout)
    }

    /// The key exchange's connection is up: ask for the keys.
    func keyExchangeConnected(pair: Int, connection: ConnectionID, now: SimInstant, core: inout ProtocolCore) {
        guard keyExchanges[pair].connection == connection else { return }
        core.world.send(
            bytes: core.setup.configuration.keyExchange.requestBytes, tag: MessageKind.keyRequest.tag(), on: connection,
            from: .initiator, at: now)
    }

    /// A key-exchange message arrived: the source answers a request; the
    /// receiver records the keys.
    mutating func keyExchangeMessage(
        _ kind: MessageKind, pair: Int, connection: ConnectionID, now: SimInstant, core: inout ProtocolCore
    ) {
        guard keyExchanges[pair].connection == connection else { return }
        switch kind {
        case .keyRequest:
            core.world.send(
                bytes: core.setup.configuration.keyExchange.answerBytes, tag: MessageKind.keyAnswer.tag(),
                on: connection, from: .responder, at: now)
        case .keyAnswer:
            let receiver = DeviceID(pair / core.world.deviceCount)
            let source = DeviceID(pair % core.world.deviceCount)
            core.world.recordTrust(receiver, source)
            core.world.close(connection)
            keyExchanges[pair].connection = nil
            if let activity = keyExchanges[pair].activity {
                core.record(now, device: receiver, app: .system, activity: activity,
                            .system(.keysExchanged(with: core.traceDevice(source))))
            }
        case .request, .payload, .error, .continued, .streamRequest, .streamResponse, .fetch, .relayStored, .relayDownload:
            return
        }
    }

    /// The key exchange failed: no new try for the hold time.
    mutating func keyExchangeFailed(
        pair: Int, now: SimInstant, reason: SystemEvent.KeyExchangeFailure, core: inout ProtocolCore
    ) {
        guard let connection = keyExchanges[pair].connection else { return }
        core.world.close(connection)
        keyExchanges[pair].connection = nil
        keyExchanges[pair].failedAt = now
        if let activity = keyExchanges[pair].activity {
            core.record(now, device: DeviceID(pair / core.world.deviceCount), app: .system, activity: activity,
                        .system(.keyExchangeFailed(reason)))
        }
    }

    /// The key exchange's timer fired.
    mutating func keyExchangeTimedOut(pair: Int, generation: UInt32, now: SimInstant, core: inout ProtocolCore) {
        guard keyExchanges[pair].generation == generation else { return }
        keyExchangeFailed(
            pair: pair, now: now, reason: .timedOut(after: core.setup.configuration.keyExchange.timeout), core: &core)
    }

    /// The key exchange's connection failed: over Bluetooth LE, with both
    /// devices on the internet, the keys are asked for through the cloud
    /// relay instead (within the same timeout); otherwise the exchange
    /// fails.
    ///
    /// Apple Platform Security ("Handoff security"): "in some situations
    /// these messages are sent using APNs". That a failed Bluetooth LE
    /// connection is such a situation is an assumption.
    mutating func keyExchangeConnectionFailed(
        pair: Int, failure: ConnectionFailure, now: SimInstant, core: inout ProtocolCore
    ) {
        guard let connection = keyExchanges[pair].connection else { return }
        let receiver = DeviceID(pair / core.world.deviceCount)
        let source = DeviceID(pair % core.world.deviceCount)
        guard core.setup.configuration.keyExchange.overCloud, keyExchanges[pair].cloudConnection != connection,
            core.world.isPathAvailable(.cloudRelay, between: receiver, and: source, at: now)
        else {
            keyExchangeFailed(pair: pair, now: now, reason: .connection(failure), core: &core)
            return
        }
        core.world.close(connection)
        let cloud = core.world.openConnection(
            from: receiver, to: source, over: .cloudRelay, parameters: core.setup.configuration.fetchTransport, at: now)
        own(cloud, by: .keyExchange(pair))
        keyExchanges[pair].connection = cloud
        keyExchanges[pair].cloudConnection = cloud
        core.traceCount += 1
        if core.keepsTrace {
            core.keep(now, device: receiver, app: .system, activity: keyExchanges[pair].activity,
                      .system(.keysOverCloud(with: core.traceDevice(source))))
        }
    }

    /// Records trust for every pair signed in to the same account, unless
    /// the setup says the devices meet for the first time.
    static func trustPairsAtStart(in core: inout ProtocolCore) {
        guard !core.setup.configuration.keyExchange.firstContact else { return }
        let count = core.world.deviceCount
        for a in 0..<count {
            for b in (a + 1)..<max(a + 1, count) {
                core.world.recordTrust(DeviceID(a), DeviceID(b))
            }
        }
    }
}
