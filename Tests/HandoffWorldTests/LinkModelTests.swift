import HandoffWorld
import SimKernel
import Testing

// Validation of the link layer against closed forms: loss models, the FIFO
// queue, serialisation and fragmentation, jitter, and the ways a link goes
// down (outage windows, partitions, radios switched off).
//
// Every statistical check uses a fixed seed and states its bound; each one
// also checks the sample size it measured, so a run that quietly sent fewer
// packets cannot pass.

/// z for a two-sided 99% normal bound.
private let z99 = 2.576

/// Devices named d0, d1, … signed in to one account, placed at `positions`.
private func devices(
    at positions: [Position], internetAccess: InternetAccess = .wifi
) -> [DeviceDescription] {
    positions.enumerated().map { index, position in
        DeviceDescription(
            name: "d\(index)", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
            mobility: .stationary(position), internetAccess: internetAccess)
    }
}

/// A world of `count` devices one metre apart whose Wi-Fi peer links (and
/// Bluetooth links) use the given parameters.
private func makeWorld(
    wifi: LinkParameters, bluetooth: LinkParameters = LinkParameters(latency: .milliseconds(15)),
    deviceCount: Int = 2, internetAccess: InternetAccess = .wifi, seed: UInt64 = 1
) throws -> World {
    let positions = (0..<deviceCount).map { Position(x: Double($0), y: 0) }
    let configuration = WorldConfiguration(wifiPeerToPeer: wifi, bluetooth: bluetooth)
    return try World(
        devices: devices(at: positions, internetAccess: internetAccess), configuration: configuration,
        stream: RandomStreamKey(seed: seed))
}

/// A model that sends datagrams onto one link from its own `.send` events,
/// either at a fixed spacing or as a Poisson process, and counts their
/// deliveries.
///
/// Keeping only the next send and the datagrams in flight pending keeps the
/// event queue small, which matters in debug builds, where the kernel checks
/// the whole heap after every mutation.
private struct DatagramSource: SimulationModel {
    enum Event: WorldEventRepresentable {
        case world(WorldEvent)
        case send
    }

    enum Spacing {
        /// A send every so many nanoseconds.
        case fixed(Int64)
        /// Exponential gaps (nanoseconds) drawn from the test's own stream.
        case poisson(ExponentialDistribution, Xoshiro256StarStar)
    }

    var world: World
    let link: LinkID
    let bytes: Int
    let count: Int
    /// Datagrams sent back to back at each send event.
    let batch: Int
    var spacing: Spacing
    private(set) var sent = 0
    private(set) var delivered = 0

    init(world: World, link: LinkID, bytes: Int, count: Int, batch: Int, spacing: Spacing) {
        self.world = world
        self.link = link
        self.bytes = bytes
        self.count = count
        self.batch = batch
        self.spacing = spacing
    }

    mutating func handle(_ event: Event, scheduler: inout Scheduler<Event>) {
        switch event {
        case let .world(worldEvent):
            world.handle(worldEvent, scheduler: &scheduler)
            for notification in world.notifications {
                guard case let .datagramDelivered(id, _, _) = notification, id == link else { continue }
                delivered += 1
            }
            world.removeAllNotifications()
        case .send:
            for _ in 0..<min(batch, count - sent) {
                world.sendDatagram(on: link, bytes: bytes, tag: UInt32(sent), at: scheduler.now)
                sent += 1
            }
            world.schedulePendingEvents(into: &scheduler)
            guard sent < count else { return }
            scheduler.schedule(.send, after: .nanoseconds(nextGap()))
        }
    }

    private mutating func nextGap() -> Int64 {
        switch spacing {
        case let .fixed(gap):
            return gap
        case .poisson(let distribution, var generator):
            let gap = distribution.sample(using: &generator)
            spacing = .poisson(distribution, generator)
            return Int64(gap.rounded())
        }
    }

    /// Runs `count` sends, `batch` at a time, from time zero until every datagram has arrived
    /// or been lost.
    static func run(
        world: World, link: LinkID, bytes: Int, count: Int, batch: Int = 1, spacing: Spacing
    ) -> DatagramSource {
        let source = DatagramSource(world: world, link: link, bytes: bytes, count: count, batch: batch, spacing: spacing)
        var simulation = Simulation(model: source)
        simulation.scheduler.schedule(.send, at: .zero)
        simulation.run()
        return simulation.model
    }
}

