import Handoff
import HandoffAdvice
import HandoffScenario
import SimKernel

extension HTMLReport {
    /// The report of a `sweep` (or `merge`): the chart (with the target and
    /// each panel's answer when one is given, the budget strips and, with a
    /// fit's replicates, the intervals) and the full table of every point.
    ///
    /// - Parameters:
    ///   - result: The sweep.
    ///   - context: How the report was made.
    ///   - metric: The latency the chart draws.
    ///   - target: The target the chart draws, if any.
    /// - Returns: The HTML document.
    public static func sweep(
        _ result: SweepResult, context: Context, metric: LatencyMetric = .acceptToContinue, target: SweepChart.Target? = nil
    ) -> String {
        var page = HTMLPage(kind: "sweep", title: "Sweep: \(result.name)")
        page.lede = html("\(result.points.count) point\(result.points.count == 1 ? "" : "s"), "
            + "\(result.trials) trial\(result.trials == 1 ? "" : "s") per point"
            + (result.replicates > 0 ? ", each also under the fit's \(result.replicates) bootstrap replicates" : "")
            + (result.shard.map { ", shard \($0)" } ?? ""))
        page.facts = [("file", result.file), ("activity", "\(result.activity) on \(result.device)"), ("seed", String(result.seed))]
        page.body.append("<h2>Latency against payload</h2>")
        page.body.append("<figure class=\"chart\">")
        page.body.append(inlineSVG(SweepChart.svg(result, metric: metric, target: target)))
        page.body.append("<figcaption>\(html(metric.label)): p50 (solid), p5–p95 (band), p99 (dashed)"
            + (target.map { "; the target p\(Format.number($0.percentile)) ≤ \($0.latency) and each panel's answer" } ?? "")
            + (result.replicates > 0 ? "; whiskers: the 95% interval over the fit's replicates" : "") + ".</figcaption>")
        page.body.append("</figure>")
        page.body.append("<h2>Every point</h2>")
        let header = SweepTable.displayHeader(result)
        let rows = result.points.map { SweepTable.displayFields($0, axisCount: result.axes.count) }
        let numeric = Set(result.axes.count..<(header.count - 1))
        page.body += htmlTable(header, rows, numeric: numeric, className: "points")
        var notes = [SweepTable.legend]
        if let note = SweepTable.intervalNote(result) { notes.append(note) }
        for note in notes { page.body.append("<p class=\"note\">\(html(note))</p>") }
        return page.render(context)
    }

