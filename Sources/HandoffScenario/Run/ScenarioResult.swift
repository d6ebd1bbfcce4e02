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
    let fingerprints: TrialFingerprints
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
    /// The outcome; nil when the pair was not observed in those trials.
    public let outcome: ContinuationOutcome?
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

/// One trial and how it ended.
public struct TrialOutcome: Hashable, Sendable {
    /// The trial's index.
    public let trial: Int
    /// How the pair's attempt ended; nil when the pair was not observed.
    public let outcome: ContinuationOutcome?
}

/// What an expectation measured, as numbers: reports put it in words.
public enum ExpectationMeasurement: Hashable, Sendable {
    /// A share of trials (`outcome`, `successRate`, `error`, `notOffered`):
    /// how many showed what the expectation counts, and how the others
    /// ended.
    case share(Share)
    /// An exact sequence of trace events (`callbacks`, `events`): how many
    /// trials showed it, and the first that did not.
    case sequence(Sequence)
    /// A latency percentile (`latency`): where the histogram places it.
    case percentile(Percentile)

    /// A share of trials.
    public struct Share: Hashable, Sendable {
        /// The trials that showed what the expectation counts.
        public let matching: Int
        /// The trials run.
        public let trials: Int
        /// How the other trials ended, most frequent first (ties by the
        /// outcome's description).
        public let others: [OutcomeCount]
        /// The first trial that did not show it, and how it ended.
        public let firstMiss: TrialOutcome?
        /// The first trial that showed it.
        public let firstMatch: Int?
    }

    /// An exact sequence of trace events.
    public struct Sequence: Hashable, Sendable {
        /// The trials whose sequence was as expected.
        public let matching: Int
        /// The trials run.
        public let trials: Int
        /// The first trial whose sequence differed, and that sequence.
        public let firstDifference: Difference?

        /// A trial's sequence that differed from the expected one.
        public struct Difference: Hashable, Sendable {
            /// The trial.
            public let trial: Int
            /// The sequence it had.
            public let got: [TraceEvent.Name]
            /// The first position (from 0) where it differs from the
            /// expected sequence.
            public let position: Int
            /// The expected name at ``position`` (nil past the expected
            /// sequence's end).
            public let expected: TraceEvent.Name?
            /// The name found at ``position`` (nil past the trial's
            /// sequence's end).
            public let found: TraceEvent.Name?
        }
    }

    /// A latency percentile.
    public struct Percentile: Hashable, Sendable {
        /// The percentile asked for (95 for p95).
        public let percentile: Double
        /// The trials that reached the latency's end.
        public let reached: Int
        /// The trials run.
        public let trials: Int
        /// The values the histogram cannot tell from the exact percentile:
        /// the bucket's low and high edges; nil when no trial reached the
        /// end.
        public let low, high: SimDuration?
        /// Whether the bound falls inside the bucket (its two edges fall on
        /// either side of it), which fails the expectation.
        public let straddlesBound: Bool
    }
}

/// One expectation checked.
public struct ExpectationResult: Hashable, Sendable {
    /// The expectation.
    package let expectation: Expectation
    /// The name of the activity the expectation is about, and whether its
    /// scenario has several (so that words about it name it).
    package let activityName: String
    package let namesActivity: Bool
    /// Whether it held, on the point estimate (a fragile expectation held).
    public var passed: Bool { verdict != .fail }
    /// Pass, fragile or fail.
    public let verdict: Verdict
    /// The confidence interval or bound behind the verdict; nil when there
    /// was nothing to estimate (no trial, or no trial reached a latency's
    /// end).
    public let confidence: VerdictConfidence?
    /// What was measured, as numbers.
    public let measurement: ExpectationMeasurement
    /// A trial that shows the failure (the first that breaks it, or the one
    /// at the percentile), to replay.
    public let failingTrial: Int?
}

