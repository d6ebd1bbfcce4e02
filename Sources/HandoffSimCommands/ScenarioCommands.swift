import Foundation
import Handoff
import HandoffReport
import HandoffScenario
import SimKernel

extension OptionSpec {
    /// `--trials N`, shared by the commands that run trials.
    static let trials = option("--trials", value: "N", help: "Run N trials instead of the file's \"trials\".")
    /// `--seed S`, shared by the commands that run trials.
    static let seed = option("--seed", value: "S", help: "Use seed S instead of the file's \"seed\".")
    /// `--jobs N`, shared by the commands that run trials.
    static let jobs = option(
        "--jobs", value: "N", help: "Spread trials over N threads (default: every core). Results never depend on N.")
    /// `--no-progress`, shared by the commands that show progress.
    static let noProgress = flag(
        "--no-progress", help: "No progress line (one is shown only when standard error is a terminal).")
    /// `--output PATH`, shared by the commands that write one result.
    static let output = option(
        "--output", value: "PATH", outputPath: true,
        help: "Write to PATH (atomically) instead of standard output.")
    static let overlay = option(
        "--overlay", value: "FILE",
        help: "Write FILE's values (an overlay from 'handoff-sim calibrate --output') over every scenario before it runs.")
    static let samples = option(
        "--samples", value: "PATH", outputPath: true,
        help: "Write every trial to PATH as CSV: one row per trial and receiving device, with its outcome and every latency in ns (see docs/cli.md). Memory grows with the trials.")
}

extension ArgumentSpec {
    /// `<file or dir>...`, shared by the commands that take scenario files.
    static let scenarioFiles = ArgumentSpec(
        "file or dir", repeating: true,
        help: "Scenario files, or folders searched recursively for *.json files (in byte order of their paths).")
    /// `<file>`, one scenario file.
    static let scenarioFile = ArgumentSpec("file", help: "The scenario file.")
}

extension ExitCodeSpec {
    /// 64, as most commands describe it.
    static let usage = ExitCodeSpec(.usage, "bad command-line usage, or a file or folder that does not exist")
    /// 70 for a command whose only output is standard output.
    static let standardOutputFailed = ExitCodeSpec(.software, "standard output could not be written")
}

extension CommandSpec {
    /// `handoff-sim run`.
    static let run = CommandSpec(
        name: "run",
        abstract: "Run scenario files: every scenario is a test case.",
        discussion: """
            Every file is validated first; an invalid file runs nothing, and the \
            other files still run. A failing expectation is shown with what was \
            expected, what was measured and the command that replays the trial that \
            shows it; a scenario that stops at a limit is reported as ERROR with its \
            replay command. A file with a "sweep" block and no "expect" is skipped.
            """,
        arguments: [.scenarioFiles],
        options: [
            .trials.helping("Run N trials of every scenario instead of the file's \"trials\"."),
            .seed, .jobs,
            .option("--junit", value: "PATH", outputPath: true, help: "Write a JUnit XML report to PATH."),
            .option("--json", value: "PATH", outputPath: true, help: "Write the JSON report to PATH."),
            .option("--markdown", value: "PATH", outputPath: true, help: "Write the Markdown summary to PATH."),
            .samples, .overlay,
            .option(
                "--trials-with", value: "OUTCOME",
                help: "After the summary, list the trials of each scenario in which some activity ended so on some receiving device (continued, continuedInBrowser, failed, notOffered, withdrawn, notAccepted, unfinished), each with its replay command."),
            .option(
                "--trials-over", value: "METRIC=DURATION",
                help: "After the summary, list the trials in which a latency exceeded DURATION (\(LatencyMetric.names); e.g. acceptToContinue=1.5s). With --trials-with, a trial must meet both on one device."),
            .option(
                "--limit", value: "N",
                help: "List at most N trials per scenario for --trials-with/--trials-over (default 20), then say how many more matched."),
            .flag("--quiet", help: "List only the scenarios that did not pass."),
            .noProgress,
            .flag(
                "--check-determinism",
                help: "Run everything twice and compare every trial's fingerprint; a difference is an internal error (exit 70) naming the first scenario and trial (or block of trials beyond 1,024 trials; see docs/determinism.md)."),
        ],
        notes: """
            Output paths are checked before anything runs, and files are written \
            atomically (a temporary file renamed over the target); - is standard \
            output. When GITHUB_STEP_SUMMARY is set, the Markdown summary is appended \
            to it; when GITHUB_ACTIONS is "true", failing expectations, scenario \
            errors and problems in invalid files are also printed as ::error \
            annotations.
            """,
        exitCodes: [
            ExitCodeSpec(.success, "every expectation held"),
            ExitCodeSpec(.expectationFailed, "an expectation failed, or a scenario stopped at a limit (limits.maxEvents, limits.maxSimulatedTime)"),
            .usage,
            ExitCodeSpec(.dataError, "a scenario file is invalid, or a scenario's setup was refused (this outranks 70 and 1)"),
            ExitCodeSpec(.software, "internal error: the determinism check found a difference, the simulator broke one of its own rules (this outranks 1), or an output could not be written"),
        ],
        action: runCommand)

