import Handoff
import SimKernel

/// What a run of consecutive trials showed, in memory fixed by the scenario
/// (its pairs and expectations), never by the number of trials.
///
/// Each (activity, device) pair keeps its outcome counts and one
/// ``LatencyHistogram`` per metric, the same histograms a sweep keeps, so
/// `run` and `sweep` report the same percentile for the same trials; each
/// expectation keeps only what its verdict and its failing trial need (a
/// count, the first trial that matched or missed, the first sequence that
/// differed, the first latency that broke the bound). Tallies of
/// consecutive runs of trials merge exactly, in trial order, so a result
/// does not depend on how trials were cut over threads.
struct TrialTally: Sendable {
    /// How many trials ended one way.
    struct OutcomeTally: Sendable {
        /// The outcome, or nil when the pair was not observed.
        let outcome: ContinuationOutcome?
        var trials: Int
    }

    /// One observed (activity, device) pair.
    struct Pair: Sendable {
        /// Outcomes in the order first seen.
        var outcomes: [OutcomeTally] = []
        /// One histogram per ``LatencyMetric``, in `allCases` order.
        var latencies = [LatencyHistogram](repeating: LatencyHistogram(), count: LatencyMetric.allCases.count)
        /// The latency budgets of the trials that continued.
        var budget = BudgetTally()

        mutating func count(_ outcome: ContinuationOutcome?, trials: Int = 1) {
            if let index = outcomes.firstIndex(where: { $0.outcome == outcome }) {
                outcomes[index].trials += trials
            } else {
                outcomes.append(OutcomeTally(outcome: outcome, trials: trials))
            }
        }
    }

    /// What one expectation needs beyond its pair's tally; each shape uses
    /// its part.
    struct Check: Sendable {
        /// Trials that counted (a share) or whose sequence matched (a
        /// sequence).
        var matches = 0
        /// A share: the first trial that counted.
        var firstMatch: Int?
        /// A share: the first trial that did not count, and how it ended.
        var firstMiss: (trial: Int, outcome: ContinuationOutcome?)?
        /// A sequence: the first trial whose sequence differed, with that
        /// sequence.
        var firstFailure: (trial: Int, got: [TraceEvent.Name])?
        /// A percentile: the first trial whose latency broke the bound.
        var firstBreaking: Int?

        /// Adds `later`, the check of the trials right after these.
        mutating func append(_ later: Check) {
            matches += later.matches
            firstMatch = firstMatch ?? later.firstMatch
            firstMiss = firstMiss ?? later.firstMiss
            firstFailure = firstFailure ?? later.firstFailure
            firstBreaking = firstBreaking ?? later.firstBreaking
        }
    }

    /// The trials tallied.
    private(set) var trials = 0
    private(set) var pairs: [Pair]
    private(set) var checks: [Check]
    private(set) var fingerprints: TrialFingerprints
    /// Why the last trial tallied stopped the run, if it did.
    private(set) var failure: ScenarioError?

    /// An empty tally for `scenario`'s plan, in a run of `trialCount` trials.
    init(_ scenario: Scenario, plan: ObservationPlan, trialCount: Int) {
        pairs = [Pair](repeating: Pair(), count: plan.pairs.count)
        checks = [Check](repeating: Check(), count: scenario.expectations.count)
        fingerprints = TrialFingerprints(trials: trialCount)
    }

