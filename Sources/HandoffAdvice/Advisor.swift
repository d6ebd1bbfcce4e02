import Handoff
import HandoffScenario
import HandoffWorld
import SimKernel

/// Payload guidance: per network profile, the largest `userInfo` that
/// meets a latency and success target (by bisection over the size), and
/// the size above which continuation streams restore sooner than a
/// `userInfo` payload.
///
/// Both searches assume the measured figure changes monotonically with the
/// size, as it does for the transfer model (more bytes never arrive
/// sooner); each probe runs the scenario's trials at one size.
///
/// ```swift
/// let target = Advisor.Target(latency: .seconds(1), success: 0.99)
/// let advice = try Advisor(jobs: 2).advise(
///     bytes, file: "relay.json", profiles: ["WiFi", "3G"], target: target, options: SweepRunner.Options())
/// advice[0].largestPayload   // e.g. 49_152
/// ```
public struct Advisor: Sendable {
    /// What the payload must achieve.
    public struct Target: Hashable, Sendable {
        /// The latency whose percentile is bounded.
        public var metric: LatencyMetric
        /// Which percentile (95 for p95).
        public var percentile: Double
        /// The bound: the percentile must be at most this.
        public var latency: SimDuration
        /// The least share of trials that must continue.
        public var success: Double

        /// A target.
        public init(metric: LatencyMetric = .acceptToContinue, percentile: Double = 95, latency: SimDuration, success: Double) {
            self.metric = metric
            self.percentile = percentile
            self.latency = latency
            self.success = success
        }
    }

    /// The advice for one profile.
    public struct Advice: Hashable, Sendable {
        /// The profile named, or the file's own; it shapes only the
        /// internet links, so it applies to the answer only on the cloud
        /// relay (``profileApplies``).
        public let profile: String
        /// The path the fetch takes, in words: `peer-to-peer Wi-Fi (AWDL)`,
        /// `the same Wi-Fi network`, `the cloud relay`, `Bluetooth LE`.
        public let path: String
        /// Whether ``profile`` shapes the path (the cloud relay's).
        public let profileApplies: Bool
        /// What kind of answer this is: a size, every size, no size, or
        /// undecided.
        public let kind: AnswerKind
        /// The largest payload in bytes decided to meet the target, or nil
        /// when no size tried is.
        public let largestPayload: Int?
        /// Whether the largest size tried (the `userInfo` limit) met the
        /// target, so the limit, not the target, is what binds.
        public let limitBinds: Bool
        /// The smallest size decided to fail the target, or nil when no
        /// size tried is: between ``largestPayload`` and it the decision
        /// turns (sizes there are a near tie or were not tried).
        public let firstFailing: Int?
        /// The figures at ``largestPayload``: the percentile and the
        /// success rate.
        public let latencyAtLargest: SimDuration?
        /// The success rate at ``largestPayload``.
        public let successAtLargest: Double?
        /// The smallest size tried and its percentile.
        public let smallestTried: Figure
        /// Every size tried, smallest first, with its trials, intervals
        /// and decision.
        public let tried: [Probe]
        /// The confidence of each look at a size (95% over all of a size's
        /// looks; see ``Advice/maximumTrials``).
        public let confidence: Double
        /// The most trials a size was allowed.
        public let maximumTrials: Int
        /// How far the size moves the percentile from the smallest size
        /// tried to the largest, against its sampling interval.
        public let sizeEffect: SizeEffect?
        /// Every value the answer rests on, in the defaults table's order:
        /// each default with its evidence and the values the file or an
        /// overlay writes over it.
        public let assumptions: [Assumption]
        /// The answer's interval over the bootstrap replicates of the
        /// overlay's fit (nil without replicates).
        public let interval: AnswerInterval?
        /// Where accept → continue goes at the answer's size (at the
        /// smallest size tried when none meets the target).
        public let budget: BudgetSummary?
        /// How far each parameter the answer depends on moves it, largest
        /// first (empty unless asked for: `Advisor.sensitivity`).
        public let sensitivity: [Sensitivity]
        /// The ends of plausible ranges that were not tried because the
        /// file does not admit them (a value it sets conflicts with the
        /// end's), in the order of the defaults table; a parameter with
        /// both ends here is not in ``sensitivity``.
        public let skippedEnds: [SkippedEnd]
        /// The smallest size at which continuation streams reach "restored"
        /// sooner (p50) than `userInfo`, or nil when they are never sooner
        /// up to the limit.
        public let streamsSoonerFrom: Int?
        /// How many runs of trials were made (each look at a size, and the
        /// streams' and sensitivity's runs).
        package let probes: Int
        /// What a reader must know before acting on the answer, decided
        /// here so that every report says the same (none without
        /// ``sensitivity``).
        public let warnings: [Warning]

