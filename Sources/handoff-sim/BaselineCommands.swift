import Foundation
import HandoffReport
import HandoffScenario

let baselineHelp = """
    OVERVIEW: Record the simulated figures of scenario files, or check them
    against a recorded baseline. Runs are deterministic, so the default
    tolerance is zero: any moved figure is reported.

    USAGE: handoff-sim baseline update <file or dir>... --output PATH
           handoff-sim baseline check PATH <file or dir>... [--tolerance PATTERN=VALUE]...

    A baseline records, per scenario file, every activity on every receiving
    device (and every point of the file's "sweep" block): the success rate,
    each outcome's share (failed4608 … failed4611, notOffered,
    otherOutcomes) and the p50, p90, p95, p99 and max of advertToOffered,
    acceptToContinue and acceptToRestored; with the tool version, each
    file's digest, seed and trials.

    OPTIONS:
      --output PATH        (update) where to write the baseline (atomically).
      --tolerance P=V      (check, repeatable) let metric P move by V before
                           it counts: V is relative ("5%") or absolute (a
                           duration such as "2ms" for latencies, a number
                           such as "0.01" for rates). P is a metric
                           (acceptToContinue.p95), a family
                           (acceptToContinue) or * for all.
      --markdown PATH      (check) also write the diff table as Markdown.
      --jobs N             Threads (default: all cores).
      -h, --help           Show this help.

    The diff table is printed, and appended as Markdown to
    GITHUB_STEP_SUMMARY when that is set.

    EXIT CODES:
      0   every figure matches (update: written)
      1   a trial stopped at a limit (events or simulated time)
      2   a regression: slower, less successful, or a new failure cause
      4   only improvements (or scenarios and entries added or removed)
      5   the baseline is missing or unreadable
      64  bad command-line usage, or a scenario file that does not exist
      65  a scenario file is invalid
      70  internal error (an output cannot be written)
    """

enum BaselineExit {
    static let regression: Int32 = 2
    static let improvementsOnly: Int32 = 4
    static let missingBaseline: Int32 = 5
}

/// Measures every file; prints problems and returns the exit code on failure.
func measureBaseline(_ files: [String], jobs: Int) -> Result<[Baseline.Scenario], ExitFailure> {
    let recorder = BaselineRecorder(jobs: jobs)
    var scenarios: [Baseline.Scenario] = []
    var invalid = false
    for file in files {
        switch recorder.measure(file: file) {
        case let .success(scenario): scenarios.append(scenario)
        case let .failure(.invalid(problems)):
            writeError(problems.description)
            invalid = true
        case let .failure(failure):
            writeError("error: \(failure)")
            switch failure {
            case .unreadable: return .failure(ExitFailure(code: ExitCode.usage))
            case .stopped: return .failure(ExitFailure(code: ExitCode.expectationFailed))
            case .invalid: return .failure(ExitFailure(code: ExitCode.invalidScenario))
            }
        }
    }
    return invalid ? .failure(ExitFailure(code: ExitCode.invalidScenario)) : .success(scenarios)
}

/// An exit code carried as an error.
struct ExitFailure: Error {
    let code: Int32
}

