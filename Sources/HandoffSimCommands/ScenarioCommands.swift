import Foundation
import Handoff
import HandoffReport
import HandoffScenario
import SimKernel

extension CommandOption where Self == Option<String?> {
    /// `run --junit PATH`.
    static var junit: Option<String?> {
        .option(name: "--junit", .text("PATH"), outputPath: true, help: "Write a JUnit XML report to PATH.")
    }

    /// `run --json PATH`.
    static var json: Option<String?> {
        .option(name: "--json", .text("PATH"), outputPath: true, help: "Write the JSON report to PATH.")
    }

    /// `run --markdown PATH` (and `baseline check --markdown`).
    static var markdown: Option<String?> {
        .option(name: "--markdown", .text("PATH"), outputPath: true, help: "Write the Markdown summary to PATH.")
    }

    /// `--html PATH`, for run, sweep, advise, calibrate and baseline check.
    static var html: Option<String?> {
        .option(
            name: "--html", .text("PATH"), outputPath: true,
            help: "Also write a self-contained HTML report to PATH (one file: inline CSS and pictures, nothing loaded from elsewhere).")
    }
}

extension CommandOption where Self == Option<OutcomeKind?> {
    /// `run --trials-with OUTCOME`.
    static var trialsWith: Option<OutcomeKind?> {
        .option(
            name: "--trials-with", .choice("OUTCOME"),
            help: "After the summary, list the trials of each scenario in which some activity ended with OUTCOME on some receiving device, each with its replay command.")
    }
}

/// A latency bound `run --trials-over` lists the trials over.
struct LatencyBound: Sendable {
    /// The latency.
    let metric: LatencyMetric
    /// The bound, at least zero.
    let duration: SimDuration
}

extension ValueSyntax where Element == LatencyBound {
    /// `METRIC=DURATION`, e.g. `acceptToContinue=1.5s`.
    static var latencyBound: ValueSyntax {
        let metrics = LatencyMetric.allCases.map(\.rawValue)
        let expected = "METRIC=DURATION with a metric of \(metrics.joined(separator: ", ")) (e.g. acceptToContinue=1.5s)"
        return ValueSyntax(
            "METRIC=DURATION", expected: expected, choices: metrics, choicesLabel: "metrics",
            describe: { "\($0.metric.rawValue)=\($0.duration)" }
        ) { option, text throws(UsageError) in
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let metric = LatencyMetric(rawValue: String(parts[0])) else {
                throw .badValue(option, expected: expected, found: text)
            }
            guard let duration = try? SimDuration(parsing: String(parts[1])), duration >= .zero else {
                throw .badValue(option, expected: "a duration after '=' (e.g. 1.5s, 250ms)", found: String(parts[1]))
            }
            return LatencyBound(metric: metric, duration: duration)
        }
    }
}

extension CommandOption where Self == Option<LatencyBound?> {
    /// `run --trials-over METRIC=DURATION`.
    static var trialsOver: Option<LatencyBound?> {
        .option(
            name: "--trials-over", .latencyBound,
            help: "After the summary, list the trials in which a latency exceeded DURATION (e.g. acceptToContinue=1.5s). With --trials-with, a trial must meet both on one device.")
    }
}

extension CommandOption where Self == Option<Int> {
    /// `run --limit N`.
    static var limit: Option<Int> {
        .option(
            name: "--limit", .integer("N", in: 1...1_000_000), default: 20,
            help: "List at most N trials per scenario for --trials-with/--trials-over, then say how many more matched.")
    }

    /// `replay --trial K`.
    static var trial: Option<Int> {
        .required(name: "--trial", .integer("K", in: 0...ScenarioDecoder.maximumTrials - 1), help: "The trial's index, from 0.")
    }
}

extension CommandOption where Self == Option<UInt64> {
    /// `replay --seed S`.
    static var replaySeed: Option<UInt64> {
        .required(name: "--seed", .seed, help: "The seed (as printed by a failing run).")
    }
}

extension CommandOption where Self == Option<Bool> {
    /// `run --quiet`.
    static var quiet: Option<Bool> { .flag(name: "--quiet", help: "List only the scenarios that did not pass.") }
    /// `run --budget`.
    static var budget: Option<Bool> {
        .flag(name: "--budget", help: "Show under each scenario where accept → continue goes, phase by phase (a failing scenario always shows it).")
    }

