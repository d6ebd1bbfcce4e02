/// A random duration: how long something takes when it is not always the
/// same (an app's launch, a device's processing of one message).
///
/// A sample is whole nanoseconds, never negative and never above
/// ``largestSample`` (a week), so that whatever a caller adds it to stays far
/// inside `Int64`. Sampling draws from a generator the caller passes in, as
/// every ``Distribution`` does.
///
/// ```swift
/// let launch = try DurationDistribution.logNormal(median: .milliseconds(400), sigma: 0.35)
/// var rng = RandomStreamKey(seed: 7).generator("launch")
/// let delay = launch.sample(using: &rng)   // 400 ms typical, 5% above 712 ms
/// ```
public enum DurationDistribution: Hashable, Sendable, CustomStringConvertible {
    /// Always exactly this long.
    case fixed(SimDuration)
    /// Uniform from `lower` to `upper` (to the nanosecond).
    case uniform(lower: SimDuration, upper: SimDuration)
    /// Log-normal: `median · e^(σ·Z)` with Z standard normal, so half the
    /// samples are below `median` and `median · e^(1.645σ)` is the 95th
    /// percentile; `offset` is added to every sample (a minimum).
    case logNormal(median: SimDuration, sigma: Double, offset: SimDuration)

    /// The largest sample any distribution gives: 7 days.
    public static let largestSample = SimDuration.seconds(168 * 3600)

    /// A log-normal with no offset, checked.
    ///
    /// - Throws: ``SimKernelError/invalidParameter(distribution:parameter:value:expected:)``
    ///   when the median is not positive or σ is not from 0 to 5.
    public static func logNormal(median: SimDuration, sigma: Double) throws(SimKernelError) -> DurationDistribution {
        let distribution = DurationDistribution.logNormal(median: median, sigma: sigma, offset: .zero)
        try distribution.validate()
        return distribution
    }

    /// Checks the parameters: durations from 0 to ``largestSample``, a
    /// uniform's lower end not above its upper end, a log-normal's median
    /// above 0 and σ from 0 to 5.
    ///
    /// - Throws: ``SimKernelError/invalidParameter(distribution:parameter:value:expected:)``.
    public func validate() throws(SimKernelError) {
        func check(_ duration: SimDuration, _ distribution: String, _ parameter: String) throws(SimKernelError) {
            try requireParameter(
                duration >= .zero && duration <= Self.largestSample, distribution, parameter,
                Double(duration.nanoseconds) / 1e9, "a duration from 0 to 168h (in seconds)")
        }
        switch self {
        case let .fixed(duration):
            try check(duration, "fixed", "duration")
        case let .uniform(lower, upper):
            try check(lower, "uniform", "lower")
            try check(upper, "uniform", "upper")
            try requireParameter(
                lower <= upper, "uniform", "lower", Double(lower.nanoseconds) / 1e9, "at most the upper end")
        case let .logNormal(median, sigma, offset):
            try check(median, "logNormal", "median")
            try check(offset, "logNormal", "offset")
            try requireParameter(
                median > .zero, "logNormal", "median", Double(median.nanoseconds) / 1e9, "a duration > 0")
            try requireParameter(sigma.isFinite && sigma >= 0 && sigma <= 5, "logNormal", "sigma", sigma, "a number from 0 to 5")
        }
    }

    /// Whether every sample is the same duration.
    public var isFixed: Bool {
        switch self {
        case .fixed: return true
        case let .uniform(lower, upper): return lower == upper
        case let .logNormal(_, sigma, _): return sigma == 0
        }
    }

    /// The median: the duration half the samples stay under.
    public var median: SimDuration {
        switch self {
        case let .fixed(duration): return duration
        case let .uniform(lower, upper): return lower + .nanoseconds((upper.nanoseconds - lower.nanoseconds) / 2)
        case let .logNormal(median, _, offset): return min(median + offset, Self.largestSample)
        }
    }

    /// Draws one duration. A fixed duration draws nothing from `generator`.
    public func sample(using generator: inout Xoshiro256StarStar) -> SimDuration {
        switch self {
        case let .fixed(duration):
            return duration
        case let .uniform(lower, upper):
            guard upper > lower else { return lower }
            return .nanoseconds(generator.uniform(in: lower.nanoseconds...upper.nanoseconds))
        case let .logNormal(median, sigma, offset):
            guard sigma > 0 else { return min(median + offset, Self.largestSample) }
            let factor = PortableMath.exp(sigma * NormalDistribution.standardSample(using: &generator))
            let nanoseconds = (Double(median.nanoseconds) * factor).rounded()
            let limit = Double(Self.largestSample.nanoseconds)
            let drawn = SimDuration.nanoseconds(Int64(min(max(nanoseconds, 0), limit)))
            return min(drawn + offset, Self.largestSample)
        }
    }

    /// `"400ms"`, `"uniform 1s…5s"`, `"log-normal median 400ms σ 0.35"`
    /// (`+ 10ms` when offset).
    public var description: String {
        switch self {
        case let .fixed(duration): return duration.description
        case let .uniform(lower, upper): return "uniform \(lower)…\(upper)"
        case let .logNormal(median, sigma, offset):
            let base = "log-normal median \(median) σ \(sigma)"
            return offset == .zero ? base : "\(base) + \(offset)"
        }
    }
}