    /// Adds trial `trial`, the trial after those tallied so far.
    mutating func add(_ observation: TrialObservation, trial: Int, scenario: Scenario, plan: ObservationPlan) {
        trials += 1
        fingerprints.add(observation.fingerprint, trial: trial)
        if let failure = observation.failure {
            self.failure = failure
            return
        }
        for (index, pair) in observation.pairs.enumerated() {
            pairs[index].count(pair.outcome)
            for (metric, kind) in LatencyMetric.allCases.enumerated() {
                if let value = pair.latency(kind) { pairs[index].latencies[metric].record(value) }
            }
            if let budget = pair.budget { pairs[index].budget.record(budget) }
        }
        for (index, expectation) in scenario.expectations.enumerated() {
            switch expectation.kind.shape {
            case let .share(kind):
                let outcome = observation.pairs[plan.expectationPairs[index]!].outcome
                if let outcome, kind.counts(outcome) {
                    checks[index].matches += 1
                    if checks[index].firstMatch == nil { checks[index].firstMatch = trial }
                } else if checks[index].firstMiss == nil {
                    checks[index].firstMiss = (trial, outcome)
                }
            case let .sequence(kind):
                let got = kind.compared(observation.events[plan.expectationTraces[index]!])
                if got == kind.expected {
                    checks[index].matches += 1
                } else if checks[index].firstFailure == nil {
                    checks[index].firstFailure = (trial, got)
                }
            case let .percentile(kind):
                let pair = observation.pairs[plan.expectationPairs[index]!]
                if checks[index].firstBreaking == nil, let value = pair.latency(kind.metric), !kind.bound.holds(for: value) {
                    checks[index].firstBreaking = trial
                }
            }
        }
    }

    /// Adds `later`, the tally of the trials right after these.
    mutating func append(_ later: TrialTally) {
        trials += later.trials
        fingerprints.merge(later.fingerprints)
        failure = failure ?? later.failure
        for index in pairs.indices {
            for outcome in later.pairs[index].outcomes { pairs[index].count(outcome.outcome, trials: outcome.trials) }
            for metric in pairs[index].latencies.indices {
                pairs[index].latencies[metric].merge(later.pairs[index].latencies[metric])
            }
            pairs[index].budget.merge(later.pairs[index].budget)
        }
        for index in checks.indices { checks[index].append(later.checks[index]) }
    }
}

/// A digest of what every trial of a run showed (outcomes, latencies, trace
/// events), in memory that does not grow with the number of trials: two
/// runs that agree on it agree on every figure.
///
/// The trials are cut into at most ``maximumBlocks`` blocks of consecutive
/// trials, and each block keeps a 64-bit digest of its trials' fingerprints.
/// With up to that many trials every block is one trial, so a difference is
/// pinned to a trial; with more, to a block of trials.
struct TrialFingerprints: Hashable, Sendable {
    /// The most blocks kept (8 KiB of digests).
    static let maximumBlocks = 1024

    /// How many consecutive trials each block covers.
    let trialsPerBlock: Int
    /// The number of trials digested.
    private(set) var count = 0
    /// A digest per block: the wrapping sum of a mix of each trial's index
    /// and fingerprint, so blocks merge in any order.
    private var blocks: [UInt64]

    /// Digests for a run of `trials` trials.
    init(trials: Int) {
        let trials = max(1, trials)
        trialsPerBlock = (trials + Self.maximumBlocks - 1) / Self.maximumBlocks
        blocks = [UInt64](repeating: 0, count: (trials + trialsPerBlock - 1) / trialsPerBlock)
    }

    /// Adds trial `trial`'s fingerprint.
    mutating func add(_ fingerprint: UInt64, trial: Int) {
        blocks[trial / trialsPerBlock] &+= SplitMix64.mix(fingerprint ^ SplitMix64.mix(UInt64(truncatingIfNeeded: trial)))
        count += 1
    }

    /// Adds the trials digested in `other` (of a run of the same length).
    mutating func merge(_ other: TrialFingerprints) {
        for index in blocks.indices { blocks[index] &+= other.blocks[index] }
        count += other.count
    }

    /// The trials of the first block where `self` and `other` differ (one
    /// trial when every block is one trial), or nil when they agree.
    func firstDifference(from other: TrialFingerprints) -> Range<Int>? {
        guard trialsPerBlock == other.trialsPerBlock else { return 0..<max(count, other.count) }
        for index in 0..<max(blocks.count, other.blocks.count) {
            let mine = index < blocks.count ? blocks[index] : nil
            let theirs = index < other.blocks.count ? other.blocks[index] : nil
            if mine != theirs { return (index * trialsPerBlock)..<((index + 1) * trialsPerBlock) }
        }
        return count == other.count ? nil : min(count, other.count)..<max(count, other.count)
    }
}