    /// `run --check-determinism`.
    static var checkDeterminism: Option<Bool> {
        .flag(
            name: "--check-determinism",
            help: "Run everything twice and compare every trial's fingerprint; a difference is an internal error (exit 70) naming the first scenario and trial (or block of trials beyond 1,024 trials; see docs/determinism.md).")
    }

    /// `replay --packets`.
    static var packets: Option<Bool> {
        .flag(
            name: "--packets",
            help: "Also show every packet put on a link, merged in by time: its link, connection and side, what it is (SYN, data N, ACK N, a retransmission), its size, and when it arrives or why it was lost (queue full, loss model, link down, an AWDL peer away or not yet known).")
    }
}

/// How `replay` writes the trace.
enum TraceFormat: String, CaseIterable, Sendable {
    /// Timestamped lines (TraceReport).
    case text
    /// Records, packets and outcomes (TraceJSON).
    case json
    /// A sequence diagram, one lane per actor (TraceDiagram).
    case svg
    /// Chrome trace-event JSON (TracePerfetto).
    case perfetto
}

extension CommandOption where Self == Option<TraceFormat> {
    /// `replay --format FORMAT`.
    static var traceFormat: Option<TraceFormat> {
        .option(
            name: "--format", .choice("FORMAT"), default: .text,
            help: "How the trace is written (see above).")
    }
}

