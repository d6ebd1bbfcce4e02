/// A probability distribution to draw samples from.
///
/// Every distribution draws from a ``Xoshiro256StarStar`` passed in, never
/// from a generator of its own, so the caller decides which named stream a
/// draw comes from. Parameters are checked once, when the distribution is
/// made; sampling cannot fail.
///
/// ```swift
/// let thinkTime = try LogNormalDistribution(mean: 2.0, standardDeviation: 1.0)
/// var rng = RandomStreamKey(seed: 7).generator("user")
/// let seconds = thinkTime.sample(using: &rng)
/// ```
public protocol Distribution: Sendable {
    /// The type of one sample.
    associatedtype Value
    /// Draws one sample.
    func sample(using generator: inout Xoshiro256StarStar) -> Value
    /// The distribution's mean, from its closed form.
    var mean: Double { get }
    /// The distribution's variance, from its closed form.
    var variance: Double { get }
}

/// Checks a distribution parameter.
@usableFromInline
func requireParameter(
    _ condition: Bool, _ distribution: String, _ parameter: String, _ value: Double, _ expected: String
) throws(SimKernelError) {
    if !condition {
        throw .invalidParameter(distribution: distribution, parameter: parameter, value: value, expected: expected)
    }
}

/// Continuous uniform on [lower, upper).
public struct UniformDistribution: Distribution, Hashable {
    /// The smallest value.
    public let lower: Double
    /// The bound values stay below.
    public let upper: Double

    /// - Throws: when a bound is not finite or `upper < lower`.
    public init(lower: Double, upper: Double) throws(SimKernelError) {
        try requireParameter(lower.isFinite, "uniform", "lower", lower, "a finite number")
        try requireParameter(upper.isFinite && upper >= lower, "uniform", "upper", upper, "a finite number ≥ lower (\(lower))")
        self.lower = lower
        self.upper = upper
    }

    @inlinable
    public func sample(using generator: inout Xoshiro256StarStar) -> Double {
        lower + (upper - lower) * generator.unitInterval()
    }

    public var mean: Double { (lower + upper) / 2 }
    public var variance: Double { (upper - lower) * (upper - lower) / 12 }
}

/// Exponential with the given mean (rate 1/mean), by the ziggurat method.
public struct ExponentialDistribution: Distribution, Hashable {
    /// The mean, 1/λ.
    public let mean: Double

    /// - Throws: when `mean` is not finite and positive.
    public init(mean: Double) throws(SimKernelError) {
        try requireParameter(mean.isFinite && mean > 0, "exponential", "mean", mean, "a finite number > 0")
        self.mean = mean
    }

    /// mean · E with E a standard exponential drawn by the ziggurat method
    /// (one 64-bit draw and one multiplication in about 99 % of cases).
    @inlinable
    public func sample(using generator: inout Xoshiro256StarStar) -> Double {
        mean * ExponentialZiggurat.shared.sample(using: &generator)
    }

    public var variance: Double { mean * mean }
}

/// Normal (Gaussian), by Marsaglia's polar method (needs only `log` and the
/// exactly rounded square root; the second variate of each pair is dropped so
/// that sampling stays stateless).
public struct NormalDistribution: Distribution, Hashable {
    /// The mean μ.
    public let mean: Double
    /// The standard deviation σ.
    public let standardDeviation: Double

    /// - Throws: when `mean` is not finite or `standardDeviation` is negative
    ///   or not finite.
    public init(mean: Double, standardDeviation: Double) throws(SimKernelError) {
        try requireParameter(mean.isFinite, "normal", "mean", mean, "a finite number")
        try requireParameter(
            standardDeviation.isFinite && standardDeviation >= 0, "normal", "standardDeviation",
            standardDeviation, "a finite number ≥ 0")
        self.mean = mean
        self.standardDeviation = standardDeviation
    }

    @inlinable
    public func sample(using generator: inout Xoshiro256StarStar) -> Double {
        mean + standardDeviation * Self.standardSample(using: &generator)
    }

    /// One standard normal variate (mean 0, standard deviation 1), drawn by
    /// the same polar method as ``sample(using:)``.
    @inlinable
    public static func standardSample(using generator: inout Xoshiro256StarStar) -> Double {
        while true {
            let u = 2 * generator.unitInterval() - 1
            let v = 2 * generator.unitInterval() - 1
            let s = u * u + v * v
            if s > 0 && s < 1 {
                return u * (-2 * PortableMath.log(s) / s).squareRoot()
            }
        }
    }

