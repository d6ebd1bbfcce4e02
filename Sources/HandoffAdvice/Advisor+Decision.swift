import Handoff
import HandoffScenario
import SimKernel

extension Advisor {
    /// How one size compares with the target, at the confidence its
    /// trials allow.
    public enum Decision: String, Hashable, Sendable {
        /// The percentile's sampling interval lies within the latency
        /// bound and the success rate's lies at or above the least share.
        case meets
        /// The percentile's interval lies beyond the bound, or the success
        /// rate's below the share (or no trial reached the latency).
        case fails
        /// Neither, at the most trials a size may run
        /// (``Advice/maximumTrials``): a near tie.
        case undecided
    }

    /// What kind of answer an advice is.
    public enum AnswerKind: String, Hashable, Sendable {
        /// The largest size tried (the `userInfo` limit) meets the target.
        case everySize
        /// A size meets the target and a larger one fails it, both
        /// decided; the decision turns between them.
        case size
        /// The smallest size tried fails the target, decided.
        case noSize
        /// No size is decided to meet the target, or none to fail it,
        /// at the most trials a size may run: the sizes where the
        /// comparison is a near tie reach an end of the range.
        case undecided
    }

    /// One size tried: the trials it took, the percentile with its
    /// sampling interval, the success rate with its interval, and the
    /// decision.
    public struct Probe: Hashable, Sendable {
        /// The size in bytes.
        public let bytes: Int
        /// The trials run at this size (more than the file's when the
        /// comparison needed them).
        public let trials: Int
        /// The percentile (nil when no trial reached the latency).
        public let value: SimDuration?
        /// The percentile's sampling interval at the decision's
        /// confidence (nil when no trial reached the latency).
        public let interval: SamplingInterval?
        /// The share of trials that continued.
        public let success: Double
        /// The success rate's Clopper–Pearson interval, low end.
        public let successLow: Double
        /// The success rate's Clopper–Pearson interval, high end.
        public let successHigh: Double
        /// The comparison with the target.
        public let decision: Decision
        /// Whether the percentile's interval lies on one side of the bound.
        public let latencyDecided: Bool
        /// Whether the success rate's interval lies on one side of the
        /// least share.
        public let successDecided: Bool
        /// For an undecided size, about how many trials would decide it if
        /// the spread measured held; nil when decided or when no count
        /// would (the percentile is on the bound).
        public let trialsToDecide: Int?
    }

    /// How far the size moves the percentile across the range tried, and
    /// whether that is less than the sampling interval: then the size does
    /// not decide the answer, and ``decidedBy`` names the phase that
    /// takes most of the time.
    public struct SizeEffect: Hashable, Sendable {
        /// The smallest size tried.
        public let from: Int
        /// The largest size tried.
        public let to: Int
        /// The percentile at ``to`` less the one at ``from``.
        public let change: SimDuration
        /// The narrower of the two sizes' sampling intervals.
        public let interval: SimDuration
        /// The phase with the largest share of the slowest trials' time at
        /// the smallest size (`the resolve`), when the size moves the
        /// percentile by less than ``interval``; nil otherwise.
        public let decidedBy: String?

        /// Whether the size moves the percentile by less than its
        /// sampling interval over the whole range.
        public var sizeDoesNotDecide: Bool { decidedBy != nil }
    }

    /// The confidence of each look at a size: 95% over all the looks a
    /// size may take (Bonferroni: each at 1 − 0.05/looks), so that adding
    /// trials until a comparison is decided does not make a decision
    /// likelier to be wrong than 5%.
    static func lookConfidence(initial: Int, maximum: Int) -> Double {
        1 - 0.05 / Double(looks(initial: initial, maximum: maximum))
    }

    /// How many looks a size may take: the file's trials, then doubling
    /// up to `maximum`.
    static func looks(initial: Int, maximum: Int) -> Int {
        var looks = 1
        var trials = max(1, initial)
        while trials < maximum {
            trials = min(maximum, trials * 2)
            looks += 1
        }
        return looks
    }

