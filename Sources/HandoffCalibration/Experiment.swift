import Foundation
import Handoff
import HandoffScenario
import HandoffWorld
import ScenarioJSON
import SimKernel

/// A calibration experiment: a scenario, the timings a team measured of
/// what it describes, and the scenario's parameters to fit to them.
///
/// Read from a JSON file by ``load(_:)``:
///
/// ```json
/// {
///   "name": "AWDL request/response",
///   "scenario": "scenarios/awdl-request-response.json",
///   "trials": 2000,
///   "data": [{"file": "data/privatedrop-awdl.csv", "column": "network_ms", "unit": "ms", "metric": "fetch"}],
///   "parameters": [{"path": "network.wifiPeerToPeer.latency", "min": "0.5ms", "max": "5ms", "scale": "log"}]
/// }
/// ```
public struct Experiment: Sendable {
    /// The experiment file.
    let file: String
    /// Its name.
    public let name: String
    /// The base scenario file, as the experiment names it relative to
    /// itself, resolved.
    let scenarioFile: String
    /// The seed of every simulation (common random numbers: every
    /// candidate is simulated on the same random numbers).
    let seed: UInt64
    /// How many seeds, from ``seed`` on, the search's objective averages
    /// over (`"seeds"`, default 1): a candidate is scored on each, so the
    /// fit follows the model rather than one seed's draws.
    let seedCount: Int
    /// Simulated trials per group and evaluation.
    let trials: Int
    /// The activity measured, when the scenario has several.
    let activity: String?
    /// The receiving device measured, when it is ambiguous.
    let device: String?
    /// The OS versions the data were measured on (`measuredOn`), by
    /// platform: the fit runs every device on its platform's, so that the
    /// behaviours that depend on the version are that era's; the overlay
    /// it writes carries only the fitted values.
    package let era: [MeasuredEra]
    /// Per scenario file: the edits that run its devices on the era's
    /// OS versions.
    let eraEdits: [String: [(path: String, values: [String])]]
    /// The measured datasets.
    package let datasets: [MeasuredDataset]
    /// The parameters to fit (empty: only check the fit).
    let parameters: [FitParameter]

    /// The scenario files the datasets are simulated with, each once, in
    /// the order datasets first name them.
    package var scenarioFiles: [String] { Self.scenarioFiles(of: datasets) }

    /// The scenario files `datasets` are simulated with, each once, in the
    /// order they first name them.
    static func scenarioFiles(of datasets: [MeasuredDataset]) -> [String] {
        var files: [String] = []
        for dataset in datasets where !files.contains(dataset.scenarioFile) { files.append(dataset.scenarioFile) }
        return files
    }

    /// Reads the experiment file at `file` and checks it against the
    /// scenarios it names.
    ///
    /// ```swift
    /// let experiment = try Experiment.load("calibration/awdl-request-response.json")
    /// let result = try Calibrator(jobs: 2).run(experiment.overriding(trials: 200))
    /// ```
    ///
    /// - Throws: `ScenarioError` in category
    ///   `ScenarioError.Category.invalidInput`, with every problem found in
    ///   `ScenarioError.problems`: in the file itself (a file that cannot
    ///   be read is one problem at `$`), or a parameter or group its scenario
    ///   has no place for.
    public static func load(_ file: String) throws(ScenarioError) -> Experiment {
        guard let data = InputFile.contents(atPath: file) else {
            throw .invalid(ScenarioProblems(problems: [
                ScenarioProblem(file: file, path: "$", position: nil, message: "cannot read the file"),
            ]))
        }
        let experiment = try ExperimentDecoder.decode(Array(data), file: file).mapError(ScenarioError.invalid).get()
        if let problems = Calibrator.problems(in: experiment) { throw .invalid(problems) }
        return experiment
    }