        /// The label answers are given under: the path, and the profile
        /// where it applies (`the cloud relay, LTE`).
        public var label: String { profileApplies ? "\(path), \(profile)" : path }
    }

    /// What a reader must know before acting on an answer.
    public enum Warning: Hashable, Sendable {
        /// An assumed default alone moves the answer across the target:
        /// with the parameter at one end of its plausible range, the
        /// percentile at the answer's size lands on the other side of the
        /// target. The first such parameter, in the sensitivity's order.
        case assumptionCrossesTarget(AssumptionCrossing)
    }

    /// An assumed default that alone moves an answer across its target.
    public struct AssumptionCrossing: Hashable, Sendable {
        /// The parameter's entry in the sensitivity table.
        public let parameter: Sensitivity
        /// Which end of its plausible range.
        public let end: RangeEnd
        /// The range's value at that end.
        public let endValue: Double
        /// The percentile at the answer's size with the parameter there.
        public let value: SimDuration
        /// Whether the answer met the target (the parameter then puts it
        /// over), or not (the parameter puts it within).
        public let answerMeetsTarget: Bool
    }

    /// One end of a plausible range.
    public enum RangeEnd: String, Hashable, Sendable {
        /// The range's low end.
        case low
        /// The range's high end.
        case high
    }

    /// An end of a default's plausible range the sensitivity did not try:
    /// with the default there, the file (as its overlay leaves it) is
    /// invalid, because a value it sets conflicts with the end's (a range
    /// end past a bound that value fixes).
    public struct SkippedEnd: Hashable, Sendable {
        /// The parameter, named as in ``Sensitivity/parameter``.
        public let parameter: String
        /// The range.
        public let range: PlausibleRange
        /// Which end.
        public let end: RangeEnd
        /// The range's value at that end.
        public let endValue: Double
        /// What the file's validation says with the default at that end:
        /// the file, the JSON path and the rule.
        public let problem: ScenarioProblem
    }

    /// A size and the percentile measured there (nil when no trial
    /// reached the metric).
    public struct Figure: Hashable, Sendable {
        /// The size in bytes.
        public let bytes: Int
        /// The percentile at that size.
        public let value: SimDuration?
    }

    /// An answer's interval over a fit's bootstrap replicates: the 2.5th
    /// and 97.5th percentiles (nearest rank) of the answers the replicates
    /// give, a replicate under which no size meets the target counting as
    /// below every size.
    public struct AnswerInterval: Hashable, Sendable {
        /// The low end (nil: no size meets the target there).
        public let low: Int?
        /// The high end (nil: no size meets the target there).
        public let high: Int?
        /// How many replicates.
        public let replicates: Int

        /// The interval of `answers` (at least one).
        init(_ answers: [Int?]) {
            let sorted = answers.sorted { ($0 ?? -1) < ($1 ?? -1) }
            let count = sorted.count
            func rank(_ fraction: Double) -> Int { min(count - 1, max(0, Int((fraction * Double(count)).rounded(.up)) - 1)) }
            low = sorted[rank(0.025)]
            high = sorted[rank(0.975)]
            replicates = count
        }
    }