/// Runs a world simulation up to `instant` (inclusive).
private func advance(_ simulation: inout Simulation<WorldSimulation>, to instant: SimInstant) {
    simulation.run(until: instant)
}

/// Sends one datagram at the simulation's current instant and schedules it.
private func sendDatagram(
    _ simulation: inout Simulation<WorldSimulation>, on link: LinkID, bytes: Int = 100, tag: UInt32
) {
    simulation.model.world.sendDatagram(on: link, bytes: bytes, tag: tag, at: simulation.now)
    simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
}

/// The tags of datagrams delivered on `link`, in order of arrival, with
/// their arrival instants.
private func deliveries(in simulation: Simulation<WorldSimulation>, on link: LinkID) -> [(tag: UInt32, at: Int64)] {
    simulation.model.log.compactMap { record in
        guard case let .datagramDelivered(id, tag, _) = record.notification, id == link else { return nil }
        return (tag, record.instant.nanosecondsSinceStart)
    }
}

private func milliseconds(_ value: Int64) -> SimInstant { .zero + .milliseconds(value) }

@Suite("Link models against closed forms")
struct LinkModelTests {
    // MARK: Loss models

    @Test("Bernoulli loss p delivers a fraction (1 − p)^k of k-fragment datagrams, within a 99% binomial bound",
          arguments: [(0.1, 1), (0.3, 1), (0.1, 3)])
    func bernoulliLossDeliversOneMinusP(probability: Double, fragments: Int) throws {
        let link = LinkParameters(latency: .microseconds(500), loss: .bernoulli(probability))
        let world = try makeWorld(wifi: link, seed: 1)
        let id = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        // k fragments: k − 1 full ones of 1460 B and a last one of 100 B.
        let bytes = (fragments - 1) * link.payloadPerPacket + 100
        #expect(link.fragmentCount(payloadBytes: bytes) == fragments)
        let count = 100_000
        let source = DatagramSource.run(world: world, link: id, bytes: bytes, count: count, batch: 20, spacing: .fixed(1_000_000))
        let statistics = source.world.statistics(of: id)

        #expect(source.sent == count)
        #expect(statistics.packetsOffered == count)
        #expect(statistics.fragmentsSent == count * fragments)
        #expect(statistics.packetsDelivered == source.delivered)
        // A datagram arrives iff all k of its fragments survive: q = (1 − p)^k.
        // 99% binomial bound: |q̂ − q| ≤ 2.576 · √(q(1 − q)/N).
        var expected = 1.0
        for _ in 0..<fragments { expected *= 1 - probability }
        let deliveredFraction = Double(source.delivered) / Double(count)
        let bound = z99 * (expected * (1 - expected) / Double(count)).squareRoot()
        #expect(abs(deliveredFraction - expected) <= bound, "delivered \(deliveredFraction), expected \(expected) ± \(bound)")
        // Per fragment the loss rate is p itself (N·k independent trials).
        let fragmentLoss = Double(statistics.fragmentsLost) / Double(statistics.fragmentsSent)
        let fragmentBound = z99 * (probability * (1 - probability) / Double(statistics.fragmentsSent)).squareRoot()
        #expect(abs(fragmentLoss - probability) <= fragmentBound, "fragment loss \(fragmentLoss), expected \(probability) ± \(fragmentBound)")
    }

