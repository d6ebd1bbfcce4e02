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
    public let failure: ScenarioRunFailure?
    /// A 64-bit fingerprint of what each trial showed (outcomes, latencies,
    /// trace events), in trial order: two runs that agree on these agree
    /// on every figure. Used by the determinism check.
    public let trialFingerprints: [UInt64]
    /// Wall-clock time the run took, in seconds: the only figure that
    /// differs between runs, and never part of a digest.
    public let wallClockSeconds: Double

    /// Whether every expectation held.
    public var passed: Bool { failure == nil && expectations.allSatisfy(\.passed) }
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
}

/// How many trials ended one way.
public struct OutcomeCount: Hashable, Sendable {
    /// The outcome in words.
    public let outcome: String
    /// The number of trials.
    public let trials: Int
}

/// Percentiles (nearest rank) of one latency.
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
    public let expectation: Expectation
    /// Whether it held.
    public let passed: Bool
    /// What it asks, in words: "outcome on ipad is continued in every trial".
    public let asked: String
    /// What was measured, in words: "continued in 97 of 100 trials (97%)".
    public let measured: String
    /// A trial that shows the failure (the first that breaks it, or the one
    /// at the percentile), to replay.
    public let failingTrial: Int?
}

/// Checks expectations against the trials' observations.
/// The nearest-rank `percentile` of ascending `sorted` (the rank as
/// `LatencyHistogram` computes it, so 95 % of 1 000 is rank 950 exactly).
func nearestRank<T>(_ sorted: [T], _ percentile: Double) -> T? {
    guard !sorted.isEmpty else { return nil }
    let rank = LatencyHistogram.rank(percentile: percentile, count: UInt64(sorted.count))
    return sorted[Int(rank) - 1]
}

/// Summaries of every observed pair.
func pairSummaries(scenario: Scenario, plan: ObservationPlan, observations: [TrialObservation]) -> [PairSummary] {
    plan.pairs.enumerated().map { index, pair in
        var counts: [String: Int] = [:]
        for observation in observations {
            let text = observation.pairs[index].outcome.map { "\($0)" } ?? "not observed"
            counts[text, default: 0] += 1
        }
        let outcomes = counts.map { OutcomeCount(outcome: $0.key, trials: $0.value) }
            .sorted { ($1.trials, $0.outcome) < ($0.trials, $1.outcome) }
        let latencies = LatencyMetric.allCases.map { metric in
            let values = observations.compactMap { $0.pairs[index].latency(metric) }.sorted()
            return LatencySummary(
                metric: metric, count: values.count, p50: nearestRank(values, 50), p90: nearestRank(values, 90),
                p95: nearestRank(values, 95), p99: nearestRank(values, 99), max: values.last)
        }
        return PairSummary(
            activity: scenario.activities[pair.activity].name, device: pair.device, outcomes: outcomes,
            latencies: latencies)
    }
}

struct ExpectationEvaluator {
    let scenario: Scenario
    let plan: ObservationPlan
    let observations: [TrialObservation]
    let seed: UInt64

    var trials: Int { observations.count }

    func evaluate(_ expectation: Expectation) -> ExpectationResult {
        let asked = expectation.question(in: scenario)
        switch expectation.kind {
        case let .outcome(kind, rate):
            return share(expectation, rate: rate, asked: asked, what: kind.rawValue) { kind.matches($0) }
        case let .successRate(rate):
            return share(expectation, rate: rate, asked: asked, what: "continued (app or browser)") {
                $0 == .continued || $0 == .continuedInBrowser
            }
        case let .error(error, rate):
            return share(expectation, rate: rate, asked: asked, what: "failed with \(error.code)") { $0 == .failed(error) }
        case let .notOffered(reason, rate):
            return share(expectation, rate: rate, asked: asked, what: "not offered (\(reason.rawValue))") {
                $0 == .notOffered(reason)
            }
        case let .callbacks(expected):
            return sequence(expectation, expected: expected, asked: asked) { $0.filter(scenarioCallbackNames.contains) }
        case let .events(expected):
            return sequence(expectation, expected: expected, asked: asked) { $0 }
        case let .latency(metric, percentile, bound):
            return latency(expectation, metric: metric, percentile: percentile, bound: bound, asked: asked)
        }
    }

