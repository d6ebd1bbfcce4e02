import Dispatch
import Handoff
import HandoffWorld
import SimKernel

/// Runs a scenario at every point of a sweep and aggregates each point's
/// trials.
///
/// Trial k of every point draws from stream (seed, k), so points are
/// compared on the same random numbers, and a trial gives the same result
/// on any thread or shard. Each point's trials are spread over `jobs`
/// threads; aggregates merge exactly, so the result does not depend on
/// `jobs` or on how the trials were sharded.
public struct SweepRunner: Sendable {
    /// Threads per point (at least 1).
    public var jobs: Int

    /// A runner on `jobs` threads.
    public init(jobs: Int = 1) { self.jobs = max(1, jobs) }

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

        /// Options; every value optional.
        public init(trials: Int? = nil, seed: UInt64? = nil, shard: Shard? = nil, activity: String? = nil, device: String? = nil) {
            self.trials = trials
            self.seed = seed
            self.shard = shard
            self.activity = activity
            self.device = device
        }
    }

    /// The points of a sweep over the scenario file `bytes`, decoded and
    /// ready to run, or the problems that stop it.
    public static func prepare(
        _ bytes: [UInt8], file: String, payloads: [String] = [], profiles: [String] = [],
        parameters: [(path: String, values: [String])] = [], options: Options
    ) -> Result<PreparedSweep, SweepFailure> {
        let root: JSONNode
        switch ScenarioDecoder.parse(bytes, file: file) {
        case let .success(node): root = node
        case let .failure(problems): return .failure(.invalid(problems))
        }
        let digest = SHA256.hexDigest(of: bytes)
        let base: Scenario
        switch ScenarioDecoder.decode(root: root, file: file, digest: digest) {
        case let .success(scenario): base = scenario
        case let .failure(problems): return .failure(.invalid(problems))
        }
        // The command line's axes, or the file's sweep block.
        var payloads = payloads
        var profiles = profiles
        var parameters = parameters
        if payloads.isEmpty, profiles.isEmpty, parameters.isEmpty, let sweep = base.sweep {
            payloads = sweep.payloads
            profiles = sweep.profiles
            parameters = sweep.parameters
        }
        // Which activity and device.
        let activityIndex: Int
        if let name = options.activity {
            guard let index = base.activities.firstIndex(where: { $0.name == name }) else {
                return .failure(.usage("no activity \"\(name)\" in \(file); activities are \(base.activities.map(\.name).joined(separator: ", "))"))
            }
            activityIndex = index
        } else if base.activities.count == 1 {
            activityIndex = 0
        } else {
            return .failure(.usage("\(file) has several activities; say which with --activity (\(base.activities.map(\.name).joined(separator: ", ")))"))
        }
        let device: String
        let deviceNames = base.setup.devices.map(\.name)
        if let name = options.device {
            guard deviceNames.contains(name) else {
                return .failure(.usage("no device \"\(name)\" in \(file); devices are \(deviceNames.joined(separator: ", "))"))
            }
            guard name != base.activities[activityIndex].device else {
                return .failure(.usage("\"\(name)\" is the source of the activity; measure on a receiving device"))
            }
            device = name
        } else {
            let sources = Set(base.activities.map(\.device))
            let receivers = deviceNames.filter { !sources.contains($0) }
            guard receivers.count == 1 else {
                return .failure(.usage("\(file): say which device to measure on with --on (\(receivers.joined(separator: ", ")))"))
            }
            device = receivers[0]
        }
        let activityPath = root.member("activity") != nil ? "activity" : "activities[\(activityIndex)]"
        let payloadPath = ParameterPath(activityPath + ".payloadSize")!
        let specification: SweepSpecification
        do {
            specification = try SweepSpecification(
                payloads: payloads, profiles: profiles, parameters: parameters, payloadPath: payloadPath)
        } catch {
            return .failure(.usage(error.description))
        }
        guard !specification.axes.isEmpty else { return .failure(.usage(SweepError.noAxes.description)) }
        // Every point, decoded.
        var points: [(coordinates: [String], scenario: Scenario)] = []
        var problems: [ScenarioProblem] = []
        for indices in specification.points {
            var tree = root
            var coordinates: [String] = []
            for (axis, index) in zip(specification.axes, indices) {
                coordinates.append(axis.values[index].text)
                guard let edited = tree.setting(axis.path.components[...], to: axis.values[index].json) else {
                    return .failure(.usage(SweepError.cannotSet(axis.path.description).description))
                }
                tree = edited
            }
            let label = zip(specification.axes, coordinates).map { "\($0.name)=\($1)" }.joined(separator: ", ")
            switch ScenarioDecoder.decode(root: tree, file: file, digest: digest) {
            case let .success(scenario):
                points.append((coordinates, scenario))
            case let .failure(found):
                for problem in found.problems {
                    problems.append(ScenarioProblem(
                        file: problem.file, path: problem.path, position: problem.position,
                        message: "at the sweep point \(label): \(problem.message)"))
                }
            }
        }
        if !problems.isEmpty {
            // The same problem at many points is listed once per point; keep the first few.
            return .failure(.invalid(ScenarioProblems(problems: Array(problems.prefix(20)))))
        }
        return .success(PreparedSweep(
            base: base, axes: specification.axes.map { SweepAxis(name: $0.name, values: $0.values.map(\.text)) },
            points: points, activity: activityIndex, activityPath: activityPath, device: device,
            trials: options.trials ?? base.trials, seed: options.seed ?? base.seed, shard: options.shard))
    }

    /// Runs every point of `sweep`, reporting each point done to `progress`.
    public func run(_ sweep: PreparedSweep, progress: ((Int, Int) -> Void)? = nil) -> Result<SweepResult, SweepFailure> {
        var results: [SweepPoint] = []
        let trials = sweep.shard?.trials(of: sweep.trials) ?? 0..<sweep.trials
        for (index, point) in sweep.points.enumerated() {
            let aggregate: PointAggregate
            switch runPoint(point.scenario, activity: sweep.activity, device: sweep.device, trials: trials, seed: sweep.seed) {
            case let .success(value): aggregate = value
            case let .failure(failure):
                let label = zip(sweep.axes, point.coordinates).map { "\($0.name)=\($1)" }.joined(separator: ", ")
                return .failure(.stopped("at the sweep point \(label): \(failure)"))
            }
            let activity = point.scenario.activities[sweep.activity]
            let profile = point.scenario.setup.devices.first { $0.name == sweep.device }?.internet.name ?? ""
            results.append(SweepPoint(
                coordinates: point.coordinates, payloadBytes: activity.content.transferSize, profile: profile,
                aggregate: aggregate))
            progress?(index + 1, sweep.points.count)
        }
        return .success(SweepResult(
            file: sweep.base.file, name: sweep.base.name, digest: sweep.base.digest, seed: sweep.seed,
            trials: sweep.trials, activity: sweep.base.activities[sweep.activity].name, device: sweep.device,
            axes: sweep.axes, points: results, shard: sweep.shard))
    }

    /// The aggregate of `trials` of `scenario`, spread over the threads.
    public func runPoint(
        _ scenario: Scenario, activity: Int, device: String, trials: Range<Int>, seed: UInt64
    ) -> Result<PointAggregate, ScenarioRunFailure> {
        let workers = max(1, min(jobs, trials.count))
        let aggregates = UnsafeMutableBufferPointer<PointAggregate>.allocate(capacity: workers)
        aggregates.initialize(repeating: PointAggregate())
        let failures = UnsafeMutableBufferPointer<ScenarioRunFailure?>.allocate(capacity: workers)
        failures.initialize(repeating: nil)
        defer {
            aggregates.deinitialize()
            aggregates.deallocate()
            failures.deinitialize()
            failures.deallocate()
        }
        nonisolated(unsafe) let sharedAggregates = aggregates
        nonisolated(unsafe) let sharedFailures = failures
        let id = ActivityID(activity)
        let work: @Sendable (Int) -> Void = { worker in
            var run: HandoffRun
            do throws(ScenarioRunFailure) {
                run = try ScenarioRunner.makeRun(scenario, seed: seed)
            } catch {
                sharedFailures[worker] = error
                return
            }
            var aggregate = PointAggregate()
            var trial = trials.lowerBound + worker
            while trial < trials.upperBound {
                do throws(ScenarioRunFailure) {
                    if let failure = try ScenarioRunner.runTrial(scenario, run: &run, seed: seed, trial: trial, keepsTrace: false) {
                        sharedFailures[worker] = failure
                        return
                    }
                } catch {
                    sharedFailures[worker] = error
                    return
                }
                aggregate.record(run.summary(of: id, on: device))
                aggregate.events &+= run.simulation.handledEventCount
                trial += workers
            }
            sharedAggregates[worker] = aggregate
        }
        if workers == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers, execute: work)
        }
        // The failure of the earliest trial, whichever thread met it.
        if let failure = failures.compactMap({ $0 }).min(by: { ($0.trial ?? -1) < ($1.trial ?? -1) }) {
            return .failure(failure)
        }
        var total = PointAggregate()
        for aggregate in aggregates { total.merge(aggregate) }
        return .success(total)
    }
}

/// A sweep with every point decoded.
public struct PreparedSweep: Sendable {
    /// The scenario as the file has it.
    public let base: Scenario
    /// The axes.
    public let axes: [SweepAxis]
    /// Every point: its coordinates and its scenario.
    public let points: [(coordinates: [String], scenario: Scenario)]
    /// The activity measured (index) and the device it is measured on.
    public let activity: Int
    /// The measured activity's place in the file: `activity` or
    /// `activities[i]`.
    public let activityPath: String
    public let device: String
    /// Trials per point and the seed.
    public let trials: Int
    public let seed: UInt64
    /// The slice of trials to run, if sharded.
    public let shard: Shard?
}

/// Why a sweep did not produce a result.
public enum SweepFailure: Error, Sendable, CustomStringConvertible {
    /// The file, or the file at some point, is invalid (exit 65).
    case invalid(ScenarioProblems)
    /// The request does not fit the file (exit 64).
    case usage(String)
    /// A trial hit a limit (exit 1).
    case stopped(String)

    public var description: String {
        switch self {
        case let .invalid(problems): return problems.description
        case let .usage(message): return message
        case let .stopped(message): return message
        }
    }
}
