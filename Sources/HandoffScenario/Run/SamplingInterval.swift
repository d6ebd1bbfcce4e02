import SimKernel

/// A percentile's sampling interval: where the percentile of the model
/// (of infinitely many trials) lies, with the stated confidence, given the
/// trials run.
///
/// Distribution-free, from order statistics: with n values, the number B
/// of them below the population's q-quantile is Binomial(n, q), so the
/// values of ranks `low` and `high` (1-based; `low` the largest rank with
/// P(B ≤ low − 1) ≤ α/2, `high` the smallest with P(B ≥ high) ≤ α/2)
/// bracket the quantile with probability at least 1 − α whatever the
/// distribution. The ends are read from a histogram, so each is widened to
/// its bucket's outer edge (three significant digits): the interval only
/// grows, and its coverage holds.
///
/// ```swift
/// let interval = SamplingInterval(histogram, percentile: 95)
/// interval?.high   // nanoseconds, or nil with too few values
/// ```
public struct SamplingInterval: Hashable, Sendable {
    /// The low end in nanoseconds; nil when even the smallest value is
    /// not far enough down (too few values for this confidence).
    public let low: Int64?
    /// The high end in nanoseconds; nil when even the largest value is not
    /// far enough up.
    public let high: Int64?
    /// How many values the percentile was read from.
    public let values: Int
    /// The confidence (0.95 for a 95% interval).
    public let confidence: Double

    /// The interval of `percentile` (0–100) over `histogram`'s values at
    /// `confidence`; nil for an empty histogram.
    ///
    /// - Complexity: O(log n) binomial tails of O(√n) terms each, and a
    ///   pass over the histogram's buckets per end.
    public init?(_ histogram: LatencyHistogram, percentile: Double, confidence: Double = 0.95) {
        guard histogram.count > 0, percentile >= 0, percentile <= 100, confidence > 0, confidence < 1 else { return nil }
        let values = Int(clamping: histogram.count)
        let ranks = BinomialBounds.quantileRanks(count: values, fraction: percentile / 100, alpha: 1 - confidence)
        low = ranks.low.flatMap { histogram.range(atRank: UInt64($0)) }?.lowerBound
        high = ranks.high.flatMap { histogram.range(atRank: UInt64($0)) }?.upperBound
        self.values = values
        self.confidence = confidence
    }
}

/// A two-sided Clopper–Pearson interval on a rate of `events` in `trials`.
package struct RateInterval: Hashable, Sendable {
    /// The low end.
    package let low: Double
    /// The high end.
    package let high: Double

    /// The interval at `confidence` (each side α/2); 0…1 with no trials.
    package init(events: Int, trials: Int, confidence: Double) {
        guard trials > 0, events >= 0, events <= trials else {
            low = 0
            high = 1
            return
        }
        let tail = (1 - confidence) / 2
        high = BinomialBounds.upperBound(events: events, trials: trials, alpha: tail)
        low = 1 - BinomialBounds.upperBound(events: trials - events, trials: trials, alpha: tail)
    }
}
