import Foundation
import Handoff
import HandoffBaseline
import HandoffReport
import HandoffScenario

extension CommandOption where Self == Option<Int> {
    /// `--jobs N` of baseline update and check.
    static var baselineJobs: Option<Int> {
        .jobs.helping("Spread the trials over N threads. The figures never depend on N.")
    }
}

extension CommandOption where Self == Option<String> {
    /// `baseline update --output PATH`.
    static var baselineOutput: Option<String> {
        .required(name: "--output", .text("PATH"), outputPath: true, help: "Where to write the baseline (atomically).")
    }
}

extension CommandOption where Self == Option<[Tolerance]> {
    /// `baseline check --tolerance PATTERN=VALUE`.
    static var tolerances: Option<[Tolerance]> {
        let expected = "PATTERN=VALUE such as acceptToContinue.p95=5% or acceptToContinue=2ms"
        let syntax = ValueSyntax<Tolerance>("PATTERN=VALUE", expected: expected) { option, text throws(UsageError) in
            guard let tolerance = Tolerance.parse(text) else { throw .badValue(option, expected: expected, found: text) }
            return tolerance
        }
        return .repeating(
            name: "--tolerance", syntax,
            help: "Let the metrics PATTERN matches move by VALUE before they count. VALUE is relative (5%) or absolute (a duration such as 2ms for latencies, a number such as 0.01 for rates). PATTERN is a metric (acceptToContinue.p95), a family (acceptToContinue) or * for all; the first pattern that matches a metric applies.")
    }
}

extension CommandSpec {
    /// `handoff-sim baseline`: `update` and `check`.
    static let baseline = CommandSpec(
        name: "baseline",
        abstract: "Record simulated figures (update) or check them against a recorded baseline (check).",
        discussion: """
            Runs are deterministic, so the default tolerance is zero: any moved \
            figure is reported. A baseline records, per scenario file, every \
            activity on every receiving device (and every point of the file's \
            "sweep" block): the success rate, each outcome's share (failed4608 ... \
            failed4611, notOffered, otherOutcomes) and the p50, p90, p95, p99 and max \
            of every latency metric (\(LatencyMetric.names)); with the tool \
            version, each file's digest, seed and trials. docs/regression-gates.md \
            shows how to use one in CI.
            """,
        exitCodes: [
            ExitCodeSpec(.success, "every figure matches (update: written)"),
            ExitCodeSpec(.expectationFailed, "a trial stopped at a limit (events or simulated time)"),
            ExitCodeSpec(.regression, "check: a regression (slower, less successful, or a new failure cause)"),
            ExitCodeSpec(.improvementsOnly, "check: only improvements, or scenarios and entries added or removed"),
            ExitCodeSpec(.baselineUnusable, "check: the baseline is missing or unreadable"),
            ExitCodeSpec(.usage, "bad command-line usage, or a scenario file that does not exist"),
            ExitCodeSpec(.dataError, "a scenario file (its \"sweep\" block included) is invalid, or a setup was refused"),
            ExitCodeSpec(.software, "internal error (the simulator broke one of its own rules), or an output could not be written"),
        ],
        subcommands: [.baselineUpdate, .baselineCheck])

    /// `handoff-sim baseline update`.
    static let baselineUpdate = CommandSpec(
        name: "update",
        abstract: "Record the simulated figures of scenario files in a baseline.",
        discussion: """
            Every file is run; the baseline is written only when every file is \
            valid and every trial settled.
            """,
        arguments: [.scenarioFiles],
        options: [.baselineOutput, .baselineJobs, .overlay],
        exitCodes: [
            ExitCodeSpec(.success, "the baseline was written"),
            ExitCodeSpec(.expectationFailed, "a trial stopped at a limit (events or simulated time); nothing was written"),
            ExitCodeSpec(.usage, "bad command-line usage, or a scenario file that does not exist"),
            ExitCodeSpec(.dataError, "a scenario file (its \"sweep\" block included) is invalid, or a setup was refused"),
            ExitCodeSpec(.software, "internal error (the simulator broke one of its own rules), or the baseline could not be written"),
        ],
        action: baselineUpdateCommand)