    @Test("Gilbert-Elliott loss matches its stationary loss rate, bad-state share p/(p + r) and mean burst length 1/r")
    func gilbertElliottMatchesStationaryDistribution() throws {
        let (p, r, lossInGood, lossInBad) = (0.05, 0.25, 0.01, 0.6)
        let model = try GilbertElliott(goodToBad: p, badToGood: r, lossInGood: lossInGood, lossInBad: lossInBad)
        let link = LinkParameters(latency: .microseconds(500), loss: .gilbertElliott(model))
        let world = try makeWorld(wifi: link, seed: 12)
        let id = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        let count = 1_000_000
        let source = DatagramSource.run(world: world, link: id, bytes: 100, count: count, batch: 20, spacing: .fixed(1_000_000))
        let statistics = source.world.statistics(of: id)
        #expect(source.sent == count)
        #expect(statistics.fragmentsSent == count)
        #expect(statistics.packetsDelivered == count - statistics.fragmentsLost)

        // Closed forms: π_B = p/(p + r) = 1/6; loss = π_G·loss_G + π_B·loss_B = 0.108 33…;
        // a stay in the bad state is geometric with mean 1/r = 4 packets.
        let badShare = p / (p + r)
        let lossRate = (1 - badShare) * lossInGood + badShare * lossInBad
        let meanBadStay = 1 / r
        #expect(abs(model.stationaryBadProbability - badShare) < 1e-15)
        #expect(abs(model.meanLossRate - lossRate) < 1e-15)

        // Tolerance: 3% relative. Successive packets are correlated through the
        // chain (its second eigenvalue is λ = 1 − p − r = 0.7), which inflates the
        // variance of a sample mean by (1 + λ)/(1 − λ) ≈ 5.7 over independent
        // draws. With that correction the standard errors at N = 10⁶ are about
        // 0.5% (loss rate), 0.5% (bad share) and 0.4% (mean stay, over ≈ 41 700
        // stays), so 3% is about six standard errors: safe against the seed, yet
        // any error in the chain's probabilities larger than 3% fails.
        let measuredLoss = Double(statistics.fragmentsLost) / Double(statistics.fragmentsSent)
        let measuredBadShare = Double(statistics.fragmentsSentInBadState) / Double(statistics.fragmentsSent)
        let measuredStay = Double(statistics.fragmentsSentInBadState) / Double(statistics.badStateVisits)
        #expect(statistics.badStateVisits > 40_000, "enough bad-state visits to average over")
        #expect(abs(measuredLoss / lossRate - 1) < 0.03, "loss rate \(measuredLoss), expected \(lossRate)")
        #expect(abs(measuredBadShare / badShare - 1) < 0.03, "bad share \(measuredBadShare), expected \(badShare)")
        #expect(abs(measuredStay / meanBadStay - 1) < 0.03, "mean bad stay \(measuredStay), expected \(meanBadStay)")
    }

    // MARK: Queueing

    @Test("M/D/1: the mean wait in the queue is ρ / (2μ(1 − ρ)) within 2%",
          arguments: [(0.5, 300_000), (0.65, 400_000)])
    func mD1MeanWaitMatchesPollaczekKhinchine(load: Double, count: Int) throws {
        // 960 B of payload + 40 B of header at 8 Mbit/s: a fixed service time
        // 1/μ of exactly 1 ms.
        let bandwidth = try Bandwidth(bitsPerSecond: 8_000_000)
        let link = LinkParameters(latency: .zero, bandwidth: bandwidth, queueLimit: 1_000_000)
        let serviceNanoseconds = bandwidth.serialisationNanoseconds(bytes: 1000)
        #expect(serviceNanoseconds == 1_000_000)
        let world = try makeWorld(wifi: link, seed: 13)
        let id = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        // Poisson arrivals at rate λ = ρμ: exponential gaps of mean 1/(ρμ).
        let gaps = try ExponentialDistribution(mean: Double(serviceNanoseconds) / load)
        let arrivals = RandomStreamKey(seed: 2024).generator("md1-arrivals")
        let source = DatagramSource.run(
            world: world, link: id, bytes: 960, count: count, spacing: .poisson(gaps, arrivals))
        let statistics = source.world.statistics(of: id)
        #expect(source.sent == count)
        #expect(statistics.fragmentsSent == count)
        #expect(statistics.fragmentsDroppedByQueue == 0)
        #expect(source.delivered == count)

        // Pollaczek-Khinchine for deterministic service: W_q = ρ / (2μ(1 − ρ)).
        // Tolerance 2%: in 16 independent Lindley-recursion replications of
        // these N (computed outside this suite), the relative standard deviation
        // of the sample mean, serial correlation of waits included, was ≈ 0.62%
        // at ρ = 0.5 (N = 3·10⁵) and ≈ 0.71% at ρ = 0.65 (N = 4·10⁵), so 2% is
        // ≈ 3 SD. (ρ = 0.8 would need ≈ 1.2·10⁶ arrivals for the same margin,
        // over 10 s in a debug build, so it is left out.)
        let expectedWait = load * Double(serviceNanoseconds) / (2 * (1 - load))
        let measuredWait = Double(statistics.totalQueueingNanoseconds) / Double(statistics.fragmentsSent)
        #expect(abs(measuredWait / expectedWait - 1) < 0.02, "mean wait \(measuredWait) ns, expected \(expectedWait) ns")
        #expect(abs(statistics.meanQueueingSeconds - measuredWait / 1e9) < 1e-12)
    }

    // MARK: Serialisation and fragmentation

