import Foundation  // libm's exp, log and erfc, as an independent reference for the closed forms
import Testing
@testable import SimKernel

// Helpers and case tables for DistributionTests.swift.

// MARK: - Helpers

/// The sample mean and the unbiased sample variance (two-pass).
func sampleMoments(_ values: [Double]) -> (mean: Double, variance: Double) {
    let n = Double(values.count)
    let mean = values.reduce(0, +) / n
    let squares = values.reduce(0.0) { $0 + ($1 - mean) * ($1 - mean) }
    return (mean, squares / (n - 1))
}

/// The fourth central moment from the raw moments E[X], E[X²], E[X³], E[X⁴]:
/// μ₄ = E4 − 4·m·E3 + 6·m²·E2 − 3·m⁴.
func fourthCentralMoment(raw e1: Double, _ e2: Double, _ e3: Double, _ e4: Double) -> Double {
    e4 - 4 * e1 * e3 + 6 * e1 * e1 * e2 - 3 * e1 * e1 * e1 * e1
}

/// Mean, variance and fourth central moment of a finite table of values and
/// (unnormalised) weights.
func tableMoments(values: [Double], weights: [Double]) -> (mean: Double, variance: Double, mu4: Double) {
    let total = weights.reduce(0, +)
    let mean = zip(values, weights).reduce(0.0) { $0 + $1.0 * $1.1 } / total
    let variance = zip(values, weights).reduce(0.0) { $0 + ($1.0 - mean) * ($1.0 - mean) * $1.1 } / total
    let mu4 = zip(values, weights).reduce(0.0) { $0 + pow($1.0 - mean, 4) * $1.1 } / total
    return (mean, variance, mu4)
}

/// Checks a binomial count against its expectation within `z` standard errors
/// (SE = √(n·p·(1−p))).
func expectBinomial(
    _ observed: Int, trials n: Int, probability p: Double, z: Double = 4.5, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let expected = Double(n) * p
    let standardError = (Double(n) * p * (1 - p)).squareRoot()
    #expect(
        abs(Double(observed) - expected) <= z * standardError,
        "\(label): observed \(observed), expected \(expected) ± \(z)·\(standardError)",
        sourceLocation: sourceLocation)
}

/// For each threshold (in increasing order), how many of `n` draws are at or
/// below it. (A plain index loop: tuple-iterating loops are slow in debug builds.)
func countsAtOrBelow(_ thresholds: [Double], draws n: Int, _ draw: () -> Double) -> [Int] {
    var perSlot = [Int](repeating: 0, count: thresholds.count + 1)
    for _ in 0..<n {
        let x = draw()
        var slot = 0
        while slot < thresholds.count && x > thresholds[slot] { slot += 1 }
        perSlot[slot] += 1
    }
    var cumulative: [Int] = []
    var running = 0
    for slot in 0..<thresholds.count {
        running += perSlot[slot]
        cumulative.append(running)
    }
    return cumulative
}

