import HandoffScenario

extension RunReport {
    /// GitHub Actions workflow commands (`::error file=…,line=…::message`)
    /// for failing expectations, scenario errors and invalid files, so they
    /// show on the pull request's diff; a fragile expectation (it held, but its
    /// confidence interval crosses its bound) is a `::warning`, or an `::error`
    /// when `--strict` fails its scenario. It renders a `RunSummary` and
    /// decides no status itself.
    ///
    /// One `::error` line per problem and per failing expectation and one
    /// `::warning` or `::error` line per fragile expectation, in file order.
    public static func annotations(for summary: RunSummary, command: String = "handoff-sim") -> [String] {
        var lines: [String] = []
        for entry in summary.entries {
            switch entry.result.outcome {
            case let .invalid(problems):
                lines += annotations(for: problems)
            case .skipped:
                continue
            case let .ran(run):
                if let failure = run.failure {
                    var message = "\(failure)".escapingControlCharacters
                    if let trial = failure.trial {
                        message += "\nreplay: " + ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial)
                    }
                    lines.append(annotation(
                        file: run.scenario.file, line: nil, column: nil, title: "scenario error: \(run.scenario.name)",
                        message: message))
                }
                // Every expectation that did not hold surely: a failing one
                // is an error; a fragile one a warning, or an error when
                // --strict fails its scenario.
                for expectation in run.expectations where expectation.verdict != .pass {
                    var message = "expected \(expectation.asked); measured \(expectation.measured)".escapingControlCharacters
                    if let note = expectation.fragileNote { message += "\n" + note }
                    if let trial = expectation.failingTrial {
                        message += "\nreplay: " + ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial)
                    }
                    let fragile = expectation.verdict == .fragile
                    let title = fragile
                        ? "fragile expectation\(summary.strict ? " (--strict)" : ""): \(run.scenario.name)"
                        : "expectation failed: \(run.scenario.name)"
                    lines.append(annotation(
                        file: run.scenario.file, line: expectation.expectation.line, column: nil, title: title,
                        message: message, level: fragile && !summary.strict ? "warning" : "error"))
                }
            }
        }
        return lines
    }

    /// One `::error` line per problem of an invalid file (for `validate`),
    /// or one `::warning` line per warning of a valid one.
    public static func annotations(for problems: ScenarioProblems) -> [String] {
        problems.problems.map { problem in
            let warns = problem.severity == .warning
            return annotation(
                file: problem.file, line: problem.position?.line, column: problem.position?.column,
                title: warns ? "scenario warning" : "invalid scenario",
                message: "\(problem.path): \(problem.message)".escapingControlCharacters, level: warns ? "warning" : "error")
        }
    }

    /// One workflow command, with its properties and message escaped.
    ///
    /// The file and title have their control characters written as
    /// escapes (`Swift/String/escapingControlCharacters`); the message's line
    /// breaks are its own (callers escape the values in it) and are encoded
    /// as `%0A`, as the runner expects.
    static func annotation(
        file: String, line: Int?, column: Int?, title: String, message: String, level: String = "error"
    ) -> String {
        var properties = ["file=\(Escape.workflowProperty(file.escapingControlCharacters))"]
        if let line { properties.append("line=\(line)") }
        if let column { properties.append("col=\(column)") }
        properties.append("title=\(Escape.workflowProperty(title.escapingControlCharacters))")
        return "::\(level) \(properties.joined(separator: ","))::\(Escape.workflowMessage(message))"
    }

}
