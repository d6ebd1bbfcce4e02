import Foundation
import Dispatch
import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Runs a scenario at every point of a sweep and aggregates each point's
/// trials.
///
/// Trial k of every point draws from stream (seed, k), so points are
/// compared on the same random numbers, and a trial gives the same result
/// on any thread or shard. Each point's trials are spread over `jobs`
/// threads; aggregates merge exactly, so the result does not depend on
/// `jobs` or on how the trials were sharded.
///
/// ```swift
/// let prepared = try SweepRunner.prepare(
///     bytes, file: "relay.json", payloads: ["256B", "3KiB", "64KiB"], profiles: ["WiFi", "LTE"],
///     options: SweepRunner.Options(trials: 1000))
/// let result = try SweepRunner(jobs: 2).run(prepared)
/// print(SweepJSONLines.render(result, toolVersion: "0.1.0"))
/// ```
public struct SweepRunner: Sendable {
    /// Threads per point (at least 1).
    var jobs: Int
    /// Whether every point keeps its trials' ``TrialSample``s
    /// (``SweepPoint/samples``): memory then grows with the trials.
    var recordsSamples: Bool
    /// Your own delegates for some or all of the scenario's apps, as in
    /// ``ScenarioRunner/appDelegates``.
    var appDelegates: ScenarioAppDelegates?

    /// A runner on `jobs` threads, with your own `appDelegates` where given.
    ///
    /// - Parameters:
    ///   - jobs: Threads per point (at least 1). The result does not depend
    ///     on it.
    ///   - appDelegates: Your own delegates for some or all of the
    ///     scenario's apps, as a ``ScenarioRunner`` takes them (see
    ///     ``ScenarioAppDelegates``).
    public init(jobs: Int = 1, appDelegates: ScenarioAppDelegates? = nil) {
        self.init(jobs: jobs, recordsSamples: false, appDelegates: appDelegates)
    }

    /// A runner on `jobs` threads, keeping per-trial samples if
    /// `recordsSamples`, with your own `appDelegates` where given.
    package init(jobs: Int = 1, recordsSamples: Bool, appDelegates: ScenarioAppDelegates? = nil) {
        self.jobs = max(1, jobs)
        self.recordsSamples = recordsSamples
        self.appDelegates = appDelegates
    }

    /// What to measure and how: everything but the axes.
    public struct Options: Sendable {
        /// Trials per point, instead of the file's.
        public var trials: Int?
        /// The seed, instead of the file's.
        public var seed: UInt64?
        /// Run only this slice of every point's trials.
        public var shard: Shard?
        /// The activity measured (needed when the file has several).
        public var activity: String?
        /// The receiving device (needed unless exactly one device is no
        /// activity's source).
        public var device: String?
        /// Values written over the file before anything else (a fitted
        /// model, from `handoff-sim calibrate --output`).
        public var overlay: Overlay?
        /// Whether the bootstrap replicates `overlay` holds (from
        /// `calibrate --bootstrap N --output`) are run too, each on the same
        /// trials, for an interval on every percentile; it costs one sweep
        /// per replicate.
        public var runsReplicates: Bool

        /// Options; every value optional.
        public init(
            trials: Int? = nil, seed: UInt64? = nil, shard: Shard? = nil, activity: String? = nil, device: String? = nil,
            overlay: Overlay? = nil, runsReplicates: Bool = true
        ) {
            self.trials = trials
            self.seed = seed
            self.shard = shard
            self.activity = activity
            self.device = device
            self.overlay = overlay
            self.runsReplicates = runsReplicates
        }
    }

