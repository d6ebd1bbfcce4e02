import Dispatch
import Handoff
import HandoffWorld
import SimKernel

/// Your own delegates for a scenario's apps (the `appDelegates` of a
/// ``ScenarioRunner`` or a ``SweepRunner``): the delegate of `app` on
/// `device`, or nil to keep the app the scenario file scripts.
public typealias ScenarioAppDelegates = @Sendable (_ device: String, _ app: AppDescription) -> HandoffDelegate?

/// Runs a scenario's trials and checks its expectations.
///
/// Trial k of seed s draws from its own stream, so it gives the same result
/// whatever else runs; trials are spread over `jobs` threads and their
/// results merged in trial order, so the result does not depend on `jobs`.
///
/// ```swift
/// let result = ScenarioRunner(jobs: 4).run(scenario)
/// for expectation in result.expectations where !expectation.passed {
///     print(expectation.asked, expectation.measured, expectation.failingTrial ?? -1)
/// }
/// ```
public struct ScenarioRunner: Sendable {
    /// Threads to spread trials over (at least 1).
    var jobs: Int
    /// Your own delegates for some or all of the scenario's apps: called
    /// for every app on every device, in every trial (each trial gets new
    /// delegates, so one may keep state); `nil` keeps the app the scenario
    /// file scripts. Called on the runner's threads: with `jobs` > 1, make
    /// a new delegate on each call.
    var appDelegates: ScenarioAppDelegates?
    /// Whether results keep every trial's ``TrialSample``s
    /// (``ScenarioResult/samples``): memory then grows with the trials.
    var recordsSamples: Bool
    /// Which trials to list in ``ScenarioResult/matchingTrials``, if any.
    var trialFilter: TrialFilter?

    /// A runner on `jobs` threads, with your own `appDelegates` where given.
    ///
    /// - Parameters:
    ///   - jobs: Threads to spread trials over (at least 1). The result
    ///     does not depend on it.
    ///   - appDelegates: Your own delegates for some or all of the
    ///     scenario's apps, called for every app on every device in every
    ///     trial, on the runner's threads (see ``ScenarioAppDelegates``).
    public init(jobs: Int = 1, appDelegates: ScenarioAppDelegates? = nil) {
        self.init(jobs: jobs, recordsSamples: false, trialFilter: nil, appDelegates: appDelegates)
    }

    /// A runner on `jobs` threads, keeping per-trial samples if
    /// `recordsSamples`, and listing the trials `trialFilter` matches.
    package init(
        jobs: Int = 1, recordsSamples: Bool, trialFilter: TrialFilter? = nil,
        appDelegates: ScenarioAppDelegates? = nil
    ) {
        self.jobs = max(1, jobs)
        self.appDelegates = appDelegates
        self.recordsSamples = recordsSamples
        self.trialFilter = trialFilter
    }

    /// Runs `scenario` (with `trials` and `seed` replacing the file's when
    /// given) and checks every expectation.
    public func run(_ scenario: Scenario, trials: Int? = nil, seed: UInt64? = nil) -> ScenarioResult {
        let clock = ContinuousClock()
        let start = clock.now
        let trialCount = trials ?? scenario.trials
        let seed = seed ?? scenario.seed
        let plan = ObservationPlan(scenario)
        var tally = TrialTally(scenario, plan: plan, trialCount: trialCount)
        var samples: [TrialSample] = []
        var matches = trialFilter.map(TrialMatches.init)
        var failure: ScenarioError?
        do {
            (tally, samples, matches) = try self.tally(scenario, plan: plan, trials: trialCount, seed: seed)
            failure = tally.failure
        } catch {
            failure = error
        }
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        guard failure == nil else {
            return ScenarioResult(
                scenario: scenario, seed: seed, trials: trialCount, expectations: [], pairs: [], failure: failure,
                fingerprints: tally.fingerprints, samples: samples, matchingTrials: matches, wallClockSeconds: seconds)
        }
        return ScenarioResult(
            scenario: scenario, seed: seed, trials: trialCount,
            expectations: ExpectationEvaluator(scenario: scenario, plan: plan, tally: tally).evaluateAll(),
            pairs: pairSummaries(scenario: scenario, plan: plan, tally: tally), failure: nil,
            fingerprints: tally.fingerprints, samples: samples, matchingTrials: matches, wallClockSeconds: seconds)
    }