    /// Reads an experiment from the bytes of a file, naming it `file` in
    /// problems, and checks it against the scenarios it names; `read`
    /// gives the bytes of each file the experiment names (its scenarios
    /// and measured CSV files, resolved against `file`'s folder), or nil
    /// for one that cannot be read. For experiments a test or a tool makes
    /// in memory.
    ///
    /// ```swift
    /// let files = ["dir/cable.json": cableScenario, "dir/data.csv": Array("ms\n100\n104\n".utf8)]
    /// let experiment = try Experiment.decode(experimentBytes, file: "dir/experiment.json") { files[$0] }
    /// ```
    ///
    /// - Throws: `ScenarioError` in category
    ///   `ScenarioError.Category.invalidInput`, as ``load(_:)``.
    public static func decode(
        _ bytes: [UInt8], file: String, read: @escaping (String) -> [UInt8]?
    ) throws(ScenarioError) -> Experiment {
        let experiment = try ExperimentDecoder.decode(bytes, file: file, read: read).mapError(ScenarioError.invalid).get()
        if let problems = Calibrator.problems(in: experiment, read: read) { throw .invalid(problems) }
        return experiment
    }

    /// The same experiment with another seed or trial count (nil keeps
    /// the experiment's); a trial count replaces every dataset's too.
    public func overriding(seed: UInt64? = nil, trials: Int? = nil) -> Experiment {
        var datasets = self.datasets
        if let trials {
            for index in datasets.indices { datasets[index].trials = trials }
        }
        return Experiment(
            file: file, name: name, scenarioFile: scenarioFile, seed: seed ?? self.seed, seedCount: seedCount,
            trials: trials ?? self.trials,
            activity: activity, device: device, era: era, eraEdits: eraEdits, datasets: datasets, parameters: parameters)
    }

    /// The edits that run `file`'s devices on the era's OS versions.
    func eraEdits(of file: String) -> [(path: String, values: [String])] { eraEdits[file] ?? [] }
}

/// One platform's OS version when the data were measured.
package struct MeasuredEra: Sendable, Equatable {
    /// The platform.
    package let platform: Platform
    /// Its OS version.
    package let version: OSVersion
}

/// One measured dataset: a column of a CSV file, the simulated metric it
/// corresponds to, and its groups.
package struct MeasuredDataset: Sendable {
    /// The CSV file, resolved.
    package let file: String
    /// The column measured.
    let column: String
    /// The simulated latency it corresponds to.
    let metric: LatencyMetric
    /// The scenario simulated for it, resolved: its own (`"scenario"`),
    /// or the experiment's.
    var scenarioFile: String
    /// Simulated trials per group and evaluation: its own (`"trials"`), or
    /// the experiment's.
    var trials: Int
    /// The scenario path a group's value is written to (`nil`: one group).
    let groupPath: String?
    /// The groups, in the order they first appear in the file.
    let groups: [MeasuredGroup]
    /// Whether the file has an outcome column (so success shares are
    /// measured too).
    let hasOutcome: Bool
    /// Where the group path is written in the experiment file (for errors).
    var groupSource: (path: String, position: SourcePosition?)? = nil
}

/// The measurements of one group: the rows sharing a value of the group
/// column (or every row).
struct MeasuredGroup: Sendable {
    /// The group column's value, as written ("" without grouping).
    let value: String
    /// The measured latencies, in milliseconds, in file order.
    let milliseconds: [Double]
    /// Rows whose outcome column said the attempt failed (0 without one).
    let failures: Int
    /// Rows in the group, failures included.
    var rows: Int { milliseconds.count + failures }
}

