/// The two-sample Kolmogorov–Smirnov statistic: how far apart two samples'
/// distributions are, as the largest vertical gap between their empirical
/// cumulative distribution functions (0 for identical distributions, 1 for
/// samples with no overlap).
///
/// Used to compare simulated latencies with measured ones:
///
/// ```swift
/// let gap = KolmogorovSmirnov.distance(simulated, measured)
/// let critical = KolmogorovSmirnov.criticalValue(simulated.count, measured.count)
/// print(gap <= critical ? "indistinguishable at 5 %" : "different")
/// ```
public enum KolmogorovSmirnov {
    /// The largest gap between the empirical distribution functions of `a`
    /// and `b`: sup over x of |F_a(x) − F_b(x)|.
    ///
    /// Ties are handled exactly: both functions step past every copy of a
    /// value before the gap is measured.
    ///
    /// - Returns: 0 when either sample is empty.
    /// - Precondition: no value is NaN.
    /// - Complexity: O((n + m) log(n + m)).
    public static func distance(_ a: [Double], _ b: [Double]) -> Double {
        precondition(!a.contains(where: \.isNaN) && !b.contains(where: \.isNaN), "a sample holds NaN")
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        let left = a.sorted(), right = b.sorted()
        var i = 0, j = 0
        var largest = 0.0
        while i < left.count, j < right.count {
            let x = Swift.min(left[i], right[j])
            while i < left.count, left[i] == x { i += 1 }
            while j < right.count, right[j] == x { j += 1 }
            largest = Swift.max(largest, Swift.abs(Double(i) / Double(left.count) - Double(j) / Double(right.count)))
        }
        return largest
    }

    /// The distance above which two samples of sizes `n` and `m` differ at
    /// significance level `alpha`, by the asymptotic formula
    /// c(α) · √((n + m) / (n · m)) with c(α) = √(−ln(α/2) / 2)
    /// (1.358 at 5 %).
    ///
    /// - Precondition: `n > 0`, `m > 0` and `0 < alpha < 1`.
    public static func criticalValue(_ n: Int, _ m: Int, alpha: Double = 0.05) -> Double {
        precondition(n > 0 && m > 0, "sample sizes must be positive, got \(n) and \(m)")
        precondition(alpha > 0 && alpha < 1, "alpha must be in (0, 1), got \(alpha)")
        let c = (-PortableMath.log(alpha / 2) / 2).squareRoot()
        return c * (Double(n + m) / (Double(n) * Double(m))).squareRoot()
    }
}