    /// Runs one trial with its full trace, for `handoff-sim replay`; with
    /// `packets`, every packet put on a link too.
    ///
    /// - Parameters:
    ///   - scenario: The scenario.
    ///   - seed: The seed (a result's ``ScenarioResult/seed``).
    ///   - trial: The trial, from 0.
    ///   - packets: Whether to record every packet put on a link.
    ///   - appDelegates: Your own delegates, as a runner takes them.
    /// - Returns: The trial's trace, summaries and violations.
    /// - Throws: ``ScenarioError`` when the scenario's setup is refused.
    public static func replay(
        _ scenario: Scenario, seed: UInt64, trial: Int, packets: Bool = false,
        appDelegates: ScenarioAppDelegates? = nil
    ) throws(ScenarioError) -> TrialReplay {
        try replay(scenario, seed: seed, trial: trial, packets: packets, appDelegates: appDelegates, packetLimit: TrialReplay.packetLimit)
    }

    /// ``replay(_:seed:trial:packets:appDelegates:)`` keeping at most
    /// `packetLimit` packets.
    static func replay(
        _ scenario: Scenario, seed: UInt64, trial: Int, packets: Bool, appDelegates: ScenarioAppDelegates?,
        packetLimit: Int
    ) throws(ScenarioError) -> TrialReplay {
        let trials = try makeRun(scenario, seed: seed, appDelegates: appDelegates)
        trials.run.recordsPackets = packets
        trials.run.packetLogLimit = packetLimit
        let outcome = try runTrial(scenario, run: trials, seed: seed, trial: trial, keepsTrace: true)
        let run = trials.run
        var summaries: [ContinuationSummary] = []
        for (index, _) in scenario.activities.enumerated() {
            for device in scenario.setup.devices where device.name != scenario.activities[index].device {
                if let summary = run.summary(of: ActivityID(index), on: device.name) { summaries.append(summary) }
            }
        }
        let log = run.packetLog
        // Names once per link, not per packet.
        var linkNames: [String] = []
        var linkEnds: [TrialReplay.LinkEnds] = []
        var named: [Bool] = []
        for record in log {
            let index = record.link.index
            while named.count <= index {
                named.append(false)
                linkNames.append("")
                linkEnds.append(TrialReplay.LinkEnds(from: "", to: ""))
            }
            guard !named[index] else { continue }
            named[index] = true
            linkNames[index] = run.linkName(record.link)
            let ends = run.linkEnds(record.link)
            linkEnds[index] = TrialReplay.LinkEnds(from: ends.from, to: ends.to)
        }
        return TrialReplay(
            trial: trial, seed: seed, trace: run.trace, summaries: summaries, violations: run.violations,
            failure: outcome, packets: log, linkNames: linkNames, linkEnds: linkEnds,
            packetsLeftOut: run.packetsLeftOut)
    }

    // MARK: Running trials

    /// The tally of every trial, in trial order, up to and including the
    /// first trial that failed, (with ``recordsSamples``) their samples, and
    /// (with ``trialFilter``) the trials that match it.
    /// Each piece of trials is tallied on its own thread and the pieces'
    /// tallies merged in order, so memory does not grow with the number of
    /// trials (samples aside) and the result does not depend on `jobs`.
    func tally(_ scenario: Scenario, plan: ObservationPlan, trials: Int, seed: UInt64) throws(ScenarioError)
        -> (TrialTally, [TrialSample], TrialMatches?)
    {
        let recordsSamples = self.recordsSamples
        let filter = trialFilter
        let appDelegates = self.appDelegates
        // Fail early, on this thread, if the setup cannot make a run.
        _ = try Self.makeRun(scenario, seed: seed, appDelegates: appDelegates)
        let workers = min(jobs, trials)
        let pieces = ParallelTrials.pieces(points: 1, trials: 0..<trials, workers: workers)
        // The pieces' tallies are merged in trial order as they come in, so
        // only the pieces finished out of order wait in memory.
        let merged = MergedTally(TrialTally(scenario, plan: plan, trialCount: trials), matches: filter.map(TrialMatches.init))
        ParallelTrials(jobs: workers).run(
            pieces: pieces.count,
            makeState: { () -> Result<ScenarioTrialRun, ScenarioError> in
                do throws(ScenarioError) {
                    return .success(try Self.makeRun(scenario, seed: seed, appDelegates: appDelegates))
                } catch {
                    return .failure(error)
                }
            },
            piece: { made, index -> ParallelTrials.PieceOutcome<(TrialTally, [TrialSample], TrialMatches?)> in
                var tally = TrialTally(scenario, plan: plan, trialCount: trials)
                var samples: [TrialSample] = []
                var matches = filter.map(TrialMatches.init)
                switch made {
                case let .success(run):
                    for trial in pieces[index].trials {
                        tally.add(
                            Self.observeTrial(scenario, plan: plan, run: run, seed: seed, trial: trial), trial: trial,
                            scenario: scenario, plan: plan)
                        // After a failed trial, the scenario stops: later trials are not needed.
                        if tally.failure != nil { break }
                        if recordsSamples { TrialSample.collect(scenario, run: run.run, trial: trial, into: &samples) }
                        if let filter { matches?.add(trial, pairs: filter.matches(scenario, run: run.run)) }
                    }
                case let .failure(failure):
                    // Made once on this thread above, so it cannot fail here;
                    // if it did, the piece's first trial reports why.
                    var failed = TrialObservation.empty
                    failed.failure = failure
                    tally.add(failed, trial: pieces[index].trials.lowerBound, scenario: scenario, plan: plan)
                }
                return .init(output: (tally, samples, matches), stops: tally.failure != nil)
            },
            consume: { outcome in
                // Called under the runner's lock, in piece order.
                merged.tally.append(outcome.output.0)
                merged.samples.append(contentsOf: outcome.output.1)
                if let later = outcome.output.2 { merged.matches?.append(later) }
                return !outcome.stops
            })
        return (merged.tally, merged.samples, merged.matches)
    }