    /// The points of a sweep over the scenario file `bytes`, decoded and
    /// ready to run.
    ///
    /// ```swift
    /// let prepared = try SweepRunner.prepare(bytes, file: "payload-3kib.json", payloads: ["1KiB", "64KiB"],
    ///                                        options: SweepRunner.Options(trials: 200))
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The scenario file's bytes.
    ///   - file: The file's name, as errors name it.
    ///   - payloads: Payload sizes ("3KiB", "64KiB"); with no axis at all,
    ///     the file's own `sweep` block gives them.
    ///   - profiles: Network profiles by name.
    ///   - parameters: Other values to vary, each a path in the scenario
    ///     file (`network.wifiPeerToPeer.latency`) with its values.
    ///   - options: Trials, seed, activity, device, shard and overlay.
    /// - Returns: The prepared sweep: one scenario per combination of the
    ///   axes' values.
    /// - Throws: ``ScenarioError``: an invalid file
    ///   (``ScenarioError/Category/invalidInput``, with its problems, the
    ///   problems at each point of the file's own `sweep` block included),
    ///   or a value given here that does not fit the file
    ///   (``ScenarioError/Category/badValue``).
    public static func prepare(
        _ bytes: [UInt8], file: String, payloads: [String] = [], profiles: [String] = [],
        parameters: [(path: String, values: [String])] = [], options: Options
    ) throws(ScenarioError) -> PreparedSweep {
        var root: JSONNode
        switch ScenarioDecoder.parse(bytes, file: file) {
        case let .success(node): root = node
        case let .failure(problems): throw .invalid(problems)
        }
        let written = root
        // The overlay the file names, then the one given.
        let overlayEdits: [(path: ParameterPath, value: String)]
        let overlays: [Overlay]
        switch Overlay.apply(to: root, file: file, given: options.overlay) {
        case let .success((tree, edits, applied)):
            root = tree
            overlayEdits = edits
            overlays = applied
        case let .failure(error): throw error
        }
        let digest = Overlay.digest(of: bytes, edits: overlayEdits)
        let base: Scenario
        switch ScenarioDecoder.decode(root: root, file: file, digest: digest) {
        case let .success(scenario): base = scenario
        case let .failure(problems): throw .invalid(Overlay.attributing(problems, to: overlays, scenario: written, file: file))
        }
        // The caller's axes, or the file's sweep block.
        var payloads = payloads
        var profiles = profiles
        var parameters = parameters
        let axesFromCaller = !(payloads.isEmpty && profiles.isEmpty && parameters.isEmpty)
        if !axesFromCaller, let sweep = base.sweep {
            payloads = sweep.payloads
            profiles = sweep.profiles
            parameters = sweep.parameters
        }
        // Which activity and device.
        let activityIndex: Int
        if let name = options.activity {
            guard let index = base.activities.firstIndex(where: { $0.name == name }) else {
                throw ScenarioError(
                    .badValue, "no activity \"\(name)\" in \(file); activities are \(base.activities.map(\.name).joined(separator: ", "))",
                    file: file, argument: .activity)
            }
            activityIndex = index
        } else if base.activities.count == 1 {
            activityIndex = 0
        } else {
            throw ScenarioError(
                .badValue,
                "\(file) has several activities; say which with \(argument: .activity) (\(base.activities.map(\.name).joined(separator: ", ")))",
                file: file, argument: .activity)
        }
        let device: String
        let deviceNames = base.setup.devices.map(\.name)
        if let name = options.device {
            guard deviceNames.contains(name) else {
                throw ScenarioError(
                    .badValue, "no device \"\(name)\" in \(file); devices are \(deviceNames.joined(separator: ", "))",
                    file: file, argument: .device)
            }
            guard name != base.activities[activityIndex].device else {
                throw ScenarioError(
                    .badValue, "\"\(name)\" is the source of the activity; measure on a receiving device", file: file,
                    argument: .device)
            }
            device = name
        } else {
            let sources = Set(base.activities.map(\.device))
            let receivers = deviceNames.filter { !sources.contains($0) }
            guard receivers.count == 1 else {
                throw ScenarioError(
                    .badValue,
                    "\(file): say which device to measure on with \(argument: .device) (\(receivers.joined(separator: ", ")))",
                    file: file, argument: .device)
            }
            device = receivers[0]
        }
        if !profiles.isEmpty {
            try Self.checkProfileAxis(
                root: root, devices: [base.activities[activityIndex].device, device], file: file)
        }
        let activityPath = root.member("activity") != nil ? "activity" : "activities[\(activityIndex)]"
        let payloadPath = ParameterPath(activityPath + ".payloadSize")!
        let specification: SweepSpecification
        do {
            specification = try SweepSpecification(
                payloads: payloads, profiles: profiles, parameters: parameters, payloadPath: payloadPath)
        } catch {
            throw error
        }
        guard !specification.axes.isEmpty else { throw .noAxes }
        // Every point, decoded.
        var points: [SweepPointScenario] = []
        var problems: [ScenarioProblem] = []
        for indices in specification.points {
            var tree = root
            var coordinates: [String] = []
            for (axis, index) in zip(specification.axes, indices) {
                coordinates.append(axis.values[index].text)
                guard let edited = tree.setting(axis.path.components[...], to: axis.values[index].json) else {
                    throw .cannotSet(axis.path.description)
                }
                tree = edited
            }
            let label = zip(specification.axes, coordinates).map { "\($0.name)=\($1)" }.joined(separator: ", ")
            switch ScenarioDecoder.decode(root: tree, file: file, digest: digest) {
            case let .success(scenario):
                let edits = overlayEdits + zip(specification.axes, indices).map { ($0.path, $0.values[$1].text) }
                points.append(SweepPointScenario(
                    coordinates: coordinates, scenario: scenario, bytes: bytes, edits: edits, digest: digest))
            case let .failure(found):
                // A bad value the caller gave (not one from the file) is a
                // bad value of the caller's, named by its axis.
                for problem in found.problems where axesFromCaller {
                    for (axis, index) in zip(specification.axes, indices) where problem.path == "$." + axis.path.description {
                        throw .badAxisValue(axis: axis.name, value: axis.values[index].text, problem: problem.message)
                    }
                }
                for problem in found.problems {
                    // A value from the command line has no place in the file:
                    // its problem names the path only, not line 0.
                    let position = problem.position.flatMap { $0.line == 0 ? nil : $0 }
                    problems.append(ScenarioProblem(
                        file: problem.file, path: problem.path, position: position,
                        message: "at the sweep point \(label): \(problem.message)"))
                }
            }
        }
        if !problems.isEmpty {
            // The same problem at many points is listed once per point; keep the first few.
            throw .invalid(ScenarioProblems(problems: Array(problems.prefix(20))))
        }
        // Every point again under each bootstrap replicate of the given
        // overlay, on the same axes, activity and device: decoded here, so
        // that a bad value is refused before anything runs, but kept only
        // as the edits that make it again (``run(_:progress:)`` decodes
        // one replicate's points at a time), so that a fit's 1,000
        // replicates do not hold 1,000 decoded scenarios per point.
        var replicates: [[SweepPointRecipe]] = []
        if options.runsReplicates, let overlay = options.overlay, !overlay.replicates.isEmpty {
            // What the replicates keep grows with the trials they run: bounded.
            let trials = options.trials ?? base.trials
            let run = options.shard?.trials(of: trials).count ?? trials
            let (perReplicate, overflow) = points.count.multipliedReportingOverflow(by: run)
            let (total, overflowAgain) = perReplicate.multipliedReportingOverflow(by: overlay.replicates.count)
            guard !overflow, !overflowAgain, total <= InputBounds.maximumReplicateTrials else {
                throw ScenarioError(
                    .invalidInput,
                    "\(overlay.file): its \(overlay.replicates.count) bootstrap replicates would run \(points.count) points × \(run) trials each, more than the \(InputBounds.maximumReplicateTrials) trials a sweep may run under replicates (each keeps its latencies for the intervals): run it without the intervals, with fewer points or trials, or in shards",
                    file: overlay.file)
            }
            for (index, replicate) in overlay.replicates.enumerated() {
                var replicateOptions = options
                replicateOptions.overlay = replicate
                replicateOptions.runsReplicates = false
                replicateOptions.activity = base.activities[activityIndex].name
                replicateOptions.device = device
                let prepared: PreparedSweep
                do {
                    prepared = try Self.prepare(
                        bytes, file: file, payloads: payloads, profiles: profiles, parameters: parameters,
                        options: replicateOptions)
                } catch {
                    throw error.prefixed("under the overlay's bootstrap replicate \(index + 1): ")
                }
                replicates.append(prepared.points.map(SweepPointRecipe.init))
            }
        }
        return PreparedSweep(
            base: base, axes: specification.axes.map { SweepAxis(name: $0.name, values: $0.values.map(\.text)) },
            points: points, replicates: replicates, activity: activityIndex, activityPath: activityPath, device: device,
            trials: options.trials ?? base.trials, seed: options.seed ?? base.seed, shard: options.shard)
    }

