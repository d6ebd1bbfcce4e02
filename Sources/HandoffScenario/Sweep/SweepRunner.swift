import Foundation
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
///
/// ```swift
/// let prepared = try SweepRunner.prepare(
///     bytes, file: "relay.json", payloads: ["256B", "3KiB", "64KiB"], profiles: ["WiFi", "LTE"],
///     options: SweepRunner.Options(trials: 1000)).get()
/// let result = try SweepRunner(jobs: 2).run(prepared).get()
/// print(SweepJSONLines.render(result, toolVersion: "0.1.0"))
/// ```
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
        var points: [SweepPointScenario] = []
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
                let edits = zip(specification.axes, indices).map { ($0.path, $0.values[$1].text) }
                points.append(SweepPointScenario(
                    coordinates: coordinates, scenario: scenario, bytes: bytes, edits: edits, digest: digest))
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

    /// Runs every point of `sweep`, reporting points done to `progress`.
    public func run(_ sweep: PreparedSweep, progress: (@Sendable (Int, Int) -> Void)? = nil) -> Result<SweepResult, SweepFailure> {
        let trials = sweep.shard?.trials(of: sweep.trials) ?? 0..<sweep.trials
        let outcome = runPoints(
            sweep.points, activity: sweep.activity, device: sweep.device, trials: trials, seed: sweep.seed,
            progress: progress)
        switch outcome {
        case let .failure(stopped):
            let (index, failure) = (stopped.point, stopped.failure)
            let label = zip(sweep.axes, sweep.points[index].coordinates).map { "\($0.name)=\($1)" }.joined(separator: ", ")
            return .failure(.stopped("at the sweep point \(label): \(failure)"))
        case let .success(aggregates):
            let results = zip(sweep.points, aggregates).map { point, aggregate in
                let activity = point.scenario.activities[sweep.activity]
                let profile = point.scenario.setup.devices.first { $0.name == sweep.device }?.internet.name ?? ""
                return SweepPoint(
                    coordinates: point.coordinates, payloadBytes: activity.content.transferSize, profile: profile,
                    aggregate: aggregate)
            }
            return .success(SweepResult(
                file: sweep.base.file, name: sweep.base.name, digest: sweep.base.digest, seed: sweep.seed,
                trials: sweep.trials, activity: sweep.base.activities[sweep.activity].name, device: sweep.device,
                axes: sweep.axes, points: results, shard: sweep.shard))
        }
    }

    /// The aggregate of `trials` of one point's scenario.
    public func runPoint(
        _ point: SweepPointScenario, activity: Int, device: String, trials: Range<Int>, seed: UInt64
    ) -> Result<PointAggregate, ScenarioRunFailure> {
        switch runPoints([point], activity: activity, device: device, trials: trials, seed: seed, progress: nil) {
        case let .success(aggregates): return .success(aggregates[0])
        case let .failure(stopped): return .failure(stopped.failure)
        }
    }

    /// The aggregates of `trials` of every point, spread over the threads.
    ///
    /// The work is cut into chunks of trials of one point, handed out in
    /// point order to whichever thread is free, so threads stay busy across
    /// points of unequal cost. Each thread makes its own copy of a point's
    /// scenario from the file (``SweepPointScenario/unsharedScenario()``),
    /// so no object is shared between threads while trials run: Swift
    /// counts references atomically, and two cores retaining one object per
    /// trial would pass its cache line back and forth. Chunks are merged in
    /// order, and merging is exact, so the result does not depend on the
    /// number of threads.
    func runPoints(
        _ points: [SweepPointScenario], activity: Int, device: String, trials: Range<Int>, seed: UInt64,
        progress: (@Sendable (Int, Int) -> Void)?
    ) -> Result<[PointAggregate], PointFailure> {
        let workers = max(1, min(jobs, trials.count * points.count))
        let chunks = Self.chunks(points: points.count, trials: trials, workers: workers)
        let results = UnsafeMutableBufferPointer<PointAggregate>.allocate(capacity: chunks.count)
        results.initialize(repeating: PointAggregate())
        let failures = UnsafeMutableBufferPointer<ScenarioRunFailure?>.allocate(capacity: chunks.count)
        failures.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
            failures.deinitialize()
            failures.deallocate()
        }
        nonisolated(unsafe) let sharedResults = results
        nonisolated(unsafe) let sharedFailures = failures
        let dispenser = ChunkDispenser(chunkPoints: chunks.map(\.point), points: points.count, progress: progress)
        let id = ActivityID(activity)
        let work: @Sendable (Int) -> Void = { _ in
            // The point this thread is on: its index, its scenario and its
            // reused run, held apart so that passing the run `inout` does
            // not copy the scenario out of a shared tuple every trial.
            var currentPoint = -1
            var scenario: Scenario?
            var run: ScenarioTrialRun?
            while let index = dispenser.next() {
                let chunk = chunks[index]
                if currentPoint != chunk.point {
                    let next = workers == 1 ? points[chunk.point].scenario : points[chunk.point].unsharedScenario()
                    do throws(ScenarioRunFailure) {
                        run = try ScenarioRunner.makeRun(next, seed: seed)
                    } catch {
                        sharedFailures[index] = error
                        dispenser.stop()
                        return
                    }
                    scenario = next
                    currentPoint = chunk.point
                }
                guard let scenario, var trialRun = run.take() else { return }
                defer { run = trialRun }
                var aggregate = PointAggregate()
                for trial in chunk.trials {
                    do throws(ScenarioRunFailure) {
                        if let failure = try ScenarioRunner.runTrial(
                            scenario, run: &trialRun, seed: seed, trial: trial, keepsTrace: false)
                        {
                            sharedFailures[index] = failure
                            dispenser.stop()
                            return
                        }
                    } catch {
                        sharedFailures[index] = error
                        dispenser.stop()
                        return
                    }
                    aggregate.record(trialRun.run.summaryInPlace(of: id, on: device))
                    aggregate.events &+= trialRun.run.simulation.handledEventCount
                }
                sharedResults[index] = aggregate
                dispenser.finished(index)
            }
        }
        if workers == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers, execute: work)
        }
        let found = failures.enumerated().compactMap { entry in entry.element.map { (index: entry.offset, failure: $0) } }
        if let first = found.min(by: {
            (chunks[$0.index].point, $0.failure.trial ?? -1) < (chunks[$1.index].point, $1.failure.trial ?? -1)
        }) {
            return .failure(PointFailure(point: chunks[first.index].point, failure: first.failure))
        }
        var aggregates = [PointAggregate](repeating: PointAggregate(), count: points.count)
        for (index, chunk) in chunks.enumerated() { aggregates[chunk.point].merge(results[index]) }
        return .success(aggregates)
    }
}

