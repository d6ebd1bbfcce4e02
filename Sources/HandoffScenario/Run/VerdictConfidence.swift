import SimKernel

/// An expectation's verdict: held, held but not surely, or broken.
///
/// The point estimate decides between ``pass`` and ``fail`` exactly as it
/// always has; ``fragile`` is a pass whose confidence interval (or bound)
/// reaches across what the expectation promises, so that another seed or
/// another trial count could turn it into a failure.
public enum Verdict: String, CaseIterable, Hashable, Sendable {
    /// The expectation held, and its confidence interval lies within what
    /// it promises.
    case pass
    /// The expectation held, but its confidence interval crosses what it
    /// promises: more trials would settle it one way or the other.
    case fragile
    /// The expectation did not hold.
    case fail
}

/// How sure an expectation's verdict is: the confidence interval of the
/// figure it bounds, at ``level``, and how many trials would settle a
/// fragile verdict.
///
/// - A percentile bound (`latency`) gets a two-sided, distribution-free
///   interval of the percentile from order statistics: ranks `l` and `u`
///   such that, for B ~ Binomial(n, p) the number of the n values below the
///   true p-quantile, P(B ≤ l − 1) ≤ α/2 and P(B ≥ u) ≤ α/2. The values at
///   those ranks are read from the latency histogram (the bucket's far edge
///   on each side, so the interval is never narrower than the exact one).
/// - A share (`outcome`, `successRate`, `error`, `notOffered`, `callbacks`,
///   `events`) gets a one-sided Clopper–Pearson upper bound on the rate of
///   *exceptions*, trials against the promise (those that did not match,
///   or, for `atMost`, those that did): with x exceptions in n trials, the
///   rate q at which P(X ≤ x) = α. At zero exceptions it is 1 − α^(1/n),
///   the exact form of the rule of three (≈ 3/n at 95%).
///
/// An expectation "in every trial" promises that no exception is seen, not
/// a rate; it never is fragile (more trials can only find an exception,
/// not settle it), and its bound says how often one could still happen.
public struct VerdictConfidence: Hashable, Sendable {
    /// The confidence level of every interval and bound: 95%.
    public static let level = 0.95

    /// What the interval is of.
    public enum Interval: Hashable, Sendable {
        /// A percentile: the two-sided interval's ends (nil where the
        /// sample is too small to have an order statistic far enough out)
        /// and the number of values it was read from.
        case percentile(low: SimDuration?, high: SimDuration?, values: Int)
        /// A share: the exceptions seen in `trials` trials, the upper bound
        /// on the exceptions' rate, and the highest rate the expectation
        /// allows (0 for "in every trial").
        case exceptionRate(exceptions: Int, trials: Int, upperBound: Double, allowed: Double)
    }

    /// The interval.
    public let interval: Interval
    /// For a fragile verdict, about how many trials would settle it if the
    /// measured rate or spread held (see `trialsToSettle(exceptions:trials:allowed:)`
    /// and `trialsToSettle(values:trials:point:end:bound:)`); nil when the
    /// verdict is not fragile or no trial count would settle it.
    public let trialsToSettle: Int?
    /// Whether ``trialsToSettle`` is only the least count at which the
    /// interval has an end on the bound's side at all.
    public let trialsToSettleIsMinimum: Bool

    /// The interval in words: "95% interval 1.22s–3.5s", "exception rate
    /// ≤ 2.95% (95% upper bound, rule of three)".
    public var text: String {
        let level = percentText(Self.level)
        switch interval {
        case let .percentile(low, high, _):
            let lowText = low.map { "\($0.rounded(toSignificantDigits: 3))" } ?? "−∞"
            let highText = high.map { "\($0.rounded(toSignificantDigits: 3))" } ?? "∞"
            return "\(level) interval \(lowText)–\(highText)"
        case let .exceptionRate(exceptions, _, upperBound, _):
            return "exception rate ≤ \(Self.rateText(upperBound)) (\(level) upper bound\(exceptions == 0 ? ", rule of three" : ""))"
        }
    }

    /// For a fragile verdict, how many trials would settle it, in words.
    public var settleText: String? {
        guard let trialsToSettle else {
            if case let .exceptionRate(exceptions, trials, upperBound, allowed) = interval, upperBound > allowed, allowed > 0,
               Double(exceptions) / Double(trials) >= allowed - 1e-9 {
                return "the measured rate is at the bound: no trial count would settle it"
            }
            return nil
        }
        return "\(trialsToSettleIsMinimum ? "at least" : "about") \(Self.groupedText(trialsToSettle)) trials would settle it"
    }

    /// The most trials a fragile verdict is said to need: beyond this a
    /// count is no advice (ten times the most trials a scenario may run).
    static let maximumTrialsToSettle = 100_000_000