    /// Runs every point of `sweep`, reporting points done to `progress`.
    ///
    /// - Parameters:
    ///   - sweep: The prepared points.
    ///   - progress: Called with the points done and the points in all.
    /// - Returns: The result: every point's aggregate, in the axes' order.
    /// - Throws: ``ScenarioError``: the first trial's error (a limit
    ///   reached, a refused setup, a broken rule) after the point it
    ///   happened at.
    public func run(_ sweep: PreparedSweep, progress: (@Sendable (Int, Int) -> Void)? = nil) throws(ScenarioError) -> SweepResult {
        let trials = sweep.shard?.trials(of: sweep.trials) ?? 0..<sweep.trials
        let total = sweep.points.count * (1 + sweep.replicates.count)
        let outcome = runPoints(
            sweep.points, activity: sweep.activity, device: sweep.device, trials: trials, seed: sweep.seed,
            progress: Self.offsetting(progress, by: 0, total: total))
        func label(_ index: Int) -> String {
            zip(sweep.axes, sweep.points[index].coordinates).map { "\($0.name)=\($1)" }.joined(separator: ", ")
        }
        // The replicates' points, one replicate at a time (its scenarios
        // made again from their edits, then dropped), on the same trials;
        // their samples, budgets and event counts are not kept.
        var replicateAggregates: [[PointAggregate]] = []
        if !sweep.replicates.isEmpty, case .success = outcome {
            var quiet = self
            quiet.recordsSamples = false
            let count = sweep.points.count
            for (replicate, recipes) in sweep.replicates.enumerated() {
                func prefix(_ point: Int) -> String {
                    "under the overlay's bootstrap replicate \(replicate + 1), at the sweep point \(label(point)): "
                }
                var points: [SweepPointScenario] = []
                points.reserveCapacity(recipes.count)
                for (index, recipe) in recipes.enumerated() {
                    switch recipe.point() {
                    case let .success(point): points.append(point)
                    case let .failure(problems): throw ScenarioError.invalid(problems).prefixed(prefix(index))
                    }
                }
                switch quiet.runPoints(
                    points, activity: sweep.activity, device: sweep.device, trials: trials, seed: sweep.seed,
                    progress: Self.offsetting(progress, by: count * (1 + replicate), total: total))
                {
                case let .failure(index, failure):
                    throw failure.prefixed(prefix(index))
                case let .success(outputs):
                    replicateAggregates.append(outputs.map { output in
                        var aggregate = output.aggregate
                        aggregate.events = 0
                        aggregate.budget = BudgetTally()
                        return aggregate
                    })
                }
            }
        }
        switch outcome {
        case let .failure(index, failure):
            throw failure.prefixed("at the sweep point \(label(index)): ")
        case let .success(aggregates):
            let results = zip(sweep.points, aggregates).enumerated().map { index, pair in
                let (point, aggregate) = pair
                let activity = point.scenario.activities[sweep.activity]
                let profile = point.scenario.setup.devices.first { $0.name == sweep.device }?.internet.name ?? ""
                var result = SweepPoint(
                    coordinates: point.coordinates, payloadBytes: activity.content.transferSize, profile: profile,
                    aggregate: aggregate.aggregate)
                result.samples = aggregate.samples
                result.replicates = replicateAggregates.map { $0[index] }
                return result
            }
            var result = SweepResult(
                file: sweep.base.file, name: sweep.base.name, digest: sweep.base.digest, seed: sweep.seed,
                trials: sweep.trials, activity: sweep.base.activities[sweep.activity].name, device: sweep.device,
                axes: sweep.axes, points: results, shard: sweep.shard)
            let path = sweep.base.fetchPath(activity: sweep.activity, device: sweep.device)
            if !path.profileApplies { result.fixedPath = path.words }
            return result
        }
    }

