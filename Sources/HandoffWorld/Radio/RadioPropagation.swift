import SimKernel

/// Received signal strength by the log-distance path-loss model with
/// log-normal shadowing, compared against a reception threshold.
///
/// The mean received power at distance d (metres) is
///
///     P̄(d) = P₀ − 10 · n · log₁₀(d / d₀)      (dBm, for d ≥ d₀)
///
/// with reference power P₀ at reference distance d₀ and path-loss exponent
/// n. Each reception adds shadowing X ~ Normal(0, σ) dB, and a frame is
/// received when P̄(d) + X is at least the threshold. Inside d₀ the mean is
/// P₀ (the model does not claim to know the near field). A reception
/// therefore succeeds with probability Φ((P̄(d) − threshold)/σ), and the
/// simulation draws it that way: one uniform number per frame against the
/// probability, which it recomputes only when the distance changes.
///
/// The threshold distance, where P̄(d) equals the threshold and reception
/// is a coin toss, is d₀ · 10^((P₀ − threshold) / (10 n)).
///
/// ```swift
/// let ble = RadioPropagation.bluetoothLowEnergy
/// ble.meanReceivedPower(atDistance: 5)   // about −80 dBm
/// ble.thresholdDistance                  // about 10.8 m
/// ```
public struct RadioPropagation: Hashable, Sendable {
    /// P₀: the mean received power at the reference distance, in dBm.
    public var referencePower: Double
    /// d₀: the reference distance, in metres.
    public var referenceDistance: Double
    /// n: how fast power falls with distance (2 in free space, about 2.7–4
    /// indoors).
    public var pathLossExponent: Double
    /// σ: the standard deviation of shadowing, in dB; 0 makes reception a
    /// sharp cut at the threshold distance.
    public var shadowingStandardDeviation: Double
    /// The weakest received power that still decodes, in dBm.
    public var receptionThreshold: Double

    /// Creates a propagation model.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)`` when a
    ///   value is not finite, the reference distance or exponent is not
    ///   positive, or σ is negative.
    public init(
        referencePower: Double, referenceDistance: Double = 1, pathLossExponent: Double,
        shadowingStandardDeviation: Double, receptionThreshold: Double
    ) throws(WorldError) {
        guard referencePower.isFinite else {
            throw .invalidParameter(name: "referencePower", value: "\(referencePower) dBm", expected: "a finite power in dBm")
        }
        guard referenceDistance.isFinite, referenceDistance > 0 else {
            throw .invalidParameter(name: "referenceDistance", value: "\(referenceDistance) m", expected: "a finite distance > 0")
        }
        guard pathLossExponent.isFinite, pathLossExponent > 0 else {
            throw .invalidParameter(name: "pathLossExponent", value: "\(pathLossExponent)", expected: "a finite exponent > 0")
        }
        guard shadowingStandardDeviation.isFinite, shadowingStandardDeviation >= 0 else {
            throw .invalidParameter(
                name: "shadowing", value: "\(shadowingStandardDeviation) dB", expected: "a finite standard deviation ≥ 0")
        }
        guard receptionThreshold.isFinite else {
            throw .invalidParameter(name: "receptionThreshold", value: "\(receptionThreshold) dBm", expected: "a finite power in dBm")
        }
        self.referencePower = referencePower
        self.referenceDistance = referenceDistance
        self.pathLossExponent = pathLossExponent
        self.shadowingStandardDeviation = shadowingStandardDeviation
        self.receptionThreshold = receptionThreshold
    }

    /// The mean received power at `distance` metres, in dBm.
    ///
    /// Uses the project's portable logarithm, so every platform computes
    /// the same bits.
    public func meanReceivedPower(atDistance distance: Double) -> Double {
        guard distance > referenceDistance else { return referencePower }
        let log10Ratio = PortableMath.log(distance / referenceDistance) / Self.naturalLogOfTen
        return referencePower - 10 * pathLossExponent * log10Ratio
    }

    /// The distance at which the mean received power equals the threshold,
    /// in metres.
    public var thresholdDistance: Double {
        let exponent = (referencePower - receptionThreshold) / (10 * pathLossExponent)
        return referenceDistance * PortableMath.exp(exponent * Self.naturalLogOfTen)
    }

    /// Draws one received power at `distance`: the mean plus shadowing.
    public func sampleReceivedPower(atDistance distance: Double, using generator: inout Xoshiro256StarStar) -> Double {
        let mean = meanReceivedPower(atDistance: distance)
        guard shadowingStandardDeviation > 0 else { return mean }
        return mean + shadowingStandardDeviation * NormalDistribution.standardSample(using: &generator)
    }

    /// The probability that one frame sent over `distance` metres is
    /// received: P(P̄(d) + σZ ≥ threshold) = Φ((P̄(d) − threshold)/σ), or
    /// exactly 1 or 0 without shadowing.
    ///
    /// Callers that keep sending over the same distance remember this value
    /// and draw against it with ``isReceived(withProbability:using:)``.
    public func receptionProbability(atDistance distance: Double) -> Double {
        let margin = meanReceivedPower(atDistance: distance) - receptionThreshold
        guard shadowingStandardDeviation > 0 else { return margin >= 0 ? 1 : 0 }
        return NormalDistribution.standardCumulativeProbability(margin / shadowingStandardDeviation)
    }

    /// Draws whether one frame sent over `distance` metres is received.
    ///
    /// With shadowing, one uniform draw against
    /// ``receptionProbability(atDistance:)``: the same outcome distribution
    /// as drawing the shadowed power and comparing it with the threshold,
    /// for one draw instead of a normal variate. Without shadowing the
    /// outcome is certain and nothing is drawn.
    public func isReceived(atDistance distance: Double, using generator: inout Xoshiro256StarStar) -> Bool {
        isReceived(withProbability: receptionProbability(atDistance: distance), using: &generator)
    }

    /// Draws one reception given its probability (from
    /// ``receptionProbability(atDistance:)``); a certain outcome draws nothing.
    @inlinable
    public func isReceived(withProbability probability: Double, using generator: inout Xoshiro256StarStar) -> Bool {
        if probability >= 1 { return true }
        if probability <= 0 { return false }
        return generator.unitInterval() < probability
    }

    /// ln 10, correctly rounded.
    static let naturalLogOfTen = 2.302585092994046
}