    /// `handoff-sim validate`.
    static let validate = CommandSpec(
        name: "validate",
        abstract: "Check scenario files without running them.",
        discussion: """
            Every problem in every file is reported at once, as \
            FILE:LINE:COLUMN: error: JSON-PATH: message. run performs the same \
            validation before running anything. When GITHUB_ACTIONS is "true", every \
            problem is also printed as an ::error annotation on its file and line.
            """,
        arguments: [.scenarioFiles],
        exitCodes: [
            ExitCodeSpec(.success, "every file is valid"),
            .usage,
            ExitCodeSpec(.dataError, "a file is invalid"),
            .standardOutputFailed,
        ],
        action: validateCommand)

    /// `handoff-sim replay`.
    static let replay = CommandSpec(
        name: "replay",
        abstract: "Re-run one trial of a scenario and print its timestamped trace.",
        discussion: """
            The trace shows every protocol step and callback on every device, then \
            the outcome on each receiver. A failing run prints the exact command \
            that replays the trial that shows the failure. --format chooses text \
            (the default), json (records, packets, outcomes), svg (a sequence \
            diagram, one lane per actor) or perfetto (Chrome trace-event JSON for \
            ui.perfetto.dev and chrome://tracing); see docs/traces.md.
            """,
        arguments: [.scenarioFile],
        options: [
            .option("--seed", value: "S", inUsage: true, help: "The seed (as printed by a failing run)."),
            .option("--trial", value: "K", inUsage: true, help: "The trial's index, from 0."),
            .overlay,
            .flag(
                "--packets",
                help: "Also show every packet put on a link, merged in by time: its link, connection and side, what it is (SYN, data N, ACK N, a retransmission), its size, and when it arrives or why it was lost (queue full, loss model, link down, an AWDL waking frame not heard)."),
            .option(
                "--format", value: "FORMAT",
                help: "text (default), json, svg or perfetto: the trace as text, as JSON, as an SVG sequence diagram, or as a Chrome trace-event file."),
            .output,
        ],
        exitCodes: [
            ExitCodeSpec(.success, "the trial ran, whatever its outcome"),
            ExitCodeSpec(.expectationFailed, "the trial stopped at a limit"),
            .usage,
            ExitCodeSpec(.dataError, "the scenario file is invalid, or its setup was refused"),
            ExitCodeSpec(.software, "internal error: the simulator broke one of its own rules, or the output could not be written"),
        ],
        action: replayCommand)

    /// `handoff-sim list`.
    static let list = CommandSpec(
        name: "list",
        abstract: "List scenarios with their trials and expectations.",
        discussion: "Each scenario is listed with its description, trials and seed, activities and expectations.",
        arguments: [.scenarioFiles],
        exitCodes: [
            ExitCodeSpec(.success, "listed"),
            .usage,
            ExitCodeSpec(.dataError, "a file is invalid"),
            .standardOutputFailed,
        ],
        action: listCommand)
}

/// The overlay `--overlay` names, if any; or, when its file is invalid,
/// its problems printed and the exit code to return (65).
func loadOverlay(_ parsed: ParsedArguments, _ io: CommandIO) -> (overlay: Overlay?, failure: ExitCode?) {
    guard let file = parsed.value("--overlay") else { return (nil, nil) }
    switch Overlay.load(file) {
    case let .success(overlay): return (overlay, nil)
    case let .failure(problems):
        io.writeError(problems.description)
        return (nil, .dataError)
    }
}

/// The number of cores to use by default.
var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