    /// α, one minus the confidence level.
    static var alpha: Double { 1 - level }

    /// The verdict and confidence of a share that passed (or not) on its
    /// point estimate.
    ///
    /// - Parameters:
    ///   - passed: whether the point estimate holds.
    ///   - exceptions: trials against the promise.
    ///   - trials: all trials.
    ///   - allowed: the highest rate of exceptions the expectation allows;
    ///     nil for "in every trial" (as is 0).
    static func share(passed: Bool, exceptions: Int, trials: Int, allowed: Double?) -> (Verdict, VerdictConfidence?) {
        guard trials > 0 else { return (passed ? .pass : .fail, nil) }
        let upper = BinomialBounds.upperBound(events: exceptions, trials: trials, alpha: alpha)
        let interval = Interval.exceptionRate(
            exceptions: exceptions, trials: trials, upperBound: upper, allowed: allowed ?? 0)
        guard passed else { return (.fail, VerdictConfidence(interval: interval, trialsToSettle: nil, trialsToSettleIsMinimum: false)) }
        guard let allowed, allowed > 0, upper > allowed else {
            return (.pass, VerdictConfidence(interval: interval, trialsToSettle: nil, trialsToSettleIsMinimum: false))
        }
        return (.fragile, VerdictConfidence(
            interval: interval, trialsToSettle: trialsToSettle(exceptions: exceptions, trials: trials, allowed: allowed),
            trialsToSettleIsMinimum: false))
    }

    /// The verdict and confidence of a share with a rate: for `atLeast r`
    /// the exceptions are the trials that did not match and A = 1 − r; for
    /// `atMost r` they are the trials that matched and A = r. A rate of 0
    /// allowed (`atLeast 100%`, `atMost 0%`) promises what "in every trial"
    /// does.
    static func share(passed: Bool, rate: RateBound, matches: Int, trials: Int) -> (Verdict, VerdictConfidence?) {
        switch rate {
        case let .atLeast(bound):
            return share(passed: passed, exceptions: trials - matches, trials: trials, allowed: max(0, 1 - bound))
        case let .atMost(bound):
            return share(passed: passed, exceptions: matches, trials: trials, allowed: bound)
        }
    }

    /// The verdict and confidence of a percentile bound whose point
    /// estimate passed (or not).
    ///
    /// - Parameters:
    ///   - passed: whether the point estimate holds (today's check on the
    ///     histogram's bucket).
    ///   - point: the point estimate's edge nearest the bound (the bucket's
    ///     top for a `below` bound, its bottom for `above`).
    static func percentile(
        passed: Bool, histogram: LatencyHistogram, percentile: Double, bound: DurationBound, point: SimDuration,
        trials: Int
    ) -> (Verdict, VerdictConfidence) {
        let values = Int(histogram.count)
        let fraction = percentile / 100
        let ranks = BinomialBounds.quantileRanks(count: values, fraction: fraction, alpha: alpha)
        let low = ranks.low.flatMap { histogram.range(atRank: UInt64($0)) }.map { SimDuration(nanoseconds: $0.lowerBound) }
        let high = ranks.high.flatMap { histogram.range(atRank: UInt64($0)) }.map { SimDuration(nanoseconds: $0.upperBound) }
        let interval = Interval.percentile(low: low, high: high, values: values)
        guard passed else { return (.fail, VerdictConfidence(interval: interval, trialsToSettle: nil, trialsToSettleIsMinimum: false)) }
        let end: SimDuration?
        switch bound {
        case .below: end = high
        case .above: end = low
        }
        if let end, bound.holds(for: end) {
            return (.pass, VerdictConfidence(interval: interval, trialsToSettle: nil, trialsToSettleIsMinimum: false))
        }
        let limit: SimDuration
        switch bound {
        case let .below(value), let .above(value): limit = value
        }
        guard let end else {
            // No order statistic is far enough out: at least enough values
            // for one to be.
            let tail = switch bound {
            case .below: fraction
            case .above: 1 - fraction
            }
            let needed = tail <= 0 || tail >= 1 ? nil
                : Int((PortableMath.log(alpha / 2) / PortableMath.log(tail)).rounded(.up))
            return (.fragile, VerdictConfidence(
                interval: interval, trialsToSettle: needed.map { scaled($0, values: values, trials: trials) },
                trialsToSettleIsMinimum: true))
        }
        let settle = trialsToSettle(
            values: values, trials: trials, point: point.nanoseconds, end: end.nanoseconds, bound: limit.nanoseconds)
        return (.fragile, VerdictConfidence(interval: interval, trialsToSettle: settle, trialsToSettleIsMinimum: false))
    }

