import HandoffWorld
import SimKernel
import Testing

// Reliable transport's message delivery: flow control, request/response streams, duplicates, determinism, reordering.

/// A model that starts the next request/response round the moment the
/// previous response is delivered to the requester.
private struct RequestRoundsModel: SimulationModel, ~Copyable {
    var world: World
    let connection: ConnectionID
    let requestBytes: Int
    let responseBytes: Int
    let rounds: Int
    var starts: [SimInstant] = []
    var ends: [SimInstant] = []

    mutating func startRound(at now: SimInstant) {
        starts.append(now)
        world.request(
            bytes: requestBytes, responseBytes: responseBytes, tag: UInt64(starts.count), on: connection,
            from: .initiator, at: now)
    }

    mutating func handle(_ event: WorldEvent, scheduler: inout Scheduler<WorldEvent>) {
        world.handle(event, at: scheduler.now)
        let notifications = world.notifications
        world.removeAllNotifications()
        for notification in notifications {
            if case let .messageDelivered(id, .initiator, tag, bytes) = notification, id == connection,
               tag == UInt64(starts.count), bytes == responseBytes {
                ends.append(scheduler.now)
                if starts.count < rounds { startRound(at: scheduler.now) }
            }
        }
        world.schedulePendingEvents(into: &scheduler)
    }
}

extension TransportTests {
    // MARK: Flow control

