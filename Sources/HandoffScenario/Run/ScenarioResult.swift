import Handoff
import SimKernel

/// The result of running one scenario: each expectation checked, or the
/// error that stopped it.
public struct ScenarioResult: Sendable {
    /// The scenario.
    public let scenario: Scenario
    /// The seed the trials ran under.
    public let seed: UInt64
    /// How many trials ran (or were to run).
    public let trials: Int
    /// Each expectation's result, in file order (empty when ``failure`` is
    /// set).
    public let expectations: [ExpectationResult]
    /// What happened to each (activity, receiving device) pair the
    /// expectations name, over all trials (empty when ``failure`` is set).
    public let pairs: [PairSummary]
    /// Why the scenario stopped before its expectations could be checked.
    public let failure: ScenarioError?
    /// A digest of what every trial showed (outcomes, latencies, trace
    /// events), of fixed size: two runs that agree on it agree on every
    /// figure. Used by the determinism check.
    package let fingerprints: TrialFingerprints
    /// Every trial's samples, in trial order, when the runner recorded
    /// them (``ScenarioRunner/recordsSamples``); empty otherwise.
    package let samples: [TrialSample]
    /// The trials that matched the runner's ``TrialFilter``
    /// (``ScenarioRunner/trialFilter``), in trial order; nil without one.
    package var matchingTrials: TrialMatches? = nil
    /// Wall-clock time the run took, in seconds: the only figure that
    /// differs between runs, and never part of a digest.
    package let wallClockSeconds: Double

    /// Whether every expectation held (on its point estimate: a fragile
    /// expectation held).
    public var passed: Bool { failure == nil && expectations.allSatisfy(\.passed) }

    /// Whether every expectation held but at least one only fragilely (its
    /// confidence interval crosses what it promises).
    public var isFragile: Bool { passed && expectations.contains { $0.verdict == .fragile } }
}

/// What happened to one activity on one receiving device over all trials.
public struct PairSummary: Hashable, Sendable {
    /// The activity's name.
    public let activity: String
    /// The receiving device.
    public let device: String
    /// How many trials ended each way, most frequent first (ties by name):
    /// "continued", "failed (4609 connectionUnavailable)", …
    public let outcomes: [OutcomeCount]
    /// Percentiles of each latency over the trials that reached its end.
    public let latencies: [LatencySummary]
    /// Where accept → continue went, phase by phase, over the trials that
    /// continued (nil when none did).
    public let budget: BudgetSummary?
}

/// How many trials ended one way.
public struct OutcomeCount: Hashable, Sendable {
    /// The outcome in words.
    public let outcome: String
    /// The number of trials.
    public let trials: Int
}

/// Percentiles (nearest rank) of one latency, to three significant digits
/// (`LatencyHistogram.value(atPercentile:)`, as a sweep reports them);
/// the maximum is exact.
public struct LatencySummary: Hashable, Sendable {
    /// Which latency.
    public let metric: LatencyMetric
    /// How many trials reached its end.
    public let count: Int
    /// p50, p90, p95, p99 and the maximum (nil when no trial reached it).
    public let p50, p90, p95, p99, max: SimDuration?
}

/// One expectation checked.
public struct ExpectationResult: Hashable, Sendable {
    /// The expectation.
    package let expectation: Expectation
    /// Whether it held, on the point estimate (a fragile expectation held).
    public var passed: Bool { verdict != .fail }
    /// Pass, fragile or fail.
    public let verdict: Verdict
    /// The confidence interval or bound behind the verdict; nil when there
    /// was nothing to estimate (no trial, or no trial reached a latency's
    /// end).
    public let confidence: VerdictConfidence?
    /// What it asks, in words: "outcome on ipad is continued in every trial".
    public let asked: String
    /// What was measured, in words: "continued in 97 of 100 trials (97%)".
    public let measured: String
    /// A trial that shows the failure (the first that breaks it, or the one
    /// at the percentile), to replay.
    public let failingTrial: Int?
}

/// Summaries of every observed pair.
func pairSummaries(scenario: Scenario, plan: ObservationPlan, tally: TrialTally) -> [PairSummary] {
    plan.pairs.enumerated().map { index, pair in
        let outcomes = tally.pairs[index].outcomes
            .map { OutcomeCount(outcome: $0.outcome.map { "\($0)" } ?? "not observed", trials: $0.trials) }
            .sorted { ($1.trials, $0.outcome) < ($0.trials, $1.outcome) }
        let latencies = zip(LatencyMetric.allCases, tally.pairs[index].latencies).map { metric, histogram in
            func percentile(_ p: Double) -> SimDuration? { histogram.value(atPercentile: p).map(SimDuration.init) }
            return LatencySummary(
                metric: metric, count: Int(histogram.count), p50: percentile(50), p90: percentile(90),
                p95: percentile(95), p99: percentile(99), max: histogram.max.map(SimDuration.init))
        }
        return PairSummary(
            activity: scenario.activities[pair.activity].name, device: pair.device, outcomes: outcomes,
            latencies: latencies, budget: tally.pairs[index].budget.summary())
    }
}