    /// About how many trials would settle a fragile share, if the rate of
    /// exceptions measured held: the least N at which a run with
    /// round(x·N/n) exceptions has its Clopper–Pearson bound at or below the
    /// allowed rate A. At zero exceptions that is ⌈ln α / ln(1 − A)⌉ (the
    /// rule of three, ≈ 3/A); otherwise it is found by doubling N from n,
    /// then bisection. Nil when the measured rate is not below A (no N
    /// settles it; A within 10⁻⁹ of it counts as equal, so that
    /// `atLeast 99%` allows 1 % however 1 − 0.99 rounds) or N would exceed
    /// ``maximumTrialsToSettle``.
    package static func trialsToSettle(exceptions x: Int, trials n: Int, allowed: Double) -> Int? {
        guard n > 0, allowed > 0 else { return nil }
        if allowed >= 1 { return nil }
        let rate = Double(x) / Double(n)
        guard rate < allowed - 1e-9 else { return nil }
        if x == 0 {
            let needed = (PortableMath.log(alpha) / PortableMath.log(1 - allowed)).rounded(.up)
            return needed > Double(maximumTrialsToSettle) ? nil : max(n + 1, Int(needed))
        }
        func settles(_ count: Int) -> Bool {
            let events = min(count, Int((rate * Double(count)).rounded()))
            return BinomialBounds.upperBound(events: events, trials: count, alpha: alpha) <= allowed
        }
        var bad = n
        var good = 2 * n
        while !settles(good) {
            bad = good
            good *= 2
            if good > maximumTrialsToSettle { return nil }
        }
        while good - bad > 1 {
            let middle = bad + (good - bad) / 2
            if settles(middle) { good = middle } else { bad = middle }
        }
        return good
    }

    /// About how many trials would settle a fragile percentile bound, if
    /// the spread measured held: the interval's side facing the bound
    /// shrinks as 1/√N, so with point estimate v, that end e and bound b,
    /// N = ⌈n·((e − v)/(b − v))²⌉ values, scaled by trials/values when not
    /// every trial reached the latency's end.
    package static func trialsToSettle(values: Int, trials: Int, point: Int64, end: Int64, bound: Int64) -> Int? {
        let width = Double(end - point).magnitude
        let margin = Double(bound - point).magnitude
        guard values > 0, width > 0, margin > 0 else { return nil }
        let ratio = width / margin
        let needed = (Double(values) * ratio * ratio).rounded(.up)
        guard needed <= Double(maximumTrialsToSettle) else { return nil }
        return scaled(max(values + 1, Int(needed)), values: values, trials: trials)
    }

    /// `needed` values as trials, when `values` of `trials` trials gave one.
    static func scaled(_ needed: Int, values: Int, trials: Int) -> Int {
        guard values > 0, trials > values else { return needed }
        return Int((Double(needed) * Double(trials) / Double(values)).rounded(.up))
    }

    /// A rate as a percentage to three significant digits (at most four
    /// decimals): "2.95%", "0.0599%", "30.0%".
    static func rateText(_ rate: Double) -> String {
        let percent = rate * 100
        guard percent > 0 else { return "0%" }
        // Decimals for three significant digits: 2 for 1–9.99, 1 for 10–99.9, …
        var decimals = 2
        var magnitude = 1.0
        while percent >= magnitude * 10, decimals > 0 {
            magnitude *= 10
            decimals -= 1
        }
        while percent < magnitude, decimals < 4 {
            magnitude /= 10
            decimals += 1
        }
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((percent * Double(scale)).rounded())
        guard decimals > 0 else { return "\(scaled)%" }
        let fraction = String(scaled % scale)
        return "\(scaled / scale)." + String(repeating: "0", count: decimals - fraction.count) + fraction + "%"
    }

    /// 12345 as "12,345".
    static func groupedText(_ value: Int) -> String {
        let digits = Array(String(value))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return result
    }
}

extension LatencyHistogram {
    /// The range known to hold the value of rank `rank` (1-based, in
    /// increasing order): its bucket, clamped to the recorded minimum and
    /// maximum; the first and last ranks exactly.
    ///
    /// - Returns: nil when `rank` is not in `1...count`.
    func range(atRank rank: UInt64) -> ClosedRange<Int64>? {
        guard rank >= 1, rank <= count, let minimum = min, let maximum = max else { return nil }
        if rank == 1 { return minimum...minimum }
        if rank == count { return maximum...maximum }
        var seen: UInt64 = 0
        for bucket in buckets {
            seen += bucket.count
            if seen >= rank {
                return Swift.min(Swift.max(bucket.lowestValue, minimum), maximum)...Swift.min(Swift.max(bucket.highestValue, minimum), maximum)
            }
        }
        return maximum...maximum
    }
}