    @Test("Loss-free: n datagrams sent at once arrive (i + 1) · ser(fragments with headers) + latency, exactly",
          arguments: [0, 1, 1459, 1460, 1461, 2920, 4000, 10_000])
    func lossFreeSerialisationIsExact(payloadBytes: Int) throws {
        let rate: Int64 = 7_000_000
        let latency: Int64 = 5_000_000
        let link = LinkParameters(
            latency: .nanoseconds(latency), bandwidth: try Bandwidth(bitsPerSecond: rate), queueLimit: 1000)
        var simulation = Simulation(model: WorldSimulation(world: try makeWorld(wifi: link, seed: 14)))
        let id = simulation.model.world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        let n = 7
        for tag in 0..<n { sendDatagram(&simulation, on: id, bytes: payloadBytes, tag: UInt32(tag)) }
        simulation.run()

        // Independent computation: ⌈S / (mtu − header)⌉ fragments (at least one),
        // each carrying 40 B of header, each rounded up to a whole nanosecond.
        let payloads = pieceSizes(payloadBytes, piece: 1500 - 40)
        let perDatagram = payloads.reduce(Int64(0)) { $0 + independentSerialisation(bytes: $1 + 40, bitsPerSecond: rate) }
        #expect(link.fragmentCount(payloadBytes: payloadBytes) == payloads.count)
        #expect(link.serialisationNanoseconds(payloadBytes: payloadBytes) == perDatagram)
        for bytes in [1, 40, 100, 1500, 1_000_000] {
            #expect(link.bandwidth?.serialisationNanoseconds(bytes: bytes) == independentSerialisation(bytes: bytes, bitsPerSecond: rate))
        }

        let arrived = deliveries(in: simulation, on: id)
        #expect(arrived.map(\.tag) == (0..<n).map(UInt32.init))
        #expect(arrived.map(\.at) == (1...n).map { Int64($0) * perDatagram + latency })
        #expect(arrived.last?.at == Int64(n) * perDatagram + latency)

        // Each fragment waits from 0 until the wire frees: the sum of the
        // serialisation times of every fragment ahead of it.
        var expectedQueueing: Int64 = 0
        var wireFreeAt: Int64 = 0
        for _ in 0..<n {
            for payload in payloads {
                expectedQueueing += wireFreeAt
                wireFreeAt += independentSerialisation(bytes: payload + 40, bitsPerSecond: rate)
            }
        }
        let statistics = simulation.model.world.statistics(of: id)
        #expect(statistics.fragmentsSent == n * payloads.count)
        #expect(statistics.totalQueueingNanoseconds == expectedQueueing)
        #expect(statistics.packetsDelivered == n)
    }

    @Test("Tail drop: a burst of N one-fragment datagrams into a queue of Q delivers exactly min(N, Q + 1)",
          arguments: [(20, 5), (10, 0), (3, 5), (50, 49)])
    func tailDropDeliversQueueLimitPlusOne(burst: Int, queueLimit: Int) throws {
        let rate: Int64 = 1_000_000
        let link = LinkParameters(
            latency: .milliseconds(2), bandwidth: try Bandwidth(bitsPerSecond: rate), queueLimit: queueLimit)
        var simulation = Simulation(model: WorldSimulation(world: try makeWorld(wifi: link, seed: 15)))
        let id = simulation.model.world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        for tag in 0..<burst { sendDatagram(&simulation, on: id, bytes: 100, tag: UInt32(tag)) }
        simulation.run()

        // One on the wire plus Q waiting; the rest find the queue full.
        let admitted = min(burst, queueLimit + 1)
        let statistics = simulation.model.world.statistics(of: id)
        let arrived = deliveries(in: simulation, on: id)
        #expect(arrived.map(\.tag) == (0..<admitted).map(UInt32.init), "the first Q + 1 are kept, in order")
        #expect(statistics.packetsDelivered == admitted)
        #expect(statistics.fragmentsDroppedByQueue == burst - admitted)
        #expect(statistics.fragmentsSent == admitted)
        #expect(statistics.peakQueueLength == admitted - 1)
        let service = independentSerialisation(bytes: 140, bitsPerSecond: rate)
        #expect(arrived.map(\.at) == (1...admitted).map { Int64($0) * service + 2_000_000 })
    }