/// One distribution with its closed-form moments.
struct MomentCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// Draws one sample as a Double.
    let draw: @Sendable (inout Xoshiro256StarStar) -> Double
    /// Closed-form mean, variance and fourth central moment, computed in the
    /// test from the parameters (not from the distribution's properties).
    let mean: Double
    let variance: Double
    let mu4: Double
    /// What the distribution's own `mean` and `variance` report.
    let reportedMean: Double
    let reportedVariance: Double

    var testDescription: String { name }

    init<D: Distribution>(
        _ name: String, _ distribution: D, mean: Double, variance: Double, mu4: Double,
        toDouble: @escaping @Sendable (D.Value) -> Double
    ) {
        self.name = name
        self.draw = { generator in toDouble(distribution.sample(using: &generator)) }
        self.mean = mean
        self.variance = variance
        self.mu4 = mu4
        self.reportedMean = distribution.mean
        self.reportedVariance = distribution.variance
    }

    init<D: Distribution>(_ name: String, _ distribution: D, mean: Double, variance: Double, mu4: Double)
    where D.Value == Double {
        self.init(name, distribution, mean: mean, variance: variance, mu4: mu4, toDouble: { $0 })
    }

    static let all: [MomentCase] = {
        var cases: [MomentCase] = []

        // Uniform on [a, b): mean (a+b)/2, variance (b−a)²/12, μ₄ = (b−a)⁴/80.
        do {
            let a = -3.0, b = 5.0
            cases.append(MomentCase(
                "uniform(-3, 5)", try! UniformDistribution(lower: a, upper: b),
                mean: (a + b) / 2, variance: (b - a) * (b - a) / 12, mu4: pow(b - a, 4) / 80))
        }

        // Exponential with rate λ = 1/mean: mean 1/λ, variance 1/λ², μ₄ = 9/λ⁴.
        for meanValue in [2.5, 0.001] {
            let lambda = 1 / meanValue
            cases.append(MomentCase(
                "exponential(mean \(meanValue))", try! ExponentialDistribution(mean: meanValue),
                mean: 1 / lambda, variance: 1 / (lambda * lambda), mu4: 9 / pow(lambda, 4)))
        }

        // Normal(μ, σ): mean μ, variance σ², μ₄ = 3σ⁴.
        do {
            let mu = -4.0, sigma = 2.5
            cases.append(MomentCase(
                "normal(-4, 2.5)", try! NormalDistribution(mean: mu, standardDeviation: sigma),
                mean: mu, variance: sigma * sigma, mu4: 3 * pow(sigma, 4)))
        }

        // Log-normal: raw moments E[X^k] = exp(kμ + k²σ²/2); variance
        // E2 − E1², μ₄ from the raw moments.
        func logNormalCase(_ name: String, _ distribution: LogNormalDistribution, mu: Double, sigma: Double) -> MomentCase {
            func raw(_ k: Double) -> Double { Foundation.exp(k * mu + k * k * sigma * sigma / 2) }
            return MomentCase(
                name, distribution, mean: raw(1), variance: raw(2) - raw(1) * raw(1),
                mu4: fourthCentralMoment(raw: raw(1), raw(2), raw(3), raw(4)))
        }
        cases.append(logNormalCase(
            "lognormal(mu 0.5, sigma 0.5)", try! LogNormalDistribution(mu: 0.5, sigma: 0.5), mu: 0.5, sigma: 0.5))
        do {
            // From its own mean m and standard deviation s:
            // σ² = ln(1 + s²/m²), μ = ln m − σ²/2.
            let m = 2.0, s = 1.0
            let sigmaSquared = Foundation.log(1 + s * s / (m * m))
            cases.append(logNormalCase(
                "lognormal(mean 2, sd 1)", try! LogNormalDistribution(mean: m, standardDeviation: s),
                mu: Foundation.log(m) - sigmaSquared / 2, sigma: sigmaSquared.squareRoot()))
        }

        // Pareto(xₘ, α) with α = 5 so that the fourth moment exists:
        // E[X^k] = α·xₘ^k/(α−k) for k < α.
        do {
            let scale = 1.5, shape = 5.0
            func raw(_ k: Double) -> Double { shape * pow(scale, k) / (shape - k) }
            cases.append(MomentCase(
                "Pareto(scale 1.5, shape 5)", try! ParetoDistribution(scale: scale, shape: shape),
                mean: raw(1), variance: raw(2) - raw(1) * raw(1),
                mu4: fourthCentralMoment(raw: raw(1), raw(2), raw(3), raw(4))))
        }

        // Bernoulli(p) as 0/1: mean p, variance p(1−p), μ₄ = p(1−p)(1−3p+3p²).
        // (Not p = ½: there μ₄ = σ⁴, the first-order SE of the sample variance
        // is 0, and only a second-order deviation of order σ²/n remains.)
        for p in [0.3, 0.9, 0.01] {
            cases.append(MomentCase(
                "Bernoulli(\(p))", try! BernoulliDistribution(probability: p),
                mean: p, variance: p * (1 - p), mu4: p * (1 - p) * (1 - 3 * p + 3 * p * p),
                toDouble: { $0 ? 1 : 0 }))
        }

        // Discrete: moments of the index from the weight table.
        do {
            let weights = [1.0, 2, 3, 4, 0, 10]
            let table = tableMoments(values: weights.indices.map(Double.init), weights: weights)
            cases.append(MomentCase(
                "discrete([1, 2, 3, 4, 0, 10])", try! DiscreteDistribution(weights: weights),
                mean: table.mean, variance: table.variance, mu4: table.mu4, toDouble: Double.init))
        }

        // Empirical: moments of the values from the table.
        do {
            let values = [0.5, 2, 3.25, 10], weights = [4.0, 3, 2, 1]
            let table = tableMoments(values: values, weights: weights)
            cases.append(MomentCase(
                "empirical(weighted)", try! EmpiricalDistribution(values: values, weights: weights),
                mean: table.mean, variance: table.variance, mu4: table.mu4))
        }
        do {
            let values = [-1.0, 0, 2.5, 7, 7, 40]
            let table = tableMoments(values: values, weights: Array(repeating: 1, count: values.count))
            cases.append(MomentCase(
                "empirical(equal weights)", try! EmpiricalDistribution(values: values),
                mean: table.mean, variance: table.variance, mu4: table.mu4))
        }
        return cases
    }()
}