    /// A run of `scenario` to reuse for its trials, with its scripted apps
    /// where `appDelegates` gives none.
    static func makeRun(
        _ scenario: Scenario, seed: UInt64, appDelegates: ScenarioAppDelegates? = nil
    ) throws(ScenarioError) -> ScenarioTrialRun {
        let delegates = ScriptedDelegates(scenario)
        do {
            // A scripted app keeps no state from one trial to the next, so
            // one lives as long as the run; the caller's may, so they are
            // made again for every trial.
            let run = try HandoffRun(
                setup: scenario.setup, seed: seed, trial: 0,
                appDelegates: { device, app in
                    appDelegates?(device, app) ?? .application(delegates.app(device: device, bundleID: app.bundleID))
                },
                appDelegateLifetime: appDelegates == nil ? .run : .trial)
            return ScenarioTrialRun(run: run, delegates: delegates)
        } catch {
            throw .invalidSetup(error.description)
        }
    }

    static func observeTrial(
        _ scenario: Scenario, plan: ObservationPlan, run trials: ScenarioTrialRun, seed: UInt64, trial: Int
    ) -> TrialObservation {
        let failure: ScenarioError?
        do {
            failure = try runTrial(scenario, run: trials, seed: seed, trial: trial, keepsTrace: plan.needsTrace)
        } catch {
            failure = error
        }
        var observation = TrialObservation.empty
        observation.failure = failure
        guard failure == nil else { return observation }
        observation.pairs.reserveCapacity(plan.pairs.count)
        for pair in plan.pairs {
            let summary = trials.run.summary(of: ActivityID(pair.activity), on: pair.device)
            observation.pairs.append(PairObservation(
                outcome: summary?.outcome, milestones: summary?.milestones ?? MilestoneTimes(), budget: summary?.budget))
        }
        if plan.needsTrace {
            let trace = trials.run.trace
            observation.events = plan.traceDevices.map { device in
                trace.filter { $0.device.name == device }.map(\.event.name)
            }
        }
        return observation
    }

    /// Runs trial `trial`; a bound hit or an illegal transition is the
    /// trial's failure.
    static func runTrial(
        _ scenario: Scenario, run trials: ScenarioTrialRun, seed: UInt64, trial: Int, keepsTrace: Bool
    ) throws(ScenarioError) -> ScenarioError? {
        trials.run.reset(seed: seed, trial: trial, keepsTrace: keepsTrace)
        do throws(HandoffError) {
            // A reset run numbers activities from 0 in creation order, so
            // activity i of the scenario is ActivityID(i).
            for (index, activity) in scenario.activities.enumerated() {
                let id = try trials.run.createActivity(
                    activity.content, on: activity.device, app: activity.app,
                    delegate: trials.delegates.activities[index])
                guard id == ActivityID(index) else {
                    throw HandoffError.invalidParameter(name: "activity", value: "\(id)", expected: "activity #\(index)")
                }
            }
            for entry in scenario.timeline {
                try trials.run.schedule(entry.action.handoffAction, at: entry.time)
            }
        } catch {
            throw .invalidSetup(error.description)
        }
        let limit = SimInstant.zero + (scenario.duration ?? scenario.limits.maxSimulatedTime)
        // With a duration, each trial is observed for all of it (an offer
        // may still reach a device whose user never accepts); without one,
        // it ends once nothing is under way.
        let reason = scenario.duration == nil
            ? trials.run.run(until: limit, maxEvents: scenario.limits.maxEvents)
            : trials.run.observe(until: limit, maxEvents: scenario.limits.maxEvents)
        if let violation = trials.run.violations.first {
            return .illegalTransition(trial: trial, violation.description)
        }
        switch reason {
        case .reachedEventLimit:
            return .eventLimit(trial: trial, limit: scenario.limits.maxEvents)
        case .reachedTime where scenario.duration == nil:
            return .timeLimit(trial: trial, limit: scenario.limits.maxSimulatedTime)
        case .idle, .reachedTime, .stopped:
            return nil
        }
    }
}

