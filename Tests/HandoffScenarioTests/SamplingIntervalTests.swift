import HandoffScenario
import SimKernel
import Testing

/// A percentile's sampling interval from order statistics, against
/// distributions whose quantiles are known in closed form.
@Suite("Sampling intervals on percentiles")
struct SamplingIntervalTests {
    /// `count` values drawn from `draw`, as a histogram.
    static func histogram(_ count: Int, seed: UInt64, _ draw: (inout Xoshiro256StarStar) -> Int64) -> LatencyHistogram {
        var generator = Xoshiro256StarStar(seed: seed)
        var histogram = LatencyHistogram()
        for _ in 0..<count { histogram.record(draw(&generator)) }
        return histogram
    }

    /// How often the 95% interval of `percentile` over `count` values holds
    /// `quantile`, over `replications` seeds.
    static func coverage(
        percentile: Double, count: Int, replications: Int, quantile: Double, _ draw: (inout Xoshiro256StarStar) -> Int64
    ) -> Double {
        var covered = 0
        for seed in 1...UInt64(replications) {
            let values = histogram(count, seed: seed * 7_919 + UInt64(percentile), draw)
            guard let interval = SamplingInterval(values, percentile: percentile) else { continue }
            // A missing end is unbounded on its side.
            let aboveLow = interval.low.map { Double($0) <= quantile } ?? true
            let belowHigh = interval.high.map { quantile <= Double($0) } ?? true
            if aboveLow && belowHigh { covered += 1 }
        }
        return Double(covered) / Double(replications)
    }

    // 400 replications of a 95% interval: coverage is at least 0.95 (the
    // intervals are conservative), so the count covered is at least
    // Binomial(400, 0.95), standard deviation 4.4; 4.5 of them below 380
    // is 360, 90%. Holds for any seed.
    static let replications = 400
    static let floor = 0.90

    @Test("the delay of a jittered link, latency + U(0, J): each percentile's interval covers latency + q·J at 95%",
          arguments: [50.0, 90, 95, 99])
    func uniformCoverage(percentile: Double) {
        let latency = 10_000_000.0, jitter = 3_000_000.0
        let quantile = latency + percentile / 100 * jitter
        let rate = Self.coverage(percentile: percentile, count: 300, replications: Self.replications, quantile: quantile) {
            Int64(latency + $0.unitInterval() * jitter)
        }
        #expect(rate >= Self.floor, "p\(percentile): covered in \(rate) of \(Self.replications)")
    }

    @Test("an exponential delay (mean 100 ms): p95's interval covers −ln(0.05)·100 ms at 95%")
    func exponentialCoverage() {
        let mean = 100_000_000.0
        let quantile = -PortableMath.log(0.05) * mean
        let rate = Self.coverage(percentile: 95, count: 500, replications: Self.replications, quantile: quantile) {
            Int64(-PortableMath.log(1 - $0.unitInterval()) * mean)
        }
        #expect(rate >= Self.floor, "covered in \(rate) of \(Self.replications)")
    }

    @Test("the ranks: too few values leave an end open; with enough, the interval holds the point estimate and narrows as 1/√n")
    func ranks() throws {
        let uniform = { (generator: inout Xoshiro256StarStar) -> Int64 in Int64(generator.unitInterval() * 1_000_000_000) }
        // 40 values: all 40 below the p95 has probability 0.95^40 = 0.13 > 2.5%, so no value is high enough.
        let few = try #require(SamplingInterval(Self.histogram(40, seed: 1, uniform), percentile: 95))
        #expect(few.high == nil && few.low != nil && few.values == 40)
        #expect(SamplingInterval(LatencyHistogram(), percentile: 95) == nil)
        func width(_ count: Int) throws -> Double {
            let histogram = Self.histogram(count, seed: 2, uniform)
            let interval = try #require(SamplingInterval(histogram, percentile: 95))
            let point = try #require(histogram.value(atPercentile: 95))
            let low = try #require(interval.low), high = try #require(interval.high)
            #expect(low <= point && point <= high)
            return Double(high - low)
        }
        // The width of p95's interval for U(0, 1 s) is about 2·1.96·√(0.95·0.05/n) s:
        // 0.054 s at 250, 0.0135 s at 4,000 values; a quarter at 16× the values.
        let ratio = try width(4_000) / width(250)
        #expect(ratio > 0.15 && ratio < 0.40, "width ratio \(ratio)")
    }
}