    /// The comparison of `aggregate` with `target` at `confidence`.
    static func probe(
        bytes: Int, _ aggregate: PointAggregate, target: Target, confidence: Double
    ) -> Probe {
        let trials = Int(clamping: aggregate.trials)
        let histogram = aggregate.histogram(target.metric)
        let value = histogram.value(atPercentile: target.percentile).map(SimDuration.nanoseconds)
        let interval = SamplingInterval(histogram, percentile: target.percentile, confidence: confidence)
        let continued = Int(clamping: aggregate.continued + aggregate.continuedInBrowser)
        let rate = RateInterval(events: continued, trials: trials, confidence: confidence)
        let bound = target.latency.nanoseconds
        // The success share: decided when its interval lies on one side
        // (a share of 0 is met by any run). A share of 100% is a rate too:
        // no number of trials shows it met (the interval's low end stays
        // below 1), so it can only fail; were it met by "no failure seen",
        // the answer would turn on how many trials a size happened to need.
        let successMeets = target.success <= 0 || (target.success < 1 && rate.low >= target.success - 1e-12)
        let successFails = target.success > 0 && rate.high < target.success - 1e-12
        let latencyMeets = interval?.high.map { $0 <= bound } ?? false
        let latencyFails = histogram.count == 0 || (interval?.low.map { $0 > bound } ?? false)
        let decision: Decision = successFails || latencyFails ? .fails : (successMeets && latencyMeets ? .meets : .undecided)
        var needed: [Int?] = []
        if decision == .undecided {
            if !successMeets {
                needed.append(target.success >= 1 ? nil : VerdictConfidence.trialsToSettle(
                    exceptions: trials - continued, trials: trials, allowed: 1 - target.success))
            }
            if !latencyMeets, let value, let interval {
                let below = value.nanoseconds <= bound
                if let end = below ? interval.high : interval.low {
                    needed.append(VerdictConfidence.trialsToSettle(
                        values: interval.values, trials: trials, point: value.nanoseconds, end: end, bound: bound))
                } else {
                    // No order statistic is far enough out yet: at least
                    // the values for one to be (P(all on one side) ≤ α/2).
                    let side = below ? target.percentile / 100 : 1 - target.percentile / 100
                    let tail = (1 - confidence) / 2
                    let values = side > 0 && side < 1
                        ? Int((PortableMath.log(tail) / PortableMath.log(side)).rounded(.up)) : nil
                    needed.append(values.map { max(trials + 1, Int((Double($0) * Double(trials) / Double(max(1, interval.values))).rounded(.up))) })
                }
            }
        }
        let trialsToDecide = needed.isEmpty || needed.contains(where: { $0 == nil }) ? nil : needed.compactMap { $0 }.max()
        return Probe(
            bytes: bytes, trials: trials, value: value, interval: interval, success: aggregate.successRate,
            successLow: rate.low, successHigh: rate.high, decision: decision,
            latencyDecided: latencyMeets || latencyFails, successDecided: successMeets || successFails,
            trialsToDecide: trialsToDecide)
    }

    /// The size effect between the smallest and largest sizes tried.
    static func sizeEffect(smallest: Probe, largest: Probe, budget: BudgetSummary?) -> SizeEffect? {
        guard let low = smallest.value, let high = largest.value,
              let a = smallest.interval, let b = largest.interval,
              let aLow = a.low, let aHigh = a.high, let bLow = b.low, let bHigh = b.high
        else { return nil }
        // The narrower interval (the size measured on more trials): the
        // size does not decide when it moves the percentile by less than
        // even that.
        let width = min(aHigh - aLow, bHigh - bLow)
        let change = high - low
        let decides = change.nanoseconds.magnitude < width.magnitude
        let top = budget?.ranked.first?.phase.label
        return SizeEffect(
            from: smallest.bytes, to: largest.bytes, change: change, interval: .nanoseconds(width),
            decidedBy: decides ? (top ?? "something other than the size") : nil)
    }

    /// One value an answer rests on: a row of the defaults table, with the
    /// values the file or an overlay writes over it.
    public struct Assumption: Hashable, Sendable {
        /// The setting (the defaults table's first column).
        public let setting: String
        /// The default's value, in words.
        public let value: String
        /// What the default rests on: `measured`, `sourced` or `assumed`.
        public let evidence: String
        /// The values written over the default, each in the defaults
        /// table's words (`set by the scenario (FILE)`, `measured
        /// (overlay FIT, …)`, `measured (set by the scenario (FILE):
        /// SOURCE)`) with its path and value; empty where the default
        /// stands.
        public let written: [String]

        /// What the answer runs with rests on: the default's evidence
        /// where it stands; `measured` when every value written over it is
        /// measured; else `set by file` (an assumption too).
        public var standing: String {
            guard !written.isEmpty else { return evidence }
            return written.allSatisfy { $0.hasPrefix("measured") } ? "measured" : "set by file"
        }
    }

    /// Every row of the defaults table with what the file and `overlay`
    /// write over it.
    static func assumptions(_ bytes: [UInt8], file: String, overlay: Overlay?) throws(ScenarioError) -> [Assumption] {
        let table = HandoffDefaults.table
        let rows: [[DefaultOverride]]
        switch DefaultsAttribution.overrides(of: table, bytes: bytes, file: file, overlay: overlay) {
        case let .success(found): rows = found.rows
        case let .failure(error): throw error
        }
        return zip(table, rows).map { row, written in
            Assumption(
                setting: row.setting, value: row.value, evidence: row.evidence.kind,
                written: written.map { "\($0.wording): \($0.path) = \($0.value)" })
        }
    }
}
