import Handoff
import HandoffScenario
import SimKernel

extension HTMLReport {
    /// The report of a `run`: a summary table in the files' order, then one
    /// section per scenario (failures first, then fragile passes, passes
    /// and skipped files) with each expectation (what was asked, what was measured,
    /// its verdict and confidence interval). A failing scenario shows, for
    /// each failing expectation, the trial that shows it replayed as an
    /// inline trace diagram, its replay command, and where accept →
    /// continue went (the latency budget); an invalid file lists its
    /// problems. The DOM contract is in ``HTMLReport``.
    ///
    /// - Parameters:
    ///   - results: The files' results, in order (with several seeds, every
    ///     file's result under each seed, as `run --seeds` gives them).
    ///   - context: How the report was made.
    ///   - command: The command the replay commands name.
    ///   - namesSeeds: Whether the results come from several seeds (each
    ///     section then names its seed).
    /// - Returns: The HTML document.
    public static func run(
        _ results: [FileResult], context: Context, command: String = "handoff-sim", namesSeeds: Bool = false
    ) -> String {
        var page = HTMLPage(kind: "run", title: "HandoffSim run")
        var counts: [String: Int] = [:]  // counted only; printed in a fixed order
        var rows: [(verdict: String, cells: [String])] = []
        var sections: [(rank: Int, lines: [String])] = []
        for (index, result) in results.enumerated() {
            let section = scenarioSection(result, index: index, command: command, namesSeeds: namesSeeds)
            counts[section.verdict, default: 0] += 1
            rows.append((section.verdict, section.row))
            sections.append((Self.rank(of: section.verdict), section.lines))
        }
        let passed = (counts["pass"] ?? 0) + (counts["fragile"] ?? 0)
        let ran = results.count - (counts["skipped"] ?? 0)
        var lede = "\(passed) of \(ran) scenario\(ran == 1 ? "" : "s") passed"
        let parts = [("fragile", "fragile"), ("fail", "failed"), ("error", "stopped with an error"), ("invalid", "invalid"), ("skipped", "skipped")]
            .compactMap { key, words in counts[key].map { "\($0) \(words)" } }
        if !parts.isEmpty { lede += " (" + parts.joined(separator: ", ") + ")" }
        let failing = (counts["fail"] ?? 0) + (counts["error"] ?? 0) + (counts["invalid"] ?? 0)
        page.lede = "<span class=\"badge \(failing > 0 ? "fail" : "pass")\">\(failing > 0 ? "FAIL" : "PASS")</span> " + html(lede)
        if let first = results.first, case let .ran(run) = first.outcome, !namesSeeds {
            page.facts.append(("seed", results.allSatisfy { result in
                if case let .ran(other) = result.outcome { return other.seed == run.seed } else { return true }
            } ? String(run.seed) : "each file's own"))
        }
        page.filters = [("fail", "failed"), ("fragile", "fragile"), ("pass", "passed"), ("invalid", "invalid")]
            .filter { status, _ in status == "fail" ? failing > 0 : (counts[status] ?? 0) > 0 }
        page.body.append("<h2>Scenarios</h2>")
        var table = [
            "<div class=\"scroll\"><table class=\"summary\">",
            "<thead><tr><th scope=\"col\">verdict</th><th scope=\"col\">scenario</th><th scope=\"col\">file</th>"
                + "<th scope=\"col\" class=\"number\">trials</th><th scope=\"col\" class=\"number\">expectations held</th></tr></thead>",
            "<tbody>",
        ]
        for (index, (verdict, row)) in rows.enumerated() {
            table.append("<tr><td><span class=\"badge \(verdict)\">\(verdict.uppercased())</span></td>"
                + "<td><a href=\"#scenario-\(index + 1)\">\(html(row[0]))</a></td><td><code>\(html(row[1]))</code></td>"
                + "<td class=\"number\">\(html(row[2]))</td><td class=\"number\">\(html(row[3]))</td></tr>")
        }
        table.append("</tbody></table></div>")
        page.body += table
        // What needs a look comes first; the order is otherwise the files'.
        for rank in 0...3 { page.body += sections.filter { $0.rank == rank }.flatMap(\.lines) }
        return page.render(context)
    }

    /// Where a verdict's sections go: failures first, then fragile passes,
    /// passes, and files that did not run.
    static func rank(of verdict: String) -> Int {
        switch verdict {
        case "fail", "error", "invalid": 0
        case "fragile": 1
        case "pass": 2
        default: 3
        }
    }