/// The files under `paths`, or a usage error for a path that does not
/// exist or a folder without scenario files.
func scenarioFiles(_ paths: [String]) throws(UsageError) -> [String] {
    do {
        return try ScenarioSuite.files(in: paths)
    } catch {
        throw UsageError(message: error.description)
    }
}

/// `handoff-sim run`: validates and runs scenario files, prints the
/// summary and writes the reports asked for.
func runCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    let (trials, seed, jobs) = try runOptions(parsed)
    let files = try scenarioFiles(parsed.positional)
    let showsProgress = io.standardErrorIsTerminal && !parsed.has("--no-progress")
    let filter = try trialFilter(parsed)
    let runner = ScenarioRunner(jobs: jobs, recordsSamples: parsed.value("--samples") != nil, trialFilter: filter)
    let (overlay, overlayFailure) = loadOverlay(parsed, context.io)
    if let overlayFailure { return overlayFailure }
    let progress: ((Int, Int, String) -> Void)? = showsProgress ? { index, count, file in
        io.writeError("\u{1B}[2K\r[\(index + 1)/\(count)] \(file)", newline: false)
    } : nil
    if let failure = preflightOutputs(parsed, context) { return failure }
    let results = ScenarioSuite.run(
        files: files, runner: runner, trials: trials, seed: seed, overlay: overlay, progress: progress)
    if showsProgress { io.writeError("\u{1B}[2K\r", newline: false) }

    if parsed.has("--check-determinism") {
        let again = ScenarioSuite.run(files: files, runner: runner, trials: trials, seed: seed, overlay: overlay)
        if let difference = DeterminismCheck.firstDifference(results, again) {
            io.writeError("error: internal error: the determinism check found a difference: \(difference)")
            return .software
        }
    }

    io.writeOutput(TextReport.render(results, quiet: parsed.has("--quiet")))
    if let filter { io.writeOutput(TrialListReport.render(results, filter: filter)) }
    let environment = context.environment
    if environment["GITHUB_ACTIONS"] == "true" {
        for line in GitHubAnnotations.lines(for: results) { io.writeOutput(line + "\n") }
    }
    do {
        if let path = parsed.value("--json") {
            try writeAtomically(JSONReport.render(results, toolVersion: toolVersion, trials: trials, seed: seed), to: path, io: io)
        }
        if let path = parsed.value("--junit") {
            try writeAtomically(JUnitReport.render(results, toolVersion: toolVersion), to: path, io: io)
        }
        let markdown = MarkdownReport.render(results)
        if let path = parsed.value("--markdown") { try writeAtomically(markdown, to: path, io: io) }
        if let path = parsed.value("--samples") { try writeAtomically(SamplesCSV.render(results), to: path, io: io) }
        if let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty { try append(markdown, to: path) }
    } catch {
        io.writeError("error: \(error.message)")
        return .software
    }
    return exitCode(for: results)
}

/// The filter `--trials-with`, `--trials-over` and `--limit` ask for, if
/// any.
func trialFilter(_ parsed: ParsedArguments) throws(UsageError) -> TrialFilter? {
    let limit = try integerOption(parsed, "--limit", in: 1...1_000_000)
    var outcome: OutcomeKind?
    if let text = parsed.value("--trials-with") {
        guard let kind = OutcomeKind(rawValue: text) else {
            let known = OutcomeKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError(message: "option '--trials-with' expects an outcome (\(known)), found '\(text.escapingControlCharacters)'")
        }
        outcome = kind
    }
    var metric: LatencyMetric?
    var bound = SimDuration.zero
    if let text = parsed.value("--trials-over") {
        let metrics = LatencyMetric.allCases.map(\.rawValue).joined(separator: ", ")
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let kind = LatencyMetric(rawValue: String(parts[0])) else {
            throw UsageError(message: "option '--trials-over' expects METRIC=DURATION with a metric of \(metrics) (e.g. acceptToContinue=1.5s), found '\(text.escapingControlCharacters)'")
        }
        guard let duration = try? SimDuration(parsing: String(parts[1])), duration >= .zero else {
            throw UsageError(message: "option '--trials-over' expects a duration after '=' (e.g. 1.5s, 250ms), found '\(String(parts[1]).escapingControlCharacters)'")
        }
        (metric, bound) = (kind, duration)
    }
    guard outcome != nil || metric != nil else {
        if limit != nil { throw UsageError(message: "option '--limit' needs '--trials-with' or '--trials-over'") }
        return nil
    }
    return TrialFilter(outcome: outcome, latencyMetric: metric, over: bound, limit: limit ?? 20)
}