    @Test("A multi-fragment datagram that only partly fits the queue is lost, and the queue drains normally")
    func partlyQueuedDatagramIsLost() throws {
        let rate: Int64 = 1_000_000
        let link = LinkParameters(latency: .milliseconds(2), bandwidth: try Bandwidth(bitsPerSecond: rate), queueLimit: 3)
        var simulation = Simulation(model: WorldSimulation(world: try makeWorld(wifi: link, seed: 16)))
        let id = simulation.model.world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        // A goes on the wire, B waits (1 of 3), C needs 4 fragments: two find
        // room (3 of 3), two are dropped, so C cannot be reassembled.
        sendDatagram(&simulation, on: id, bytes: 100, tag: 0)
        sendDatagram(&simulation, on: id, bytes: 100, tag: 1)
        sendDatagram(&simulation, on: id, bytes: 3 * 1460 + 100, tag: 2)
        advance(&simulation, to: .zero + .seconds(1))
        // Long after the queue has drained, D goes straight on the wire.
        sendDatagram(&simulation, on: id, bytes: 100, tag: 3)
        simulation.run()

        let statistics = simulation.model.world.statistics(of: id)
        #expect(statistics.packetsOffered == 4)
        #expect(statistics.fragmentsSent == 5)
        #expect(statistics.fragmentsDroppedByQueue == 2)
        #expect(statistics.peakQueueLength == 3)
        #expect(statistics.packetsDelivered == 3)
        let arrived = deliveries(in: simulation, on: id)
        #expect(arrived.map(\.tag) == [0, 1, 3])
        let service = independentSerialisation(bytes: 140, bitsPerSecond: rate)
        #expect(arrived.last?.at == 1_000_000_000 + service + 2_000_000)
    }

    // MARK: Jitter

    @Test("Jitter J: every arrival lies in [base, base + J], arrivals differ, and packets may overtake")
    func jitterStaysWithinBounds() throws {
        let rate: Int64 = 10_000_000
        let latency: Int64 = 10_000_000
        let jitter: Int64 = 3_000_000
        let link = LinkParameters(
            latency: .nanoseconds(latency), jitter: .nanoseconds(jitter),
            bandwidth: try Bandwidth(bitsPerSecond: rate), queueLimit: 10_000)
        var simulation = Simulation(model: WorldSimulation(world: try makeWorld(wifi: link, seed: 17)))
        let id = simulation.model.world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        let n = 1000
        for tag in 0..<n { sendDatagram(&simulation, on: id, bytes: 960, tag: UInt32(tag)) }
        simulation.run()

        let arrived = deliveries(in: simulation, on: id)
        #expect(arrived.count == n)
        // Without jitter datagram i would arrive at base_i = (i + 1) · ser(1000 B) + latency.
        let service = independentSerialisation(bytes: 1000, bitsPerSecond: rate)
        var extras: [Int64] = Array(repeating: -1, count: n)
        for (tag, at) in arrived { extras[Int(tag)] = at - (Int64(tag) + 1) * service - latency }
        #expect(extras.allSatisfy { (0...jitter).contains($0) }, "every extra delay in [0, J]")
        #expect(Set(extras).count > n / 2, "extra delays are drawn, not constant")
        #expect(arrived.map(\.tag) != (0..<n).map(UInt32.init), "with J > ser, some datagram overtakes another")
        // The extra delay is uniform on [0, J]: mean J/2, SD J/√12; 99% bound on the mean.
        let mean = Double(extras.reduce(0, +)) / Double(n)
        let bound = z99 * Double(jitter) / 12.0.squareRoot() / Double(n).squareRoot()
        #expect(abs(mean - Double(jitter) / 2) <= bound, "mean extra delay \(mean) ns")
    }

    // MARK: Outages and partitions