extension SweepRunner {
    /// The chunks of work, in the order they are handed out: `trials` of
    /// every point cut into pieces of consecutive trials.
    ///
    /// Each point is cut into enough pieces to keep `workers` threads busy
    /// on it (none with one thread). The last pieces of the run are cut
    /// four times finer, so that the threads finish close together rather
    /// than one waiting while another runs a whole piece of the last and
    /// often dearest point. How the trials are cut never changes the
    /// result: pieces are merged exactly.
    static func chunks(points: Int, trials: Range<Int>, workers: Int) -> [(point: Int, trials: Range<Int>)] {
        func split(_ range: Range<Int>, into pieces: Int) -> [Range<Int>] {
            (0..<pieces).map { piece in
                (range.lowerBound + range.count * piece / pieces)..<(range.lowerBound + range.count * (piece + 1) / pieces)
            }
        }
        guard workers > 1 else { return (0..<points).map { ($0, trials) } }
        let perPoint = max(1, min(trials.count / 64, 4 * workers))
        var chunks = (0..<points).flatMap { point in split(trials, into: perPoint).map { (point: point, trials: $0) } }
        // The tail: the last 2 × workers pieces, each cut in four while
        // pieces keep at least 16 trials.
        let tail = min(chunks.count, 2 * workers)
        let finer = chunks.suffix(tail).flatMap { chunk in
            split(chunk.trials, into: max(1, min(4, chunk.trials.count / 16))).map { (point: chunk.point, trials: $0) }
        }
        chunks.removeLast(tail)
        chunks.append(contentsOf: finer)
        return chunks
    }
}