    /// `handoff-sim baseline check`.
    static let baselineCheck = CommandSpec(
        name: "check",
        abstract: "Check the simulated figures of scenario files against a recorded baseline.",
        discussion: """
            The files are run again and every figure is compared with the \
            baseline's. The baseline comes first: given the arguments the wrong way \
            round (a folder first, or a scenario file where the baseline should \
            be), check says which argument is the baseline and exits 64.
            """,
        arguments: [
            ArgumentSpec("baseline", help: "The baseline, as 'handoff-sim baseline update' writes it."),
            .scenarioFiles,
        ],
        options: [
            .tolerances, .markdown.helping("Also write the diff table as Markdown to PATH."), .html, .baselineJobs, .overlay,
        ],
        notes: """
            The diff table is printed, and appended as Markdown to \
            GITHUB_STEP_SUMMARY when that is set. When GITHUB_ACTIONS is "true", \
            every figure that got worse or disappeared is also printed as an \
            ::error annotation on its scenario file.
            """,
        exitCodes: [
            ExitCodeSpec(.success, "every figure matches"),
            ExitCodeSpec(.expectationFailed, "a trial stopped at a limit (events or simulated time)"),
            ExitCodeSpec(.regression, "a regression: a latency went up, the success rate down, a failure share up (new failure causes included)"),
            ExitCodeSpec(.improvementsOnly, "only improvements, or scenarios and entries added or removed: update the baseline"),
            ExitCodeSpec(.baselineUnusable, "the baseline is missing or unreadable"),
            ExitCodeSpec(.usage, "bad command-line usage (the arguments the wrong way round included), or a scenario file that does not exist"),
            ExitCodeSpec(.dataError, "a scenario file (its \"sweep\" block included) is invalid, or a setup was refused"),
            ExitCodeSpec(.software, "internal error (the simulator broke one of its own rules), or an output could not be written"),
        ],
        action: baselineCheckCommand)
}

/// Measures every file; prints problems and returns the exit code on
/// failure. Every invalid file is reported before giving up; any other
/// failure stops at once.
func measureBaseline(
    _ files: [String], jobs: Int, overlay: Overlay?, _ context: CommandContext
) -> Result<[Baseline.Scenario], ExitFailure> {
    let recorder = BaselineRecorder(jobs: jobs, overlay: overlay)
    var scenarios: [Baseline.Scenario] = []
    var invalid = false
    for file in files {
        do {
            scenarios.append(try recorder.measure(file: file))
        } catch where error.problems != nil {
            _ = reportError(error, context)
            invalid = true
        } catch {
            return .failure(ExitFailure(code: reportError(error, context)))
        }
    }
    return invalid ? .failure(ExitFailure(code: .dataError)) : .success(scenarios)
}

/// An exit code carried as an error.
struct ExitFailure: Error {
    let code: ExitCode
}

/// `handoff-sim baseline update`: measures the files and writes the
/// baseline.
func baselineUpdateCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    if let failure = preflightOutputs(parsed, context) { return failure }
    let (jobs, output) = (parsed[.baselineJobs], parsed[.baselineOutput])
    let files = try scenarioFiles(parsed.positional)
    let (overlay, overlayFailure) = try loadOverlay(parsed, context.io)
    if let overlayFailure { return overlayFailure }
    switch measureBaseline(files, jobs: jobs, overlay: overlay, context) {
    case let .failure(failure): return failure.code
    case let .success(scenarios):
        let baseline = Baseline(toolVersion: toolVersion, scenarios: scenarios)
        do {
            try writeAtomically(BaselineFile.render(baseline), to: output, io: io)
        } catch {
            io.writeError("error: \(error.message)")
            return .software
        }
        let entries = scenarios.reduce(0) { $0 + $1.entries.count }
        io.writeOutput("wrote \(output.escapingControlCharacters): \(scenarios.count) scenario\(scenarios.count == 1 ? "" : "s"), \(entries) entries\n")
        return .success
    }
}

