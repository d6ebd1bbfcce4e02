import HandoffScenario

/// The summary `handoff-sim run` prints: one line per scenario, the
/// failing expectations with their measurements and replay commands, and
/// a total.
public enum TextReport {
    /// The summary of `results`.
    ///
    /// - Parameters:
    ///   - command: how to invoke the tool in replay commands, e.g.
    ///     `"handoff-sim"`.
    ///   - quiet: list only scenarios that did not pass surely (failed,
    ///     fragile, errors, invalid).
    ///   - budgets: under each scenario, where accept → continue goes on
    ///     each pair (``BudgetSummary``); a failing scenario shows its
    ///     pairs' budgets either way.
    ///   - showsTotal: end with the total line.
    public static func render(
        _ results: [FileResult], command: String = "handoff-sim", quiet: Bool = false, budgets: Bool = false,
        showsTotal: Bool = true
    ) -> String {
        var lines: [String] = []
        let width = max(8, results.map { name(of: $0).count }.max() ?? 8)
        var passed = 0
        var fragile = 0
        var failed = 0
        var errors = 0
        var invalid = 0
        var skipped = 0
        var seconds = 0.0
        for result in results {
            switch result.outcome {
            case let .invalid(problems):
                invalid += 1
                lines.append("INVALID  \(pad(name(of: result), width))  \(problems.problems.count) problem\(problems.problems.count == 1 ? "" : "s")")
                for problem in problems.problems { lines.append("         \(problem)") }
            case let .skipped(scenario):
                skipped += 1
                if !quiet {
                    lines.append("SKIP     \(pad(scenario.name, width))  no expectations (a file for sweeps)")
                }
            case let .ran(run):
                seconds += run.wallClockSeconds
                let held = run.expectations.filter(\.passed).count
                if let failure = run.failure {
                    errors += 1
                    lines.append("ERROR    \(pad(name(of: result), width))  \(failure)")
                    if let trial = failure.trial {
                        lines.append("         replay: \(ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))")
                    }
                } else if run.isFragile {
                    fragile += 1
                    lines.append(contentsOf: fragileLines(run, name: pad(name(of: result), width), held: held))
                    if budgets {
                        for pair in run.pairs { lines += BudgetText.lines(pair, indent: "         ") }
                    }
                } else if run.passed {
                    passed += 1
                    if !quiet {
                        lines.append("PASS     \(pad(name(of: result), width))  \(run.trials) trials, \(held)/\(run.expectations.count) expectations")
                        if budgets {
                            for pair in run.pairs { lines += BudgetText.lines(pair, indent: "         ") }
                        }
                    }
                } else {
                    failed += 1
                    lines.append("FAIL     \(pad(name(of: result), width))  \(run.trials) trials, \(held)/\(run.expectations.count) expectations")
                    for expectation in run.expectations where !expectation.passed {
                        lines.append("         ✗ \(expectation.expectation.path): expected \(expectation.asked)")
                        lines.append("           measured: \(expectation.measured)")
                        if let trial = expectation.failingTrial {
                            lines.append("           replay: \(ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))")
                        }
                    }
                    for pair in run.pairs { lines += BudgetText.lines(pair, indent: "         ") }
                }
            }
        }
        var total = "\(results.count) scenario\(results.count == 1 ? "" : "s"): \(passed) passed"
        if fragile > 0 { total += ", \(fragile) fragile" }
        if failed > 0 { total += ", \(failed) failed" }
        if errors > 0 { total += ", \(errors) with errors" }
        if invalid > 0 { total += ", \(invalid) invalid" }
        if skipped > 0 { total += ", \(skipped) skipped" }
        total += " in \(secondsText(seconds)) of wall time"
        if showsTotal {
            if !lines.isEmpty { lines.append("") }
            lines.append(total)
        }
        return lines.escapedLines
    }

    /// A fragile scenario: its line, then each fragile expectation with
    /// its measurement, its interval and how many trials would settle it.
    static func fragileLines(_ run: ScenarioResult, name: String, held: Int) -> [String] {
        var lines = ["FRAGILE  \(name)  \(run.trials) trials, \(held)/\(run.expectations.count) expectations"]
        for expectation in run.expectations where expectation.verdict == .fragile {
            lines.append("         ~ \(expectation.expectation.path): expected \(expectation.asked)")
            lines.append("           measured: \(expectation.measured)")
            if let confidence = expectation.confidence {
                lines.append("           \(confidence.text) crosses the bound" + (confidence.settleText.map { "; \($0)" } ?? ""))
            }
        }
        return lines
    }

    static func name(of result: FileResult) -> String {
        if case let .ran(run) = result.outcome { return run.scenario.name }
        if case let .skipped(scenario) = result.outcome { return scenario.name }
        return result.file
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Seconds with two decimals.
    static func secondsText(_ seconds: Double) -> String {
        let hundredths = Int64((seconds * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)s"
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
    public static func shellQuoted(_ text: String) -> String {
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029 }) {
            var quoted = "$'"
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\\": quoted += "\\\\"
                case "'": quoted += "\\'"
                case "\n": quoted += "\\n"
                case "\t": quoted += "\\t"
                case "\r": quoted += "\\r"
                default:
                    if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                        // Each UTF-8 byte as \xHH.
                        for byte in String(scalar).utf8 {
                            quoted += (byte < 0x10 ? "\\x0" : "\\x") + String(byte, radix: 16, uppercase: true)
                        }
                    } else {
                        quoted.unicodeScalars.append(scalar)
                    }
                }
            }
            return quoted + "'"
        }
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "-_./+=:,@%".unicodeScalars.contains($0)
        }
        if plain { return text }
        var quoted = "'"
        for character in text {
            if character == "'" { quoted += "'\\''" } else { quoted.append(character) }
        }
        return quoted + "'"
    }
}