    @Test("Outage window: datagrams sent inside it, or arriving inside it, are lost; the others arrive")
    func outageWindowLosesDatagrams() throws {
        let window = try TimeWindow(from: milliseconds(10), until: milliseconds(20))
        let link = LinkParameters(latency: .milliseconds(5), outages: [window])
        var simulation = Simulation(model: WorldSimulation(world: try makeWorld(wifi: link, seed: 18)))
        let id = simulation.model.world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        // Send instants (ns) and whether each datagram should arrive.
        let plan: [(send: Int64, arrives: Bool)] = [
            (2_000_000, true),  // arrives at 7 ms, before the window
            (8_000_000, false),  // sent before, arrives at 13 ms, inside
            (10_000_000, false),  // sent at the window's first instant
            (15_000_000, false),  // sent inside
            (19_999_999, false),  // sent at the window's last nanosecond
            (20_000_000, true),  // sent at the first instant after it
            (30_000_000, true),
        ]
        for (tag, step) in plan.enumerated() {
            advance(&simulation, to: SimInstant(nanosecondsSinceStart: step.send))
            sendDatagram(&simulation, on: id, tag: UInt32(tag))
        }
        simulation.run()

        let world = simulation.model.world
        let expectedTags = plan.enumerated().filter(\.element.arrives).map { UInt32($0.offset) }
        #expect(deliveries(in: simulation, on: id).map(\.tag) == expectedTags)
        let statistics = world.statistics(of: id)
        #expect(statistics.packetsDelivered == 3)
        #expect(statistics.packetsLostToOutage == 4)
        #expect(world.isUp(id, at: SimInstant(nanosecondsSinceStart: 9_999_999)))
        #expect(!world.isUp(id, at: milliseconds(10)))
        #expect(!world.isUp(id, at: SimInstant(nanosecondsSinceStart: 19_999_999)))
        #expect(world.isUp(id, at: milliseconds(20)))
    }

    @Test("Every datagram handed to a link counts as offered, including those the link is down for")
    func datagramsToADownLinkCountAsOffered() throws {
        let window = try TimeWindow(from: milliseconds(10), until: milliseconds(20))
        var simulation = Simulation(model: WorldSimulation(
            world: try makeWorld(wifi: LinkParameters(latency: .milliseconds(5), outages: [window]), seed: 19)))
        let id = simulation.model.world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        for (tag, time) in [Int64(0), 15, 30].enumerated() {
            advance(&simulation, to: milliseconds(time))
            sendDatagram(&simulation, on: id, tag: UInt32(tag))
        }
        simulation.run()
        let statistics = simulation.model.world.statistics(of: id)
        #expect(statistics.packetsDelivered == 2)
        #expect(statistics.packetsLostToOutage == 1)
        // Every packet handed over ends in exactly one of: delivered, lost on the
        // wire, dropped by the queue, lost to an outage.
        #expect(statistics.packetsOffered == 3)
    }

