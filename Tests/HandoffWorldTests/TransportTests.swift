import HandoffWorld
import SimKernel
import Testing

// Validation of the reliable transport (setup, retransmission, flow
// control, request/response, trust, the cloud relay path) against closed
// forms. Every run uses a fixed seed, so each check is exact for that seed;
// statistical checks state their confidence bound.

// MARK: - Fixtures

/// Two devices on account "alice", a Mac (`DeviceID(0)`) and an iPhone
/// (`DeviceID(1)`), 2 m apart, with the Wi-Fi peer-to-peer link set per
/// direction.
private struct TransportFixture {
    static let mac = DeviceID(0)
    static let phone = DeviceID(1)

    /// A world whose Mac → iPhone Wi-Fi link runs with `forward` and whose
    /// iPhone → Mac link runs with `backward` (the same as `forward` when
    /// omitted).
    static func world(
        forward: LinkParameters, backward: LinkParameters? = nil,
        transport: TransportParameters = TransportParameters(), seed: UInt64 = 1,
        macInternet: NetworkProfile = .wifi, phoneInternet: NetworkProfile = .wifi
    ) throws -> World {
        let devices = [
            DeviceDescription(
                name: "mac", kind: .mac, osVersion: OSVersion(14, 4), account: "alice", internet: macInternet),
            DeviceDescription(
                name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                mobility: .stationary(Position(x: 2, y: 0)), internet: phoneInternet),
        ]
        let configuration = WorldConfiguration(wifiPeerToPeer: forward, transport: transport)
        var world = try World(devices: devices, configuration: configuration, stream: RandomStreamKey(seed: seed))
        if let backward {
            try world.setParameters(backward, of: world.link(.wifiPeerToPeer(from: phone, to: mac)))
        }
        return world
    }

    /// An ideal link of `latency` at `megabits` Mbit/s (no loss, no jitter),
    /// with a queue long enough for every test here.
    static func link(latencyMilliseconds: Int64, megabits: Int64? = nil, loss: LossModel = .none) -> LinkParameters {
        var link = LinkParameters(latency: .milliseconds(latencyMilliseconds), loss: loss)
        if let megabits { link.bandwidth = .megabitsPerSecond(megabits) }
        link.queueLimit = 1000
        return link
    }
}

/// A message delivery read from a notification log.
private struct Delivery: Equatable {
    let instant: SimInstant
    let tag: UInt64
    let bytes: Int
}

private func deliveries(
    in log: [WorldSimulation.Record], on connection: ConnectionID, to side: ConnectionSide
) -> [Delivery] {
    log.compactMap { record in
        guard case let .messageDelivered(id, to, tag, bytes) = record.notification, id == connection, to == side
        else { return nil }
        return Delivery(instant: record.instant, tag: tag, bytes: bytes)
    }
}

private func instant(of wanted: WorldNotification, in log: [WorldSimulation.Record]) -> SimInstant? {
    log.first { $0.notification == wanted }?.instant
}

private func seconds(_ value: Int64) -> SimInstant { .zero + .seconds(value) }
private func milliseconds(_ value: Int64) -> SimInstant { .zero + .milliseconds(value) }

/// A model owning a world whose Wi-Fi switch on one device is flipped by
/// events of the model's own.
private struct RadioSwitchModel: SimulationModel {
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

/// A model that starts the next request/response round the moment the
/// previous response is delivered to the requester.
private struct RequestRoundsModel: SimulationModel {
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

// MARK: - Tests

@Suite("Reliable transport: loss, retries, flow control, streams, trust, relay")
struct TransportTests {
    private static let mac = TransportFixture.mac
    private static let phone = TransportFixture.phone

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
        // 1 s into the cut path times out at 1 s + 0.2·(1 + 2 + … + 2^retryLimit).
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
        #expect(instant(of: .connectionEstablished(connection), in: simulation.model.log) == milliseconds(40))
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

