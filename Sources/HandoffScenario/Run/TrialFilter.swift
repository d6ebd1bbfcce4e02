import Handoff
import SimKernel

/// Which single trials of a scenario to list: those that ended a given way,
/// or took longer than a bound, so they can be replayed and looked at.
///
/// A trial matches when some activity, on some device other than its
/// source, meets every condition given: its outcome is of ``outcome`` (when
/// set), and its ``latency`` is over the bound (when set; a trial that never
/// reached the metric's end does not match). Only the first ``limit``
/// matching trials, in trial order, are kept with what matched; the rest
/// are counted. The result does not depend on how many threads ran the
/// trials.
///
/// ```swift
/// let filter = TrialFilter(outcome: .failed, limit: 20)
/// let result = ScenarioRunner(jobs: 4, trialFilter: filter).run(scenario)
/// for match in result.matchingTrials?.trials ?? [] { print(match.trial) }
/// ```
package struct TrialFilter: Hashable, Sendable {
    /// The outcome a matching trial shows, if any is asked for.
    package var outcome: OutcomeKind?
    /// The latency a matching trial exceeds, if any is asked for.
    package var latencyMetric: LatencyMetric?
    /// The bound ``latencyMetric`` must exceed (strictly).
    package var latencyOver: SimDuration
    /// How many matching trials to keep (at least 1).
    package var limit: Int

    /// A filter on `outcome` and on `latencyMetric` over `latencyOver` (at
    /// least one should be given; with neither, every trial whose activity
    /// reached some device matches), keeping the first `limit` matches.
    package init(
        outcome: OutcomeKind? = nil, latencyMetric: LatencyMetric? = nil, over latencyOver: SimDuration = .zero,
        limit: Int = 20
    ) {
        self.outcome = outcome
        self.latencyMetric = latencyMetric
        self.latencyOver = latencyOver
        self.limit = max(1, limit)
    }

    /// What matched in one (activity, receiving device) pair of `summary`,
    /// or nil.
    func match(_ summary: ContinuationSummary?, activity: Int) -> TrialMatch.Pair? {
        guard let summary else { return nil }
        if let outcome, !outcome.matches(summary.outcome) { return nil }
        var measured: SimDuration?
        if let latencyMetric {
            guard let value = summary.latency(latencyMetric), value > latencyOver else { return nil }
            measured = value
        }
        return TrialMatch.Pair(activity: activity, device: summary.device, outcome: summary.outcome, latency: measured)
    }

    /// The pairs of the trial `run` has just run that match, in the
    /// scenario's activity and device order.
    func matches(_ scenario: Scenario, run: HandoffRun) -> [TrialMatch.Pair] {
        var pairs: [TrialMatch.Pair] = []
        for (activity, description) in scenario.activities.enumerated() {
            for receiver in scenario.setup.devices where receiver.name != description.device {
                if let pair = match(run.summary(of: ActivityID(activity), on: receiver.name), activity: activity) {
                    pairs.append(pair)
                }
            }
        }
        return pairs
    }
}

/// One trial that matched a ``TrialFilter``, and what matched in it.
package struct TrialMatch: Hashable, Sendable {
    /// One activity on one receiving device that met the filter.
    package struct Pair: Hashable, Sendable {
        /// The activity's index in ``Scenario/activities``.
        package let activity: Int
        /// The receiving device.
        package let device: String
        /// How the continuation ended there.
        package let outcome: ContinuationOutcome
        /// The filter's latency as measured, when the filter has one.
        package let latency: SimDuration?
    }

    /// The trial's index, from 0.
    package let trial: Int
    /// Every pair that met the filter, in activity and device order.
    package let pairs: [Pair]
}

/// The trials of one scenario that matched a ``TrialFilter``: the first
/// ``TrialFilter/limit`` of them, and how many matched in all.
package struct TrialMatches: Hashable, Sendable {
    /// The filter.
    let filter: TrialFilter
    /// The first matching trials, in trial order.
    package private(set) var trials: [TrialMatch]
    /// How many trials matched, listed or not.
    package private(set) var total: Int

    /// None yet.
    init(filter: TrialFilter) {
        self.filter = filter
        trials = []
        total = 0
    }

    /// Adds trial `trial` if some pair matched.
    mutating func add(_ trial: Int, pairs: [TrialMatch.Pair]) {
        guard !pairs.isEmpty else { return }
        total += 1
        if trials.count < filter.limit { trials.append(TrialMatch(trial: trial, pairs: pairs)) }
    }

    /// Appends the matches of later trials (the next piece, in order).
    mutating func append(_ later: TrialMatches) {
        total += later.total
        trials.append(contentsOf: later.trials.prefix(max(0, filter.limit - trials.count)))
    }
}