func baselineCommand(_ arguments: [String]) throws(UsageError) -> Int32 {
    let parsed = try parseArguments(
        arguments, command: "baseline", flags: ["-h", "--help"],
        options: ["--output", "--tolerance", "--markdown", "--jobs"], repeatable: ["--tolerance"])
    if let failure = preflightOutputs(parsed) { return failure }
    if parsed.has("-h") || parsed.has("--help") || parsed.positional.isEmpty {
        if parsed.positional.isEmpty, !(parsed.has("-h") || parsed.has("--help")) {
            throw UsageError(message: "baseline needs 'update' or 'check'\nUsage: handoff-sim baseline update|check ...; see 'handoff-sim baseline --help'")
        }
        writeOutput(baselineHelp + "\n")
        return ExitCode.success
    }
    let jobs = try integerOption(parsed, "--jobs", in: 1...1024) ?? defaultJobs
    let action = parsed.positional[0]
    switch action {
    case "update":
        guard let output = parsed.value("--output") else {
            throw UsageError(message: "baseline update needs --output PATH")
        }
        guard parsed.all("--tolerance").isEmpty, parsed.value("--markdown") == nil else {
            throw UsageError(message: "--tolerance and --markdown belong to 'baseline check'")
        }
        let files = try scenarioFiles(Array(parsed.positional.dropFirst()), command: "baseline update")
        switch measureBaseline(files, jobs: jobs) {
        case let .failure(failure): return failure.code
        case let .success(scenarios):
            let baseline = Baseline(toolVersion: toolVersion, scenarios: scenarios)
            do {
                try writeAtomically(BaselineFile.render(baseline), to: output)
            } catch {
                writeError("error: \(error.message)")
                return ExitCode.internalError
            }
            let entries = scenarios.reduce(0) { $0 + $1.entries.count }
            writeOutput("wrote \(output): \(scenarios.count) scenario\(scenarios.count == 1 ? "" : "s"), \(entries) entries\n")
            return ExitCode.success
        }
    case "check":
        guard parsed.positional.count >= 2 else {
            throw UsageError(message: "baseline check needs the baseline and the scenarios\nUsage: handoff-sim baseline check PATH <file or dir>...")
        }
        guard parsed.value("--output") == nil else { throw UsageError(message: "--output belongs to 'baseline update'") }
        var tolerances: [Tolerance] = []
        for text in parsed.all("--tolerance") {
            guard let tolerance = Tolerance.parse(text) else {
                throw UsageError(message: "option '--tolerance' expects PATTERN=VALUE such as acceptToContinue.p95=5% or acceptToContinue=2ms, found '\(text)'")
            }
            tolerances.append(tolerance)
        }
        let path = parsed.positional[1]
        let rest = Array(parsed.positional.dropFirst(2))
        if let swapped = swappedBaselineArguments(path, rest) { throw UsageError(message: swapped) }
        let files = try scenarioFiles(rest, command: "baseline check")
        guard let data = FileManager.default.contents(atPath: path) else {
            writeError("error: \(path): the baseline is missing (make it with 'handoff-sim baseline update ... --output \(path)')")
            return BaselineExit.missingBaseline
        }
        let baseline: Baseline
        do {
            baseline = try BaselineFile.read(String(decoding: data, as: UTF8.self), file: path)
        } catch {
            writeError("error: \(error)")
            return BaselineExit.missingBaseline
        }
        let scenarios: [Baseline.Scenario]
        switch measureBaseline(files, jobs: jobs) {
        case let .failure(failure): return failure.code
        case let .success(value): scenarios = value
        }
        let comparison = BaselineComparison(
            baseline: baseline, now: Baseline(toolVersion: toolVersion, scenarios: scenarios), tolerances: tolerances)
        writeOutput(BaselineReport.text(comparison))
        if ProcessInfo.processInfo.environment["GITHUB_ACTIONS"] == "true" {
            for line in GitHubAnnotations.lines(for: comparison) { writeOutput(line + "\n") }
        }
        let markdown = BaselineReport.markdown(comparison)
        do {
            if let path = parsed.value("--markdown") { try writeAtomically(markdown, to: path) }
            if let path = ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"], !path.isEmpty {
                try append(markdown, to: path)
            }
        } catch {
            writeError("error: \(error.message)")
            return ExitCode.internalError
        }
        if comparison.hasRegression { return BaselineExit.regression }
        return comparison.rows.isEmpty ? ExitCode.success : BaselineExit.improvementsOnly
    default:
        var message = "unknown baseline action '\(action)'; expected update or check"
        if let close = suggestion(for: action, among: ["update", "check"]) { message += " (did you mean '\(close)'?)" }
        throw UsageError(message: message)
    }
}

/// A message when `baseline check`'s arguments are the wrong way round:
/// the first is a folder, or is not a baseline while one of the others is.
func swappedBaselineArguments(_ first: String, _ rest: [String]) -> String? {
    let usage = "the baseline comes first: handoff-sim baseline check BASELINE <file or dir>..."
    var isFolder: ObjCBool = false
    let isBaseline = { (path: String) -> Bool in
        guard let data = FileManager.default.contents(atPath: path) else { return false }
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