/// A trial that stopped a sweep, and the point it belongs to.
struct PointFailure: Error {
    let point: Int
    let failure: ScenarioRunFailure
}

/// Hands out chunk indices in order to whichever thread asks, under a lock,
/// and reports points as their last chunk finishes.
final class ChunkDispenser: @unchecked Sendable {
    private let lock = NSLock()
    private var nextIndex = 0
    private var stopped = false
    /// The point of every chunk, and how many chunks of each point are
    /// still running or to run.
    private let chunkPoints: [Int]
    private var unfinished: [Int]
    private var finishedPoints = 0
    private let progress: (@Sendable (Int, Int) -> Void)?

    init(chunkPoints: [Int], points: Int, progress: (@Sendable (Int, Int) -> Void)?) {
        self.chunkPoints = chunkPoints
        self.progress = progress
        unfinished = [Int](repeating: 0, count: points)
        for point in chunkPoints { unfinished[point] += 1 }
    }

    /// Records that chunk `index` is done; reports its point if it was the
    /// point's last.
    func finished(_ index: Int) {
        lock.lock()
        defer { lock.unlock() }
        let point = chunkPoints[index]
        unfinished[point] -= 1
        if unfinished[point] == 0 {
            finishedPoints += 1
            progress?(finishedPoints, unfinished.count)
        }
    }

    /// The next chunk, or nil when all are handed out or the run stopped.
    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped, nextIndex < chunkPoints.count else { return nil }
        nextIndex += 1
        return nextIndex - 1
    }

    /// Hands out nothing more (a trial failed).
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }
}

/// A sweep with every point decoded.
public struct PreparedSweep: Sendable {
    /// The scenario as the file has it.
    public let base: Scenario
    /// The axes.
    public let axes: [SweepAxis]
    /// Every point: its coordinates and its scenario.
    public let points: [SweepPointScenario]
    /// The activity measured (index) and the device it is measured on.
    public let activity: Int
    /// The measured activity's place in the file: `activity` or
    /// `activities[i]`.
    public let activityPath: String
    /// The receiving device measured.
    public let device: String
    /// Trials per point and the seed.
    public let trials: Int
    /// The seed.
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

/// One point of a prepared sweep: its coordinates, its scenario, and how
/// to make it again from the file (so each thread can make its own copy).
public struct SweepPointScenario: Sendable {
    /// The value of each axis.
    public let coordinates: [String]
    /// The scenario at this point.
    public let scenario: Scenario
    /// The file's bytes and the values written into it at this point.
    let bytes: [UInt8]
    let edits: [(path: ParameterPath, value: String)]
    let digest: String

    /// A copy of ``scenario`` that shares no storage with it, down to its
    /// strings: the file is parsed again and the values written in again.
    func unsharedScenario() -> Scenario {
        guard case var .success(tree) = ScenarioDecoder.parse(bytes, file: scenario.file) else { return scenario }
        for edit in edits {
            guard let edited = tree.setting(edit.path.components[...], to: JSONNode.parameterValue(edit.value)) else {
                return scenario
            }
            tree = edited
        }
        guard case let .success(copy) = ScenarioDecoder.decode(root: tree, file: scenario.file, digest: digest) else {
            return scenario
        }
        return copy
    }
}