/// Checks expectations against the trials' tally.
struct ExpectationEvaluator {
    let scenario: Scenario
    let plan: ObservationPlan
    let tally: TrialTally

    var trials: Int { tally.trials }

    /// Every expectation's result, in file order.
    func evaluateAll() -> [ExpectationResult] {
        scenario.expectations.indices.map(evaluate)
    }

    func evaluate(_ index: Int) -> ExpectationResult {
        let expectation = scenario.expectations[index]
        let asked = expectation.question(in: scenario)
        switch (expectation.kind, tally.checks[index]) {
        case let (.outcome(kind, rate), .share(count, firstMatch, firstMiss)):
            return share(expectation, rate: rate, asked: asked, what: kind.rawValue, count, firstMatch, firstMiss)
        case let (.successRate(rate), .share(count, firstMatch, firstMiss)):
            return share(expectation, rate: rate, asked: asked, what: "continued (app or browser)", count, firstMatch, firstMiss)
        case let (.error(error, rate), .share(count, firstMatch, firstMiss)):
            return share(expectation, rate: rate, asked: asked, what: "failed with \(error.code)", count, firstMatch, firstMiss)
        case let (.notOffered(reason, rate), .share(count, firstMatch, firstMiss)):
            return share(
                expectation, rate: rate, asked: asked, what: "not offered (\(reason.rawValue))", count, firstMatch, firstMiss)
        case let (.callbacks(expected, rate), .sequence(matches, firstFailure)),
             let (.events(expected, rate), .sequence(matches, firstFailure)):
            return sequence(
                expectation, expected: expected, rate: rate, asked: asked, matches: matches, firstFailure: firstFailure)
        case let (.latency(metric, percentile, bound), .latency(firstBreaking)):
            return latency(
                expectation, metric: metric, percentile: percentile, bound: bound, asked: asked,
                histogram: tally.pairs[plan.expectationPairs[index]!].latencies[metric.index], firstBreaking: firstBreaking)
        default:
            preconditionFailure("expectation \(index) has a tally of another kind")
        }
    }

    /// An outcome share: every trial (no rate) or a fraction within `rate`.
    func share(
        _ expectation: Expectation, rate: RateBound?, asked: String, what: String,
        _ count: Int, _ firstMatch: Int?, _ firstMiss: (trial: Int, outcome: ContinuationOutcome?)?
    ) -> ExpectationResult {
        let fraction = trials == 0 ? 0 : Double(count) / Double(trials)
        let measured = "\(what) in \(count) of \(trials) trials (\(percentText(fraction)))"
        guard let rate else {
            let passed = count == trials
            let detail = passed ? measured
                : measured + "; trial \(firstMiss!.trial) was \(firstMiss!.outcome.map { "\($0)" } ?? "not observed")"
            let (verdict, confidence) = VerdictConfidence.share(
                passed: passed, exceptions: trials - count, trials: trials, allowed: nil)
            return ExpectationResult(
                expectation: expectation, verdict: verdict, confidence: confidence, asked: asked, measured: detail,
                failingTrial: passed ? nil : firstMiss?.trial)
        }
        let passed = rate.holds(for: fraction)
        let failing: Int?
        switch rate {
        case .atLeast: failing = passed ? nil : firstMiss?.trial
        case .atMost: failing = passed ? nil : firstMatch
        }
        let (verdict, confidence) = VerdictConfidence.share(passed: passed, rate: rate, matches: count, trials: trials)
        return ExpectationResult(
            expectation: expectation, verdict: verdict, confidence: confidence, asked: asked, measured: measured,
            failingTrial: failing)
    }

    /// An exact sequence of trace events in every trial.
    func sequence(
        _ expectation: Expectation, expected: [TraceEvent.Name], rate: RateBound?, asked: String, matches: Int,
        firstFailure: (trial: Int, got: [TraceEvent.Name])?
    ) -> ExpectationResult {
        func failure(_ trial: Int, _ got: [TraceEvent.Name]) -> String {
            "trial \(trial) had [\(got.map(\.rawValue).joined(separator: ", "))]" + firstDifference(got, expected)
        }
        guard let rate else {
            let (verdict, confidence) = VerdictConfidence.share(
                passed: firstFailure == nil, exceptions: trials - matches, trials: trials, allowed: nil)
            if let (trial, got) = firstFailure {
                return ExpectationResult(
                    expectation: expectation, verdict: verdict, confidence: confidence, asked: asked,
                    measured: failure(trial, got), failingTrial: trial)
            }
            return ExpectationResult(
                expectation: expectation, verdict: verdict, confidence: confidence, asked: asked,
                measured: "as expected in all \(trials) trials", failingTrial: nil)
        }
        let fraction = trials == 0 ? 0 : Double(matches) / Double(trials)
        let measured = "as expected in \(matches) of \(trials) trials (\(percentText(fraction)))"
        let passed = rate.holds(for: fraction)
        let (verdict, confidence) = VerdictConfidence.share(passed: passed, rate: rate, matches: matches, trials: trials)
        guard !passed, case .atLeast = rate, let (trial, got) = firstFailure else {
            return ExpectationResult(
                expectation: expectation, verdict: verdict, confidence: confidence, asked: asked,
                measured: firstFailure.map { measured + "; " + failure($0.trial, $0.got) } ?? measured, failingTrial: nil)
        }
        return ExpectationResult(
            expectation: expectation, verdict: verdict, confidence: confidence, asked: asked,
            measured: measured + "; " + failure(trial, got), failingTrial: trial)
    }

