import HandoffWorld
import SimKernel
import Testing

// Link loss models against closed forms: Bernoulli loss and Gilbert-Elliott loss.

extension LinkModelTests {
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
        let statistics = source.linkStatistics

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
        let statistics = source.linkStatistics
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
}
