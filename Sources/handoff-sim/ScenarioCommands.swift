import Foundation
import Handoff
import HandoffReport
import HandoffScenario

/// Exit codes (sysexits(3) where one fits).
enum ExitCode {
    static let success: Int32 = 0
    /// An expectation failed, or a scenario stopped at a limit.
    static let expectationFailed: Int32 = 1
    static let usage: Int32 = 64
    /// A scenario file is invalid (EX_DATAERR).
    static let invalidScenario: Int32 = 65
    /// An internal error (EX_SOFTWARE): a determinism check that found a
    /// difference, or an output file that could not be written.
    static let internalError: Int32 = 70
}

let runHelp = """
    OVERVIEW: Run scenario files: every scenario is a test case.

    USAGE: handoff-sim run <file or dir>... [options]

    Directories are searched for *.json files (recursively, in path order).
    Every file is validated first; an invalid file runs nothing.

    OPTIONS:
      --trials N            Run N trials of every scenario instead of the
                            file's "trials".
      --seed S              Use seed S instead of the file's "seed".
      --jobs N              Spread trials over N threads (default: all
                            cores). Results do not depend on N.
      --junit PATH          Write JUnit XML to PATH.
      --json PATH           Write the JSON report to PATH.
      --markdown PATH       Write the Markdown summary to PATH.
      --quiet               List only scenarios that did not pass.
      --no-progress         No progress line on a terminal.
      --check-determinism   Run everything twice and compare; a difference
                            is an internal error (exit 70).
      -h, --help            Show this help.

    Output files are written to a temporary file and renamed. When
    GITHUB_STEP_SUMMARY is set, the Markdown summary is appended to it; when
    GITHUB_ACTIONS is "true", failing expectations are printed as
    ::error annotations.

    EXIT CODES:
      0   every expectation held
      1   an expectation failed, or a scenario stopped at a limit
      64  bad command-line usage
      65  a scenario file is invalid
      70  internal error: the determinism check found a difference, or an
          output file could not be written
    """

let validateHelp = """
    OVERVIEW: Check scenario files without running them.

    USAGE: handoff-sim validate <file or dir>...

    Every problem in every file is reported at once, as
    FILE:LINE:COLUMN: error: JSON-PATH: message.

    EXIT CODES:
      0   every file is valid
      64  bad command-line usage
      65  a file is invalid
    """

let replayHelp = """
    OVERVIEW: Re-run one trial of a scenario and print its timestamped trace.

    USAGE: handoff-sim replay <file> --seed S --trial K

    OPTIONS:
      --seed S     The seed (as printed by a failing run).
      --trial K    The trial's index, from 0.
      -h, --help   Show this help.

    EXIT CODES:
      0   the trial ran (whatever its outcome)
      1   the trial stopped at a limit
      64  bad command-line usage
      65  the scenario file is invalid
    """

let listHelp = """
    OVERVIEW: List scenarios with their trials and expectations.

    USAGE: handoff-sim list <file or dir>...

    EXIT CODES:
      0   listed
      64  bad command-line usage
      65  a file is invalid
    """

/// The number of cores to use by default.
var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

/// The files under `paths`, or a usage error.
func scenarioFiles(_ paths: [String], command: String) throws(UsageError) -> [String] {
    guard !paths.isEmpty else {
        throw UsageError(message: "missing <file or dir>\nUsage: handoff-sim \(command) <file or dir>...; see 'handoff-sim \(command) --help'")
    }
    do {
        return try ScenarioSuite.files(in: paths)
    } catch {
        throw UsageError(message: error.description)
    }
}

func runCommand(_ arguments: [String]) throws(UsageError) -> Int32 {
    let parsed = try parseArguments(
        arguments, command: "run", flags: ["--quiet", "--no-progress", "--check-determinism", "-h", "--help"],
        options: ["--trials", "--seed", "--jobs", "--junit", "--json", "--markdown"])
    if parsed.has("-h") || parsed.has("--help") {
        writeOutput(runHelp + "\n")
        return ExitCode.success
    }
    let (trials, seed, jobs) = try runOptions(parsed)
    let files = try scenarioFiles(parsed.positional, command: "run")
    let showsProgress = standardErrorIsTerminal && !parsed.has("--no-progress")
    let runner = ScenarioRunner(jobs: jobs)
    let progress: ((Int, Int, String) -> Void)? = showsProgress ? { index, count, file in
        writeError("\u{1B}[2K\r[\(index + 1)/\(count)] \(file)", newline: false)
    } : nil
    if let failure = preflightOutputs(parsed) { return failure }
    let results = ScenarioSuite.run(files: files, runner: runner, trials: trials, seed: seed, progress: progress)
    if showsProgress { writeError("\u{1B}[2K\r", newline: false) }

    if parsed.has("--check-determinism") {
        let again = ScenarioSuite.run(files: files, runner: runner, trials: trials, seed: seed)
        if let difference = DeterminismCheck.firstDifference(results, again) {
            writeError("error: internal error: the determinism check found a difference: \(difference)")
            return ExitCode.internalError
        }
    }

    writeOutput(TextReport.render(results, quiet: parsed.has("--quiet")))
    let environment = ProcessInfo.processInfo.environment
    if environment["GITHUB_ACTIONS"] == "true" {
        for line in GitHubAnnotations.lines(for: results) { writeOutput(line + "\n") }
    }
    do {
        if let path = parsed.value("--json") {
            try writeAtomically(JSONReport.render(results, toolVersion: toolVersion, trials: trials, seed: seed), to: path)
        }
        if let path = parsed.value("--junit") {
            try writeAtomically(JUnitReport.render(results, toolVersion: toolVersion), to: path)
        }
        let markdown = MarkdownReport.render(results)
        if let path = parsed.value("--markdown") { try writeAtomically(markdown, to: path) }
        if let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty { try append(markdown, to: path) }
    } catch {
        writeError("error: \(error.message)")
        return ExitCode.internalError
    }
    return exitCode(for: results)
}