    /// Where two sequences first differ, in words.
    func firstDifference(_ got: [TraceEvent.Name], _ expected: [TraceEvent.Name]) -> String {
        for position in 0..<max(got.count, expected.count) {
            let left = position < got.count ? got[position] : nil
            let right = position < expected.count ? expected[position] : nil
            if left != right {
                return "; at position \(position + 1) expected \(right.map { "\"\($0)\"" } ?? "nothing"), found \(left.map { "\"\($0)\"" } ?? "nothing")"
            }
        }
        return ""
    }

    /// A latency percentile (nearest rank, from the pair's histogram) against
    /// its bound. The bound must hold for every value the histogram cannot
    /// tell from the exact percentile, so a latency never passes a bound
    /// the exact value breaks. The failing trial is the first whose latency
    /// broke the bound; one always exists when the check fails, since the
    /// histogram's range lies within the smallest and largest latency.
    func latency(
        _ expectation: Expectation, metric: LatencyMetric, percentile: Double, bound: DurationBound, asked: String,
        histogram: LatencyHistogram, firstBreaking: Int?
    ) -> ExpectationResult {
        let label = "p\(numberText(percentile))"
        guard let range = histogram.range(atPercentile: percentile) else {
            return ExpectationResult(
                expectation: expectation, verdict: .fail, confidence: nil, asked: asked,
                measured: "no trial of \(trials) reached the end of \(metric.rawValue)",
                failingTrial: trials == 0 ? nil : 0)
        }
        let low = SimDuration(nanoseconds: range.lowerBound)
        let high = SimDuration(nanoseconds: range.upperBound)
        let passed = bound.holds(for: low) && bound.holds(for: high)
        var measured = "\(label) = \(high.rounded(toSignificantDigits: 3)) over \(histogram.count) of \(trials) trials"
        if bound.holds(for: low) != bound.holds(for: high) {
            // The bound falls inside the bucket: say why it does not pass.
            measured += " (the histogram places it between \(low) and \(high), on both sides of the bound)"
        }
        let point: SimDuration
        switch bound {
        case .below: point = high
        case .above: point = low
        }
        let (verdict, confidence) = VerdictConfidence.percentile(
            passed: passed, histogram: histogram, percentile: percentile, bound: bound, point: point, trials: trials)
        return ExpectationResult(
            expectation: expectation, verdict: verdict, confidence: confidence, asked: asked, measured: measured,
            failingTrial: passed ? nil : firstBreaking)
    }
}

extension LatencyMetric {
    /// The metric's position in `allCases` (its histogram in a tally).
    var index: Int { LatencyMetric.allCases.firstIndex(of: self)! }
}

/// `95` as "95", `99.9` as "99.9".
func numberText(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
}

extension Expectation {
    /// What the expectation asks, in words, as reports and `list` show it:
    /// "outcome on ipad is continued in every trial", "acceptToContinue p95
    /// on ipad < 1.5s".
    package func question(in scenario: Scenario) -> String {
        let subject = scenario.activities.count > 1
            ? "\(scenario.activities[activity].name) on \(device)" : "on \(device)"
        func share(_ rate: RateBound?) -> String { rate.map { "in \($0) of trials" } ?? "in every trial" }
        switch kind {
        case let .outcome(kind, rate): return "outcome \(subject) is \(kind.rawValue) \(share(rate))"
        case let .successRate(rate): return "success rate \(subject) \(share(rate))"
        case let .error(error, rate): return "\(subject) fails with \(error) \(share(rate))"
        case let .notOffered(reason, rate): return "\(subject) is not offered because \(reason.rawValue) \(share(rate))"
        case let .callbacks(names, rate):
            return "callbacks on \(device) are exactly [\(names.map(\.rawValue).joined(separator: ", "))]"
                + (rate.map { " \(share($0))" } ?? "")
        case let .events(names, rate):
            return "events on \(device) are exactly [\(names.map(\.rawValue).joined(separator: ", "))]"
                + (rate.map { " \(share($0))" } ?? "")
        case let .latency(metric, percentile, bound):
            return "\(metric.rawValue) p\(numberText(percentile)) \(subject) \(bound)"
        }
    }
}