/// Summaries of every observed pair.
func pairSummaries(scenario: Scenario, plan: ObservationPlan, tally: TrialTally) -> [PairSummary] {
    plan.pairs.enumerated().map { index, pair in
        let outcomes = sortedOutcomes(tally.pairs[index].outcomes)
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

/// Outcome counts, most frequent first, ties by the outcome's description
/// ("not observed" for none).
func sortedOutcomes(_ tallies: [TrialTally.OutcomeTally]) -> [OutcomeCount] {
    func key(_ outcome: ContinuationOutcome?) -> String { outcome.map { "\($0)" } ?? "not observed" }
    return tallies.map { OutcomeCount(outcome: $0.outcome, trials: $0.trials) }
        .sorted { ($1.trials, key($0.outcome)) < ($0.trials, key($1.outcome)) }
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
        // Shares and latencies are about a pair; sequences about a trace.
        var pair: TrialTally.Pair { tally.pairs[plan.expectationPairs[index]!] }
        let (verdict, confidence, measurement, failingTrial): (Verdict, VerdictConfidence?, ExpectationMeasurement, Int?)
        let check = tally.checks[index]
        switch expectation.kind.shape {
        case let .share(kind):
            (verdict, confidence, measurement, failingTrial) = share(kind, pair, check)
        case let .sequence(kind):
            (verdict, confidence, measurement, failingTrial) = sequence(
                expected: kind.expected, rate: kind.rate, matches: check.matches, firstFailure: check.firstFailure)
        case let .percentile(kind):
            (verdict, confidence, measurement, failingTrial) = latency(
                percentile: kind.percentile, bound: kind.bound, histogram: pair.latencies[kind.metric.index],
                firstBreaking: check.firstBreaking)
        }
        return ExpectationResult(
            expectation: expectation, activityName: scenario.activities[expectation.activity].name,
            namesActivity: scenario.activities.count > 1, verdict: verdict, confidence: confidence,
            measurement: measurement, failingTrial: failingTrial)
    }

    /// An outcome share: every trial (no rate) or a fraction within `rate`.
    func share(
        _ kind: any ShareExpectation, _ pair: TrialTally.Pair, _ check: TrialTally.Check
    ) -> (Verdict, VerdictConfidence?, ExpectationMeasurement, Int?) {
        let (rate, count, firstMatch, firstMiss) = (kind.rate, check.matches, check.firstMatch, check.firstMiss)
        let others = sortedOutcomes(pair.outcomes.filter { tally in
            guard let outcome = tally.outcome else { return true }
            return !kind.counts(outcome)
        })
        let measurement = ExpectationMeasurement.share(.init(
            matching: count, trials: trials, others: others,
            firstMiss: firstMiss.map { TrialOutcome(trial: $0.trial, outcome: $0.outcome) }, firstMatch: firstMatch))
        guard let rate else {
            let passed = count == trials
            let (verdict, confidence) = VerdictConfidence.share(
                passed: passed, exceptions: trials - count, trials: trials, allowed: nil)
            return (verdict, confidence, measurement, passed ? nil : firstMiss?.trial)
        }
        let fraction = trials == 0 ? 0 : Double(count) / Double(trials)
        let passed = rate.holds(for: fraction)
        let failing: Int?
        switch rate {
        case .atLeast: failing = passed ? nil : firstMiss?.trial
        case .atMost: failing = passed ? nil : firstMatch
        }
        let (verdict, confidence) = VerdictConfidence.share(passed: passed, rate: rate, matches: count, trials: trials)
        return (verdict, confidence, measurement, failing)
    }

    /// An exact sequence of trace events in every trial, or in a share of
    /// trials within `rate`.
    func sequence(
        expected: [TraceEvent.Name], rate: RateBound?, matches: Int, firstFailure: (trial: Int, got: [TraceEvent.Name])?
    ) -> (Verdict, VerdictConfidence?, ExpectationMeasurement, Int?) {
        let difference = firstFailure.map { trial, got in
            var position = 0
            while position < min(got.count, expected.count) && got[position] == expected[position] { position += 1 }
            return ExpectationMeasurement.Sequence.Difference(
                trial: trial, got: got, position: position,
                expected: position < expected.count ? expected[position] : nil, found: position < got.count ? got[position] : nil)
        }
        let measurement = ExpectationMeasurement.sequence(.init(matching: matches, trials: trials, firstDifference: difference))
        guard let rate else {
            let (verdict, confidence) = VerdictConfidence.share(
                passed: firstFailure == nil, exceptions: trials - matches, trials: trials, allowed: nil)
            return (verdict, confidence, measurement, firstFailure?.trial)
        }
        let fraction = trials == 0 ? 0 : Double(matches) / Double(trials)
        let passed = rate.holds(for: fraction)
        let (verdict, confidence) = VerdictConfidence.share(passed: passed, rate: rate, matches: matches, trials: trials)
        guard !passed, case .atLeast = rate else { return (verdict, confidence, measurement, nil) }
        return (verdict, confidence, measurement, firstFailure?.trial)
    }

    /// A latency percentile (nearest rank, from the pair's histogram) against
    /// its bound. The bound must hold for every value the histogram cannot
    /// tell from the exact percentile, so a latency never passes a bound
    /// the exact value breaks. The failing trial is the first whose latency
    /// broke the bound; one always exists when the check fails, since the
    /// histogram's range lies within the smallest and largest latency.
    func latency(
        percentile: Double, bound: DurationBound, histogram: LatencyHistogram, firstBreaking: Int?
    ) -> (Verdict, VerdictConfidence?, ExpectationMeasurement, Int?) {
        guard let range = histogram.range(atPercentile: percentile) else {
            let measurement = ExpectationMeasurement.percentile(.init(
                percentile: percentile, reached: 0, trials: trials, low: nil, high: nil, straddlesBound: false))
            return (.fail, nil, measurement, trials == 0 ? nil : 0)
        }
        let low = SimDuration(nanoseconds: range.lowerBound)
        let high = SimDuration(nanoseconds: range.upperBound)
        let passed = bound.holds(for: low) && bound.holds(for: high)
        let measurement = ExpectationMeasurement.percentile(.init(
            percentile: percentile, reached: Int(histogram.count), trials: trials, low: low, high: high,
            straddlesBound: bound.holds(for: low) != bound.holds(for: high)))
        let point: SimDuration
        switch bound {
        case .below: point = high
        case .above: point = low
        }
        let (verdict, confidence) = VerdictConfidence.percentile(
            passed: passed, histogram: histogram, percentile: percentile, bound: bound, point: point, trials: trials)
        return (verdict, confidence, measurement, passed ? nil : firstBreaking)
    }
}

extension LatencyMetric {
    /// The metric's position in `allCases` (its histogram in a tally).
    var index: Int { LatencyMetric.allCases.firstIndex(of: self)! }
}

