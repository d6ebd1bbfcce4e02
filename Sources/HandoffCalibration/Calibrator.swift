import Foundation
import Handoff
import HandoffScenario
import HandoffWorld
import ScenarioJSON
import SimKernel

/// How well the model fits one measured group.
package struct GroupFit: Sendable, Equatable {
    /// One quantile of both distributions, in milliseconds.
    package struct Quantile: Sendable, Equatable {
        /// The level, e.g. 0.95.
        package let level: Double
        package let measured: Double
        package let simulated: Double?
    }

    /// The dataset's index in the experiment.
    package let dataset: Int
    /// The group's value ("" without grouping).
    package let group: String
    /// The simulated metric.
    package let metric: LatencyMetric
    /// Measured latencies, and simulated trials that reached the metric.
    package let measuredCount: Int
    package let simulatedCount: Int
    /// The two-sample Kolmogorov–Smirnov distance, and its 5% critical
    /// value for these sample sizes.
    package let ks: Double
    package let critical: Double
    /// Quantiles at 5, 25, 50, 75, 95 and 99%.
    package let quantiles: [Quantile]
    /// The shares of attempts that succeeded, when the data has an outcome
    /// column.
    package let measuredSuccess: Double?
    package let simulatedSuccess: Double
    /// Both samples, sorted (milliseconds), for the ECDF chart.
    package let measuredSorted: [Double]
    package let simulatedSorted: [Double]
}

/// A fitted parameter: its value and, with a bootstrap, an interval.
public struct FittedParameter: Sendable, Equatable {
    /// The parameter.
    package let parameter: FitParameter
    /// The parameter's path in the scenario file, such as
    /// `network.wifiPeerToPeer.latency`.
    public var path: String { parameter.path }
    /// The value, in the kind's unit (ns, bytes, bit/s, or the number).
    public let value: Double
    /// The 95% bootstrap interval, when one was asked for.
    public let interval: ClosedRange<Double>?
}

/// What `handoff-sim calibrate` found.
public struct CalibrationResult: Sendable, Equatable {
    /// The experiment's name and file.
    public let name: String
    package let file: String
    package let seed: UInt64
    /// How many seeds, from ``seed`` on, the search's objective averaged
    /// over (the groups below are at ``seed`` alone).
    package var seedCount = 1
    /// Simulated trials per group and evaluation.
    package let trials: Int
    /// Whether parameters were fitted (false: the fit was only checked).
    public let fitted: Bool
    /// Simulations run, bootstrap included.
    package let evaluations: Int
    /// Bootstrap replicates.
    package let bootstrap: Int
    /// The objective at the result (the sum over groups of the KS distance
    /// and the quantile loss).
    public let objective: Double
    /// Each parameter, fitted or as checked.
    public let parameters: [FittedParameter]
    /// Each group's fit, datasets in order, groups in file order.
    package let groups: [GroupFit]
    /// Each bootstrap replicate's fitted values, in the order of
    /// ``parameters`` (each in its kind's unit); empty without a bootstrap.
    var replicates: [[Double]] = []
    /// Trials simulated in all (every group of every simulation): the
    /// cost of the fit, whatever the machine.
    package var trialsSimulated = 0
}

/// Fits an ``Experiment``'s parameters to its measurements by simulation.
///
/// A candidate is a value for every parameter. It is written into the base
/// scenario (as `sweep --vary` would), one point per measured group (the
/// group's value written too), and each point runs `trials` trials under
/// the experiment's seed: common random numbers, so candidates are
/// compared on the same draws and the objective is a deterministic
/// function of the candidate. The objective sums, over groups, the
/// Kolmogorov–Smirnov distance between simulated and measured latencies,
/// half the mean absolute log-ratio of their 5, 25, 50, 75, 95 and 99%
/// quantiles (the last two weighted twice: the tail matters), and the gap
/// between success shares when the data has outcomes. The search
/// (`GlobalSearch`) works on the parameters' ranges mapped to [0, 1] (log
/// ranges in the logarithm): a Latin-hypercube screen of the whole ranges
/// on an eighth of the trials, Nelder–Mead from the two best screened
/// points on a quarter, and Nelder–Mead from the better of them on every
/// trial, so where it starts does not decide where it ends. A bootstrap
/// refits on resampled measurements, each replicate on its own random
/// numbers, for 95% intervals, and keeps each replicate's values. Nothing
/// depends on the number of threads: they only share out each point's
/// trials.
public struct Calibrator: Sendable {
    /// Threads for each simulation.
    var jobs: Int
    /// Bootstrap replicates (0: no intervals).
    var bootstrap: Int
    /// The most simulations of the main fit.
    var maximumEvaluations: Int?