    /// `progress` told of `done + offset` points of `total` when a run of
    /// some of them has done `done`.
    private static func offsetting(
        _ progress: (@Sendable (Int, Int) -> Void)?, by offset: Int, total: Int
    ) -> (@Sendable (Int, Int) -> Void)? {
        guard let progress else { return nil }
        return { done, _ in progress(offset + done, total) }
    }

    /// The aggregate of `trials` of one point's scenario.
    package func runPoint(
        _ point: SweepPointScenario, activity: Int, device: String, trials: Range<Int>, seed: UInt64
    ) -> Result<PointAggregate, ScenarioError> {
        switch runPoints([point], activity: activity, device: device, trials: trials, seed: seed, progress: nil) {
        case let .success(aggregates): return .success(aggregates[0].aggregate)
        case let .failure(_, failure): return .failure(failure)
        }
    }

    /// The aggregates of `trials` of every point, spread over the threads,
    /// or the first failure and the point it stopped.
    ///
    /// The trials of every point are cut into pieces (see
    /// ``ParallelTrials/pieces(points:trials:workers:)``) and run by
    /// ``ParallelTrials``. Each thread makes its own copy of a point's
    /// scenario from the file (``SweepPointScenario/unsharedScenario()``),
    /// so no object is shared between threads while trials run: Swift
    /// counts references atomically, and two cores retaining one object per
    /// trial would pass its cache line back and forth. Pieces are merged in
    /// order, and merging is exact, so the result does not depend on the
    /// number of threads.
    func runPoints(
        _ points: [SweepPointScenario], activity: Int, device: String, trials: Range<Int>, seed: UInt64,
        progress: (@Sendable (Int, Int) -> Void)?
    ) -> PointsOutcome {
        let workers = max(1, min(jobs, trials.count * points.count))
        let pieces = ParallelTrials.pieces(points: points.count, trials: trials, workers: workers)
        let id = ActivityID(activity)
        let recordsSamples = self.recordsSamples
        let appDelegates = self.appDelegates
        let deviceIndex = points.first?.scenario.setup.devices.firstIndex { $0.name == device } ?? 0
        let outcomes = ParallelTrials(jobs: workers).run(
            pieces: pieces.count, groups: pieces.map(\.point), makeState: { PointRun() },
            piece: { state, index -> ParallelTrials.PieceOutcome<Result<PointOutput, ScenarioError>> in
                let piece = pieces[index]
                do throws(ScenarioError) {
                    let (scenario, run) = try state.run(
                        of: piece.point, points: points, seed: seed, unshared: workers > 1, appDelegates: appDelegates)
                    var output = PointOutput()
                    for trial in piece.trials {
                        if let failure = try ScenarioRunner.runTrial(
                            scenario, run: run, seed: seed, trial: trial, keepsTrace: false)
                        {
                            return .init(output: .failure(failure), stops: true)
                        }
                        let summary = run.run.summary(of: id, on: device)
                        output.aggregate.record(summary)
                        output.aggregate.events &+= run.run.handledEventCount
                        if recordsSamples,
                           let sample = TrialSample(trial: trial, activity: activity, device: deviceIndex, summary: summary)
                        {
                            output.samples.append(sample)
                        }
                    }
                    // Pieces are kept until every point is done.
                    output.aggregate.compact()
                    return .init(output: .success(output), stops: false)
                } catch {
                    return .init(output: .failure(error), stops: true)
                }
            },
            progress: progress)
        var results = [PointOutput](repeating: PointOutput(), count: points.count)
        for (index, outcome) in outcomes.enumerated() {
            guard let outcome else { break }
            switch outcome.output {
            case let .success(output):
                results[pieces[index].point].aggregate.merge(output.aggregate)
                results[pieces[index].point].samples.append(contentsOf: output.samples)
            case let .failure(failure): return .failure(point: pieces[index].point, failure)
            }
        }
        return .success(results)
    }
}