    /// How far one parameter, moved across its plausible range, moves an
    /// answer, on common random numbers (trial k draws from the same
    /// streams at either end, so the difference is the parameter's).
    public struct Sensitivity: Hashable, Sendable {
        /// The default's setting and the quantity varied:
        /// `AWDL start: activation`.
        public let parameter: String
        /// What the default rests on.
        public let evidence: Evidence
        /// Who set the value the answer was found with, when not the
        /// default (`set by the scenario (FILE)`, `set by overlay FILE`):
        /// an assumption too, varied across the default's range. Nil where
        /// the default stands.
        public let setBy: String?
        /// The range varied over.
        public let range: PlausibleRange
        /// The size the percentile is read at: the answer, or the smallest
        /// size tried when none meets the target.
        public let bytes: Int
        /// The percentile at ``bytes`` with the parameter at its low end
        /// (nil when no trial reached the metric).
        public let low: SimDuration?
        /// The percentile at ``bytes`` with the parameter at its high end.
        public let high: SimDuration?
        /// The answer (the largest size meeting the target, nil when none
        /// does) with the parameter at each end; computed for the
        /// parameters that move the percentile most
        /// (`Advisor.answeredParameters`), nil for the others.
        public let lowAnswer: Int??
        /// The answer with the parameter at its high end, as ``lowAnswer``.
        public let highAnswer: Int??
        /// The ends not tried because the file does not admit them (see
        /// ``Advice/skippedEnds``): their percentile and answer are nil.
        public let skipped: [RangeEnd]

        /// The evidence in a table's words: the default's (`assumed`,
        /// `sourced`, `measured`), or `set by file` / `set by overlay` for
        /// a value written over it.
        public var evidenceLabel: String {
            guard let setBy else { return evidence.kind }
            return setBy.hasPrefix("set by overlay") ? "set by overlay" : "set by file"
        }

        /// How far the percentile moves across the range (zero with an end
        /// skipped or not reached).
        var span: SimDuration {
            guard let low, let high else { return .zero }
            return low > high ? low - high : high - low
        }
    }

    /// The outcome of one search over the sizes.
    struct Search {
        /// The answer's kind.
        let kind: AnswerKind
        /// The largest size decided to meet the target.
        let lastMeets: (probe: Probe, aggregate: PointAggregate)?
        /// The smallest size decided to fail it.
        let firstFails: Int?
        /// Every size tried, smallest first.
        let tried: [(probe: Probe, aggregate: PointAggregate)]
        /// The smallest size tried.
        let smallest: (probe: Probe, aggregate: PointAggregate)
        /// The largest size tried (the `userInfo` limit).
        let largest: (probe: Probe, aggregate: PointAggregate)
    }

    /// Threads per probe.
    var jobs: Int
    /// The most trials a size may run before its comparison is called
    /// undecided (at least the file's trials).
    var maximumTrials: Int
    /// The default of `init`'s `maximumTrials`: enough to decide all but a near
    /// tie (a p95 within a few milliseconds of the bound).
    public static let defaultMaximumTrials = 100_000
    /// Sizes are found to within this many bytes.
    var resolution: Int
    /// The smallest size tried (the file's `userInfo` limit when that is
    /// smaller).
    var minimum: Int
    /// Whether each answer gets its sensitivity to the defaults it rests on.
    var sensitivity: Bool
    /// How many parameters (those that move the percentile most) get the
    /// answer at both ends of their range.
    static let answeredParameters = 5

    /// An advisor; with `sensitivity`, each answer is read again with every
    /// default the scenario does not set moved to both ends of its
    /// plausible range.
    ///
    /// At each size it adds trials (doubling from the file's) until the
    /// comparison with the target is decided at 95% confidence or
    /// `maximumTrials` are run.
    public init(
        jobs: Int = 1, resolution: Int = 64, minimum: Int = 64, sensitivity: Bool = false,
        maximumTrials: Int = Advisor.defaultMaximumTrials
    ) {
        self.jobs = max(1, jobs)
        self.maximumTrials = max(1, maximumTrials)
        self.resolution = max(1, resolution)
        self.minimum = max(1, minimum)
        self.sensitivity = sensitivity
    }