    /// A calibrator.
    public init(jobs: Int = 1, bootstrap: Int = 0, maximumEvaluations: Int? = nil) {
        self.jobs = max(1, jobs)
        self.bootstrap = max(0, bootstrap)
        self.maximumEvaluations = maximumEvaluations
    }

    /// A bootstrap replicate's refit: Nelder–Mead from the fit, on every
    /// trial, with a simplex of this size (of each range mapped to [0, 1])
    /// and this many simulations per vertex. A simplex, unlike a model
    /// fitted in a region around the fit, can end anywhere in the ranges:
    /// one round of a quadratic model in ±0.03 of the fit (31 simulations
    /// a replicate) gave the region's edges as the interval.
    static let replicateSimplex = 0.05
    static let replicateBudget = 8

    static let levels = [0.05, 0.25, 0.5, 0.75, 0.95, 0.99]
    static let weights = [1.0, 1, 1, 1, 2, 2]

    /// Fits `experiment`'s parameters, or with `check` (or no parameters)
    /// measures the fit at `values`.
    ///
    /// ```swift
    /// let fit = try Calibrator(jobs: 2, bootstrap: 20).run(try Experiment.load("calibration/awdl.json"))
    /// for parameter in fit.parameters { print(parameter.path, parameter.value, parameter.interval as Any) }
    /// ```
    ///
    /// - Parameters:
    ///   - experiment: The experiment: its scenarios, measurements and
    ///     parameters.
    ///   - check: Only measure the fit, without fitting.
    ///   - values: With `check`, every parameter's value in the order the
    ///     experiment lists them, each in its kind's unit (nanoseconds,
    ///     bytes, bits per second, or the number); nil for the scenario as
    ///     it is.
    ///   - read: The bytes of a scenario file the experiment names, or nil
    ///     if it cannot be read.
    ///   - progress: Called with the number of simulations run so far.
    /// - Returns: The fitted (or checked) parameters and the fit's
    ///   objective.
    /// - Throws: `ScenarioError`: a scenario file that cannot be read
    ///   (`ScenarioError.Category.missingInput`), or a trial's error.
    public func run(
        _ experiment: Experiment, check: Bool = false, values: [Double]? = nil,
        read: (String) -> [UInt8]? = { FileManager.default.contents(atPath: $0).map(Array.init) },
        progress: (@Sendable (Int) -> Void)? = nil
    ) throws(ScenarioError) -> CalibrationResult {
        let parameters = experiment.parameters
        var evaluator = Evaluator(
            experiment: experiment, scenarios: try Self.scenarios(of: experiment, read: read), jobs: jobs,
            progress: progress)
        if check || parameters.isEmpty {
            let simulated = try evaluator.simulate(values: values)
            let groups = evaluator.fits(simulated, measured: experiment.datasets.map { $0.groups.map(\.milliseconds) })
            let checked = zip(parameters, values ?? []).map { FittedParameter(parameter: $0, value: $1, interval: nil) }
            return CalibrationResult(
                name: experiment.name, file: experiment.file, seed: experiment.seed, trials: experiment.trials,
                fitted: false, evaluations: evaluator.evaluations, bootstrap: 0,
                objective: Evaluator.objective(groups), parameters: checked, groups: groups,
                trialsSimulated: evaluator.trialsSimulated)
        }
        let measured = experiment.datasets.map { $0.groups.map(\.milliseconds) }
        let budget = maximumEvaluations ?? 60 * (parameters.count + 1)
        let start = parameters.map { $0.unit(of: $0.start) }
        let search = GlobalSearch()
        let best = try search.minimise(
            from: start, budget: budget, key: RandomStreamKey(seed: experiment.seed).child("calibrate")
        ) { unit, divisor throws(ScenarioError) in
            try evaluator.objective(unit: unit, measured: measured, divisor: divisor)
        }
        var intervals: [ClosedRange<Double>?] = Array(repeating: nil, count: parameters.count)
        var replicates: [[Double]] = []
        if bootstrap > 0 {
            var estimates: [[Double]] = Array(repeating: [], count: parameters.count)
            for replicate in 0..<bootstrap {
                var generator = RandomStreamKey(seed: experiment.seed).child("bootstrap", replicate).generator()
                // A replicate resamples the measurements and simulates on
                // its own random numbers, so the interval covers the
                // simulation's noise as well as the measurements'.
                let simulationSeed = generator.next() & UInt64(Int64.max)
                let resampled = measured.map { groups in
                    groups.map { values in
                        values.isEmpty ? values : (0..<values.count).map { _ in
                            values[Int(generator.uniform(below: UInt64(values.count)))]
                        }
                    }
                }
                let startValue = try evaluator.objective(unit: best.point, measured: resampled, seed: simulationSeed)
                let refit = try Self.nelderMead(
                    from: best.point, value: startValue, size: Self.replicateSimplex,
                    budget: Self.replicateBudget * (parameters.count + 1) - 1
                ) { unit throws(ScenarioError) in
                    try evaluator.objective(unit: unit, measured: resampled, seed: simulationSeed)
                }
                let values = parameters.indices.map { parameters[$0].value(at: refit.point[$0]) }
                for index in parameters.indices { estimates[index].append(values[index]) }
                replicates.append(values)
            }
            for index in parameters.indices {
                let sorted = estimates[index].sorted()
                func rank(_ p: Double) -> Double { sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))] }
                intervals[index] = rank(0.025)...rank(0.975)
            }
        }
        let values = zip(parameters, best.point).map { $0.value(at: $1) }
        let simulated = try evaluator.simulate(values: values)
        let groups = evaluator.fits(simulated, measured: measured)
        let fitted = parameters.indices.map {
            FittedParameter(parameter: parameters[$0], value: values[$0], interval: intervals[$0])
        }
        return CalibrationResult(
            name: experiment.name, file: experiment.file, seed: experiment.seed, seedCount: experiment.seedCount,
            trials: experiment.trials, fitted: true, evaluations: evaluator.evaluations, bootstrap: bootstrap,
            objective: Evaluator.objective(groups), parameters: fitted, groups: groups, replicates: replicates,
            trialsSimulated: evaluator.trialsSimulated)
    }

    /// The bytes of every scenario file of `experiment`, by path.
    static func scenarios(
        of experiment: Experiment, read: (String) -> [UInt8]?
    ) throws(ScenarioError) -> [String: [UInt8]] {
        var scenarios: [String: [UInt8]] = [:]
        for file in experiment.scenarioFiles {
            guard let bytes = read(file) else {
                throw ScenarioError.unreadable(file)
            }
            scenarios[file] = bytes
        }
        return scenarios
    }

    // MARK: Checking

    /// The problems of `experiment` that show only against its scenario: a
    /// parameter or group path the scenario has no place for, or values
    /// that make it invalid (each parameter is tried at both ends of its
    /// range, each group with its value), in every scenario the datasets
    /// are simulated with. Nil when there are none.
    package static func problems(
        in experiment: Experiment,
        read: (String) -> [UInt8]? = { FileManager.default.contents(atPath: $0).map(Array.init) }
    ) -> ScenarioProblems? {
        var problems: [ScenarioProblem] = []
        let options = SweepRunner.Options(
            trials: experiment.trials, seed: experiment.seed, activity: experiment.activity, device: experiment.device)
        // Each scenario read once; checked at each parameter's bounds and group.
        var scenarios: [String: [UInt8]] = [:]
        for file in experiment.scenarioFiles { scenarios[file] = read(file) }
        func check(
            _ parameters: [(path: String, values: [String])], in file: String,
            at source: (path: String, position: SourcePosition?)?, what: String
        ) {
            guard let scenario = scenarios[file] else {
                problems.append(ScenarioProblem(
                    file: experiment.file, path: "$", position: nil, message: "the scenario \(file) cannot be read"))
                return
            }
            let axes = [(path: "trials", values: [String(experiment.trials)])] + parameters + experiment.eraEdits(of: file)
            let error: ScenarioError
            do {
                _ = try SweepRunner.prepare(scenario, file: file, parameters: axes, options: options)
                return
            } catch let thrown {
                error = thrown
            }
            let detail = error.problems?.problems.first.map { "\($0.path): \($0.message)" } ?? error.message(naming: { argument in
                switch argument {
                case .activity: return "the experiment's \"activity\" key"
                case .device: return "the experiment's \"on\" key"
                case .payloads, .profiles, .parameters, .parameter, .shard: return what
                }
            })
            problems.append(ScenarioProblem(
                file: experiment.file, path: source?.path ?? "$", position: source?.position,
                message: "\(what) does not fit the scenario \(file): \(detail)"))
        }
        for file in experiment.scenarioFiles {
            for parameter in experiment.parameters {
                let before = problems.count
                for bound in [parameter.minimum, parameter.maximum] {
                    check([(parameter.path, [parameter.text(bound)])], in: file, at: parameter.source,
                          what: "\(parameter.path) = \(parameter.display(bound))")
                    if problems.count > before { break }
                }
                // A number is fitted over the reals: a path that takes only
                // whole numbers is refused now, not in the middle of the fit.
                guard problems.count == before, parameter.kind == .number, let fraction = parameter.fractionalProbe
                else { continue }
                check([(parameter.path, [parameter.text(fraction)])], in: file, at: parameter.source,
                      what: "\(parameter.path) = \(parameter.text(fraction))")
                if problems.count > before {
                    problems[before] = ScenarioProblem(
                        file: experiment.file, path: parameter.source?.path ?? "$", position: parameter.source?.position,
                        message: "\(parameter.path) takes only whole numbers in the scenario \(file), and calibrate fits a number over its whole range (\(parameter.text(fraction)) does not fit); fit a parameter that takes fractions")
                    problems.removeSubrange((before + 1)...)
                }
            }
        }
        for dataset in experiment.datasets {
            guard let path = dataset.groupPath else { continue }
            for group in dataset.groups {
                let before = problems.count
                check([(path, [group.value])], in: dataset.scenarioFile, at: dataset.groupSource,
                      what: "\(path) = \(group.value)")
                if problems.count > before { break }
            }
        }
        if experiment.parameters.isEmpty {
            for file in experiment.scenarioFiles
            where experiment.datasets.allSatisfy({ $0.scenarioFile != file || $0.groupPath == nil }) {
                check([], in: file, at: nil, what: "the scenario")
            }
        }
        return problems.isEmpty ? nil : ScenarioProblems(problems: problems)
    }

    // MARK: Nelder–Mead

    /// The best point found by Nelder–Mead in [0, 1]^d from `start` (whose
    /// objective is `value`), with a simplex of `size` on every axis and at
    /// most `budget` simulations (at least d for the first simplex; an
    /// expansion or shrink is cut short at the budget, not run past it);
    /// stops early when the simplex is narrower
    /// than 0.001 (or 0.01 with values within 1e-6).
    static func nelderMead(
        from start: [Double], value: Double, size: Double, budget: Int,
        _ f: (_ point: [Double]) throws(ScenarioError) -> Double
    ) throws(ScenarioError) -> (point: [Double], value: Double, evaluations: Int) {
        let dimension = start.count
        func clamp(_ point: [Double]) -> [Double] { point.map { min(max($0, 0), 1) } }
        var simplex: [(point: [Double], value: Double)] = [(start, value)]
        var evaluations = 0
        for axis in 0..<dimension {
            var vertex = start
            vertex[axis] += vertex[axis] + size <= 1 ? size : -size
            vertex = clamp(vertex)
            simplex.append((vertex, try f(vertex)))
            evaluations += 1
        }
        while evaluations < budget {
            // Stable order: by value, then by the vertex's coordinates.
            simplex.sort { $0.value != $1.value ? $0.value < $1.value : $0.point.lexicographicallyPrecedes($1.point) }
            let spread = simplex.last!.value - simplex.first!.value
            let width = (0..<dimension).map { axis in
                simplex.map { $0.point[axis] }.max()! - simplex.map { $0.point[axis] }.min()!
            }.max() ?? 0
            if width < 1e-3 || (spread < 1e-6 && width < 1e-2) { break }
            let worst = simplex[dimension]
            var centroid = [Double](repeating: 0, count: dimension)
            for vertex in simplex.dropLast() {
                for axis in 0..<dimension { centroid[axis] += vertex.point[axis] / Double(dimension) }
            }
            func toward(_ factor: Double) -> [Double] {
                clamp((0..<dimension).map { centroid[$0] + factor * (centroid[$0] - worst.point[$0]) })
            }
            let reflected = toward(1)
            let reflectedValue = try f(reflected)
            evaluations += 1
            if reflectedValue < simplex[0].value, evaluations < budget {
                let expanded = toward(2)
                let expandedValue = try f(expanded)
                evaluations += 1
                simplex[dimension] = expandedValue < reflectedValue ? (expanded, expandedValue) : (reflected, reflectedValue)
            } else if reflectedValue < simplex[dimension - 1].value || evaluations >= budget {
                // With no simulation left, the reflection replaces the
                // worst vertex if it is better.
                if reflectedValue < worst.value { simplex[dimension] = (reflected, reflectedValue) }
            } else {
                // (The contraction and the shrink stop at the budget.)
                let contracted = reflectedValue < worst.value ? toward(0.5) : toward(-0.5)
                let contractedValue = try f(contracted)
                evaluations += 1
                if contractedValue < min(reflectedValue, worst.value) {
                    simplex[dimension] = (contracted, contractedValue)
                } else {
                    // Shrink toward the best vertex.
                    let bestPoint = simplex[0].point
                    for index in 1...dimension where evaluations < budget {
                        let point = clamp((0..<dimension).map { bestPoint[$0] + 0.5 * (simplex[index].point[$0] - bestPoint[$0]) })
                        simplex[index] = (point, try f(point))
                        evaluations += 1
                    }
                }
            }
        }
        let best = simplex.min { $0.value != $1.value ? $0.value < $1.value : $0.point.lexicographicallyPrecedes($1.point) }!
        return (best.point, best.value, evaluations)
    }
}

