import HandoffScenario

extension RunReport {
    /// The Markdown summary of a run (for `--markdown` and GitHub's step
    /// summary): a table of scenarios, then each failure with its measurement
    /// and replay command. It renders a `RunSummary` and decides no status
    /// itself.
    ///
    /// The summary as Markdown. With several seeds
    /// (`RunSummary.seeds`) every scenario's name says its seed.
    public static func markdown(_ summary: RunSummary, command: String = "handoff-sim") -> String {
        var lines = ["## HandoffSim scenarios", "", "| | Status | Scenario | File | Trials | Expectations |", "|---|---|---|---|---:|---:|"]
        var details: [String] = []
        let namesSeeds = summary.seeds != nil
        for entry in summary.entries {
            let name = entry.name(namingSeed: namesSeeds)
            let mark = Self.mark(entry.status)
            switch entry.result.outcome {
            case .invalid:
                lines.append("| \(mark) | \(entry.status.rawValue) | | `\(Escape.markdownCell(entry.file))` | | |")
            case .skipped:
                lines.append("| \(mark) | \(entry.status.rawValue) | \(Escape.markdownCell(name)) | `\(Escape.markdownCell(entry.file))` | | no expectations |")
            case let .ran(run):
                let expectations = run.failure == nil ? "\(entry.heldExpectations)/\(run.expectations.count)" : "error"
                lines.append("| \(mark) | \(entry.status.rawValue) | \(Escape.markdownCell(name)) | `\(Escape.markdownCell(entry.file))` | \(run.trials) | \(expectations) |")
            }
        }
        for index in summary.listingOrder {
            details += entryDetails(summary.entries[index], name: summary.entries[index].name(namingSeed: namesSeeds), command: command)
        }
        lines.append("")
        lines.append("**\(summary.totalsSentence).**")
        lines.append("")
        lines.append(contentsOf: details)
        while lines.last == "" { lines.removeLast() }
        return lines.escapedLines
    }

    /// The mark beside a status (never the only sign of it: the status's
    /// word is in the next column).
    static func mark(_ status: RunSummary.Status) -> String {
        switch status {
        case .pass: "✅"
        case .fragile: "🟡"
        case .fail: "❌"
        case .error: "⚠️"
        case .invalid: "⛔"
        case .skipped: "⏭️"
        }
    }

    /// What a file that did not pass surely shows under the table: its
    /// problems, its error or its notable expectations with replay
    /// commands, and for a failure the latency budget.
    static func entryDetails(_ entry: RunSummary.Entry, name: String, command: String) -> [String] {
        var details: [String] = []
        let heading = "### \(mark(entry.status)) \(entry.status.rawValue): "
        switch entry.result.outcome {
        case let .invalid(problems):
            details.append(heading + "`\(entry.file)`")
            details.append("")
            details.append("```")
            details.append(contentsOf: problems.problems.map(\.description))
            details.append("```")
            details.append("")
        case .skipped:
            break
        case let .ran(run):
            if let failure = run.failure {
                details.append(heading + name)
                details.append("")
                details.append("\(failure)")
                if let trial = failure.trial {
                    details.append("")
                    details.append("```sh")
                    details.append(ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))
                    details.append("```")
                }
                details.append("")
                return details
            }
            let notable = entry.notableExpectations
            guard !notable.isEmpty else { return details }
            details.append(heading + name + (entry.failsOnlyUnderStrict ? " (fragile, --strict)" : ""))
            details.append("")
            for expectation in notable {
                var line = "- `\(expectation.expectation.path)`: expected \(expectation.asked); measured \(expectation.measured)"
                if let note = expectation.fragileNote { line += "; " + note }
                details.append(line)
                if let trial = expectation.failingTrial {
                    details.append("")
                    details.append("  ```sh")
                    details.append("  " + ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))
                    details.append("  ```")
                }
            }
            details.append("")
            if entry.status == .fail && !entry.failsOnlyUnderStrict { details += budgetTable(run.pairs) }
        }
        return details
    }

    /// Where accept → continue goes on each pair that continued: a table
    /// of phases with their share of the p95 trials' time and their mean.
    static func budgetTable(_ pairs: [PairSummary]) -> [String] {
        var lines: [String] = []
        for pair in pairs {
            guard let budget = pair.budget else { continue }
            lines.append("Where accept → continue goes on \(Escape.markdownCell(pair.device)) (\(Escape.markdownCell(pair.activity)); "
                + "p\(Int(budget.tailPercentile)) trials: \(budget.tailTrials) of \(budget.trials) continued):")
            lines.append("")
            lines.append("| Phase | Share of p\(Int(budget.tailPercentile)) trials | Mean |")
            lines.append("|---|---:|---:|")
            for figure in budget.ranked {
                lines.append("| \(figure.phase.label) | \(Format.wholePercent(figure.tailShare)) | \(figure.mean.rounded(toSignificantDigits: 3)) |")
            }
            lines.append("")
        }
        return lines
    }

}