    /// The report of `advise`: per answer its sentence, its interval over
    /// the fit's replicates, where the time goes at that size, and the
    /// sensitivity as a tornado chart and a table.
    ///
    /// - Parameters:
    ///   - advice: The answers, in order.
    ///   - target: The target they answer.
    ///   - file: The scenario file advised on.
    ///   - context: How the report was made.
    /// - Returns: The HTML document.
    public static func advice(_ advice: [Advisor.Advice], target: Advisor.Target, file: String, context: Context) -> String {
        var page = HTMLPage(kind: "advice", title: "Advice: \(file)")
        let percentile = "p\(Format.number(target.percentile))"
        page.lede = html("How large may userInfo be for \(target.metric.label) \(percentile) ≤ \(target.latency)"
            + (target.success < 1 ? " with at least \(Format.percentOneDecimal(target.success)) succeeding" : " with every handoff succeeding") + "?")
        page.facts = [("file", file)]
        for item in advice {
            let status = switch item.kind {
            case .everySize, .size: "pass"
            case .noSize: "fail"
            case .undecided: "fragile"
            }
            page.body.append("<section class=\"answer\" data-path=\"\(html(item.path))\" data-profile=\"\(html(item.profileApplies ? item.profile : ""))\" "
                + "data-bytes=\"\(item.largestPayload.map(String.init) ?? "")\" data-kind=\"\(item.kind.rawValue)\" data-status=\"\(status)\">")
            page.body.append("<h2>\(html(item.label))</h2>")
            // The heading names the path (and profile) already.
            let answer = AdviceReport.answerSentence(item, target: target)
            page.body.append("<p class=\"verdict\">\(html(answer.prefix(1).uppercased() + answer.dropFirst()))</p>")
            if let interval = item.interval {
                page.body.append("<p>Over the fit's \(interval.replicates) bootstrap replicates the answer lies between "
                    + "<strong>\(html(interval.low.map(Format.sizeWithBytes) ?? "none"))</strong> and "
                    + "<strong>\(html(interval.high.map(Format.sizeWithBytes) ?? "none"))</strong> (95%).</p>")
            }
            page.body.append("<h3>Sizes tried</h3>")
            page.body += probeTable(item, target: target)
            page.body += assumptionsTable(item)
            if let budget = item.budget {
                let at = item.largestPayload ?? item.smallestTried.bytes
                page.body.append("<h3>Where the time goes at \(html(Format.sizeWithBytes(at)))</h3>")
                page.body += budgetTable(budget)
            }
            if !item.sensitivity.isEmpty || !item.skippedEnds.isEmpty {
                page.body.append("<h3>Sensitivity</h3>")
                if let chart = SensitivityChart.svg(item, target: target) {
                    page.body.append("<figure class=\"chart\">")
                    page.body.append(inlineSVG(chart))
                    page.body.append("</figure>")
                }
                let rows = item.sensitivity.map { entry -> [String] in
                    func value(_ duration: SimDuration?, _ end: Advisor.RangeEnd) -> String {
                        if entry.skipped.contains(end) { return "skipped" }
                        return duration.map { $0.rounded(toSignificantDigits: 3).description } ?? "—"
                    }
                    func answer(_ bytes: Int??, _ end: Advisor.RangeEnd) -> String {
                        if entry.skipped.contains(end) { return "skipped" }
                        guard let bytes else { return "" }
                        return bytes.map { Format.size($0) } ?? "none"
                    }
                    let answered = entry.lowAnswer != nil || entry.highAnswer != nil
                    return [entry.parameter, entry.evidenceLabel, entry.range.description, value(entry.low, .low), value(entry.high, .high),
                            answered ? "\(answer(entry.lowAnswer, .low)) … \(answer(entry.highAnswer, .high))" : ""]
                }
                if !rows.isEmpty {
                    page.body += htmlTable(
                        ["parameter", "evidence", "plausible range", "\(percentile) at low end", "\(percentile) at high end", "answer low … high"],
                        rows, numeric: [3, 4], className: "sensitivity")
                }
                for skipped in item.skippedEnds {
                    page.body.append("<p class=\"note\">\(html(AdviceReport.skippedSentence(skipped)))</p>")
                }
                for warning in item.warnings {
                    page.body.append("<p class=\"warning\"><strong>\(html(AdviceReport.sentence(warning, item, target: target)))</strong></p>")
                }
            }
            page.body.append("</section>")
        }
        let sensitivity = advice.contains { !$0.sensitivity.isEmpty }
            ? "read the sensitivity before acting on a size" : "run advise with --sensitivity to see how far they move a size"
        page.body.append("<p class=\"note\">Sizes are found by bisection, each size run on the same trials. "
            + "The figures rest on the calibrated defaults, many of them labelled assumptions: \(sensitivity).</p>")
        return page.render(context)
    }