/// The aggregates of every point, or the first failure and its point.
enum PointsOutcome {
    case success([PointOutput])
    case failure(point: Int, ScenarioError)
}

/// What a point's trials (or a piece of them) showed: the aggregate, and
/// the samples when they are recorded.
struct PointOutput: Sendable {
    var aggregate = PointAggregate()
    var samples: [TrialSample] = []
}

/// The point a sweep thread is on: its scenario and its reused run.
private struct PointRun {
    private var point = -1
    private var current: (scenario: Scenario, run: ScenarioTrialRun)?

    /// The scenario and run of point `index`, made when the thread comes to
    /// a new point: from the point's own scenario, or (`unshared`) from a
    /// copy of it that shares no storage with other threads'.
    mutating func run(
        of index: Int, points: [SweepPointScenario], seed: UInt64, unshared: Bool, appDelegates: ScenarioAppDelegates?
    ) throws(ScenarioError) -> (Scenario, ScenarioTrialRun) {
        if point == index, let current { return current }
        let scenario = unshared ? points[index].unsharedScenario() : points[index].scenario
        let made = (scenario: scenario, run: try ScenarioRunner.makeRun(scenario, seed: seed, appDelegates: appDelegates))
        current = made
        point = index
        return made
    }
}

/// A sweep with every point decoded.
public struct PreparedSweep: Sendable {
    /// The scenario as the file has it.
    public let base: Scenario
    /// The axes.
    public let axes: [SweepAxis]
    /// Every point: its coordinates and its scenario.
    package let points: [SweepPointScenario]
    /// Every point again under each bootstrap replicate of the overlay
    /// (empty without replicates), in the overlay's order: how to make
    /// each point's scenario, which is made when its replicate runs.
    let replicates: [[SweepPointRecipe]]
    /// The activity measured (index) and the device it is measured on.
    package let activity: Int
    /// The measured activity's place in the file: `activity` or
    /// `activities[i]`.
    package let activityPath: String
    /// The receiving device measured.
    package let device: String
    /// Trials per point and the seed.
    package let trials: Int
    /// The seed.
    package let seed: UInt64
    /// The slice of trials to run, if sharded.
    let shard: Shard?
}

extension ScenarioError {
    /// A value the caller gave for an axis (not one from the file) is not
    /// valid there: the axis (`payload`, `profile` or a parameter path), the
    /// value, and what was expected.
    static func badAxisValue(axis: String, value: String, problem: String) -> ScenarioError {
        let argument: Argument = axis == "payload" ? .payloads : axis == "profile" ? .profiles : .parameter(axis)
        return ScenarioError(
            .badValue, "the \(axis) value '\(value.escapingControlCharacters)': \(problem)", argument: argument,
            value: value, detail: problem)
    }
}
