import Foundation
import HandoffWorld
import SimKernel
import Testing

@Suite("Radio propagation against the path-loss formula")
struct RadioPropagationTests {
    static let radio = RadioPropagation.bluetoothLowEnergy

    @Test("mean received power is P0 − 10·n·log10(d/d0) at every distance, P0 inside d0",
          arguments: [0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0])
    func meanPowerMatchesFormula(distance: Double) {
        // P̄(d) = P₀ − 10 · n · log₁₀(d / d₀), clamped to P₀ for d ≤ d₀.
        let expected = distance <= 1 ? -59 : -59 - 10 * 3.0 * log10(distance / 1)
        #expect(abs(Self.radio.meanReceivedPower(atDistance: distance) - expected) < 1e-9)
    }

    @Test("the sample mean of received power equals the formula within a 99% bound")
    func sampledPowerMean() {
        var generator = RandomStreamKey(seed: 5).generator("radio")
        let count = 100_000
        var sum = 0.0
        for _ in 0..<count { sum += Self.radio.sampleReceivedPower(atDistance: 7, using: &generator) }
        // Mean within z·σ/√N, z = 2.576, σ = 6 dB.
        let bound = 2.576 * 6 / Double(count).squareRoot()
        #expect(abs(sum / Double(count) - Self.radio.meanReceivedPower(atDistance: 7)) <= bound)
    }

    @Test("reception at the threshold distance is a coin toss: 0.5 within a 99% binomial bound")
    func halfReceptionAtThreshold() {
        // d_th = d₀ · 10^((P₀ − threshold) / (10 n)) = 10^(31/30) ≈ 10.77 m.
        #expect(abs(Self.radio.thresholdDistance - pow(10, 31.0 / 30.0)) < 1e-9)
        var generator = RandomStreamKey(seed: 6).generator("radio")
        let count = 100_000
        var received = 0
        for _ in 0..<count where Self.radio.isReceived(atDistance: Self.radio.thresholdDistance, using: &generator) {
            received += 1
        }
        let bound = 2.576 * (0.25 / Double(count)).squareRoot()
        #expect(abs(Double(received) / Double(count) - 0.5) <= bound)
    }

    @Test("without shadowing, reception is a sharp step at the threshold distance")
    func noShadowingIsAStep() throws {
        let sharp = try RadioPropagation(
            referencePower: -59, pathLossExponent: 3, shadowingStandardDeviation: 0, receptionThreshold: -90)
        var generator = RandomStreamKey(seed: 7).generator("radio")
        #expect(sharp.isReceived(atDistance: sharp.thresholdDistance * 0.999, using: &generator))
        #expect(!sharp.isReceived(atDistance: sharp.thresholdDistance * 1.001, using: &generator))
    }
}