    /// A latency budget as a table: each phase's share of the tail trials'
    /// time (with a bar) and its mean.
    /// Every value an answer rests on, folded: each default with its
    /// evidence and what the file or an overlay writes over it.
    static func assumptionsTable(_ item: Advisor.Advice) -> [String] {
        var table = ["<details class=\"assumptions\"><summary>What this answer rests on: \(html(AdviceReport.assumptionCounts(item)))</summary>",
                     "<div class=\"scroll\"><table class=\"assumptions\">",
                     "<thead><tr><th scope=\"col\">setting</th><th scope=\"col\">default</th><th scope=\"col\">evidence</th>"
                         + "<th scope=\"col\">written over it</th></tr></thead>", "<tbody>"]
        for assumption in item.assumptions {
            table.append("<tr data-standing=\"\(html(assumption.standing))\"><td>\(html(assumption.setting))</td>"
                + "<td>\(html(assumption.value))</td><td>\(html(assumption.standing))</td>"
                + "<td>\(assumption.written.map(html).joined(separator: "<br>"))</td></tr>")
        }
        table.append("</tbody></table></div></details>")
        return table
    }

    /// Every size an answer tried: its trials, the percentile and its
    /// sampling interval, the success rate and the decision.
    static func probeTable(_ item: Advisor.Advice, target: Advisor.Target) -> [String] {
        let percentile = "p\(Format.number(target.percentile))"
        var table = ["<div class=\"scroll\"><table class=\"probes\">",
                     "<thead><tr><th scope=\"col\" class=\"number\">userInfo</th><th scope=\"col\" class=\"number\">trials</th>"
                         + "<th scope=\"col\" class=\"number\">\(percentile)</th><th scope=\"col\">interval</th>"
                         + "<th scope=\"col\" class=\"number\">success</th><th scope=\"col\">decision</th></tr></thead>", "<tbody>"]
        for probe in item.tried {
            let value = probe.value.map { $0.rounded(toSignificantDigits: 4).description } ?? "—"
            let interval = String(AdviceReport.intervalText(probe.interval).dropFirst())
            table.append("<tr data-decision=\"\(probe.decision.rawValue)\"><td class=\"number\">\(html(Format.size(probe.bytes)))</td>"
                + "<td class=\"number\">\(html(Format.groupedDigits(probe.trials)))</td>"
                + "<td class=\"number\">\(html(value))</td><td>\(html(interval))</td>"
                + "<td class=\"number\">\(html(Format.percentOneDecimal(probe.success)))</td>"
                + "<td>\(html(probe.decision.rawValue))</td></tr>")
        }
        table.append("</tbody></table></div>")
        table.append("<p class=\"note\">Each size ran the file's trials, then twice as many at each look until its "
            + "comparison with the target was decided or \(html(Format.groupedDigits(item.maximumTrials))) trials ran; "
            + "the interval is the \(percentile)'s distribution-free sampling interval (order statistics) at "
            + "\(html(Format.percent(item.confidence, decimals: 2))) per look, 95% over a size's looks.</p>")
        return table
    }

    static func budgetTable(_ budget: BudgetSummary) -> [String] {
        let percentile = Int(budget.tailPercentile)
        var table = ["<div class=\"scroll\"><table class=\"budget\">",
                     "<thead><tr><th scope=\"col\">phase</th><th scope=\"col\" class=\"number\">share of p\(percentile) trials</th>"
                         + "<th scope=\"col\"></th><th scope=\"col\" class=\"number\">mean</th></tr></thead>", "<tbody>"]
        for figure in budget.ranked {
            let width = Int((min(max(figure.tailShare, 0), 1) * 200).rounded())
            table.append("<tr data-phase=\"\(html(figure.phase.description))\"><td>\(html(figure.phase.label))</td>"
                + "<td class=\"number\">\(html(Format.wholePercent(figure.tailShare)))</td>"
                + "<td><span class=\"bar\" style=\"width: \(width)px\"></span></td>"
                + "<td class=\"number\">\(html(figure.mean.rounded(toSignificantDigits: 3).description))</td></tr>")
        }
        table.append("</tbody></table></div>")
        table.append("<p class=\"note\">p\(percentile) trials: \(budget.tailTrials) of \(budget.trials) continued; "
            + "a phase's share is of those trials' accept → continue time; its mean is over every continued trial.</p>")
        return table
    }
}