/// A run of one scenario reused for its trials, with the scenario's
/// scripted apps (made once, not per trial: a `ScriptedApp` keeps no state
/// from one trial to the next).
struct ScenarioTrialRun {
    let run: HandoffRun
    let delegates: ScriptedDelegates
}

/// The scripted apps of one run: one activity delegate per activity and one
/// app delegate per device and app, made on first use.
final class ScriptedDelegates {
    let activities: [ScriptedApp]
    private let behaviours: [(bundleID: String, behaviour: AppBehaviour)]
    private var apps: [(device: String, bundleID: String, app: ScriptedApp)] = []

    init(_ scenario: Scenario) {
        activities = scenario.activities.map { ScriptedApp(behaviour: scenario.behaviour(of: $0.app)) }
        behaviours = scenario.behaviours
    }

    /// The app delegate of `bundleID` on `device`.
    func app(device: String, bundleID: String) -> ScriptedApp {
        if let known = apps.first(where: { $0.device == device && $0.bundleID == bundleID }) { return known.app }
        let behaviour = behaviours.first { $0.bundleID == bundleID }?.behaviour ?? AppBehaviour()
        let app = ScriptedApp(behaviour: behaviour)
        apps.append((device, bundleID, app))
        return app
    }
}

extension TimelineAction {
    /// The Handoff action, with activity indices as identifiers (a trial
    /// creates the scenario's activities in order, from 0).
    var handoffAction: HandoffAction {
        switch self {
        case let .becomeCurrent(activity): return .becomeCurrent(ActivityID(activity))
        case let .resignCurrent(activity): return .resignCurrent(ActivityID(activity))
        case let .invalidate(activity): return .invalidate(ActivityID(activity))
        case let .setNeedsSave(activity, value): return .setNeedsSave(ActivityID(activity), value)
        case let .addUserInfoEntries(activity, entries): return .addUserInfoEntries(ActivityID(activity), entries)
        case let .setEligibleForHandoff(activity, value): return .setEligibleForHandoff(ActivityID(activity), value)
        case let .accept(device): return .accept(device: device)
        case let .setSettings(device, settings): return .setSettings(device: device, settings)
        case let .setAccount(device, account): return .setAccount(device: device, account)
        case let .userInput(device): return .userInput(device: device)
        }
    }
}

/// What must be observed in each trial: the (activity, device) pairs the
/// expectations name, and the devices whose trace they read.
struct ObservationPlan: Sendable {
    struct Pair: Hashable, Sendable {
        let activity: Int
        let device: String
    }

    let pairs: [Pair]
    let traceDevices: [String]
    /// Each expectation's index in ``pairs`` (nil for sequences).
    let expectationPairs: [Int?]
    /// Each sequence expectation's index in ``traceDevices`` (nil for the
    /// others).
    let expectationTraces: [Int?]
    var needsTrace: Bool { !traceDevices.isEmpty }

    init(_ scenario: Scenario) {
        var pairs: [Pair] = []
        var traceDevices: [String] = []
        for expectation in scenario.expectations {
            switch expectation.kind.shape {
            case .sequence:
                if !traceDevices.contains(expectation.device) { traceDevices.append(expectation.device) }
            case .share, .percentile:
                let pair = Pair(activity: expectation.activity, device: expectation.device)
                if !pairs.contains(pair) { pairs.append(pair) }
            }
        }
        self.pairs = pairs
        self.traceDevices = traceDevices
        expectationPairs = scenario.expectations.map { expectation in
            pairs.firstIndex(of: Pair(activity: expectation.activity, device: expectation.device))
        }
        expectationTraces = scenario.expectations.map { expectation in
            switch expectation.kind.shape {
            case .sequence: return traceDevices.firstIndex(of: expectation.device)
            case .share, .percentile: return nil
            }
        }
    }

}

/// One (activity, device) pair in one trial.
struct PairObservation: Sendable {
    let outcome: ContinuationOutcome?
    /// When the attempt reached each milestone (none without an attempt).
    let milestones: MilestoneTimes
    /// Where accept → continue went (nil unless it continued).
    let budget: LatencyBudget?