/// 65 if a file is invalid, else 1 if anything failed, else 0.
func exitCode(for results: [FileResult]) -> Int32 {
    var code = ExitCode.success
    for result in results {
        switch result.outcome {
        case .invalid: return ExitCode.invalidScenario
        case let .ran(run) where !run.passed: code = ExitCode.expectationFailed
        default: break
        }
    }
    return code
}

func validateCommand(_ arguments: [String]) throws(UsageError) -> Int32 {
    let parsed = try parseArguments(arguments, command: "validate", flags: ["-h", "--help"], options: [])
    if parsed.has("-h") || parsed.has("--help") {
        writeOutput(validateHelp + "\n")
        return ExitCode.success
    }
    let files = try scenarioFiles(parsed.positional, command: "validate")
    var invalid = 0
    for file in files {
        switch ScenarioSuite.load(file) {
        case let .success(scenario):
            let count = scenario.expectations.count
            writeOutput("ok       \(file) (\(scenario.name): \(scenario.trials) trials, \(count) expectation\(count == 1 ? "" : "s"))\n")
        case let .failure(problems):
            invalid += 1
            writeError(problems.description)
            if ProcessInfo.processInfo.environment["GITHUB_ACTIONS"] == "true" {
                for line in GitHubAnnotations.lines(for: problems) { writeOutput(line + "\n") }
            }
        }
    }
    if invalid > 0 {
        writeError("\(invalid) of \(files.count) file\(files.count == 1 ? "" : "s") invalid")
        return ExitCode.invalidScenario
    }
    return ExitCode.success
}

func replayCommand(_ arguments: [String]) throws(UsageError) -> Int32 {
    let parsed = try parseArguments(
        arguments, command: "replay", flags: ["-h", "--help"], options: ["--seed", "--trial"])
    if parsed.has("-h") || parsed.has("--help") {
        writeOutput(replayHelp + "\n")
        return ExitCode.success
    }
    guard parsed.positional.count == 1 else {
        throw UsageError(message: "replay takes one scenario file\nUsage: handoff-sim replay <file> --seed S --trial K")
    }
    guard let seedText = parsed.value("--seed"), let seed = UInt64(seedText), seed <= UInt64(Int64.max) else {
        throw UsageError(message: "replay needs '--seed S' (a whole number from 0 to \(Int64.max))")
    }
    guard let trial = try integerOption(parsed, "--trial", in: 0...ScenarioDecoder.maximumTrials - 1) else {
        throw UsageError(message: "replay needs '--trial K' (a trial index from 0)")
    }
    let files = try scenarioFiles(parsed.positional, command: "replay")
    let scenario: Scenario
    switch ScenarioSuite.load(files[0]) {
    case let .success(loaded): scenario = loaded
    case let .failure(problems):
        writeError(problems.description)
        return ExitCode.invalidScenario
    }
    let replay: TrialReplay
    do {
        replay = try ScenarioRunner.replay(scenario, seed: seed, trial: trial)
    } catch {
        writeError("error: \(error)")
        return ExitCode.expectationFailed
    }
    writeOutput(TraceReport.render(replay, scenario: scenario))
    if let failure = replay.failure {
        writeError("error: \(failure)")
        return ExitCode.expectationFailed
    }
    return ExitCode.success
}

func listCommand(_ arguments: [String]) throws(UsageError) -> Int32 {
    let parsed = try parseArguments(arguments, command: "list", flags: ["-h", "--help"], options: [])
    if parsed.has("-h") || parsed.has("--help") {
        writeOutput(listHelp + "\n")
        return ExitCode.success
    }
    let files = try scenarioFiles(parsed.positional, command: "list")
    var code = ExitCode.success
    for file in files {
        switch ScenarioSuite.load(file) {
        case let .success(scenario):
            writeOutput(ListReport.render(scenario))
        case let .failure(problems):
            writeError(problems.description)
            code = ExitCode.invalidScenario
        }
    }
    return code
}