extension ArgumentSpec {
    /// `<file or dir>...`, for the commands that take scenario files.
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
            replay command. A file with a "sweep" block and no "expect" is skipped. \
            Every verdict carries its 95% confidence interval: an expectation that \
            held but whose interval crosses its bound is FRAGILE, shown with how \
            many trials would settle it; it passes unless --strict is given.
            """,
        arguments: [.scenarioFiles],
        options: [
            .trials.helping("Run N trials of every scenario instead of the file's \"trials\"."),
            .seed, .seeds, .jobs, .junit, .json, .markdown, .html, .samples, .overlay, .trialsWith, .trialsOver, .limit, .quiet,
            .budget, .strict, .noProgress, .checkDeterminism,
        ],
        notes: """
            Output paths are checked before anything runs, and files are written \
            atomically (a temporary file renamed over the target); - is standard \
            output. When GITHUB_STEP_SUMMARY is set, the Markdown summary is appended \
            to it; when GITHUB_ACTIONS is "true", failing expectations, scenario \
            errors and problems in invalid files are also printed as ::error \
            annotations (a fragile expectation as a ::warning).
            """,
        exitCodes: [
            ExitCodeSpec(.success, "every expectation held (some perhaps fragilely), under every seed"),
            ExitCodeSpec(.expectationFailed, "an expectation failed under some seed (or, with --strict, was fragile), or a scenario stopped at a limit (limits.maxEvents, limits.maxSimulatedTime)"),
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
        options: [.replaySeed, .trial, .overlay, .packets, .traceFormat, .output],
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
///
/// - Throws: ``UsageError`` (exit 64) when the file does not exist or
///   cannot be read, as for every input named on the command line.
func loadOverlay(_ parsed: ParsedArguments, _ io: CommandIO) throws(UsageError) -> (overlay: Overlay?, failure: ExitCode?) {
    guard let file = parsed[.overlay] else { return (nil, nil) }
    guard FileManager.default.isReadableFile(atPath: file) else {
        throw UsageError(message: "\(file.escapingControlCharacters): no such file or cannot be read")
    }
    switch Overlay.loadResult(file) {
    case let .success(overlay): return (overlay, nil)
    case let .failure(problems):
        io.writeError(problems.description)
        return (nil, .dataError)
    }
}

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
    let (trials, seed, jobs) = (parsed[.trials], parsed[.seed], parsed[.jobs])
    let seedList = parsed[.seeds]
    if seedList != nil {
        if parsed.isGiven(.seed) {
            throw UsageError(message: "option '\(Option<SeedList?>.seeds.name)' cannot be used with '\(Option<UInt64?>.seed.name)'")
        }
        if parsed.isGiven(.samples) {
            throw UsageError(message: "option '\(Option<SeedList?>.seeds.name)' cannot be used with '\(Option<String?>.samples.name)'")
        }
    }
    let files = try scenarioFiles(parsed.positional)
    let showsProgress = io.standardErrorIsTerminal && !parsed[.noProgress]
    let filter = try trialFilter(parsed)
    let runner = ScenarioRunner(jobs: jobs, recordsSamples: parsed[.samples] != nil, trialFilter: filter)
    let (overlay, overlayFailure) = try loadOverlay(parsed, context.io)
    if let overlayFailure { return overlayFailure }
    let progress: ((Int, Int, String) -> Void)? = showsProgress ? { index, count, file in
        io.writeError("\u{1B}[2K\r[\(index + 1)/\(count)] \(file)", newline: false)
    } : nil
    if let failure = preflightOutputs(parsed, context) { return failure }
    let clock = ContinuousClock()
    let started = clock.now
    // One run of the suite per seed (the files' own seeds without --seeds).
    let seeds: [UInt64?] = seedList.map { $0.seeds.map(Optional.some) } ?? [seed]
    var results: [FileResult] = []
    // Each file read once (it may be a pipe), run once per seed and again
    // for the determinism check.
    let loaded = ScenarioSuite.load(files: files, overlay: overlay)
    for runSeed in seeds {
        let seedResults = ScenarioSuite.run(
            loaded: loaded, runner: runner, trials: trials, seed: runSeed, progress: progress)
        if parsed[.checkDeterminism] {
            let again = ScenarioSuite.run(loaded: loaded, runner: runner, trials: trials, seed: runSeed)
            if let difference = DeterminismCheck.firstDifference(seedResults, again) {
                if showsProgress { io.writeError("\u{1B}[2K\r", newline: false) }
                io.writeError("error: internal error: the determinism check found a difference: \(difference)"
                    + (seedList == nil ? "" : " (seed \(runSeed ?? 0))"))
                return .software
            }
        }
        results += seedResults
    }
    if showsProgress { io.writeError("\u{1B}[2K\r", newline: false) }
    // Each valid file's warnings, once whatever the seeds.
    for result in results.prefix(files.count) { writeWarnings(result.warnings, context) }
    // Every status decided once; every report below only renders it.
    let summary = RunSummary(results, strict: parsed[.strict], seeds: seedList?.seeds)

    if summary.seeds != nil {
        io.writeOutput(RunReport.seedsTable(summary, quiet: parsed[.quiet]))
    } else {
        io.writeOutput(RunReport.text(summary, quiet: parsed[.quiet], budgets: parsed[.budget]))
    }
    if let filter { io.writeOutput(TrialListReport.render(results, filter: filter)) }
    let environment = context.environment
    if environment["GITHUB_ACTIONS"] == "true" {
        for line in RunReport.annotations(for: summary) { io.writeOutput(line + "\n") }
    }
    do {
        if let path = parsed[.json] {
            try writeAtomically(RunReport.json(summary, toolVersion: toolVersion, trials: trials, seed: seed), to: path, io: io)
        }
        if let path = parsed[.junit] {
            try writeAtomically(RunReport.junit(summary, toolVersion: toolVersion), to: path, io: io)
        }
        let markdown = RunReport.markdown(summary)
        if let path = parsed[.markdown] { try writeAtomically(markdown, to: path, io: io) }
        if let path = parsed[.samples] { try writeAtomically(SamplesCSV.render(results), to: path, io: io) }
        if let path = parsed[.html] {
            let report = HTMLReport.run(summary, context: htmlContext(context, parsed, since: started, clock: clock))
            try writeAtomically(report, to: path, io: io)
        }
        if let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty { try append(markdown, to: path) }
    } catch {
        io.writeError("error: \(error.message)")
        return .software
    }
    return ExitCode(summary.conclusion)
}

/// What an HTML report says about the command that made it: the tool's
/// version, the command line, the wall time since `started` and the
/// overlay.
func htmlContext(
    _ context: CommandContext, _ parsed: ParsedArguments, since started: ContinuousClock.Instant, clock: ContinuousClock
) -> HTMLReport.Context {
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let overlay = context.path.spec.option(named: "--overlay").flatMap { parsed.texts(of: $0).last }
    return HTMLReport.Context(
        toolVersion: toolVersion, arguments: context.commandArguments, wallSeconds: seconds, overlay: overlay)
}

/// The filter `--trials-with`, `--trials-over` and `--limit` ask for, if
/// any.
///
/// - Throws: ``UsageError`` for `--limit` without either of the others.
func trialFilter(_ parsed: ParsedArguments) throws(UsageError) -> TrialFilter? {
    let outcome = parsed[.trialsWith]
    let bound = parsed[.trialsOver]
    guard outcome != nil || bound != nil else {
        if parsed.isGiven(.limit) {
            let (limit, with, over) = (Option<Int>.limit.name, Option<OutcomeKind?>.trialsWith.name, Option<LatencyBound?>.trialsOver.name)
            throw UsageError(message: "option '\(limit)' needs '\(with)' or '\(over)'")
        }
        return nil
    }
    return TrialFilter(
        outcome: outcome, latencyMetric: bound?.metric, over: bound?.duration ?? .zero, limit: parsed[.limit])
}

extension ExitCode {
    /// The status a run ends with: 65 if a file is invalid (or a
    /// scenario's setup was refused), else 70 if the simulator broke one of
    /// its rules, else 1 if an expectation failed (or, under `--strict`,
    /// was fragile) or a scenario stopped at a limit, else 0.
    package init(_ conclusion: RunSummary.Conclusion) {
        switch conclusion {
        case .success: self = .success
        case .expectationFailed: self = .expectationFailed
        case .invalidInput: self = .dataError
        case .internalError: self = .software
        }
    }
}

/// `handoff-sim validate`: every problem of every file, nothing run.
func validateCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    let files = try scenarioFiles(parsed.positional)
    var invalid = 0
    for file in files {
        switch ScenarioSuite.loadResult(file) {
        case let .success(scenario):
            let count = scenario.expectations.count
            io.writeOutput("ok       \(file.escapingControlCharacters) (\(scenario.name.escapingControlCharacters): \(scenario.trials) trials, \(count) expectation\(count == 1 ? "" : "s"))\n")
            writeWarnings(scenario.warnings, context)
        case let .failure(problems):
            invalid += 1
            io.writeError(problems.description)
            if context.environment["GITHUB_ACTIONS"] == "true" {
                for line in RunReport.annotations(for: problems) { io.writeOutput(line + "\n") }
            }
        }
    }
    if invalid > 0 {
        io.writeError("\(invalid) of \(files.count) file\(files.count == 1 ? "" : "s") invalid")
        return .dataError
    }
    return .success
}

/// A valid file's warnings on standard error, as compilers print them
/// (`FILE:LINE:COLUMN: warning: PATH: message`), and as `::warning`
/// annotations when `GITHUB_ACTIONS` is "true".
func writeWarnings(_ warnings: [ScenarioProblem], _ context: CommandContext) {
    guard !warnings.isEmpty else { return }
    let problems = ScenarioProblems(problems: warnings)
    context.io.writeError(problems.description)
    if context.environment["GITHUB_ACTIONS"] == "true" {
        for line in RunReport.annotations(for: problems) { context.io.writeOutput(line + "\n") }
    }
}

/// `handoff-sim replay`: one trial's trace and outcomes.
func replayCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    let (seed, trial, packets) = (parsed[.replaySeed], parsed[.trial], parsed[.packets])
    let files = try scenarioFiles(parsed.positional)
    if let failure = preflightOutputs(parsed, context) { return failure }
    let (overlay, overlayFailure) = try loadOverlay(parsed, context.io)
    if let overlayFailure { return overlayFailure }
    let scenario: Scenario
    switch ScenarioSuite.loadResult(files[0], overlay: overlay) {
    case let .success(loaded): scenario = loaded
    case let .failure(problems):
        io.writeError(problems.description)
        return .dataError
    }
    let replay: TrialReplay
    do {
        replay = try ScenarioRunner.replay(scenario, seed: seed, trial: trial, packets: packets)
    } catch {
        return reportError(error, context)
    }
    let format = parsed[.traceFormat]
    do {
        // Written as it is rendered: a trace of millions of packets is never
        // held as one string.
        try OutputTarget(parsed[.output] ?? "-").stream(io: io) { output in
            switch format {
            case .text: TraceReport.write(replay, scenario: scenario, to: &output)
            case .json: TraceJSON.write(replay, scenario: scenario, packets: packets, to: &output)
            case .svg: TraceDiagram.write(replay, scenario: scenario, to: &output)
            case .perfetto: TracePerfetto.write(replay, scenario: scenario, to: &output)
            }
        }
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
        switch ScenarioSuite.loadResult(file) {
        case let .success(scenario):
            context.io.writeOutput(RunReport.listing(scenario))
        case let .failure(problems):
            context.io.writeError(problems.description)
            code = .dataError
        }
    }
    return code
}
