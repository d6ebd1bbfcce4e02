import HandoffScenario

extension RunReport {
    /// The summary `handoff-sim run` prints: one line per scenario, the
    /// failing expectations with their measurements and replay commands,
    /// and a total.
    ///
    /// - Parameters:
    ///   - summary: The run, its statuses decided.
    ///   - command: how to invoke the tool in replay commands, e.g.
    ///     `"handoff-sim"`.
    ///   - quiet: list only scenarios that did not pass surely (failed,
    ///     fragile, errors, invalid).
    ///   - budgets: under each scenario, where accept → continue goes on
    ///     each pair (`BudgetSummary`); a failing scenario shows its
    ///     pairs' budgets either way.
    public static func text(
        _ summary: RunSummary, command: String = "handoff-sim", quiet: Bool = false, budgets: Bool = false
    ) -> String {
        let width = max(8, summary.entries.map(\.name.count).max() ?? 8)
        var lines = summary.entries.flatMap {
            entryLines($0, width: width, command: command, quiet: quiet, budgets: budgets)
        }
        if !lines.isEmpty { lines.append("") }
        lines.append(summary.totalsSentence + " in \(Format.seconds(summary.wallClockSeconds, decimals: 2)) of wall time")
        return lines.escapedLines
    }

    /// One entry's lines: its status line, then what did not hold (each
    /// failing or fragile expectation with its measurement, interval and
    /// replay command), and budgets where asked or failing.
    static func entryLines(
        _ entry: RunSummary.Entry, width: Int, command: String, quiet: Bool, budgets: Bool
    ) -> [String] {
        let status = entry.status
        if quiet && (status == .pass || status == .skipped) { return [] }
        var lines = ["\(status.label) \(pad(entry.name, width))  \(entry.statusDetail)"]
        switch entry.result.outcome {
        case let .invalid(problems):
            for problem in problems.problems { lines.append("         \(problem)") }
        case .skipped:
            break
        case let .ran(run):
            if let trial = run.failure?.trial {
                lines.append("         replay: \(ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))")
            }
            for expectation in entry.notableExpectations {
                lines.append("         \(entry.mark(of: expectation)) \(expectation.expectation.path): expected \(expectation.asked)")
                lines.append("           measured: \(expectation.measured)")
                if let note = expectation.fragileNote { lines.append("           \(note)") }
                if let trial = expectation.failingTrial {
                    lines.append("           replay: \(ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))")
                }
            }
            if run.failure == nil && (budgets || (status == .fail && !entry.failsOnlyUnderStrict)) {
                for pair in run.pairs { lines += BudgetText.lines(pair, indent: "         ") }
            }
        }
        return lines
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

}

/// The command that re-runs one trial with its trace.
public enum ReplayCommand {
    /// `handoff-sim replay FILE --seed S --trial K`, with the file quoted
    /// for a POSIX shell when it needs it.
    public static func text(command: String, file: String, seed: UInt64, trial: Int) -> String {
        "\(command) replay \(shellQuoted(file)) --seed \(seed) --trial \(trial)"
    }

    /// The replay command of trial `trial` of `scenario`, with
    /// `--overlay FILE` when the scenario ran with one.
    public static func text(command: String, scenario: Scenario, seed: UInt64, trial: Int) -> String {
        text(command: command, file: scenario.file, seed: seed, trial: trial)
            + (scenario.overlayFile.map { " --overlay \(shellQuoted($0))" } ?? "")
    }

    /// `text` as one shell word: as it is when it needs no quoting, in
    /// single quotes, or, when it holds a control character, in ANSI-C
    /// quotes (`$'a\nb'`, which bash, zsh, ksh and POSIX.1-2024 `sh` read)
    /// so that the command stays on one line.
    public static func shellQuoted(_ text: String) -> String { Escape.shell(text) }
}
