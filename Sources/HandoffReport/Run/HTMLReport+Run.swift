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
    /// problems. The DOM contract is in ``HTMLReport``. It renders a
    /// `RunSummary` and decides no status itself.
    ///
    /// - Parameters:
    ///   - summary: The run, its statuses decided (with several seeds each
    ///     section names its seed).
    ///   - context: How the report was made.
    ///   - command: The command the replay commands name.
    /// - Returns: The HTML document.
    public static func run(_ summary: RunSummary, context: Context, command: String = "handoff-sim") -> String {
        var page = HTMLPage(kind: "run", title: "HandoffSim run")
        let namesSeeds = summary.seeds != nil
        let fails = summary.conclusion != .success
        page.lede = "<span class=\"badge \(fails ? "fail" : "pass")\">\(fails ? "FAIL" : "PASS")</span> "
            + html(summary.totalsSentence)
        if !namesSeeds, let seed = summary.entries.first(where: { $0.run != nil })?.run?.seed {
            page.facts.append(("seed", summary.entries.allSatisfy { $0.run.map { $0.seed == seed } ?? true } ? String(seed) : "each file's own"))
        }
        if summary.strict { page.facts.append(("strict", "yes: a fragile scenario fails")) }
        let listed: [RunSummary.Status] = [.fail, .error, .invalid, .fragile, .pass, .skipped]
        page.filters = listed.filter { summary.count(of: $0) > 0 }.map { ($0.rawValue, $0.totalWord) }
        page.body.append("<h2>Scenarios</h2>")
        var table = [
            "<div class=\"scroll\"><table class=\"summary\">",
            "<thead><tr><th scope=\"col\">status</th><th scope=\"col\">scenario</th><th scope=\"col\">file</th>"
                + "<th scope=\"col\" class=\"number\">trials</th><th scope=\"col\" class=\"number\">expectations held</th></tr></thead>",
            "<tbody>",
        ]
        for (index, entry) in summary.entries.enumerated() {
            let row = summaryRow(entry, namesSeeds: namesSeeds)
            table.append("<tr><td>\(badge(entry.status))</td>"
                + "<td><a href=\"#scenario-\(index + 1)\">\(html(row[0]))</a></td><td><code>\(html(row[1]))</code></td>"
                + "<td class=\"number\">\(html(row[2]))</td><td class=\"number\">\(html(row[3]))</td></tr>")
        }
        table.append("</tbody></table></div>")
        page.body += table
        // What needs a look comes first; the order is otherwise the files'.
        for index in summary.listingOrder {
            page.body += scenarioSection(summary.entries[index], index: index, command: command, namesSeeds: namesSeeds)
        }
        return page.render(context)
    }

    /// A status's badge: its word, upper-cased, on its colour.
    static func badge(_ status: RunSummary.Status) -> String {
        "<span class=\"badge \(status.rawValue)\">\(status.rawValue.uppercased())</span>"
    }

    /// An entry's cells in the summary table: name, file, trials,
    /// expectations held.
    static func summaryRow(_ entry: RunSummary.Entry, namesSeeds: Bool) -> [String] {
        switch entry.result.outcome {
        case .invalid: return ["—", entry.file, "", ""]
        case let .skipped(scenario): return [scenario.name, entry.file, "", "no expectations"]
        case let .ran(run):
            return [entry.name(namingSeed: namesSeeds), entry.file, String(run.trials),
                    run.failure == nil ? "\(entry.heldExpectations)/\(run.expectations.count)" : "error"]
        }
    }

    /// One scenario's section.
    static func scenarioSection(_ entry: RunSummary.Entry, index: Int, command: String, namesSeeds: Bool) -> [String] {
        let status = entry.status
        var seedAttribute = ""
        var lines: [String] = []
        let heading: String
        switch entry.result.outcome {
        case let .invalid(problems):
            heading = "invalid file"
            lines.append("<p>The file is invalid: nothing ran.</p>")
            lines.append("<pre class=\"problems\">" + problems.problems.map { html($0.description) }.joined(separator: "\n") + "</pre>")
        case let .skipped(scenario):
            heading = scenario.name
            lines.append("<p class=\"note\">A file for sweeps: it expects nothing, so nothing ran.</p>")
        case let .ran(run):
            if namesSeeds { seedAttribute = " data-seed=\"\(run.seed)\"" }
            heading = entry.name(namingSeed: namesSeeds)
            if entry.failsOnlyUnderStrict {
                lines.append("<p><strong>Fails under --strict:</strong> every expectation held, but a fragile one counts as a failure.</p>")
            }
            lines += ranLines(entry, run, index: index, command: command)
        }
        var section = [
            "<section class=\"scenario\" id=\"scenario-\(index + 1)\" data-scenario=\"\(html(entry.file))\" "
                + "data-status=\"\(status.rawValue)\"\(seedAttribute)>",
            "<h2>\(badge(status)) <span class=\"name\">\(html(heading))</span> <span class=\"file\">\(html(entry.file))</span></h2>",
        ]
        switch status {
        case .fail, .error, .invalid, .fragile:
            section += lines
        case .pass, .skipped:
            // A passing scenario folds its details away.
            section.append("<details><summary>expectations</summary>")
            section += lines
            section.append("</details>")
        }
        section.append("</section>")
        return section
    }

    /// The body of a scenario that ran: its expectations, and for a
    /// failure the trials that show it and its latency budget.
    static func ranLines(_ entry: RunSummary.Entry, _ run: ScenarioResult, index: Int, command: String) -> [String] {
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
        guard entry.status == .fail else { return lines }
        for (part, expectation) in run.expectations.enumerated() where !expectation.passed {
            guard let trial = expectation.failingTrial else { continue }
            lines += trialLines(
                run, trial: trial, index: index, part: part + 1, command: command,
                caption: "trial \(trial), which shows \(expectation.expectation.path): expected \(expectation.asked); measured \(expectation.measured)")
        }
        if !entry.failsOnlyUnderStrict { lines += budgetLines(run.pairs) }
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
            var svg = ""
            TraceDiagram.write(replay, scenario: run.scenario, to: &svg, idPrefix: "t\(index + 1)-\(part)-")
            lines.append(inlineSVG(svg))
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
