import HandoffWorld
import SimKernel
import Testing

// Reliable transport under loss: retransmission, retry exhaustion, close, and radios switched off mid-transfer.

/// A model owning a world whose Wi-Fi switch on one device is flipped by
/// events of the model's own.
private struct RadioSwitchModel: SimulationModel, ~Copyable {
    enum Event: WorldEventRepresentable {
        case world(WorldEvent)
        case wifi(Bool)
    }

    var world: World
    let device: DeviceID
    /// Notifications as (instant, notification), since `Record` cannot be
    /// made outside the library.
    var entries: [(instant: SimInstant, notification: WorldNotification)] = []

    mutating func handle(_ event: Event, scheduler: inout Scheduler<Event>) {
        switch event {
        case let .world(worldEvent):
            world.handle(worldEvent, scheduler: &scheduler)
        case let .wifi(on):
            var settings = world.settings(of: device)
            settings.wifiEnabled = on
            world.setSettings(settings, of: device)
        }
        for notification in world.notifications { entries.append((scheduler.now, notification)) }
        world.removeAllNotifications()
    }
}

extension TransportTests {
    // MARK: Bernoulli loss

    @Test("Bernoulli loss p on the data direction costs 1/(1−p) transmissions per segment and no spurious retransmission",
          arguments: [0.05, 0.2])
    func bernoulliLossCostsGeometricTransmissions(lossProbability p: Double) throws {
        // Data direction lossy, acknowledgement direction loss-free, no jitter:
        // every retransmission replaces a lost segment, so the transmissions of
        // one segment are geometric on {1, 2, …} with mean 1/(1−p) and
        // variance p/(1−p)². Over n independent segments the mean lies within
        // z·√(p/n)/(1−p) of 1/(1−p) with 99% confidence (z = 2.576).
        let forward = TransportFixture.link(latencyMilliseconds: 10, megabits: 100, loss: .bernoulli(p))
        let backward = TransportFixture.link(latencyMilliseconds: 10, megabits: 100)
        let world = try TransportFixture.world(forward: forward, backward: backward, seed: 2024)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let segments = 4000
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.send(bytes: segments * 1460, tag: 1, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        let stop = simulation.run()
        #expect(stop == .idle)

        let statistics = simulation.model.world.statistics(of: connection).fromInitiator
        #expect(simulation.model.world.segmentSize(of: connection) == 1460)
        #expect(statistics.segmentsCreated == segments)
        let mean = Double(statistics.segmentTransmissions) / Double(statistics.segmentsCreated)
        let expected = 1 / (1 - p)
        let bound = 2.576 * (p / Double(segments)).squareRoot() / (1 - p)
        #expect(abs(mean - expected) <= bound, "mean \(mean), expected \(expected) ± \(bound)")
        #expect(statistics.retransmissions == statistics.segmentTransmissions - statistics.segmentsCreated)
        #expect(statistics.duplicatesDiscarded == 0, "a retransmission of a segment that had arrived")
        let delivered = deliveries(in: simulation.model.log, on: connection, to: .responder)
        #expect(delivered.map(\.tag) == [1])
        #expect(delivered.first?.bytes == segments * 1460)
        #expect(statistics.bytesDelivered == segments * 1460)
    }

    // MARK: Retry exhaustion

    struct BackoffCase: Sendable, CustomTestStringConvertible {
        let retryLimit: Int
        let initialMilliseconds: Int64
        let maximumMilliseconds: Int64
        var testDescription: String {
            "retryLimit \(retryLimit), initial \(initialMilliseconds) ms, maximum \(maximumMilliseconds) ms"
        }
    }

    /// Σ of the retryLimit + 1 timeouts from the last send: the first
    /// timeout `first`, each next one doubled and capped at `maximum`.
    static func backedOffSum(first: Int64, maximum: Int64, timeouts: Int) -> Int64 {
        var total: Int64 = 0
        var timeout = min(first, maximum)
        for _ in 0..<timeouts {
            total += timeout
            timeout = min(2 * timeout, maximum)
        }
        return total
    }

    @Test("with every packet lost, setup fails after retryLimit+1 timeouts, at initialRTO·(1+2+4+…) capped at the maximum",
          arguments: [
              BackoffCase(retryLimit: 3, initialMilliseconds: 1000, maximumMilliseconds: 60_000),  // 1+2+4+8 = 15 s
              BackoffCase(retryLimit: 3, initialMilliseconds: 1000, maximumMilliseconds: 3000),    // 1+2+3+3 = 9 s
              BackoffCase(retryLimit: 0, initialMilliseconds: 250, maximumMilliseconds: 60_000),   // 0.25 s
              BackoffCase(retryLimit: 5, initialMilliseconds: 300, maximumMilliseconds: 60_000),   // 0.3·63 = 18.9 s
          ])
    func setupTimesOutAfterBackedOffRetries(_ backoff: BackoffCase) throws {
        // No reply ever arrives, so no RTT sample exists: the first timeout
        // is the initial RTO, and each expiry doubles it (capped). The
        // (retryLimit+1)-th expiry fails the connection.
        let transport = TransportParameters(
            initialRetransmissionTimeout: .milliseconds(backoff.initialMilliseconds),
            handshakeRetransmission: .doubling,
            maximumRetransmissionTimeout: .milliseconds(backoff.maximumMilliseconds),
            retryLimit: backoff.retryLimit)
        let forward = TransportFixture.link(latencyMilliseconds: 5, megabits: 100, loss: .bernoulli(1))
        let backward = TransportFixture.link(latencyMilliseconds: 5, megabits: 100)
        let world = try TransportFixture.world(forward: forward, backward: backward, transport: transport)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.send(bytes: 3000, tag: 1, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        let expected = Self.backedOffSum(
            first: backoff.initialMilliseconds * 1_000_000, maximum: backoff.maximumMilliseconds * 1_000_000,
            timeouts: backoff.retryLimit + 1)
        let log = simulation.model.log
        let failed = instant(of: .connectionFailed(connection, .setupTimedOut), in: log)
        #expect(failed?.nanosecondsSinceStart == expected)
        #expect(log.count == 1, "only the failure: \(log.map(\.notification))")
        #expect(simulation.model.world.phase(of: connection) == .failed(.setupTimedOut))
        let statistics = simulation.model.world.statistics(of: connection)
        #expect(statistics.fromInitiator.timeouts == backoff.retryLimit + 1)
        #expect(statistics.setupRequestsSent == backoff.retryLimit + 1)
        #expect(statistics.fromInitiator.segmentTransmissions == 0)
        let forwardLink = simulation.model.world.statistics(
            of: simulation.model.world.link(.wifiPeerToPeer(from: Self.mac, to: Self.phone)))
        #expect(forwardLink.fragmentsLost == backoff.retryLimit + 1)
    }

    enum Cut: String, Sendable, CaseIterable {
        /// The data direction switches to `bernoulli(1)` at 1 s.
        case totalLoss
        /// The data direction's own outage window [1 s, 5 s).
        case outage
        /// A partition between the two devices during [1 s, 5 s).
        case partition
    }

    @Test("a data path cut after setup fails the connection after retryLimit+1 backed-off timeouts, exactly",
          arguments: Cut.allCases, [0, 3])
    func dataRetransmissionsExhausted(cut: Cut, retryLimit: Int) throws {
        // RTT 20 ms exactly (10 ms each way, no bandwidth limit): after the
        // setup samples SRTT = 20 ms and RTTVAR ≤ 10 ms, so the RTO is
        // max(SRTT + 4·RTTVAR, 200 ms) = 200 ms. A one-segment message sent at
        // 1 s into the cut path is probed at 1.2 s (RFC 8985 §7.2: the probe
        // due at 2·SRTT + 200 ms goes at the timeout instead), then times
        // out at 1.2 s + 0.2·(1 + 2 + … + 2^retryLimit).
        let transport = TransportParameters(retryLimit: retryLimit)
        var forward = TransportFixture.link(latencyMilliseconds: 10)
        let window = try TimeWindow(from: seconds(1), until: seconds(5))
        if cut == .outage { forward.outages = [window] }
        let backward = TransportFixture.link(latencyMilliseconds: 10)
        var world = try TransportFixture.world(forward: forward, backward: backward, transport: transport)
        if cut == .partition { world.partition([.device(Self.mac)], from: [.device(Self.phone)], during: window) }
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: seconds(1))
        #expect(instant(of: .connectionEstablished(connection), in: simulation.model.log) == milliseconds(20))
        #expect(simulation.model.world.phase(of: connection) == .established)

        let dataLink = simulation.model.world.link(.wifiPeerToPeer(from: Self.mac, to: Self.phone))
        if cut == .totalLoss {
            var lossy = forward
            lossy.loss = .bernoulli(1)
            try simulation.model.world.setParameters(lossy, of: dataLink)
        }
        simulation.model.world.send(bytes: 1000, tag: 7, on: connection, from: .initiator, at: seconds(1))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        let expected = 1_200_000_000 + Self.backedOffSum(
            first: 200_000_000, maximum: 60_000_000_000, timeouts: retryLimit + 1)
        let failed = instant(of: .connectionFailed(connection, .retransmissionsExhausted), in: simulation.model.log)
        #expect(failed?.nanosecondsSinceStart == expected)
        #expect(simulation.model.world.phase(of: connection) == .failed(.retransmissionsExhausted))
        let statistics = simulation.model.world.statistics(of: connection).fromInitiator
        #expect(statistics.timeouts == retryLimit + 1)
        #expect(statistics.probes == 1)
        // The first transmission, the probe, and one after each timeout but the last.
        #expect(statistics.segmentTransmissions == retryLimit + 2)
        #expect(statistics.retransmissions == retryLimit + 1)

        // After the failure the path heals, and nothing more moves.
        if cut == .totalLoss { try simulation.model.world.setParameters(forward, of: dataLink) }
        simulation.run(until: seconds(6))
        let reverseLink = simulation.model.world.link(.wifiPeerToPeer(from: Self.phone, to: Self.mac))
        let offeredBefore = simulation.model.world.statistics(of: dataLink).packetsOffered
        let reverseOfferedBefore = simulation.model.world.statistics(of: reverseLink).packetsOffered
        simulation.model.world.send(bytes: 1000, tag: 8, on: connection, from: .initiator, at: seconds(6))
        simulation.model.world.send(bytes: 1000, tag: 9, on: connection, from: .responder, at: seconds(6))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        let stop = simulation.run()
        #expect(stop == .idle)
        #expect(simulation.model.world.statistics(of: dataLink).packetsOffered == offeredBefore)
        #expect(simulation.model.world.statistics(of: reverseLink).packetsOffered == reverseOfferedBefore)
        #expect(deliveries(in: simulation.model.log, on: connection, to: .responder).isEmpty)
        #expect(deliveries(in: simulation.model.log, on: connection, to: .initiator).isEmpty)
        #expect(simulation.model.world.phase(of: connection) == .failed(.retransmissionsExhausted))
    }

    @Test("close() mid-transfer stops everything: no further sends, deliveries, acknowledgements or failures")
    func closeStopsEverything() throws {
        // 1 Mbit/s: 100 kB take about 0.8 s, so at 0.3 s the transfer is
        // under way with segments in flight.
        let link = TransportFixture.link(latencyMilliseconds: 10, megabits: 1)
        let world = try TransportFixture.world(forward: link)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.send(bytes: 100_000, tag: 1, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: milliseconds(300))
        #expect(simulation.model.world.bytesInFlight(on: connection, from: .initiator) > 0)

        simulation.model.world.close(connection)
        let statisticsAtClose = simulation.model.world.statistics(of: connection)
        let logCountAtClose = simulation.model.log.count
        simulation.model.world.send(bytes: 500, tag: 2, on: connection, from: .initiator, at: milliseconds(300))
        simulation.model.world.send(bytes: 500, tag: 3, on: connection, from: .responder, at: milliseconds(300))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        let stop = simulation.run()

        #expect(stop == .idle)
        #expect(simulation.model.world.phase(of: connection) == .closed)
        #expect(simulation.model.log.count == logCountAtClose, "\(simulation.model.log.dropFirst(logCountAtClose))")
        #expect(simulation.model.world.statistics(of: connection) == statisticsAtClose)
        #expect(deliveries(in: simulation.model.log, on: connection, to: .responder).isEmpty)
    }

    // MARK: Radios switched off and on

    @Test("the receiver's Wi-Fi off mid-transfer: back on in time, the message arrives once; left off, the connection fails",
          arguments: [true, false])
    func wifiOffAndOnMidTransfer(switchedBackOn: Bool) throws {
        let link = TransportFixture.link(latencyMilliseconds: 5, megabits: 2)
        let world = try TransportFixture.world(forward: link)
        var simulation = Simulation(model: RadioSwitchModel(world: world, device: Self.phone))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        // 200 kB at 2 Mbit/s take 0.8 s on the wire; Wi-Fi goes off at 0.3 s
        // for 3 s, long enough for timeouts but far below the 5 retries'
        // worth of backed-off timeouts.
        simulation.model.world.send(bytes: 200_000, tag: 1, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.scheduler.schedule(.wifi(false), at: milliseconds(300))
        if switchedBackOn { simulation.scheduler.schedule(.wifi(true), at: milliseconds(3300)) }
        simulation.run()

        let entries = simulation.model.entries
        let delivered = entries.filter {
            if case .messageDelivered(connection, .responder, 1, 200_000) = $0.notification { return true }
            return false
        }
        let failures = entries.filter {
            if case .connectionFailed(connection, _) = $0.notification { return true }
            return false
        }
        let statistics = simulation.model.world.statistics(of: connection).fromInitiator
        #expect(statistics.timeouts > 0)
        #expect(statistics.retransmissions > 0)
        if switchedBackOn {
            #expect(delivered.count == 1)
            if let arrival = delivered.first { #expect(arrival.instant > milliseconds(3300)) }
            #expect(failures.isEmpty)
            #expect(simulation.model.world.phase(of: connection) == .established)
        } else {
            #expect(delivered.isEmpty)
            #expect(failures.map(\.notification) == [.connectionFailed(connection, .retransmissionsExhausted)])
            #expect(simulation.model.world.phase(of: connection) == .failed(.retransmissionsExhausted))
            #expect(statistics.timeouts == TransportParameters().retryLimit + 1)
        }
    }
}
