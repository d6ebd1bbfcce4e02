import HandoffScenario

/// The Markdown summary of a run (for `--markdown` and GitHub's step
/// summary): a table of scenarios, then each failure with its measurement
/// and replay command.
public enum MarkdownReport {
    /// The summary as Markdown.
    ///
    /// - Parameter namesSeeds: add " (seed S)" to every scenario's name
    ///   (for `run --seeds`, where a file runs once per seed).
    public static func render(_ results: [FileResult], command: String = "handoff-sim", namesSeeds: Bool = false) -> String {
        var passed = 0
        var fragile = 0
        var notPassed = 0
        var lines = ["## HandoffSim scenarios", "", "| | Scenario | File | Trials | Expectations |", "|---|---|---|---:|---:|"]
        var details: [String] = []
        for result in results {
            switch result.outcome {
            case let .invalid(problems):
                notPassed += 1
                lines.append("| ⛔ | invalid | `\(cell(result.file))` | | |")
                details.append("### ⛔ `\(result.file)` is invalid")
                details.append("")
                details.append("```")
                details.append(contentsOf: problems.problems.map(\.description))
                details.append("```")
                details.append("")
            case let .skipped(scenario):
                lines.append("| ⏭️ | \(cell(scenario.name)) | `\(cell(result.file))` | | skipped: no expectations |")
            case let .ran(run):
                let name = run.scenario.name + (namesSeeds ? " (seed \(run.seed))" : "")
                let held = run.expectations.filter(\.passed).count
                let mark = run.failure != nil ? "⚠️" : run.isFragile ? "🟡" : run.passed ? "✅" : "❌"
                if run.passed { passed += 1 } else { notPassed += 1 }
                if run.isFragile { fragile += 1 }
                let expectations = run.failure == nil ? "\(held)/\(run.expectations.count)" : "error"
                lines.append("| \(mark) | \(cell(name)) | `\(cell(result.file))` | \(run.trials) | \(expectations) |")
                if let failure = run.failure {
                    details.append("### ⚠️ \(name)")
                    details.append("")
                    details.append("\(failure)")
                    if let trial = failure.trial {
                        details.append("")
                        details.append("```sh")
                        details.append(ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))
                        details.append("```")
                    }
                    details.append("")
                } else if run.isFragile {
                    details.append("### 🟡 \(name) (fragile)")
                    details.append("")
                    for expectation in run.expectations where expectation.verdict == .fragile {
                        var line = "- `\(expectation.expectation.path)`: expected \(expectation.asked); measured \(expectation.measured)"
                        if let confidence = expectation.confidence {
                            line += "; \(confidence.text) crosses the bound" + (confidence.settleText.map { "; \($0)" } ?? "")
                        }
                        details.append(line)
                    }
                    details.append("")
                } else if !run.passed {
                    details.append("### ❌ \(name)")
                    details.append("")
                    for expectation in run.expectations where !expectation.passed {
                        details.append("- `\(expectation.expectation.path)`: expected \(expectation.asked); measured \(expectation.measured)")
                        if let trial = expectation.failingTrial {
                            details.append("")
                            details.append("  ```sh")
                            details.append("  " + ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))
                            details.append("  ```")
                        }
                    }
                    details.append("")
                    details += budgetTable(run.pairs)
                }
            }
        }
        lines.append("")
        lines.append("**\(passed) of \(results.count) scenario\(results.count == 1 ? "" : "s") passed"
            + (fragile > 0 ? " (\(fragile) fragile: held, but a confidence interval crosses the bound).**" : ".**"))
        lines.append("")
        lines.append(contentsOf: details)
        while lines.last == "" { lines.removeLast() }
        return lines.escapedLines
    }

    /// Where accept → continue goes on each pair that continued: a table
    /// of phases with their share of the p95 trials' time and their mean.
    static func budgetTable(_ pairs: [PairSummary]) -> [String] {
        var lines: [String] = []
        for pair in pairs {
            guard let budget = pair.budget else { continue }
            lines.append("Where accept → continue goes on \(cell(pair.device)) (\(cell(pair.activity)); "
                + "p\(Int(budget.tailPercentile)) trials: \(budget.tailTrials) of \(budget.trials) continued):")
            lines.append("")
            lines.append("| Phase | Share of p\(Int(budget.tailPercentile)) trials | Mean |")
            lines.append("|---|---:|---:|")
            for figure in budget.ranked {
                lines.append("| \(figure.phase.label) | \(BudgetText.percent(figure.tailShare)) | \(figure.mean.rounded(toSignificantDigits: 3)) |")
            }
            lines.append("")
        }
        return lines
    }

    /// Text safe inside a table cell: pipes escaped, other control
    /// characters written as escapes (``Swift/String/escapingControlCharacters``).
    static func cell(_ text: String) -> String {
        var result = ""
        // By Unicode scalar: Swift reads "\r\n" as one Character.
        for scalar in text.escapingControlCharacters.unicodeScalars {
            switch scalar {
            case "|": result += "\\|"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