    /// Two independent standard normal variates from one polar-method
    /// draw: the pair ``standardSample(using:)`` computes and then halves.
    /// For callers that keep the second for their next draw (one logarithm
    /// per two variates).
    @inlinable
    public static func standardSamplePair(using generator: inout Xoshiro256StarStar) -> (Double, Double) {
        while true {
            let u = 2 * generator.unitInterval() - 1
            let v = 2 * generator.unitInterval() - 1
            let s = u * u + v * v
            if s > 0 && s < 1 {
                let scale = (-2 * PortableMath.log(s) / s).squareRoot()
                return (u * scale, v * scale)
            }
        }
    }

    public var variance: Double { standardDeviation * standardDeviation }

    /// Φ(z), the probability that a standard normal variate is below `z`:
    /// ½ · erfc(−z/√2), to better than 1e-12 relative error and bit-identical on
    /// every platform (see ``PortableMath/erfc(_:)``).
    ///
    /// A model that only needs to know whether a normal variate clears a
    /// fixed threshold can draw one uniform number against this probability
    /// instead of drawing the variate: the outcome has the same distribution.
    public static func standardCumulativeProbability(_ z: Double) -> Double {
        0.5 * PortableMath.erfc(-z * 0.707_106_781_186_547_524_40)
    }
}

/// Log-normal: e^X with X normal(μ, σ).
public struct LogNormalDistribution: Distribution, Hashable {
    /// μ of the underlying normal.
    public let mu: Double
    /// σ of the underlying normal.
    public let sigma: Double

    /// A log-normal from the parameters of its underlying normal.
    ///
    /// - Throws: when `mu` is not finite or `sigma` is negative or not finite.
    public init(mu: Double, sigma: Double) throws(SimKernelError) {
        try requireParameter(mu.isFinite, "lognormal", "mu", mu, "a finite number")
        try requireParameter(sigma.isFinite && sigma >= 0, "lognormal", "sigma", sigma, "a finite number ≥ 0")
        self.mu = mu
        self.sigma = sigma
    }

    /// A log-normal with the given mean and standard deviation of its own
    /// (not of the underlying normal), which is how people describe a think
    /// time: σ² = ln(1 + sd²/mean²), μ = ln(mean) − σ²/2.
    ///
    /// - Throws: when `mean` is not positive or `standardDeviation` is negative.
    public init(mean: Double, standardDeviation: Double) throws(SimKernelError) {
        try requireParameter(mean.isFinite && mean > 0, "lognormal", "mean", mean, "a finite number > 0")
        try requireParameter(
            standardDeviation.isFinite && standardDeviation >= 0, "lognormal", "standardDeviation",
            standardDeviation, "a finite number ≥ 0")
        let sigmaSquared = PortableMath.log(1 + (standardDeviation * standardDeviation) / (mean * mean))
        try self.init(mu: PortableMath.log(mean) - sigmaSquared / 2, sigma: sigmaSquared.squareRoot())
    }

    @inlinable
    public func sample(using generator: inout Xoshiro256StarStar) -> Double {
        PortableMath.exp(mu + sigma * NormalDistribution.standardSample(using: &generator))
    }

    /// e^(μ + σ²/2).
    public var mean: Double { PortableMath.exp(mu + sigma * sigma / 2) }
    /// (e^(σ²) − 1)·e^(2μ + σ²).
    public var variance: Double { (PortableMath.exp(sigma * sigma) - 1) * PortableMath.exp(2 * mu + sigma * sigma) }
}

/// Pareto (type I) with scale xₘ and shape α, by inversion: xₘ·U^(−1/α).
public struct ParetoDistribution: Distribution, Hashable {
    /// The minimum value xₘ.
    public let scale: Double
    /// The tail index α.
    public let shape: Double

    /// - Throws: when `scale` or `shape` is not finite and positive.
    public init(scale: Double, shape: Double) throws(SimKernelError) {
        try requireParameter(scale.isFinite && scale > 0, "Pareto", "scale", scale, "a finite number > 0")
        try requireParameter(shape.isFinite && shape > 0, "Pareto", "shape", shape, "a finite number > 0")
        self.scale = scale
        self.shape = shape
    }

    @inlinable
    public func sample(using generator: inout Xoshiro256StarStar) -> Double {
        scale * PortableMath.exp(-PortableMath.log(generator.unitIntervalExcludingZero()) / shape)
    }