/// Simulates an experiment's groups for candidate parameter values.
struct Evaluator {
    let experiment: Experiment
    /// The bytes of each scenario file, by path.
    let scenarios: [String: [UInt8]]
    let jobs: Int
    let progress: (@Sendable (Int) -> Void)?
    private(set) var evaluations = 0
    /// Trials simulated in all, over every dataset and group.
    private(set) var trialsSimulated = 0

    init(experiment: Experiment, scenarios: [String: [UInt8]], jobs: Int, progress: (@Sendable (Int) -> Void)?) {
        self.experiment = experiment
        self.scenarios = scenarios
        self.jobs = jobs
        self.progress = progress
    }

    /// The simulated latencies (ms) of every group and the share of trials
    /// that continued, for `values` (nil: the scenario as it is), under
    /// `seed` (the experiment's when nil).
    mutating func simulate(
        values: [Double]?, seed: UInt64? = nil, divisor: Int = 1
    ) throws(ScenarioError) -> [[(latencies: [Double], success: Double)]] {
        var result: [[(latencies: [Double], success: Double)]] = []
        for dataset in experiment.datasets {
            var groups: [(latencies: [Double], success: Double)] = []
            for group in dataset.groups {
                // The trial count always written: an axis, so that the file's
                // own sweep block (if any) is not used instead.
                let trials = Self.trials(dataset.trials, divisor: divisor)
                var parameters = [(path: "trials", values: [String(trials)])]
                if let values {
                    for (parameter, value) in zip(experiment.parameters, values) {
                        parameters.append((parameter.path, [parameter.text(value)]))
                    }
                }
                if let path = dataset.groupPath { parameters.append((path, [group.value])) }
                parameters += experiment.eraEdits(of: dataset.scenarioFile)
                let options = SweepRunner.Options(
                    trials: trials, seed: seed ?? experiment.seed, activity: experiment.activity,
                    device: experiment.device)
                let prepared = try SweepRunner.prepare(
                    scenarios[dataset.scenarioFile] ?? [], file: dataset.scenarioFile, payloads: [], profiles: [],
                    parameters: parameters, options: options)
                let point = try SweepRunner(jobs: jobs, recordsSamples: true).run(prepared).points[0]
                let latencies = point.samples.compactMap { sample in
                    sample.latency(dataset.metric).map { Double($0.nanoseconds) / 1e6 }
                }
                groups.append((latencies, point.aggregate.successRate))
                trialsSimulated += trials
            }
            result.append(groups)
        }
        evaluations += 1
        progress?(evaluations)
        return result
    }