/// The status of a run: 65 if a file is invalid (or a scenario's setup
/// was refused), else 70 if the simulator broke one of its rules, else 1 if
/// an expectation failed or a scenario stopped at a limit, else 0.
func exitCode(for results: [FileResult]) -> ExitCode {
    var codes: Set<ExitCode> = []
    for result in results {
        switch result.outcome {
        case .invalid: codes.insert(.dataError)
        case let .ran(run) where run.failure != nil: codes.insert(ExitCode(run.failure!.category))
        case let .ran(run) where !run.passed: codes.insert(.expectationFailed)
        default: break
        }
    }
    return [ExitCode.dataError, .software, .expectationFailed].first { codes.contains($0) } ?? .success
}

/// `handoff-sim validate`: every problem of every file, nothing run.
func validateCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    let files = try scenarioFiles(parsed.positional)
    var invalid = 0
    for file in files {
        switch ScenarioSuite.load(file) {
        case let .success(scenario):
            let count = scenario.expectations.count
            io.writeOutput("ok       \(file) (\(scenario.name): \(scenario.trials) trials, \(count) expectation\(count == 1 ? "" : "s"))\n")
        case let .failure(problems):
            invalid += 1
            io.writeError(problems.description)
            if context.environment["GITHUB_ACTIONS"] == "true" {
                for line in GitHubAnnotations.lines(for: problems) { io.writeOutput(line + "\n") }
            }
        }
    }
    if invalid > 0 {
        io.writeError("\(invalid) of \(files.count) file\(files.count == 1 ? "" : "s") invalid")
        return .dataError
    }
    return .success
}

/// `handoff-sim replay`: one trial's trace and outcomes.
func replayCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    guard let seedText = parsed.value("--seed"), let seed = UInt64(seedText), seed <= UInt64(Int64.max) else {
        throw UsageError(message: "replay needs '--seed S' (a whole number from 0 to \(Int64.max))")
    }
    guard let trial = try integerOption(parsed, "--trial", in: 0...ScenarioDecoder.maximumTrials - 1) else {
        throw UsageError(message: "replay needs '--trial K' (a trial index from 0)")
    }
    let format = parsed.value("--format") ?? "text"
    guard ["text", "json", "svg", "perfetto"].contains(format) else {
        throw UsageError(message: "option '--format' expects text, json, svg or perfetto, found '\(format.escapingControlCharacters)'")
    }
    let files = try scenarioFiles(parsed.positional)
    if let failure = preflightOutputs(parsed, context) { return failure }
    let (overlay, overlayFailure) = loadOverlay(parsed, context.io)
    if let overlayFailure { return overlayFailure }
    let scenario: Scenario
    switch ScenarioSuite.load(files[0], overlay: overlay) {
    case let .success(loaded): scenario = loaded
    case let .failure(problems):
        io.writeError(problems.description)
        return .dataError
    }
    let replay: TrialReplay
    do {
        replay = try ScenarioRunner.replay(scenario, seed: seed, trial: trial, packets: parsed.has("--packets"))
    } catch {
        return reportError(error, context)
    }
    let packets = parsed.has("--packets")
    let text: String
    switch format {
    case "json": text = TraceJSON.render(replay, scenario: scenario, packets: packets)
    case "svg": text = TraceDiagram.svg(replay, scenario: scenario)
    case "perfetto": text = TracePerfetto.render(replay, scenario: scenario)
    default: text = TraceReport.render(replay, scenario: scenario)
    }
    do {
        try writeAtomically(text, to: parsed.value("--output") ?? "-", io: io)
    } catch {
        io.writeError("error: \(error.message)")
        return .software
    }
    if let failure = replay.failure { return reportError(failure, context) }
    return .success
}

/// `handoff-sim list`: each scenario's trials, activities and expectations.
func listCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let files = try scenarioFiles(parsed.positional)
    var code = ExitCode.success
    for file in files {
        switch ScenarioSuite.load(file) {
        case let .success(scenario):
            context.io.writeOutput(ListReport.render(scenario))
        case let .failure(problems):
            context.io.writeError(problems.description)
            code = .dataError
        }
    }
    return code
}