    /// α·xₘ/(α−1), infinite for α ≤ 1.
    public var mean: Double { shape <= 1 ? .infinity : shape * scale / (shape - 1) }
    /// xₘ²·α/((α−1)²(α−2)), infinite for α ≤ 2.
    public var variance: Double {
        shape <= 2 ? .infinity : scale * scale * shape / ((shape - 1) * (shape - 1) * (shape - 2))
    }
}

/// Bernoulli: `true` with probability p.
public struct BernoulliDistribution: Distribution, Hashable {
    /// The probability of `true`.
    public let probability: Double

    /// - Throws: when `probability` is outside [0, 1].
    public init(probability: Double) throws(SimKernelError) {
        try requireParameter(
            probability >= 0 && probability <= 1, "Bernoulli", "probability", probability, "a number in [0, 1]")
        self.probability = probability
    }

    /// `true` when a uniform draw on [0, 1) is below p: exactly p = 0 never
    /// and p = 1 always.
    @inlinable
    public func sample(using generator: inout Xoshiro256StarStar) -> Bool {
        generator.unitInterval() < probability
    }

    public var mean: Double { probability }
    public var variance: Double { probability * (1 - probability) }
}

/// A discrete distribution over the indices 0..<n with given weights.
///
/// Sampling is a binary search over the cumulative weights; the table is
/// built once with exact sums in a fixed order, so the same weights give the
/// same draws everywhere.
public struct DiscreteDistribution: Distribution, Hashable {
    /// The weights as given.
    public let weights: [Double]
    @usableFromInline let cumulative: [Double]

    /// - Throws: when there are no weights, a weight is negative or not
    ///   finite, or all weights are zero.
    public init(weights: [Double]) throws(SimKernelError) {
        guard !weights.isEmpty else { throw .invalidWeights(problem: "no outcomes were given") }
        var running = 0.0
        var cumulative: [Double] = []
        cumulative.reserveCapacity(weights.count)
        for (index, weight) in weights.enumerated() {
            guard weight.isFinite && weight >= 0 else {
                throw .invalidWeights(problem: "weight \(index) is \(weight); expected a finite number ≥ 0")
            }
            running += weight
            cumulative.append(running)
        }
        guard running > 0 else { throw .invalidWeights(problem: "all weights are zero") }
        self.weights = weights
        self.cumulative = cumulative
    }

    /// An index drawn with probability weight/total.
    ///
    /// - Complexity: O(log n).
    @inlinable
    public func sample(using generator: inout Xoshiro256StarStar) -> Int {
        let total = cumulative[cumulative.count - 1]
        let target = generator.unitInterval() * total
        // The first index whose cumulative weight exceeds the target.
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > target { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The probability of outcome `index`.
    public func probability(of index: Int) -> Double {
        weights[index] / cumulative[cumulative.count - 1]
    }

    public var mean: Double {
        weights.indices.reduce(0.0) { $0 + Double($1) * probability(of: $1) }
    }

    public var variance: Double {
        let mu = mean
        return weights.indices.reduce(0.0) { $0 + (Double($1) - mu) * (Double($1) - mu) * probability(of: $1) }
    }
}

/// An empirical distribution: given values, each drawn with its weight
/// (equal weights when none are given), e.g. measured launch times.
public struct EmpiricalDistribution: Distribution, Hashable {
    /// The values that can be drawn.
    public let values: [Double]
    @usableFromInline let index: DiscreteDistribution

    /// - Throws: when `values` is empty or has a non-finite value, or the
    ///   weights are invalid or not one per value.
    public init(values: [Double], weights: [Double]? = nil) throws(SimKernelError) {
        guard !values.isEmpty else { throw .invalidWeights(problem: "no values were given") }
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw .invalidWeights(problem: "value \(bad) is \(values[bad]); expected a finite number")
        }
        let weights = weights ?? Array(repeating: 1, count: values.count)
        guard weights.count == values.count else {
            throw .invalidWeights(problem: "\(weights.count) weights for \(values.count) values; expected one weight per value")
        }
        self.values = values
        self.index = try DiscreteDistribution(weights: weights)
    }

    @inlinable
    public func sample(using generator: inout Xoshiro256StarStar) -> Double {
        values[index.sample(using: &generator)]
    }

    public var mean: Double {
        values.indices.reduce(0.0) { $0 + values[$1] * index.probability(of: $1) }
    }

    public var variance: Double {
        let mu = mean
        return values.indices.reduce(0.0) { $0 + (values[$1] - mu) * (values[$1] - mu) * index.probability(of: $1) }
    }
}