    /// An outcome share: every trial (no rate) or a fraction within `rate`.
    func share(
        _ expectation: Expectation, rate: RateBound?, asked: String, what: String,
        _ matches: (ContinuationOutcome) -> Bool
    ) -> ExpectationResult {
        let index = plan.pairIndex(activity: expectation.activity, device: expectation.device)!
        var count = 0
        var firstMatch: Int?
        var firstMiss: Int?
        var missOutcome: ContinuationOutcome?
        for (trial, observation) in observations.enumerated() {
            let outcome = observation.pairs[index].outcome
            if let outcome, matches(outcome) {
                count += 1
                if firstMatch == nil { firstMatch = trial }
            } else if firstMiss == nil {
                firstMiss = trial
                missOutcome = outcome
            }
        }
        let fraction = trials == 0 ? 0 : Double(count) / Double(trials)
        let measured = "\(what) in \(count) of \(trials) trials (\(percentText(fraction)))"
        guard let rate else {
            let passed = count == trials
            let detail = passed ? measured
                : measured + "; trial \(firstMiss!) was \(missOutcome.map { "\($0)" } ?? "not observed")"
            return ExpectationResult(
                expectation: expectation, passed: passed, asked: asked, measured: detail,
                failingTrial: passed ? nil : firstMiss)
        }
        let passed = rate.holds(for: fraction)
        let failing: Int?
        switch rate {
        case .atLeast: failing = passed ? nil : firstMiss
        case .atMost: failing = passed ? nil : firstMatch
        }
        return ExpectationResult(
            expectation: expectation, passed: passed, asked: asked, measured: measured,
            failingTrial: failing)
    }

    /// An exact sequence of trace events in every trial.
    func sequence(
        _ expectation: Expectation, expected: [String], asked: String, _ select: ([String]) -> [String]
    ) -> ExpectationResult {
        let index = plan.traceIndex(expectation.device)!
        for (trial, observation) in observations.enumerated() {
            let got = select(observation.events[index])
            if got != expected {
                return ExpectationResult(
                    expectation: expectation, passed: false, asked: asked,
                    measured: "trial \(trial) had [\(got.joined(separator: ", "))]" + firstDifference(got, expected),
                    failingTrial: trial)
            }
        }
        return ExpectationResult(
            expectation: expectation, passed: true, asked: asked,
            measured: "as expected in all \(trials) trials", failingTrial: nil)
    }

    /// Where two sequences first differ, in words.
    func firstDifference(_ got: [String], _ expected: [String]) -> String {
        for position in 0..<max(got.count, expected.count) {
            let left = position < got.count ? got[position] : nil
            let right = position < expected.count ? expected[position] : nil
            if left != right {
                return "; at position \(position + 1) expected \(right.map { "\"\($0)\"" } ?? "nothing"), found \(left.map { "\"\($0)\"" } ?? "nothing")"
            }
        }
        return ""
    }

    /// A latency percentile (nearest rank) against its bound.
    func latency(
        _ expectation: Expectation, metric: LatencyMetric, percentile: Double, bound: DurationBound, asked: String
    ) -> ExpectationResult {
        let index = plan.pairIndex(activity: expectation.activity, device: expectation.device)!
        var values: [(SimDuration, Int)] = []
        for (trial, observation) in observations.enumerated() {
            if let value = observation.pairs[index].latency(metric) { values.append((value, trial)) }
        }
        let label = "p\(numberText(percentile))"
        guard !values.isEmpty else {
            return ExpectationResult(
                expectation: expectation, passed: false, asked: asked,
                measured: "no trial of \(trials) reached the end of \(metric.rawValue)",
                failingTrial: observations.isEmpty ? nil : 0)
        }
        // Stable order: by value, then trial.
        values.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        let (value, trial) = nearestRank(values, percentile)!
        let passed = bound.holds(for: value)
        return ExpectationResult(
            expectation: expectation, passed: passed, asked: asked,
            measured: "\(label) = \(value) over \(values.count) of \(trials) trials", failingTrial: passed ? nil : trial)
    }
}

/// `95` as "95", `99.9` as "99.9".
func numberText(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
}

extension Expectation {
    /// What the expectation asks, in words, as reports and `list` show it:
    /// "outcome on ipad is continued in every trial", "acceptToContinue p95
    /// on ipad < 1.5s".
    public func question(in scenario: Scenario) -> String {
        let subject = scenario.activities.count > 1
            ? "\(scenario.activities[activity].name) on \(device)" : "on \(device)"
        func share(_ rate: RateBound?) -> String { rate.map { "in \($0) of trials" } ?? "in every trial" }
        switch kind {
        case let .outcome(kind, rate): return "outcome \(subject) is \(kind.rawValue) \(share(rate))"
        case let .successRate(rate): return "success rate \(subject) \(share(rate))"
        case let .error(error, rate): return "\(subject) fails with \(error) \(share(rate))"
        case let .notOffered(reason, rate): return "\(subject) is not offered because \(reason.rawValue) \(share(rate))"
        case let .callbacks(names): return "callbacks on \(device) are exactly [\(names.joined(separator: ", "))]"
        case let .events(names): return "events on \(device) are exactly [\(names.joined(separator: ", "))]"
        case let .latency(metric, percentile, bound):
            return "\(metric.rawValue) p\(numberText(percentile)) \(subject) \(bound)"
        }
    }
}
