import Foundation
import HandoffCalibration
import HandoffReport
import HandoffScenario

extension CommandOption where Self == Option<Bool> {
    /// `calibrate --check`.
    static var check: Option<Bool> {
        .flag(name: "--check", help: "Fit nothing: report how far the scenario as it is lies from the measurements.")
    }
}

extension CommandOption where Self == Option<Int> {
    /// `calibrate --bootstrap N`.
    static var bootstrap: Option<Int> {
        .option(
            name: "--bootstrap", .integer("N", in: 0...1_000), default: 0,
            help: "Refit on N resamplings of the measurements for a 95% interval on every parameter; --output keeps each replicate's values.")
    }
}

extension CommandOption where Self == Option<Int?> {
    /// `calibrate --evaluations N`: nil for the calibrator's own budget.
    static var evaluations: Option<Int?> {
        .option(
            name: "--evaluations", .integer("N", in: 1...100_000), shownDefault: "60 × (parameters + 1)",
            help: "The most simulations of the main fit.")
    }
}

extension CommandOption where Self == Option<Int?> {
    /// `calibrate --trials N`: at most what an experiment file's `trials`
    /// may say.
    static var calibrationTrials: Option<Int?> {
        .option(
            name: "--trials", .integer("N", in: 1...ExperimentDecoder.maximumTrials),
            help: "Trials per group and simulation instead of the experiment's \"trials\", for every dataset.")
    }
}

extension CommandOption where Self == Option<String?> {
    /// `calibrate --chart PATH`.
    static var chart: Option<String?> {
        .option(
            name: "--chart", .text("PATH"), outputPath: true,
            help: "Also write an SVG of the measured and simulated distributions (ECDFs), one panel per group.")
    }
}

extension CommandSpec {
    /// `handoff-sim calibrate`.
    static let calibrate = CommandSpec(
        name: "calibrate",
        abstract: "Fit the model to measured timings, and show how well it fits.",
        discussion: """
            Reads an experiment file: a base scenario, measured datasets (CSV \
            columns, each the measurement of a simulated latency, optionally grouped \
            by a column whose value is written into the scenario) and the parameters \
            to fit with their ranges. Each candidate is simulated on the same random \
            numbers (the experiment's seed) and scored by the Kolmogorov–Smirnov \
            distance and a tail-weighted quantile loss. The search screens the whole \
            ranges on an eighth of the trials, descends by Nelder–Mead from the two \
            best screened points on a quarter, and finishes on every trial, so it \
            does not depend on where it starts. docs/calibration.md describes the \
            experiment file and the search.
            """,
        arguments: [ArgumentSpec("experiment", help: "The experiment file (JSON).")],
        options: [
            .check, .bootstrap, .evaluations,
            .calibrationTrials,
            .seed.helping("The seed of every simulation instead of the experiment's."),
            .jobs.helping("Spread the simulations over N threads. The result never depends on N."),
            .reportFormat, .chart, .html,
            .output.helping("Also write the fitted values to PATH as an overlay, for run, sweep, advise and replay --overlay."),
            .noProgress,
        ],
        exitCodes: [
            ExitCodeSpec(.success, "fitted, or checked"),
            ExitCodeSpec(.expectationFailed, "a trial stopped at a limit"),
            ExitCodeSpec(.usage, "bad command-line usage, or a file that does not exist"),
            ExitCodeSpec(.dataError, "the experiment file, a measured file or the scenario is invalid, or a parameter path has no place in the scenario"),
            ExitCodeSpec(.software, "internal error, or the output could not be written"),
        ],
        action: calibrateCommand)
}

/// `handoff-sim calibrate`: fits (or checks) an experiment and reports.
func calibrateCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    if let failure = preflightOutputs(parsed, context) { return failure }
    let clock = ContinuousClock()
    let started = clock.now
    let file = parsed.positional[0]
    let (bootstrap, evaluations) = (parsed[.bootstrap], parsed[.evaluations])
    let (trials, seed, jobs) = (parsed[.calibrationTrials], parsed[.seed], parsed[.jobs])
    // A check fits nothing, so it has nothing to bootstrap.
    if parsed[.check] && bootstrap > 0 {
        throw UsageError(message: "--check fits nothing, so --bootstrap has nothing to resample; give one or the other")
    }
    guard let data = InputFile.contents(atPath: file) else {
        throw UsageError(message: "\(file.escapingControlCharacters): no such file or cannot be read")
    }
    var experiment: Experiment
    switch ExperimentDecoder.decode(Array(data), file: file) {
    case let .success(decoded): experiment = decoded
    case let .failure(problems):
        io.writeError(problems.description)
        return .dataError
    }
    // The scenarios and measured files the experiment names are inputs too.
    let named = experiment.scenarioFiles + experiment.datasets.map(\.file)
    if let failure = refuseOverlappingOutputs(parsed, context, inputs: named) { return failure }
    experiment = experiment.overriding(seed: seed, trials: trials)
    if let problems = Calibrator.problems(in: experiment) {
        io.writeError(problems.description)
        return .dataError
    }
    let showsProgress = io.standardErrorIsTerminal && !parsed[.noProgress]
    @Sendable func report(count: Int) {
        io.writeError("\u{1B}[2K\r\(count) simulations", newline: false)
    }
    let progress: (@Sendable (Int) -> Void)? = showsProgress ? report : nil
    let calibrator = Calibrator(jobs: jobs, bootstrap: bootstrap, maximumEvaluations: evaluations)
    let outcome = Result { () throws(ScenarioError) in try calibrator.run(experiment, check: parsed[.check], progress: progress) }
    if showsProgress { io.writeError("\u{1B}[2K\r", newline: false) }
    switch outcome {
    case let .success(result):
        if let chart = parsed[.chart] {
            do {
                try writeAtomically(CalibrationChart.svg(result), to: chart, io: io)
            } catch {
                io.writeError("error: \(error.message)")
                return .software
            }
        }
        if let path = parsed[.html] {
            do {
                try writeAtomically(
                    HTMLReport.calibration(result, context: htmlContext(context, parsed, since: started, clock: clock)), to: path, io: io)
            } catch {
                io.writeError("error: \(error.message)")
                return .software
            }
        }
        if let path = parsed[.output] {
            let overlay = Overlay(fitted: result, description: "fitted by handoff-sim calibrate \(file)")
            do {
                try writeAtomically(overlay.json, to: path, io: io)
            } catch {
                io.writeError("error: \(error.message)")
                return .software
            }
        }
        io.writeOutput(parsed[.reportFormat] == .json
            ? CalibrationReport.json(result, toolVersion: toolVersion) : CalibrationReport.text(result))
        return .success
    case let .failure(error):
        return reportError(error, context)
    }
}