    /// One scenario's section, its row in the summary (name, file, trials,
    /// expectations held) and its verdict.
    static func scenarioSection(
        _ result: FileResult, index: Int, command: String, namesSeeds: Bool
    ) -> (lines: [String], row: [String], verdict: String) {
        let verdict: String
        let status: String
        var seedAttribute = ""
        var lines: [String] = []
        var heading: String
        var row: [String]
        switch result.outcome {
        case let .invalid(problems):
            (verdict, status) = ("invalid", "invalid")
            heading = "invalid file"
            row = ["—", result.file, "", ""]
            lines.append("<p>The file is invalid: nothing ran.</p>")
            lines.append("<pre class=\"problems\">" + problems.problems.map { html($0.description) }.joined(separator: "\n") + "</pre>")
        case let .skipped(scenario):
            (verdict, status) = ("skipped", "skipped")
            heading = scenario.name
            row = [scenario.name, result.file, "", "no expectations"]
            lines.append("<p class=\"note\">A file for sweeps: it expects nothing, so nothing ran.</p>")
        case let .ran(run):
            if namesSeeds { seedAttribute = " data-seed=\"\(run.seed)\"" }
            heading = run.scenario.name + (namesSeeds ? " (seed \(run.seed))" : "")
            if run.failure != nil {
                (verdict, status) = ("error", "fail")
            } else if !run.passed {
                (verdict, status) = ("fail", "fail")
            } else {
                (verdict, status) = (run.isFragile ? "fragile" : "pass", "pass")
            }
            let held = run.expectations.filter(\.passed).count
            row = [heading, result.file, String(run.trials),
                   run.failure == nil ? "\(held)/\(run.expectations.count)" : "error"]
            lines += ranLines(run, index: index, command: command, failing: status == "fail")
        }
        let badge = "<span class=\"badge \(verdict)\">\(verdict.uppercased())</span>"
        var section = [
            "<section class=\"scenario\" id=\"scenario-\(index + 1)\" data-scenario=\"\(html(result.file))\" "
                + "data-status=\"\(status)\" data-verdict=\"\(verdict)\"\(seedAttribute)>",
            "<h2>\(badge) <span class=\"name\">\(html(heading))</span> <span class=\"file\">\(html(result.file))</span></h2>",
        ]
        if status == "fail" || verdict == "fragile" || verdict == "invalid" {
            section += lines
        } else {
            // A passing scenario folds its details away.
            section.append("<details><summary>expectations</summary>")
            section += lines
            section.append("</details>")
        }
        section.append("</section>")
        return (section, row, verdict)
    }

    /// The body of a scenario that ran: its expectations, and for a
    /// failure the trials that show it and its latency budget.
    static func ranLines(_ run: ScenarioResult, index: Int, command: String, failing: Bool) -> [String] {
        var lines: [String] = []
        lines.append("<p class=\"note\">Seed \(run.seed), \(run.trials) trial\(run.trials == 1 ? "" : "s").</p>")
        if let failure = run.failure {
            lines.append("<p><strong>The scenario stopped:</strong> \(html(failure.description))</p>")
            if let trial = failure.trial {
                lines += trialLines(run, trial: trial, index: index, part: 0, command: command, caption: "the trial that stopped")
            }
            return lines
        }
        if !run.expectations.isEmpty {
            let rows = run.expectations.map { expectation in
                [expectation.verdict.rawValue.uppercased(), expectation.expectation.path, expectation.asked, expectation.measured,
                 expectation.confidence.map { $0.text + ($0.settleText.map { "; " + $0 } ?? "") } ?? "—"]
            }
            lines += htmlTable(["verdict", "expectation", "expected", "measured", "confidence"], rows, className: "expectations")
        }
        guard failing else { return lines }
        for (part, expectation) in run.expectations.enumerated() where !expectation.passed {
            guard let trial = expectation.failingTrial else { continue }
            lines += trialLines(
                run, trial: trial, index: index, part: part + 1, command: command,
                caption: "trial \(trial), which shows \(expectation.expectation.path): expected \(expectation.asked); measured \(expectation.measured)")
        }
        lines += budgetLines(run.pairs)
        return lines
    }

    /// A trial replayed: its replay command and its trace diagram.
    static func trialLines(
        _ run: ScenarioResult, trial: Int, index: Int, part: Int, command: String, caption: String
    ) -> [String] {
        let replayCommand = ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial)
        var lines = [
            "<div class=\"trial\" data-trial=\"\(trial)\">",
            "<h3>\(html(caption))</h3>",
            "<pre><code class=\"replay\">\(html(replayCommand))</code></pre>",
        ]
        if let replay = try? ScenarioRunner.replay(run.scenario, seed: run.seed, trial: trial, packets: false) {
            lines.append("<figure class=\"trace\">")
            lines.append(inlineSVG(TraceDiagram.svg(replay, scenario: run.scenario), prefix: "t\(index + 1)-\(part)"))
            lines.append("<figcaption>Trace of trial \(trial) (seed \(run.seed)): one lane per actor, time in ms on the left.</figcaption>")
            lines.append("</figure>")
        } else {
            lines.append("<p class=\"note\">The trial could not be replayed here; run the command above.</p>")
        }
        lines.append("</div>")
        return lines
    }

    /// Where accept → continue went on each pair that continued.
    static func budgetLines(_ pairs: [PairSummary]) -> [String] {
        var lines: [String] = []
        for pair in pairs {
            guard let budget = pair.budget else { continue }
            lines.append("<h3>Where accept → continue goes on \(html(pair.device)) (\(html(pair.activity)))</h3>")
            lines += budgetTable(budget)
        }
        return lines
    }
}