    /// The objective at `unit` (each parameter's position in its range):
    /// its mean over the experiment's seeds, from `seed` (the
    /// experiment's when nil) on.
    mutating func objective(
        unit: [Double], measured: [[[Double]]], seed: UInt64? = nil, divisor: Int = 1
    ) throws(ScenarioError) -> Double {
        let values = zip(experiment.parameters, unit).map { $0.value(at: $1) }
        let first = seed ?? experiment.seed
        var total = 0.0
        for offset in 0..<experiment.seedCount {
            // Seeds stay within 0…Int64.max, as the experiment's own.
            let each = (first &+ UInt64(offset)) & UInt64(Int64.max)
            total += Self.objective(fits(try simulate(values: values, seed: each, divisor: divisor), measured: measured))
        }
        return total / Double(experiment.seedCount)
    }

    /// The fewest trials a simulation at a divisor runs (all, when a
    /// dataset has fewer).
    static let minimumTrials = 20

    /// The trials of a dataset of `trials` at `divisor`.
    static func trials(_ trials: Int, divisor: Int) -> Int {
        divisor <= 1 ? trials : max(min(trials, minimumTrials), trials / divisor)
    }

    /// Each group's fit.
    func fits(_ simulated: [[(latencies: [Double], success: Double)]], measured: [[[Double]]]) -> [GroupFit] {
        var fits: [GroupFit] = []
        for (index, dataset) in experiment.datasets.enumerated() {
            for (groupIndex, group) in dataset.groups.enumerated() {
                let simulatedGroup = simulated[index][groupIndex]
                let measuredValues = measured[index][groupIndex]
                let sortedMeasured = measuredValues.sorted()
                let sortedSimulated = simulatedGroup.latencies.sorted()
                func quantile(_ values: [Double], _ level: Double) -> Double? {
                    guard !values.isEmpty else { return nil }
                    return values[min(values.count - 1, max(0, Int((level * Double(values.count)).rounded(.up)) - 1))]
                }
                let ks = sortedSimulated.isEmpty || sortedMeasured.isEmpty
                    ? 1 : KolmogorovSmirnov.distance(sortedSimulated, sortedMeasured)
                let critical = sortedSimulated.isEmpty || sortedMeasured.isEmpty
                    ? 0 : KolmogorovSmirnov.criticalValue(sortedSimulated.count, sortedMeasured.count)
                let measuredSuccess = dataset.hasOutcome
                    ? Double(group.milliseconds.count) / Double(max(group.rows, 1)) : nil
                fits.append(GroupFit(
                    dataset: index, group: group.value, metric: dataset.metric, measuredCount: sortedMeasured.count,
                    simulatedCount: sortedSimulated.count, ks: ks, critical: critical,
                    quantiles: Calibrator.levels.map {
                        GroupFit.Quantile(level: $0, measured: quantile(sortedMeasured, $0) ?? 0, simulated: quantile(sortedSimulated, $0))
                    },
                    measuredSuccess: measuredSuccess, simulatedSuccess: simulatedGroup.success,
                    measuredSorted: sortedMeasured, simulatedSorted: sortedSimulated))
            }
        }
        return fits
    }

    /// The sum over groups of the KS distance, half the weighted mean
    /// absolute log-ratio of the quantiles, and the success-share gap.
    static func objective(_ fits: [GroupFit]) -> Double {
        var total = 0.0
        for fit in fits {
            total += fit.ks
            var loss = 0.0
            for (quantile, weight) in zip(fit.quantiles, Calibrator.weights) {
                guard let simulated = quantile.simulated, simulated > 0, quantile.measured > 0 else {
                    loss += weight * 10
                    continue
                }
                // Compared at the simulation's resolution, 1 ns: a subnormal
                // measurement cannot make the ratio infinite.
                loss += weight * abs(log(max(simulated, 1e-6) / max(quantile.measured, 1e-6)))
            }
            total += 0.5 * loss / Calibrator.weights.reduce(0, +)
            if let measured = fit.measuredSuccess { total += abs(fit.simulatedSuccess - measured) }
        }
        return total
    }
}