        let expected = 1_000_000_000 + Self.backedOffSum(
            first: 200_000_000, maximum: 60_000_000_000, timeouts: retryLimit + 1)
        let failed = instant(of: .connectionFailed(connection, .retransmissionsExhausted), in: simulation.model.log)
        #expect(failed?.nanosecondsSinceStart == expected)
        #expect(simulation.model.world.phase(of: connection) == .failed(.retransmissionsExhausted))
        let statistics = simulation.model.world.statistics(of: connection).fromInitiator
        #expect(statistics.timeouts == retryLimit + 1)
        #expect(statistics.segmentTransmissions == retryLimit + 1)
        #expect(statistics.retransmissions == retryLimit)

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

    // MARK: Key exchange and trust

    @Test("the first connection of a pair exchanges keys; later ones, either way round, set up exactly the key rounds sooner",
          arguments: [1, 2, 3])
    func keyExchangeOnlyOnFirstContact(keyExchangeRounds: Int) throws {
        let rate: Int64 = 10_000_000
        let latency: Int64 = 5_000_000
        let transport = TransportParameters(keyExchangeRounds: keyExchangeRounds, keyExchangeBytes: 1024)
        let link = TransportFixture.link(latencyMilliseconds: 5, megabits: 10)
        let world = try TransportFixture.world(forward: link, transport: transport)
        var simulation = Simulation(model: WorldSimulation(world: world))
        #expect(!simulation.model.world.isTrusted(Self.mac, Self.phone))
        let first = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: seconds(1))
        let second = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: seconds(1))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: seconds(2))
        let third = simulation.model.world.openConnection(
            from: Self.phone, to: Self.mac, over: .wifiPeerToPeer, at: seconds(2))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        // Handshake: a header-only request and reply. Key round: 1024 B + 40 B
        // each way.
        let handshake = 2 * (independentSerialisation(bytes: 40, bitsPerSecond: rate) + latency)
        let keyRound = 2 * (independentSerialisation(bytes: 1064, bitsPerSecond: rate) + latency)
        let log = simulation.model.log
        let finished = simulation.model.world
        #expect(finished.neededKeyExchange(first))
        #expect(!finished.neededKeyExchange(second))
        #expect(!finished.neededKeyExchange(third))
        #expect(finished.isTrusted(Self.mac, Self.phone))
        #expect(finished.isTrusted(Self.phone, Self.mac))
        let firstSetup = instant(of: .connectionEstablished(first), in: log).map { $0 - SimInstant.zero }
        let secondSetup = instant(of: .connectionEstablished(second), in: log).map { $0 - seconds(1) }
        let thirdSetup = instant(of: .connectionEstablished(third), in: log).map { $0 - seconds(2) }
        #expect(firstSetup?.nanoseconds == handshake + Int64(keyExchangeRounds) * keyRound)
        #expect(secondSetup?.nanoseconds == handshake)
        #expect(thirdSetup?.nanoseconds == handshake)
        #expect(finished.statistics(of: first).setupRequestsSent == 1 + keyExchangeRounds)
        #expect(finished.statistics(of: second).setupRequestsSent == 1)
    }

    /// Opens a Mac → iPhone connection at `second` seconds and runs for
    /// half a second, long enough to set it up.
    static func connect(_ simulation: inout Simulation<WorldSimulation>, at second: Int64) -> ConnectionID {
        simulation.run(until: seconds(second))
        let id = simulation.model.world.openConnection(
            from: mac, to: phone, over: .wifiPeerToPeer, at: seconds(second))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: seconds(second) + .milliseconds(500))
        return id
    }

    @Test("trust belongs to the account: another account on either device, or none, means a new key exchange")
    func trustBelongsToTheAccount() throws {
        let link = TransportFixture.link(latencyMilliseconds: 5)
        let world = try TransportFixture.world(forward: link)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let mac = Self.mac
        let phone = Self.phone

        let first = Self.connect(&simulation, at: 0)
        #expect(simulation.model.world.neededKeyExchange(first))
        #expect(simulation.model.world.isTrusted(mac, phone))

        // The iPhone signs in to "bob": the pair's keys were exchanged under
        // "alice", so they are not trusted, and a connection across accounts
        // exchanges keys without making them trusted.
        simulation.model.world.setAccount("bob", of: phone, at: seconds(1))
        #expect(!simulation.model.world.isTrusted(mac, phone))
        let acrossAccounts = Self.connect(&simulation, at: 1)
        #expect(simulation.model.world.phase(of: acrossAccounts) == .established)
        #expect(simulation.model.world.neededKeyExchange(acrossAccounts))
        #expect(!simulation.model.world.isTrusted(mac, phone))

        // Back on "alice": the keys exchanged under "alice" still hold.
        simulation.model.world.setAccount("alice", of: phone, at: seconds(2))
        #expect(simulation.model.world.isTrusted(mac, phone))
        let backOnAlice = Self.connect(&simulation, at: 2)
        #expect(!simulation.model.world.neededKeyExchange(backOnAlice))

        // Both on "bob": first contact under "bob", so keys again, then trusted.
        simulation.model.world.setAccount("bob", of: mac, at: seconds(3))
        simulation.model.world.setAccount("bob", of: phone, at: seconds(3))
        #expect(!simulation.model.world.isTrusted(mac, phone))
        let bothOnBob = Self.connect(&simulation, at: 3)
        #expect(simulation.model.world.neededKeyExchange(bothOnBob))
        #expect(simulation.model.world.isTrusted(mac, phone))
        let againOnBob = Self.connect(&simulation, at: 4)
        #expect(!simulation.model.world.neededKeyExchange(againOnBob))

        // Signed out: no account, no trust, and a connection does not create any.
        simulation.model.world.setAccount(nil, of: phone, at: seconds(5))
        #expect(!simulation.model.world.isTrusted(mac, phone))
        let signedOut = Self.connect(&simulation, at: 5)
        #expect(simulation.model.world.neededKeyExchange(signedOut))
        #expect(!simulation.model.world.isTrusted(mac, phone))
    }

    // MARK: Cloud relay

    struct RelayCase: Sendable, CustomTestStringConvertible {
        let bytes: Int
        /// The Mac's uplink rate (hop 1 of the data path).
        let uplinkBitsPerSecond: Int64
        /// The iPhone's downlink rate (hop 2 of the data path).
        let downlinkBitsPerSecond: Int64
        var testDescription: String {
            "\(bytes) B, uplink \(uplinkBitsPerSecond) bit/s, downlink \(downlinkBitsPerSecond) bit/s"
        }
    }

    @Test("loss-free transfer over the cloud relay takes setup plus two pipelined store-and-forward hops, exactly",
          arguments: [
              RelayCase(bytes: 500, uplinkBitsPerSecond: 2_000_000, downlinkBitsPerSecond: 5_000_000),
              RelayCase(bytes: 20_000, uplinkBitsPerSecond: 2_000_000, downlinkBitsPerSecond: 5_000_000),
              RelayCase(bytes: 20_000, uplinkBitsPerSecond: 5_000_000, downlinkBitsPerSecond: 1_000_000),
              RelayCase(bytes: 20_000, uplinkBitsPerSecond: 3_000_000, downlinkBitsPerSecond: 3_000_000),
              RelayCase(bytes: 0, uplinkBitsPerSecond: 3_000_000, downlinkBitsPerSecond: 1_500_000),
          ])
    func cloudRelayTransferTime(_ relay: RelayCase) throws {
        // Data path: the Mac's uplink (hop 1) then the iPhone's downlink (hop 2);
        // acknowledgements and replies: the iPhone's uplink, the Mac's downlink.
        let macUplinkLatency: Int64 = 30_000_000
        let macDownlinkLatency: Int64 = 25_000_000
        let phoneUplinkLatency: Int64 = 15_000_000
        let phoneDownlinkLatency: Int64 = 20_000_000
        let macDownlinkRate: Int64 = 8_000_000
        let phoneUplinkRate: Int64 = 10_000_000
        func parameters(_ latency: Int64, _ rate: Int64) throws -> LinkParameters {
            LinkParameters(latency: .nanoseconds(latency), bandwidth: try Bandwidth(bitsPerSecond: rate), queueLimit: 200)
        }
        let macInternet = NetworkProfile(
            name: "mac line", downlink: try parameters(macDownlinkLatency, macDownlinkRate),
            uplink: try parameters(macUplinkLatency, relay.uplinkBitsPerSecond))
        let phoneInternet = NetworkProfile(
            name: "phone line", downlink: try parameters(phoneDownlinkLatency, relay.downlinkBitsPerSecond),
            uplink: try parameters(phoneUplinkLatency, phoneUplinkRate))
        let world = try TransportFixture.world(
            forward: TransportFixture.link(latencyMilliseconds: 1), macInternet: macInternet,
            phoneInternet: phoneInternet)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .cloudRelay, at: .zero)
        simulation.model.world.send(bytes: relay.bytes, tag: 5, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        func up(_ bytes: Int) -> Int64 { independentSerialisation(bytes: bytes, bitsPerSecond: relay.uplinkBitsPerSecond) }
        func down(_ bytes: Int) -> Int64 { independentSerialisation(bytes: bytes, bitsPerSecond: relay.downlinkBitsPerSecond) }
        // One packet of `bytes` (header included) there and back over idle
        // links, stored and forwarded whole at the cloud.
        func roundTrip(_ bytes: Int) -> Int64 {
            up(bytes) + macUplinkLatency + down(bytes) + phoneDownlinkLatency
                + independentSerialisation(bytes: bytes, bitsPerSecond: phoneUplinkRate) + phoneUplinkLatency
                + independentSerialisation(bytes: bytes, bitsPerSecond: macDownlinkRate) + macDownlinkLatency
        }
        let established = roundTrip(40) + roundTrip(1024 + 40)
        // Data: all segments leave at `established` back to back on hop 1
        // (segment k done at U_k = Σ_{j≤k} u_j), reach the cloud one latency
        // later, and queue FIFO on hop 2. The last one finishes hop 2 at
        // L1 + max_k (U_k + Σ_{j≥k} d_j) (the segment k after which hop 2
        // never idles), then arrives L2 later.
        let sizes = pieceSizes(relay.bytes, piece: 1460).map { $0 + 40 }
        var best: Int64 = 0
        for k in sizes.indices {
            let hop1 = sizes[...k].reduce(0) { $0 + up($1) }
            let hop2 = sizes[k...].reduce(0) { $0 + down($1) }
            best = max(best, hop1 + hop2)
        }
        let expected = established + macUplinkLatency + best + phoneDownlinkLatency

        #expect(simulation.model.world.segmentSize(of: connection) == 1460)
        #expect(instant(of: .connectionEstablished(connection), in: simulation.model.log)?.nanosecondsSinceStart
            == established)
        let delivered = deliveries(in: simulation.model.log, on: connection, to: .responder)
        #expect(delivered.map(\.bytes) == [relay.bytes])
        #expect(delivered.first?.instant.nanosecondsSinceStart == expected)
        #expect(simulation.model.world.statistics(of: connection).fromInitiator.retransmissions == 0)
        // The peer-to-peer links were never used.
        let wifi = simulation.model.world.statistics(
            of: simulation.model.world.link(.wifiPeerToPeer(from: Self.mac, to: Self.phone)))
        #expect(wifi.packetsOffered == 0)
        let uplink = simulation.model.world.statistics(of: simulation.model.world.link(.uplink(Self.mac)))
        #expect(uplink.packetsOffered == 2 + sizes.count)
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
