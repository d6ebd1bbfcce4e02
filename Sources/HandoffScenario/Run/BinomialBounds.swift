import SimKernel

/// Exact binomial tail probabilities and the confidence bounds built on
/// them: Clopper–Pearson bounds on a rate, and the ranks of the order
/// statistics that bracket a percentile.
///
/// Everything is computed with ``PortableMath`` (no platform `log`, `exp`
/// or `lgamma`), so every machine computes the same bits and a verdict
/// never differs between them.
///
/// The sums run outwards from the term at `x` in the direction in which the
/// terms fall, and stop when a term no longer changes the sum, so a tail
/// costs O(√(n·p·(1−p))) terms, not O(n).
enum BinomialBounds {
    /// ln(k!), exact by summation below 32 and by Stirling's series above
    /// (error below 1e-15 relative there).
    ///
    /// - Precondition: `k >= 0`.
    static func logFactorial(_ k: Int) -> Double {
        precondition(k >= 0, "logFactorial needs k >= 0, got \(k)")
        if k < 32 {
            var sum = 0.0
            var factor = 2
            while factor <= k {
                sum += PortableMath.log(Double(factor))
                factor += 1
            }
            return sum
        }
        // ln Γ(z) for z = k + 1: (z − ½)·ln z − z + ½·ln 2π + 1/(12z) − 1/(360z³) + 1/(1260z⁵) − 1/(1680z⁷).
        let z = Double(k + 1)
        let inverse = 1 / z
        let inverseSquared = inverse * inverse
        let series = inverse * (1.0 / 12 - inverseSquared * (1.0 / 360 - inverseSquared * (1.0 / 1260 - inverseSquared / 1680)))
        return (z - 0.5) * PortableMath.log(z) - z + halfLogTwoPi + series
    }

    /// ½·ln(2π).
    static let halfLogTwoPi = 0.918_938_533_204_672_7

    /// The natural logarithm of the probability of exactly `x` successes
    /// in `n` trials of probability `p` (−∞ when it is zero).
    static func logProbability(_ x: Int, trials n: Int, probability p: Double) -> Double {
        if p <= 0 { return x == 0 ? 0 : -.infinity }
        if p >= 1 { return x == n ? 0 : -.infinity }
        return logFactorial(n) - logFactorial(x) - logFactorial(n - x)
            + Double(x) * PortableMath.log(p) + Double(n - x) * PortableMath.log(1 - p)
    }

    /// P(X ≤ x) for X ~ Binomial(n, p).
    ///
    /// - Complexity: O(√(n·p·(1−p))) terms.
    static func cumulative(_ x: Int, trials n: Int, probability p: Double) -> Double {
        if x < 0 { return 0 }
        if x >= n { return 1 }
        if p <= 0 { return 1 }
        if p >= 1 { return 0 }
        let odds = p / (1 - p)
        // Terms fall going down from x when x is at or below the mode, and
        // going up from x + 1 when x is above it.
        if Double(x) <= Double(n + 1) * p - 1 {
            var term = PortableMath.exp(logProbability(x, trials: n, probability: p))
            var sum = term
            var k = x
            while k > 0 && term > 0 {
                term *= Double(k) / (Double(n - k + 1) * odds)
                k -= 1
                let next = sum + term
                if next == sum { break }
                sum = next
            }
            return min(1, sum)
        }
        var term = PortableMath.exp(logProbability(x + 1, trials: n, probability: p))
        var upper = term
        var k = x + 1
        while k < n && term > 0 {
            term *= Double(n - k) * odds / Double(k + 1)
            k += 1
            let next = upper + term
            if next == upper { break }
            upper = next
        }
        return max(0, 1 - upper)
    }

    /// The Clopper–Pearson one-sided upper confidence bound on a rate:
    /// the largest p for which `x` or fewer events in `n` trials still has
    /// probability at least `alpha` (P(X ≤ x; n, p) = α).
    ///
    /// At `x == 0` this is 1 − α^(1/n), which for α = 0.05 is the rule of
    /// three, ≈ 3/n.
    ///
    /// - Precondition: `0 <= x <= n`, `n > 0`, `0 < alpha < 1`.
    /// - Complexity: 64 bisection steps of ``cumulative(_:trials:probability:)``.
    static func upperBound(events x: Int, trials n: Int, alpha: Double) -> Double {
        precondition(n > 0 && x >= 0 && x <= n, "upperBound needs 0 <= x <= n and n > 0")
        if x == n { return 1 }
        if x == 0 { return 1 - PortableMath.exp(PortableMath.log(alpha) / Double(n)) }
        var low = Double(x) / Double(n)
        var high = 1.0
        for _ in 0..<64 {
            let middle = (low + high) / 2
            if middle <= low || middle >= high { break }
            if cumulative(x, trials: n, probability: middle) > alpha { low = middle } else { high = middle }
        }
        return high
    }

    /// The ranks (1-based) of the order statistics that bracket the
    /// `fraction`-quantile of the population with two-sided confidence
    /// 1 − `alpha`, distribution-free: `low` is the largest rank with
    /// P(B ≤ low − 1) ≤ α/2 and `high` the smallest with P(B ≥ high) ≤ α/2,
    /// for B ~ Binomial(n, fraction), the number of sampled values below
    /// the quantile. `low` is nil when even the smallest value is not
    /// low enough (P(B = 0) > α/2), `high` nil when even the largest is
    /// not high enough.
    ///
    /// - Complexity: O(log n) evaluations of ``cumulative(_:trials:probability:)``.
    static func quantileRanks(count n: Int, fraction: Double, alpha: Double) -> (low: Int?, high: Int?) {
        precondition(n > 0 && fraction >= 0 && fraction <= 1 && alpha > 0 && alpha < 1)
        let tail = alpha / 2
        // low: the largest r in 1...n with cumulative(r − 1) ≤ tail.
        var low: Int? = nil
        if cumulative(0, trials: n, probability: fraction) <= tail {
            var good = 1
            var bad = n + 1
            while bad - good > 1 {
                let middle = good + (bad - good) / 2
                if cumulative(middle - 1, trials: n, probability: fraction) <= tail { good = middle } else { bad = middle }
            }
            low = good
        }
        // high: the smallest r in 1...n with 1 − cumulative(r − 1) ≤ tail.
        var high: Int? = nil
        if 1 - cumulative(n - 1, trials: n, probability: fraction) <= tail {
            var bad = 0
            var good = n
            while good - bad > 1 {
                let middle = bad + (good - bad) / 2
                if 1 - cumulative(middle - 1, trials: n, probability: fraction) <= tail { good = middle } else { bad = middle }
            }
            high = good
        }
        return (low, high)
    }
}