    @Test("A link's configured outage windows show in isUp and isPathAvailable before it has carried anything")
    func configuredOutagesShowBeforeFirstUse() throws {
        let window = try TimeWindow(from: milliseconds(10), until: milliseconds(20))
        let world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(5), outages: [window]), seed: 20)
        let id = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        #expect(world.isUp(id, at: milliseconds(5)))
        #expect(!world.isUp(id, at: milliseconds(15)))
        #expect(!world.isPathAvailable(.wifiPeerToPeer, between: DeviceID(0), and: DeviceID(1), at: milliseconds(15)))
    }

    @Test("A partition cuts both directions between its groups during its window only, and no other link")
    func partitionCutsBothWaysDuringWindow() throws {
        var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(5)), deviceCount: 3, seed: 21)
        let (a, b, c) = (DeviceID(0), DeviceID(1), DeviceID(2))
        world.partition([.device(a)], from: [.device(b)], during: try TimeWindow(from: milliseconds(10), until: milliseconds(20)))
        let cut: [LinkKind] = [
            .wifiPeerToPeer(from: a, to: b), .wifiPeerToPeer(from: b, to: a), .bluetooth(from: a, to: b), .bluetooth(from: b, to: a),
        ]
        let untouched: [LinkKind] = [
            .wifiPeerToPeer(from: a, to: c), .wifiPeerToPeer(from: c, to: a), .wifiPeerToPeer(from: b, to: c),
            .wifiPeerToPeer(from: c, to: b), .bluetooth(from: c, to: b), .uplink(a), .downlink(a), .uplink(b), .downlink(b),
        ]
        for (time, inside) in [(Int64(5), false), (10, true), (15, true), (20, false), (25, false)] {
            for kind in cut {
                #expect(world.isUp(world.link(kind), at: milliseconds(time)) == !inside, "\(kind) at \(time) ms")
            }
            for kind in untouched {
                #expect(world.isUp(world.link(kind), at: milliseconds(time)), "\(kind) at \(time) ms")
            }
            #expect(world.isPathAvailable(.wifiPeerToPeer, between: a, and: b, at: milliseconds(time)) == !inside)
            #expect(world.isPathAvailable(.cloudRelay, between: a, and: b, at: milliseconds(time)))
        }

        // Datagrams: a → b is lost inside the window, a → c is not.
        var simulation = Simulation(model: WorldSimulation(world: world))
        let ab = world.link(.wifiPeerToPeer(from: a, to: b))
        let ac = world.link(.wifiPeerToPeer(from: a, to: c))
        advance(&simulation, to: milliseconds(12))
        sendDatagram(&simulation, on: ab, tag: 1)
        sendDatagram(&simulation, on: ac, tag: 2)
        advance(&simulation, to: milliseconds(25))
        sendDatagram(&simulation, on: ab, tag: 3)
        simulation.run()
        #expect(deliveries(in: simulation, on: ab).map(\.tag) == [3])
        #expect(deliveries(in: simulation, on: ac).map(\.tag) == [2])
        #expect(simulation.model.world.statistics(of: ab).packetsLostToOutage == 1)
    }

    @Test("Partitioning a device from the cloud cuts its uplink and downlink, and the cloud relay path through it")
    func partitionFromCloudCutsInternetLinks() throws {
        var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(5)), deviceCount: 3, seed: 22)
        let (a, b, c) = (DeviceID(0), DeviceID(1), DeviceID(2))
        world.partition([.device(a)], from: [.cloud], during: try TimeWindow(from: milliseconds(10), until: milliseconds(20)))
        for (time, inside) in [(Int64(5), false), (10, true), (19, true), (20, false)] {
            let instant = milliseconds(time)
            #expect(world.isUp(world.link(.uplink(a)), at: instant) == !inside)
            #expect(world.isUp(world.link(.downlink(a)), at: instant) == !inside)
            #expect(world.isUp(world.link(.uplink(b)), at: instant))
            #expect(world.isUp(world.link(.downlink(c)), at: instant))
            #expect(world.isPathAvailable(.cloudRelay, between: a, and: b, at: instant) == !inside)
            #expect(world.isPathAvailable(.cloudRelay, between: c, and: a, at: instant) == !inside)
            #expect(world.isPathAvailable(.cloudRelay, between: b, and: c, at: instant))
            #expect(world.isPathAvailable(.wifiPeerToPeer, between: a, and: b, at: instant))
        }
        var simulation = Simulation(model: WorldSimulation(world: world))
        let uplink = world.link(.uplink(a))
        advance(&simulation, to: milliseconds(15))
        sendDatagram(&simulation, on: uplink, tag: 1)
        advance(&simulation, to: milliseconds(30))
        sendDatagram(&simulation, on: uplink, tag: 2)
        simulation.run()
        #expect(deliveries(in: simulation, on: uplink).map(\.tag) == [2])
    }

    // MARK: Radios switched off

    enum Radio: String, CaseIterable, Sendable { case wifi, bluetooth }

    @Test("A radio switched off at either end takes its peer links down both ways, losing packets in flight, until it is back on",
          arguments: Radio.allCases, [0, 1])
    func radioOffTakesPeerLinkDown(radio: Radio, deviceIndex: Int) throws {
        var simulation = Simulation(model: WorldSimulation(world: try makeWorld(
            wifi: LinkParameters(latency: .milliseconds(5)), bluetooth: LinkParameters(latency: .milliseconds(5)), seed: 23)))
        let (a, b) = (DeviceID(0), DeviceID(1))
        let device = DeviceID(deviceIndex)
        func links(_ radio: Radio) -> [LinkID] {
            switch radio {
            case .wifi: return [simulation.model.world.link(.wifiPeerToPeer(from: a, to: b)), simulation.model.world.link(.wifiPeerToPeer(from: b, to: a))]
            case .bluetooth: return [simulation.model.world.link(.bluetooth(from: a, to: b)), simulation.model.world.link(.bluetooth(from: b, to: a))]
            }
        }
        func setRadio(_ on: Bool) {
            var settings = simulation.model.world.settings(of: device)
            switch radio {
            case .wifi: settings.wifiEnabled = on
            case .bluetooth: settings.bluetoothEnabled = on
            }
            simulation.model.world.setSettings(settings, of: device)
        }
        let affected = links(radio)
        let other = links(radio == .wifi ? .bluetooth : .wifi)
        let forward = affected[0]

        sendDatagram(&simulation, on: forward, tag: 0)  // delivered at 5 ms
        advance(&simulation, to: milliseconds(10))
        setRadio(false)
        let now = simulation.now
        #expect(affected.allSatisfy { !simulation.model.world.isUp($0, at: now) })
        #expect(other.allSatisfy { simulation.model.world.isUp($0, at: now) }, "the other radio's links stay up")
        sendDatagram(&simulation, on: forward, tag: 1)  // not sent
        advance(&simulation, to: milliseconds(20))
        setRadio(true)
        let later = simulation.now
        #expect(affected.allSatisfy { simulation.model.world.isUp($0, at: later) })
        sendDatagram(&simulation, on: forward, tag: 2)  // delivered at 25 ms
        advance(&simulation, to: milliseconds(30))
        sendDatagram(&simulation, on: forward, tag: 3)  // on its way when the radio goes off
        advance(&simulation, to: milliseconds(32))
        setRadio(false)
        advance(&simulation, to: milliseconds(40))
        setRadio(true)
        simulation.run()

        #expect(deliveries(in: simulation, on: forward).map(\.tag) == [0, 2])
        #expect(simulation.model.world.statistics(of: forward).packetsLostToOutage == 2)
    }

    @Test("Internet access over Wi-Fi loses the internet link with Wi-Fi off; cellular and wired keep it; none never has it",
          arguments: InternetAccess.allCases, [true, false])
    func internetAccessDecidesInternetLink(access: InternetAccess, wifiOn: Bool) throws {
        var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(5)), internetAccess: access, seed: 24)
        let device = DeviceID(0)
        world.setSettings(DeviceSettings(wifiEnabled: wifiOn), of: device)
        let expected: Bool
        switch access {
        case .wifi: expected = wifiOn
        case .cellular, .wired: expected = true
        case .none: expected = false
        }
        let instant = milliseconds(1)
        #expect(world.isUp(world.link(.uplink(device)), at: instant) == expected)
        #expect(world.isUp(world.link(.downlink(device)), at: instant) == expected)
        #expect(world.isPathAvailable(.cloudRelay, between: device, and: DeviceID(1), at: instant) == expected)

        var simulation = Simulation(model: WorldSimulation(world: world))
        let uplink = world.link(.uplink(device))
        sendDatagram(&simulation, on: uplink, tag: 7)
        simulation.run()
        #expect(deliveries(in: simulation, on: uplink).map(\.tag) == (expected ? [7] : []))
    }

    // MARK: Invalid parameters

    static let invalidLinkCases: [InvalidParameterCase] = [
        InvalidParameterCase(setting: "bandwidth") { _ = try Bandwidth(bitsPerSecond: 0) },
        InvalidParameterCase(setting: "gilbertElliott.goodToBad") { _ = try GilbertElliott(goodToBad: 1.5, badToGood: 0.1) },
        InvalidParameterCase(setting: "gilbertElliott.lossInBad") { _ = try GilbertElliott(goodToBad: 0.1, badToGood: 0.1, lossInBad: .nan) },
        InvalidParameterCase(setting: "gilbertElliott") { _ = try GilbertElliott(goodToBad: 0, badToGood: 0) },
        InvalidParameterCase(setting: "window") { _ = try TimeWindow(from: milliseconds(5), until: milliseconds(5)) },
        InvalidParameterCase(setting: "latency") { try LinkParameters(latency: .nanoseconds(-1)).validate() },
        InvalidParameterCase(setting: "jitter") { try LinkParameters(latency: .zero, jitter: .nanoseconds(-1)).validate() },
        InvalidParameterCase(setting: "queueLimit") { try LinkParameters(latency: .zero, queueLimit: -1).validate() },
        InvalidParameterCase(setting: "headerBytes") { try LinkParameters(latency: .zero, headerBytes: -1).validate() },
        InvalidParameterCase(setting: "mtu") { try LinkParameters(latency: .zero, mtu: 40, headerBytes: 40).validate() },
        InvalidParameterCase(setting: "loss") { try LinkParameters(latency: .zero, loss: .bernoulli(1.5)).validate() },
        InvalidParameterCase(setting: "loss") {
            var world = try makeWorld(wifi: LinkParameters(latency: .zero), seed: 25)
            try world.setParameters(
                LinkParameters(latency: .zero, loss: .bernoulli(-0.1)), of: world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1))))
        },
        InvalidParameterCase(setting: "mtu") {
            _ = try makeWorld(wifi: LinkParameters(latency: .zero, mtu: 10, headerBytes: 40), seed: 26)
        },
    ]

    @Test("Invalid link settings throw invalidParameter naming the setting", arguments: invalidLinkCases)
    func invalidLinkSettingsAreNamed(_ invalid: InvalidParameterCase) {
        expectInvalidParameter(invalid)
    }
}