/// `handoff-sim baseline check`: measures the files again and compares
/// them with the baseline.
func baselineCheckCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    if let failure = preflightOutputs(parsed, context) { return failure }
    let clock = ContinuousClock()
    let started = clock.now
    let (jobs, tolerances) = (parsed[.baselineJobs], parsed[.tolerances])
    let path = parsed.positional[0]
    let rest = Array(parsed.positional.dropFirst())
    if let swapped = swappedBaselineArguments(path, rest) { throw UsageError(message: swapped) }
    let files = try scenarioFiles(rest)
    guard let data = InputFile.contents(atPath: path) else {
        io.writeError("error: \(path): the baseline is missing (make it with 'handoff-sim baseline update ... --output \(path)')")
        return .baselineUnusable
    }
    let baseline: Baseline
    do {
        baseline = try BaselineFile.read(String(decoding: data, as: UTF8.self), file: path)
    } catch {
        io.writeError("error: \(error)")
        return .baselineUnusable
    }
    let scenarios: [Baseline.Scenario]
    let (overlay, overlayFailure) = try loadOverlay(parsed, context.io)
    if let overlayFailure { return overlayFailure }
    switch measureBaseline(files, jobs: jobs, overlay: overlay, context) {
    case let .failure(failure): return failure.code
    case let .success(value): scenarios = value
    }
    let comparison = BaselineComparison(
        baseline: baseline, now: Baseline(toolVersion: toolVersion, scenarios: scenarios), tolerances: tolerances)
    io.writeOutput(BaselineReport.text(comparison))
    if context.environment["GITHUB_ACTIONS"] == "true" {
        for line in BaselineReport.annotations(comparison) { io.writeOutput(line + "\n") }
    }
    let markdown = BaselineReport.markdown(comparison)
    do {
        if let path = parsed[.markdown] { try writeAtomically(markdown, to: path, io: io) }
        if let path = parsed[.html] {
            let given = parsed.texts(of: Option<[Tolerance]>.tolerances.spec)
            let report = HTMLReport.baseline(
                comparison, tolerances: given, context: htmlContext(context, parsed, since: started, clock: clock))
            try writeAtomically(report, to: path, io: io)
        }
        if let path = context.environment["GITHUB_STEP_SUMMARY"], !path.isEmpty {
            try append(markdown, to: path)
        }
    } catch {
        io.writeError("error: \(error.message)")
        return .software
    }
    if comparison.hasRegression { return .regression }
    return comparison.rows.isEmpty ? .success : .improvementsOnly
}

/// A message when `baseline check`'s arguments are the wrong way round:
/// the first is a folder, or is not a baseline while one of the others is.
func swappedBaselineArguments(_ first: String, _ rest: [String]) -> String? {
    let usage = "the baseline comes first: handoff-sim baseline check BASELINE <file or dir>..."
    var isFolder: ObjCBool = false
    let isBaseline = { (path: String) -> Bool in
        // Only a regular file is read to tell: a pipe read here would be
        // empty when the command reads it as its input.
        guard (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular,
            let data = InputFile.contents(atPath: path)
        else { return false }
        return (try? BaselineFile.read(String(decoding: data, as: UTF8.self), file: path)) != nil
    }
    let baseline = rest.first(where: isBaseline)
    if FileManager.default.fileExists(atPath: first, isDirectory: &isFolder), isFolder.boolValue {
        let hint = baseline.map { "; '\($0.escapingControlCharacters)' is the baseline" } ?? ""
        return "'\(first.escapingControlCharacters)' is a folder, not a baseline file; \(usage)\(hint)"
    }
    if let baseline, !isBaseline(first) {
        return "'\(first.escapingControlCharacters)' is not a baseline but '\(baseline.escapingControlCharacters)' is; \(usage)"
    }
    return nil
}