    /// Advice for each of `profiles` (or the file's own profile when
    /// empty; once for the path when it is not the cloud relay, which
    /// alone the profiles shape), for the scenario file `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The scenario file's bytes.
    ///   - file: The file's name, as errors name it.
    ///   - profiles: Network profiles to advise for, or none for the file's
    ///     own.
    ///   - target: The latency and success the advice must keep.
    ///   - options: Trials, seed, activity and device, as for a sweep.
    /// - Returns: One piece of advice per profile, in the order given.
    /// - Throws: `ScenarioError` as
    ///   `SweepRunner.prepare(_:file:payloads:profiles:parameters:options:)`
    ///   and `SweepRunner.run(_:progress:)` throw it (a trial's error
    ///   after the size it happened at).
    public func advise(
        _ bytes: [UInt8], file: String, profiles: [String], target: Target, options: SweepRunner.Options
    ) throws(ScenarioError) -> [Advice] {
        let replicates = options.runsReplicates ? options.overlay?.replicates ?? [] : []
        // Each probe runs one size under one overlay: the replicates are
        // run here, one answer each, not by the sweep runner.
        var options = options
        options.runsReplicates = false
        // Prepare once to validate the file and resolve the activity and device.
        let probe = try SweepRunner.prepare(bytes, file: file, payloads: [String(minimum)], options: options)
        let limit = probe.base.setup.configuration.userInfoLimit
        // A file's limit below the smallest size (it may be as low as 1 B)
        // is the search's floor as well as its ceiling.
        let minimum = min(self.minimum, limit)
        let runner = SweepRunner(jobs: jobs)
        // The file's trials (or its shard's) first; without a shard, more
        // at a size until its comparison is decided or the cap is reached.
        let firstTrials = options.shard?.trials(of: probe.trials) ?? 0..<probe.trials
        let cap = options.shard == nil ? max(firstTrials.count, maximumTrials) : firstTrials.count
        let confidence = Self.lookConfidence(initial: firstTrials.count, maximum: cap)
        let (pathWords, profileApplies) = probe.base.fetchPath(activity: probe.activity, device: probe.device)
        let varied = sensitivity ? try Self.variedParameters(bytes, file: file, overlay: options.overlay) : []
        let assumptions = try Self.assumptions(bytes, file: file, overlay: options.overlay)
        var results: [Advice] = []
        // Profiles shape only the internet links: off the cloud relay they
        // cannot change the answer, which is given once, for the path.
        for profile in profiles.isEmpty || !profileApplies ? [nil] : profiles.map(Optional.some) {
            var runs = 0
            /// The aggregate of `trials` at `size`, sent as userInfo or over
            /// streams, with `extra` values written over the file.
            func measure(
                _ size: Int, streams: Bool, extra: [(path: String, values: [String])] = [], overlay: Overlay? = nil,
                trials: Range<Int>? = nil
            ) throws(ScenarioError) -> PointAggregate {
                runs += 1
                var parameters: [(path: String, values: [String])] = extra
                if streams {
                    parameters.append((probe.activityPath + ".supportsContinuationStreams", ["true"]))
                    for index in probe.base.setup.apps.indices {
                        parameters.append((
                            "apps[\(index)].behaviour.streamRounds",
                            ["[{\"request\": 100, \"response\": \(size)}]"]))
                    }
                }
                let payload = streams ? 0 : size
                let prepared = try SweepRunner.prepare(
                    bytes, file: file, payloads: [String(payload)], profiles: profile.map { [$0] } ?? [],
                    parameters: parameters, options: overlay.map { options.replacingOverlay($0) } ?? options)
                switch runner.runPoint(
                    prepared.points[0], activity: prepared.activity, device: prepared.device, trials: trials ?? firstTrials,
                    seed: prepared.seed)
                {
                case let .success(aggregate): return aggregate
                case let .failure(failure): throw failure.prefixed("at \(size) bytes: ")
                }
            }
            func value(_ aggregate: PointAggregate) -> SimDuration? {
                aggregate.histogram(target.metric).value(atPercentile: target.percentile).map(SimDuration.nanoseconds)
            }
            typealias Tried = (probe: Probe, aggregate: PointAggregate)
            /// The comparison at `size`: the file's trials, then twice as
            /// many at each look until it is decided or the cap is reached.
            /// Trial k is the same trial at every look, so the answer does
            /// not depend on when a look is made.
            func compare(
                _ size: Int, extra: [(path: String, values: [String])], overlay: Overlay?
            ) throws(ScenarioError) -> Tried {
                var aggregate = try measure(size, streams: false, extra: extra, overlay: overlay)
                var run = firstTrials.count
                while true {
                    let tried = Self.probe(bytes: size, aggregate, target: target, confidence: confidence)
                    guard tried.decision == .undecided, run < cap else { return (tried, aggregate) }
                    let next = min(cap, run * 2)
                    aggregate.merge(try measure(
                        size, streams: false, extra: extra, overlay: overlay,
                        trials: (firstTrials.lowerBound + run)..<(firstTrials.lowerBound + next)))
                    run = next
                }
            }
            /// The search with `extra` written: the largest size decided to
            /// meet the target and the smallest decided to fail it, each by
            /// bisection (sizes assumed monotone: meets, then undecided,
            /// then fails), and every size tried.
            func search(
                _ extra: [(path: String, values: [String])], overlay: Overlay? = nil
            ) throws(ScenarioError) -> Search {
                var tried: [Int: Tried] = [:]
                func at(_ size: Int) throws(ScenarioError) -> Tried {
                    if let known = tried[size] { return known }
                    let result = try compare(size, extra: extra, overlay: overlay)
                    tried[size] = result
                    return result
                }
                let top = try at(limit)
                let bottom = try at(minimum)
                var lastMeets: Int?
                var firstFails: Int?
                if top.probe.decision == .meets {
                    lastMeets = limit
                } else if bottom.probe.decision == .fails {
                    firstFails = minimum
                } else {
                    if bottom.probe.decision == .meets {
                        var low = minimum
                        var high = limit
                        while high - low > resolution {
                            let middle = low + (high - low) / 2
                            if try at(middle).probe.decision == .meets { low = middle } else { high = middle }
                        }
                        lastMeets = low
                    }
                    if top.probe.decision == .fails {
                        var low = lastMeets ?? minimum
                        var high = limit
                        while high - low > resolution {
                            let middle = low + (high - low) / 2
                            if try at(middle).probe.decision == .fails { high = middle } else { low = middle }
                        }
                        firstFails = high
                    }
                }
                let kind: AnswerKind = if lastMeets == limit {
                    .everySize
                } else if firstFails == minimum {
                    .noSize
                } else if lastMeets != nil, firstFails != nil {
                    .size
                } else {
                    .undecided
                }
                return Search(
                    kind: kind, lastMeets: lastMeets.flatMap { tried[$0] }, firstFails: firstFails,
                    tried: tried.keys.sorted().compactMap { tried[$0] }, smallest: bottom, largest: top)
            }
            let answer = try search([])
            // The fit's uncertainty: the answer again under each bootstrap
            // replicate of the overlay, on the same random numbers, each
            // decided as the answer is (the largest size decided to meet
            // the target), so the spread holds the sampling's too.
            var interval: AnswerInterval?
            if !replicates.isEmpty {
                var answers: [Int?] = []
                for replicate in replicates {
                    answers.append(try search([], overlay: replicate).lastMeets?.probe.bytes)
                }
                interval = AnswerInterval(answers)
            }
            let smallest = answer.smallest.aggregate
            // Where streams overtake userInfo (p50 accept → restored).
            func streamsSooner(_ size: Int) throws(ScenarioError) -> Bool {
                let direct = try measure(size, streams: false)
                let streamed = try measure(size, streams: true)
                guard let viaStreams = streamed[.acceptToRestored].value(atPercentile: 50) else { return false }
                guard let viaUserInfo = direct[.acceptToRestored].value(atPercentile: 50) else { return true }
                return viaStreams < viaUserInfo
            }
            var crossover: Int?
            if try !streamsSooner(limit) {
                crossover = nil
            } else if try streamsSooner(minimum) {
                crossover = minimum
            } else {
                var low = minimum
                var high = limit
                while high - low > resolution {
                    let middle = low + (high - low) / 2
                    if try streamsSooner(middle) { high = middle } else { low = middle }
                }
                crossover = high
            }
            // Sensitivity: each parameter at both ends, read at the answer's
            // size; the answer itself again for those that move it most.
            let reference = answer.lastMeets?.probe.bytes ?? minimum
            // The percentile at the reference size as the file stands.
            let standing = answer.lastMeets?.probe.value ?? answer.smallest.probe.value
            /// The file's problem with `extra` written over it, or nil when
            /// it takes them: a range end the file does not admit.
            func conflict(_ extra: [(path: String, values: [String])]) throws(ScenarioError) -> ScenarioProblem? {
                let prepared = Result { () throws(ScenarioError) in
                    try SweepRunner.prepare(
                        bytes, file: file, payloads: [String(reference)], profiles: profile.map { [$0] } ?? [],
                        parameters: extra, options: options)
                }
                switch prepared {
                case .success: return nil
                case let .failure(error):
                    guard error.category == .invalidInput, let problem = error.problems?.problems.first else { throw error }
                    return problem
                }
            }
            typealias Screened = (parameter: VariedParameter, low: SimDuration?, high: SimDuration?, skipped: [RangeEnd])
            var screened: [Screened] = []
            var skippedEnds: [SkippedEnd] = []
            for parameter in varied {
                var values: [SimDuration?] = []
                var skipped: [RangeEnd] = []
                for (end, endValue) in [(RangeEnd.low, parameter.range.low), (.high, parameter.range.high)] {
                    let edits = parameter.edits(endValue)
                    if let problem = try conflict(edits) {
                        skipped.append(end)
                        skippedEnds.append(SkippedEnd(
                            parameter: parameter.name, range: parameter.range, end: end, endValue: endValue, problem: problem))
                        values.append(nil)
                    } else {
                        values.append(value(try measure(reference, streams: false, extra: edits)))
                    }
                }
                screened.append((parameter, values[0], values[1], skipped))
            }
            /// How far the percentile moves: across the range, or from the
            /// file as it stands to the one end tried.
            func span(_ entry: Screened) -> Int64 {
                guard entry.skipped.count < 2 else { return 0 }
                let low = entry.skipped.contains(.low) ? standing : entry.low
                let high = entry.skipped.contains(.high) ? standing : entry.high
                guard let low, let high else { return low == high ? 0 : .max }
                return (low > high ? low - high : high - low).nanoseconds
            }
            let order = screened.indices.filter { span(screened[$0]) > 0 }
                .sorted { (span(screened[$1]), $0) < (span(screened[$0]), $1) }
            var items: [Sensitivity] = []
            for (rank, index) in order.enumerated() {
                let entry = screened[index]
                var lowAnswer: Int??
                var highAnswer: Int??
                if rank < Self.answeredParameters {
                    if !entry.skipped.contains(.low) {
                        lowAnswer = .some(try search(entry.parameter.edits(entry.parameter.range.low)).lastMeets?.probe.bytes)
                    }
                    if !entry.skipped.contains(.high) {
                        highAnswer = .some(try search(entry.parameter.edits(entry.parameter.range.high)).lastMeets?.probe.bytes)
                    }
                }
                items.append(Sensitivity(
                    parameter: entry.parameter.name, evidence: entry.parameter.evidence, setBy: entry.parameter.setBy,
                    range: entry.parameter.range,
                    bytes: reference, low: entry.low, high: entry.high, lowAnswer: lowAnswer, highAnswer: highAnswer,
                    skipped: entry.skipped))
            }
            let profileName = profile ?? probe.points[0].scenario.setup.devices.first { $0.name == probe.device }?.internet.name ?? ""
            let budgetAggregate = answer.lastMeets?.aggregate ?? smallest
            let budget = budgetAggregate.budget.summary()
            results.append(Advice(
                profile: profileName, path: pathWords, profileApplies: profileApplies,
                kind: answer.kind, largestPayload: answer.lastMeets?.probe.bytes, limitBinds: answer.kind == .everySize,
                firstFailing: answer.firstFails,
                latencyAtLargest: answer.lastMeets?.probe.value,
                successAtLargest: answer.lastMeets?.probe.success,
                smallestTried: Figure(bytes: minimum, value: value(smallest)), tried: answer.tried.map(\.probe),
                confidence: confidence, maximumTrials: cap,
                sizeEffect: Self.sizeEffect(
                    smallest: answer.smallest.probe, largest: answer.largest.probe,
                    budget: answer.smallest.aggregate.budget.summary()),
                assumptions: assumptions,
                interval: interval, budget: budget,
                sensitivity: items, skippedEnds: skippedEnds, streamsSoonerFrom: crossover, probes: runs,
                warnings: Self.warnings(items, meets: answer.lastMeets != nil, target: target)))
        }
        return results
    }
}

extension SweepRunner.Options {
    /// These options with `overlay` in place of theirs.
    func replacingOverlay(_ overlay: Overlay) -> SweepRunner.Options {
        var options = self
        options.overlay = overlay
        return options
    }
}