    @Test("the window bounds the bytes in flight at every instant, and a long transfer reaches it",
          arguments: [4096, 16_384, 50_000])
    func windowBoundsBytesInFlight(window: Int) throws {
        let link = TransportFixture.link(latencyMilliseconds: 20, megabits: 2)
        let world = try TransportFixture.world(forward: link, transport: TransportParameters(window: window))
        var simulation = Simulation(model: WorldSimulation(world: world, keepsLog: true))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.send(bytes: 300_000, tag: 1, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        var largestSampled = 0
        while simulation.step() {
            largestSampled = max(largestSampled, simulation.model.world.bytesInFlight(on: connection, from: .initiator))
        }
        let segmentSize = simulation.model.world.segmentSize(of: connection)
        let statistics = simulation.model.world.statistics(of: connection).fromInitiator
        #expect(largestSampled <= window)
        #expect(statistics.peakBytesInFlight <= window)
        #expect(statistics.peakBytesInFlight >= window - segmentSize, "the window was never filled")
        #expect(largestSampled == statistics.peakBytesInFlight)
        #expect(simulation.model.world.bytesInFlight(on: connection, from: .initiator) == 0)
        #expect(deliveries(in: simulation.model.log, on: connection, to: .responder).map(\.bytes) == [300_000])
    }

    @Test("a window smaller than one segment still lets exactly one segment fly at a time")
    func windowBelowOneSegmentAllowsOne() throws {
        let link = TransportFixture.link(latencyMilliseconds: 5, megabits: 10)
        let world = try TransportFixture.world(forward: link, transport: TransportParameters(window: 100))
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.send(bytes: 10 * 1460, tag: 1, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()
        #expect(simulation.model.world.statistics(of: connection).fromInitiator.peakBytesInFlight == 1460)
        #expect(deliveries(in: simulation.model.log, on: connection, to: .responder).count == 1)
    }

    // MARK: Streams

    @Test("a request/response round takes ser(request) + latency + ser(response) + latency (≥ 1 RTT), round after round",
          arguments: [(100, 3000), (3000, 100), (0, 0), (1460, 1461)])
    func requestResponseRoundTime(requestBytes: Int, responseBytes: Int) throws {
        let rate: Int64 = 10_000_000
        let latency: Int64 = 15_000_000
        let link = TransportFixture.link(latencyMilliseconds: 15, megabits: 10)
        let world = try TransportFixture.world(forward: link)
        let rounds = 4
        var prepared = world
        let connection = prepared.openConnection(from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        var simulation = Simulation(model: RequestRoundsModel(
            world: prepared, connection: connection, requestBytes: requestBytes, responseBytes: responseBytes,
            rounds: rounds))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: seconds(1))
        #expect(simulation.model.world.phase(of: connection) == .established)
        simulation.model.startRound(at: seconds(1))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        // Each segment is one packet with 40 B of header; the request's
        // segments go back to back, the last arrives one latency after it
        // leaves, and the response goes out at once on the idle reverse link,
        // ahead of the acknowledgement of the request's last segment (so the
        // response does not wait behind it).
        func wire(_ bytes: Int) -> Int64 {
            pieceSizes(bytes, piece: 1460).reduce(0) { $0 + independentSerialisation(bytes: $1 + 40, bitsPerSecond: rate) }
        }
        let round = wire(requestBytes) + latency + wire(responseBytes) + latency
        // From the second round on, the request is sent at the instant the
        // previous response arrives, behind the acknowledgement of that
        // response's last segment (a bare 40 B header) on the same FIFO link.
        let acknowledgement = independentSerialisation(bytes: 40, bitsPerSecond: rate)
        let durations = zip(simulation.model.starts, simulation.model.ends).map {
            ($1 - $0).nanoseconds
        }
        #expect(simulation.model.ends.count == rounds)
        #expect(durations.first == round)
        #expect(Array(durations.dropFirst()) == Array(repeating: round + acknowledgement, count: rounds - 1))
        #expect(durations.allSatisfy { $0 >= 2 * latency })
        let statistics = simulation.model.world.statistics(of: connection)
        #expect(statistics.fromInitiator.retransmissions == 0)
        #expect(statistics.fromResponder.retransmissions == 0)
        #expect(statistics.fromResponder.bytesDelivered == rounds * responseBytes)
    }

    @Test("both sides send at once over a lossy link: every message arrives whole, once and in order",
          arguments: [UInt64(1), 2, 3])
    func bidirectionalMessagesArriveWholeAndInOrder(seed: UInt64) throws {
        let link = TransportFixture.link(latencyMilliseconds: 8, megabits: 20, loss: .bernoulli(0.05))
        let world = try TransportFixture.world(forward: link, seed: seed)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        let sizes = [1, 1460, 1461, 20_000, 0, 7_777, 3_072, 100_000, 12]
        for (index, size) in sizes.enumerated() {
            simulation.model.world.send(bytes: size, tag: UInt64(index), on: connection, from: .initiator, at: .zero)
            simulation.model.world.send(
                bytes: sizes[sizes.count - 1 - index], tag: UInt64(100 + index), on: connection, from: .responder,
                at: .zero)
        }
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        let atResponder = deliveries(in: simulation.model.log, on: connection, to: .responder)
        let atInitiator = deliveries(in: simulation.model.log, on: connection, to: .initiator)
        #expect(atResponder.map(\.tag) == (0..<UInt64(sizes.count)).map { $0 })
        #expect(atResponder.map(\.bytes) == sizes)
        #expect(atInitiator.map(\.tag) == (0..<UInt64(sizes.count)).map { 100 + $0 })
        #expect(atInitiator.map(\.bytes) == Array(sizes.reversed()))
        let statistics = simulation.model.world.statistics(of: connection)
        #expect(statistics.fromInitiator.retransmissions > 0, "the link lost nothing; the test proves little")
        #expect(statistics.fromResponder.retransmissions > 0, "the link lost nothing; the test proves little")
    }

    // MARK: Duplicates, determinism, reordering

    enum SpuriousCause: String, Sendable, CaseIterable {
        /// Every RTO (initial, minimum and maximum) is below the RTT.
        case timeoutBelowRoundTrip
        /// Jitter on the data path reorders segments, so RACK marks some lost
        /// that are merely late.
        case dataJitter
    }

    @Test("spurious retransmissions are discarded at the receiver: every message still arrives once and in order",
          arguments: SpuriousCause.allCases)
    func duplicatesAreDiscarded(cause: SpuriousCause) throws {
        var link = TransportFixture.link(latencyMilliseconds: 20, megabits: 2)
        var transport = TransportParameters()
        switch cause {
        case .timeoutBelowRoundTrip:
            transport = TransportParameters(
                initialRetransmissionTimeout: .milliseconds(5), minimumRetransmissionTimeout: .milliseconds(1),
                maximumRetransmissionTimeout: .milliseconds(10), retryLimit: 30)
        case .dataJitter:
            link.jitter = .milliseconds(30)
        }
        let backward = TransportFixture.link(latencyMilliseconds: 20, megabits: 2)
        let world = try TransportFixture.world(forward: link, backward: backward, transport: transport, seed: 77)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        let count = 12
        for tag in 0..<count {
            simulation.model.world.send(
                bytes: 2000 + 1000 * tag, tag: UInt64(tag), on: connection, from: .initiator, at: .zero)
        }
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        let statistics = simulation.model.world.statistics(of: connection).fromInitiator
        #expect(statistics.duplicatesDiscarded > 0, "no spurious retransmission happened")
        #expect(statistics.duplicatesDiscarded <= statistics.retransmissions)
        let delivered = deliveries(in: simulation.model.log, on: connection, to: .responder)
        #expect(delivered.map(\.tag) == (0..<UInt64(count)).map { $0 })
        #expect(delivered.map(\.bytes) == (0..<count).map { 2000 + 1000 * $0 })
        #expect(statistics.bytesDelivered == (0..<count).reduce(0) { $0 + 2000 + 1000 * $1 })
        #expect(simulation.model.world.phase(of: connection) == .established)
    }

    /// A lossy, jittery transfer both ways, returning its notification log.
    static func lossyTransferLog(seed: UInt64) throws -> [WorldSimulation.Record] {
        var link = TransportFixture.link(latencyMilliseconds: 10, megabits: 5, loss: .bernoulli(0.1))
        link.jitter = .milliseconds(4)
        let world = try TransportFixture.world(forward: link, seed: seed)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        for tag in 0..<8 {
            simulation.model.world.send(bytes: 9_000, tag: UInt64(tag), on: connection, from: .initiator, at: .zero)
            simulation.model.world.send(bytes: 4_000, tag: UInt64(tag), on: connection, from: .responder, at: .zero)
        }
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()
        return simulation.model.log
    }

    @Test("the same seed gives an identical notification log for a lossy transfer; another seed a different one")
    func sameSeedSameLog() throws {
        let first = try Self.lossyTransferLog(seed: 42)
        let again = try Self.lossyTransferLog(seed: 42)
        let other = try Self.lossyTransferLog(seed: 43)
        // 1 establishment + 16 deliveries + 16 acknowledgements.
        #expect(first.count == 33)
        #expect(first == again)
        #expect(first != other)
        #expect(first.map(\.instant) != other.map(\.instant))
    }

    @Test("jitter reorders packets on the link, yet messages arrive in order and exactly once",
          arguments: [UInt64(5), 6, 7])
    func jitterReorderingKeepsMessageOrder(seed: UInt64) throws {
        var link = TransportFixture.link(latencyMilliseconds: 5, megabits: 50)
        link.jitter = .milliseconds(20)

        // The premise: on this link, datagrams sent 1 ms apart overtake each other.
        var probe = Simulation(model: WorldSimulation(world: try TransportFixture.world(forward: link, seed: seed)))
        let probeLink = probe.model.world.link(.wifiPeerToPeer(from: Self.mac, to: Self.phone))
        for tag in 0..<50 {
            probe.run(until: milliseconds(Int64(tag)))
            probe.model.world.sendDatagram(on: probeLink, bytes: 1000, tag: UInt32(tag), at: milliseconds(Int64(tag)))
            probe.model.world.schedulePendingEvents(into: &probe.scheduler)
        }
        probe.run()
        let arrivalOrder = probe.model.log.compactMap { record -> UInt32? in
            if case let .datagramDelivered(_, tag, _) = record.notification { return tag }
            return nil
        }
        #expect(arrivalOrder.count == 50)
        #expect(arrivalOrder != arrivalOrder.sorted(), "the link did not reorder anything")

        let world = try TransportFixture.world(forward: link, seed: seed)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        let sizes = (0..<30).map { 500 + 997 * $0 }
        for (tag, size) in sizes.enumerated() {
            simulation.model.world.send(bytes: size, tag: UInt64(tag), on: connection, from: .initiator, at: .zero)
        }
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()
        let delivered = deliveries(in: simulation.model.log, on: connection, to: .responder)
        #expect(delivered.map(\.tag) == (0..<UInt64(sizes.count)).map { $0 })
        #expect(delivered.map(\.bytes) == sizes)
        let acknowledged = simulation.model.log.compactMap { record -> UInt64? in
            if case let .messageAcknowledged(id, .responder, tag) = record.notification, id == connection { return tag }
            return nil
        }
        #expect(acknowledged == (0..<UInt64(sizes.count)).map { $0 })
    }
}
