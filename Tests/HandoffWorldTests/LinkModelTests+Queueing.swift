import HandoffWorld
import SimKernel
import Testing

// The link's FIFO queue against closed forms: M/D/1 waits, serialisation, fragmentation, tail drop and jitter.

extension LinkModelTests {
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
        let statistics = source.linkStatistics
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
        // Around 2³⁰ bytes the time stops fitting a 64-bit product of bits
        // and 10⁹; at 3 Gbit/s it is ⌈8 · bytes / 3⌉ ns either way.
        let fast = Bandwidth.megabitsPerSecond(3000)
        for bytes in [(1 << 30) - 1, 1 << 30, (1 << 30) + 1, 1_000_000_000_000] {
            #expect(fast.serialisationNanoseconds(bytes: bytes) == Int64((8 * bytes + 2) / 3), "\(bytes) B")
        }

        let arrived = datagramDeliveries(in: simulation, on: id)
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
        let arrived = datagramDeliveries(in: simulation, on: id)
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
        let arrived = datagramDeliveries(in: simulation, on: id)
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

        let arrived = datagramDeliveries(in: simulation, on: id)
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

    // MARK: Bandwidth spread

    @Test("bandwidthSpread: each trial's rate is the bandwidth slowed by e^(−σ|Z|) or divided by 1 + a log-normal Y, never faster; the same in every trial without one")
    func bandwidthSpreadDrawsOneRatePerTrial() throws {
        // 960 B + 40 B at 8 Mbit/s: exactly 1 ms on the wire at the nominal rate.
        let bandwidth = try Bandwidth(bitsPerSecond: 8_000_000)
        func wireTimes(spread: RateSpread, seeds: ClosedRange<UInt64>) throws -> [Int64] {
            try seeds.map { seed in
                let link = LinkParameters(latency: .zero, bandwidth: bandwidth, bandwidthSpread: spread)
                var simulation = Simulation(model: WorldSimulation(world: try makeWorld(wifi: link, seed: seed)))
                let id = simulation.model.world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
                sendDatagram(&simulation, on: id, bytes: 960, tag: 0)
                sendDatagram(&simulation, on: id, bytes: 960, tag: 1)
                simulation.run()
                let arrived = datagramDeliveries(in: simulation, on: id).map(\.at)
                // One rate for the whole trial: the second datagram takes as long as the first.
                #expect(arrived.count == 2 && arrived[1] - arrived[0] - arrived[0] <= 1, "seed \(seed): \(arrived)")
                return arrived[0]
            }
        }
        #expect(try wireTimes(spread: 0, seeds: 1...20).allSatisfy { $0 == 1_000_000 })
        let sigma = 0.2
        let logs = try wireTimes(spread: .halfNormal(sigma), seeds: 1...600).map { PortableMath.log(1_000_000 / Double($0)) }
        let mean = logs.reduce(0, +) / Double(logs.count)
        let deviation = (logs.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(logs.count - 1)).squareRoot()
        // The log factor is −σ|Z|: never above 0 (to the nanosecond's
        // rounding), mean −σ√(2/π) ≈ −0.160, standard deviation
        // σ√(1 − 2/π) ≈ 0.121. 600 draws: the mean's standard error is
        // 0.121/√600 ≈ 0.005 and the deviation's about 0.004; 4 of each.
        #expect(logs.allSatisfy { $0 <= 1e-6 }, "a run faster than the ceiling")
        #expect(abs(mean + sigma * (2 / Double.pi).squareRoot()) < 0.02, "mean log factor \(mean)")
        #expect(abs(deviation - sigma * (1 - 2 / Double.pi).squareRoot()) < 0.016, "σ of the log factor \(deviation)")
        #expect(throws: WorldError.self) {
            try LinkParameters(latency: .zero, bandwidth: bandwidth, bandwidthSpread: 1.5).validate()
        }

        // Log-normal: the extra time Y = wire time / 1 ms − 1 has log Y
        // normal with mean log 0.12 and σ 0.5, so every run is slower than
        // the ceiling. 600 draws: the mean of log Y has standard error
        // 0.5/√600 ≈ 0.020 and its deviation about 0.015; 4 of each.
        let extra = try wireTimes(spread: .logNormal(median: 0.12, sigma: 0.5), seeds: 1...600)
            .map { Double($0) / 1_000_000 - 1 }
        #expect(extra.allSatisfy { $0 > 0 }, "a run at the ceiling")
        let logX = extra.map { PortableMath.log($0) }
        let logMean = logX.reduce(0, +) / Double(logX.count)
        let logDeviation = (logX.map { ($0 - logMean) * ($0 - logMean) }.reduce(0, +) / Double(logX.count - 1)).squareRoot()
        #expect(abs(logMean - PortableMath.log(0.12)) < 0.08, "mean log Y \(logMean)")
        #expect(abs(logDeviation - 0.5) < 0.06, "σ of log Y \(logDeviation)")
        #expect(throws: WorldError.self) {
            try LinkParameters(latency: .zero, bandwidth: bandwidth,
                               bandwidthSpread: .logNormal(median: 0.1, sigma: 1.5)).validate()
        }
    }
}
