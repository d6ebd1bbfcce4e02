import Handoff
import HandoffScenario
import SimKernel

extension HTMLReport {
    /// The report of a `run`: a summary table in the files' order, then one
    /// section per scenario (failures first, then fragile passes, passes
    /// and skipped files) with each expectation (what was asked, what was measured,
    /// its verdict and confidence interval). A failing scenario shows each
    /// trial that shows a failing expectation once, replayed as an inline
    /// trace diagram with its replay command and the expectations it shows
    /// (each failing expectation links to it), and where accept → continue
    /// went (the latency budget); an invalid file lists its problems. The
    /// DOM contract is in ``HTMLReport``. It renders a `RunSummary` and
    /// decides no status itself.
    ///
    /// The page stays bounded whatever the run: at most
    /// 10 trials are replayed and pictured, and
    /// at most 8 MiB of pictures inlined, in the
    /// order the sections are listed; a trial past either keeps its replay
    /// command and a note, and the top of the page says how many were left
    /// out.
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
        var pictures = TrialPictures()
        var sections: [String] = []
        for index in summary.listingOrder {
            sections += scenarioSection(
                summary.entries[index], index: index, command: command, namesSeeds: namesSeeds, pictures: &pictures)
        }
        if pictures.leftOut > 0 {
            page.body.append("<p class=\"note pictures-left-out\">\(pictures.leftOut) trial\(pictures.leftOut == 1 ? " is" : "s are") "
                + "not pictured: this page replays at most \(TrialPictures.maximumTrials) trials and inlines at most "
                + "\(TrialPictures.maximumBytes >> 20) MiB of trace diagrams. Each keeps its replay command; add "
                + "<code>--format svg</code> to it for the diagram.</p>")
        }
        page.body += sections
        return page.render(context)
    }

    /// The trials a run page has pictured so far, against its bounds.
    struct TrialPictures {
        /// The most trials one page replays and pictures.
        static let maximumTrials = 10
        /// The most bytes of trace diagrams one page inlines.
        static let maximumBytes = 8 << 20
        /// Trials pictured so far.
        var pictured = 0
        /// Bytes of diagrams inlined so far.
        var bytes = 0
        /// Trials left without a picture.
        var leftOut = 0
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
    static func scenarioSection(
        _ entry: RunSummary.Entry, index: Int, command: String, namesSeeds: Bool, pictures: inout TrialPictures
    ) -> [String] {
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
            lines += ranLines(entry, run, index: index, command: command, pictures: &pictures)
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
    static func ranLines(
        _ entry: RunSummary.Entry, _ run: ScenarioResult, index: Int, command: String, pictures: inout TrialPictures
    ) -> [String] {
        var lines: [String] = []
        lines.append("<p class=\"note\">Seed \(run.seed), \(run.trials) trial\(run.trials == 1 ? "" : "s").</p>")
        if let failure = run.failure {
            lines.append("<p><strong>The scenario stopped:</strong> \(html(failure.description))</p>")
            if let trial = failure.trial {
                lines += trialLines(
                    run, trial: trial, index: index, command: command, caption: "the trial that stopped", pictures: &pictures)
            }
            return lines
        }
        let fails = entry.status == .fail
        // Each trial that shows a failing expectation, once, in the order
        // the expectations come; every expectation it shows links to it.
        var shown: [(trial: Int, expectations: [ExpectationResult])] = []
        if fails {
            for expectation in run.expectations where !expectation.passed {
                guard let trial = expectation.failingTrial else { continue }
                if let group = shown.firstIndex(where: { $0.trial == trial }) {
                    shown[group].expectations.append(expectation)
                } else {
                    shown.append((trial, [expectation]))
                }
            }
        }
        if !run.expectations.isEmpty {
            let rows = run.expectations.map { expectation in
                var measured = html(expectation.measured)
                if fails, !expectation.passed, let trial = expectation.failingTrial {
                    measured += " (<a href=\"#\(trialAnchor(index: index, trial: trial))\">trial \(trial)</a>)"
                }
                return [html(expectation.verdict.rawValue.uppercased()), html(expectation.expectation.path), html(expectation.asked),
                        measured, html(expectation.confidence.map { $0.text + ($0.settleText.map { "; " + $0 } ?? "") } ?? "—")]
            }
            lines += htmlTable(
                ["verdict", "expectation", "expected", "measured", "confidence"], rows, className: "expectations", escaped: true)
        }
        guard fails else { return lines }
        for (trial, expectations) in shown {
            // Several expectations are named by their paths only, under the
            // heading: the table above has what each expected and measured.
            let caption = expectations.count == 1
                ? "trial \(trial), which shows \(expectations[0].expectation.path): expected \(expectations[0].asked); measured \(expectations[0].measured)"
                : "trial \(trial), which shows \(expectations.count) failing expectations"
            let shows = expectations.count == 1 ? nil : expectations.map(\.expectation.path).joined(separator: ", ")
            lines += trialLines(
                run, trial: trial, index: index, command: command, caption: caption, shows: shows, pictures: &pictures)
        }
        if !entry.failsOnlyUnderStrict { lines += budgetLines(run.pairs) }
        return lines
    }

    /// The id of the trial `trial` of the section of entry `index`.
    static func trialAnchor(index: Int, trial: Int) -> String { "scenario-\(index + 1)-trial-\(trial)" }

    /// A trial: its caption (and `shows`, the expectations it shows, when
    /// there are several), its replay command and, within the page's
    /// bounds (`pictures`), its trace diagram, replayed here; past them a
    /// note instead.
    static func trialLines(
        _ run: ScenarioResult, trial: Int, index: Int, command: String, caption: String, shows: String? = nil,
        pictures: inout TrialPictures
    ) -> [String] {
        let replayCommand = ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial)
        var lines = [
            "<div class=\"trial\" id=\"\(trialAnchor(index: index, trial: trial))\" data-trial=\"\(trial)\">",
            "<h3>\(html(caption))</h3>",
        ]
        if let shows { lines.append("<p class=\"note shows\">\(html(shows))</p>") }
        lines.append("<pre><code class=\"replay\">\(html(replayCommand))</code></pre>")
        let leftOut = "<p class=\"note\">Not pictured: this page pictures at most \(TrialPictures.maximumTrials) trials "
            + "and \(TrialPictures.maximumBytes >> 20) MiB of trace diagrams; add <code>--format svg</code> to the command above for this one's.</p>"
        guard pictures.pictured < TrialPictures.maximumTrials, pictures.bytes < TrialPictures.maximumBytes else {
            pictures.leftOut += 1
            lines.append(leftOut)
            lines.append("</div>")
            return lines
        }
        if let replay = try? ScenarioRunner.replay(run.scenario, seed: run.seed, trial: trial, packets: false) {
            var svg = ""
            TraceDiagram.write(replay, scenario: run.scenario, to: &svg, idPrefix: "t\(index + 1)-\(trial)-")
            let picture = inlineSVG(svg)
            if pictures.pictured > 0, pictures.bytes + picture.utf8.count > TrialPictures.maximumBytes {
                pictures.leftOut += 1
                lines.append(leftOut)
            } else {
                pictures.pictured += 1
                pictures.bytes += picture.utf8.count
                lines.append("<figure class=\"trace\">")
                lines.append(picture)
                lines.append("<figcaption>Trace of trial \(trial) (seed \(run.seed)): one lane per actor, time in ms on the left.</figcaption>")
                lines.append("</figure>")
            }
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