/// One invalid construction and the exact message it must report.
struct InvalidCase: Sendable, CustomTestStringConvertible {
    let make: @Sendable () throws -> Void
    let message: String
    var testDescription: String { message }

    init(_ message: String, _ make: @escaping @Sendable () throws -> Void) {
        self.make = make
        self.message = message
    }

    static let all: [InvalidCase] = [
        InvalidCase("invalid exponential distribution: mean = -1.0, expected a finite number > 0") {
            _ = try ExponentialDistribution(mean: -1)
        },
        InvalidCase("invalid exponential distribution: mean = 0.0, expected a finite number > 0") {
            _ = try ExponentialDistribution(mean: 0)
        },
        InvalidCase("invalid exponential distribution: mean = inf, expected a finite number > 0") {
            _ = try ExponentialDistribution(mean: .infinity)
        },
        InvalidCase("invalid exponential distribution: mean = nan, expected a finite number > 0") {
            _ = try ExponentialDistribution(mean: .nan)
        },
        InvalidCase("invalid discrete distribution: no outcomes were given") {
            _ = try DiscreteDistribution(weights: [])
        },
        InvalidCase("invalid discrete distribution: all weights are zero") {
            _ = try DiscreteDistribution(weights: [0, 0, 0])
        },
        InvalidCase("invalid discrete distribution: weight 1 is -2.0; expected a finite number ≥ 0") {
            _ = try DiscreteDistribution(weights: [1, -2, 3])
        },
        InvalidCase("invalid discrete distribution: weight 0 is nan; expected a finite number ≥ 0") {
            _ = try DiscreteDistribution(weights: [.nan])
        },
        InvalidCase("invalid uniform distribution: upper = 1.0, expected a finite number ≥ lower (2.0)") {
            _ = try UniformDistribution(lower: 2, upper: 1)
        },
        InvalidCase("invalid uniform distribution: lower = -inf, expected a finite number") {
            _ = try UniformDistribution(lower: -.infinity, upper: 1)
        },
        InvalidCase("invalid normal distribution: standardDeviation = -1.0, expected a finite number ≥ 0") {
            _ = try NormalDistribution(mean: 0, standardDeviation: -1)
        },
        InvalidCase("invalid normal distribution: mean = nan, expected a finite number") {
            _ = try NormalDistribution(mean: .nan, standardDeviation: 1)
        },
        InvalidCase("invalid lognormal distribution: sigma = -0.5, expected a finite number ≥ 0") {
            _ = try LogNormalDistribution(mu: 0, sigma: -0.5)
        },
        InvalidCase("invalid lognormal distribution: mean = 0.0, expected a finite number > 0") {
            _ = try LogNormalDistribution(mean: 0, standardDeviation: 1)
        },
        InvalidCase("invalid lognormal distribution: standardDeviation = -1.0, expected a finite number ≥ 0") {
            _ = try LogNormalDistribution(mean: 1, standardDeviation: -1)
        },
        InvalidCase("invalid Pareto distribution: scale = 0.0, expected a finite number > 0") {
            _ = try ParetoDistribution(scale: 0, shape: 2)
        },
        InvalidCase("invalid Pareto distribution: shape = -3.0, expected a finite number > 0") {
            _ = try ParetoDistribution(scale: 1, shape: -3)
        },
        InvalidCase("invalid Bernoulli distribution: probability = 1.5, expected a number in [0, 1]") {
            _ = try BernoulliDistribution(probability: 1.5)
        },
        InvalidCase("invalid Bernoulli distribution: probability = nan, expected a number in [0, 1]") {
            _ = try BernoulliDistribution(probability: .nan)
        },
        InvalidCase("invalid discrete distribution: no values were given") {
            _ = try EmpiricalDistribution(values: [])
        },
        InvalidCase("invalid discrete distribution: value 1 is inf; expected a finite number") {
            _ = try EmpiricalDistribution(values: [1, .infinity])
        },
        InvalidCase("invalid discrete distribution: 1 weights for 2 values; expected one weight per value") {
            _ = try EmpiricalDistribution(values: [1, 2], weights: [1])
        },
        InvalidCase("invalid discrete distribution: all weights are zero") {
            _ = try EmpiricalDistribution(values: [1, 2], weights: [0, 0])
        },
    ]
}