/// A parameter to fit: a path into the scenario (as `sweep --vary` writes
/// it) and its range.
package struct FitParameter: Sendable, Equatable {
    /// What the parameter's values are.
    package enum Kind: String, Sendable {
        /// A plain number (a probability, a count, a σ).
        case number
        /// A duration, written in nanoseconds (`"2500000ns"`).
        case duration
        /// A size, written in whole bytes (`"3072B"`).
        case size
        /// A rate, written in whole bits per second (`"54000000bit/s"`).
        case rate
    }

    /// How candidates are spread over the range.
    package enum Scale: String, Sendable {
        /// Evenly.
        case linear
        /// Evenly in the logarithm (the range must be positive).
        case log
    }

    /// The largest magnitude of a number's or a rate's range: 10¹⁵ (exact
    /// in a `Double`, and written without an exponent).
    static let maximumMagnitude = 1e15

    /// The path, e.g. `network.wifiPeerToPeer.latency`.
    package let path: String
    /// What its values are.
    package let kind: Kind
    /// The range, in the kind's unit (ns, bytes, bit/s, or the number).
    package let minimum: Double
    package let maximum: Double
    /// How candidates are spread.
    package let scale: Scale
    /// Where the search starts, in the kind's unit: the experiment's
    /// `start`, or the middle of the range (in the scale's sense).
    let start: Double
    /// Where the parameter's path is written in the experiment file (for
    /// errors).
    var source: (path: String, position: SourcePosition?)? = nil

    package static func == (lhs: FitParameter, rhs: FitParameter) -> Bool {
        lhs.path == rhs.path && lhs.kind == rhs.kind && lhs.minimum == rhs.minimum && lhs.maximum == rhs.maximum
            && lhs.scale == rhs.scale && lhs.start == rhs.start
    }

    /// A parameter (see the properties); `start` nil starts in the middle
    /// of the range.
    init(path: String, kind: Kind, minimum: Double, maximum: Double, scale: Scale, start: Double? = nil) {
        self.path = path
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.scale = scale
        switch scale {
        case .linear: self.start = start ?? (minimum + maximum) / 2
        case .log: self.start = start ?? (minimum * maximum).squareRoot()
        }
    }

    /// The value at `unit` ∈ [0, 1] of the range.
    func value(at unit: Double) -> Double {
        let position = min(max(unit, 0), 1)
        switch scale {
        case .linear: return minimum + (maximum - minimum) * position
        case .log: return exp(log(minimum) + (log(maximum) - log(minimum)) * position)
        }
    }

    /// Where `value` lies in the range, in [0, 1].
    func unit(of value: Double) -> Double {
        guard maximum > minimum else { return 0 }
        let position: Double
        switch scale {
        case .linear: position = (value - minimum) / (maximum - minimum)
        case .log: position = (log(value) - log(minimum)) / (log(maximum) - log(minimum))
        }
        return min(max(position, 0), 1)
    }

    /// A value inside the range that is not a whole number (what a fit may
    /// try), or nil when the range has none that is written as one.
    var fractionalProbe: Double? {
        var probe = value(at: 0.5)
        if probe == probe.rounded() { probe += 0.5 }
        guard probe > minimum, probe < maximum, probe != probe.rounded(), abs(probe) < 1e9 else { return nil }
        return probe
    }

    /// `value` as the scenario file takes it (whole units for durations,
    /// sizes and rates).
    package func text(_ value: Double) -> String {
        switch kind {
        case .number: return Self.decimal(value)
        case .duration: return "\(Int64(roundingClamped: value))ns"
        case .size: return "\(Int64(roundingClamped: value))B"
        case .rate: return "\(max(Int64(roundingClamped: value), 1))bit/s"
        }
    }

    /// `value` for people: `2.5ms`, `3 KiB`, `0.12`.
    package func display(_ value: Double) -> String {
        switch kind {
        case .number: return Self.decimal((value * 1e6).rounded() / 1e6)
        case .duration: return SimDuration(nanoseconds: Int64(roundingClamped: value)).rounded(toSignificantDigits: 4).description
        case .size: return "\(Int64(roundingClamped: value)) B"
        case .rate:
            return value >= 1e6 ? Self.decimal((value / 1e4).rounded() / 100) + " Mbit/s"
                : Self.decimal((value / 10).rounded() / 100) + " kbit/s"
        }
    }

    /// A number in plain decimal notation (JSON accepts it): no exponent.
    ///
    /// Nine decimals at most, except that a value closer to 0 than 5e-10
    /// is written exactly (the shortest text that reads back as it, with
    /// an exponent, which JSON accepts), so that none is written as 0.
    static func decimal(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "0" : (value < 0 ? "-1e308" : "1e308") }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        if value != 0, abs(value) < 5e-10 { return String(value) }
        var text = String(format: "%.9f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