    func latency(_ metric: LatencyMetric) -> SimDuration? { milestones.latency(metric) }
}

/// What one trial showed.
struct TrialObservation: Sendable {
    var pairs: [PairObservation]
    /// Trace events per device of the plan.
    var events: [[TraceEvent.Name]]
    var failure: ScenarioError?

    static let empty = TrialObservation(pairs: [], events: [], failure: nil)

    /// A ``StableHash`` of everything observed, in a fixed order.
    var fingerprint: UInt64 {
        var hash = StableHash()
        func mix(_ text: String) { hash.combine(component: text) }
        func mix(_ duration: SimDuration?) { mix(duration.map { String($0.nanoseconds) } ?? "-") }
        for pair in pairs {
            mix(pair.outcome.map { "\($0)" } ?? "-")
            for metric in LatencyMetric.allCases { mix(pair.latency(metric)) }
        }
        for device in events {
            for event in device { mix(event.rawValue) }
            mix("|")
        }
        mix(failure.map { "\($0)" } ?? "-")
        return hash.value
    }
}

extension ScenarioError {
    /// The setup was refused when the run was made.
    static func invalidSetup(_ message: String) -> ScenarioError {
        ScenarioError(.invalidSetup, "the setup was refused: \(message)")
    }

    /// A trial handled its maximum number of events.
    static func eventLimit(trial: Int, limit: UInt64) -> ScenarioError {
        ScenarioError(
            .stoppedAtLimit, "trial \(trial) handled \(limit) events (limits.maxEvents) without settling", trial: trial)
    }

    /// A trial reached the simulated-time limit without settling.
    static func timeLimit(trial: Int, limit: SimDuration) -> ScenarioError {
        ScenarioError(
            .stoppedAtLimit,
            "trial \(trial) reached the simulated-time limit of \(limit) (limits.maxSimulatedTime) without settling; give the scenario a \"duration\" to observe each trial for a fixed time",
            trial: trial)
    }

    /// A trial made an illegal state transition (a simulator bug).
    static func illegalTransition(trial: Int, _ message: String) -> ScenarioError {
        ScenarioError(.internal, "trial \(trial): illegal transition: \(message)", trial: trial)
    }
}

/// One trial re-run with its full trace.
public struct TrialReplay: Sendable {
    /// The trial's index.
    package let trial: Int
    /// The seed.
    package let seed: UInt64
    /// Every step and callback, in time order.
    public let trace: [TraceRecord]
    /// What happened to each activity on each other device.
    public let summaries: [ContinuationSummary]
    /// Illegal transitions (none unless the simulator has a bug).
    public let violations: [Violation]
    /// Why the trial failed to finish, if it did.
    public let failure: ScenarioError?
    /// Every packet put on a link, in the order sent, when the replay was
    /// asked for them; empty otherwise.
    package let packets: [PacketRecord]
    /// Each link's name (`wifi mac → iphone`), by link index.
    let linkNames: [String]
    /// The devices each link runs between, by link index, in the direction
    /// its packets travel (`"cloud"` for the relay's end).
    let linkEnds: [LinkEnds]
    /// Packets sent after ``packets`` reached ``packetLimit`` (counted, not
    /// kept, so a replay's memory does not grow with its events).
    package let packetsLeftOut: Int

    /// The most packets a replay keeps: about 100 MB of records.
    package static let packetLimit = 1_000_000

    /// The name of each packet's link, one per packet.
    package var packetLinks: PerPacket<String> { PerPacket(packets: packets, table: linkNames) }
    /// The ends of each packet's link, one per packet.
    package var packetEnds: PerPacket<LinkEnds> { PerPacket(packets: packets, table: linkEnds) }

    /// A per-link value read per packet.
    package struct PerPacket<Value>: RandomAccessCollection {
        let packets: [PacketRecord]
        let table: [Value]
        package var startIndex: Int { 0 }
        package var endIndex: Int { packets.count }
        package subscript(position: Int) -> Value { table[packets[position].link.index] }
    }

    /// The two ends of a link, by device name.
    package struct LinkEnds: Hashable, Sendable {
        /// The end that sends.
        package let from: String
        /// The end that receives.
        package let to: String
    }
}

/// The tally a parallel run merges into, piece by piece in trial order
/// (only ever touched under ``ParallelTrials``' consumer lock, then read
/// after every thread has finished).
private final class MergedTally: @unchecked Sendable {
    var tally: TrialTally
    var samples: [TrialSample] = []
    var matches: TrialMatches?

    init(_ tally: TrialTally, matches: TrialMatches?) {
        self.tally = tally
        self.matches = matches
    }
}
