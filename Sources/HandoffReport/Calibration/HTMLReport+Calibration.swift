import Handoff
import HandoffBaseline
import HandoffCalibration
import HandoffScenario
import SimKernel

extension HTMLReport {
    /// The report of `calibrate`: the fitted parameters with their 95%
    /// intervals, and per measured group its Kolmogorov–Smirnov distance
    /// against the 5% critical value, the quantiles measured and
    /// simulated, and the ECDF chart of every group.
    ///
    /// - Parameters:
    ///   - result: The fit (or the check).
    ///   - context: How the report was made.
    /// - Returns: The HTML document.
    public static func calibration(_ result: CalibrationResult, context: Context) -> String {
        var page = HTMLPage(kind: "calibration", title: "Calibration: \(result.name)")
        let within = result.groups.filter { $0.ks <= $0.critical }.count
        let verdict = within == result.groups.count ? "pass" : "fail"
        page.lede = "<span class=\"badge \(verdict)\">\(within == result.groups.count ? "WITHIN" : "BEYOND")</span> "
            + html("\(within) of \(result.groups.count) group\(result.groups.count == 1 ? "" : "s") within the 5% critical value of the "
                + "Kolmogorov–Smirnov distance; objective \(Format.fixed(result.objective, 4))")
        page.facts = [
            ("experiment", result.file), ("seed", String(result.seed)),
            (result.fitted ? "fitted in" : "checked with",
             result.fitted ? "\(result.evaluations) simulations (\(result.trialsSimulated) trials)" : "\(result.trials) trials per group"),
        ]
        if result.bootstrap > 0 { page.facts.append(("bootstrap", "\(result.bootstrap) replicates")) }
        if !result.parameters.isEmpty {
            page.body.append("<h2>Parameters</h2>")
            let rows = result.parameters.map { fitted -> [String] in
                let parameter = fitted.parameter
                return [parameter.path, parameter.display(fitted.value),
                        fitted.interval.map { "\(parameter.display($0.lowerBound)) … \(parameter.display($0.upperBound))" } ?? "—",
                        "\(parameter.display(parameter.minimum)) … \(parameter.display(parameter.maximum)) (\(parameter.scale.rawValue))"]
            }
            page.body += htmlTable(["parameter", result.fitted ? "fitted" : "value", "95% interval", "range searched"], rows, className: "parameters")
        }
        page.body.append("<h2>Measured and simulated</h2>")
        page.body.append("<figure class=\"chart\">")
        page.body.append(inlineSVG(CalibrationChart.svg(result)))
        page.body.append("<figcaption>The empirical distribution functions, measured and simulated, one panel per group.</figcaption>")
        page.body.append("</figure>")
        for group in result.groups {
            let name = group.group.isEmpty ? "dataset \(group.dataset + 1)" : "dataset \(group.dataset + 1), group \(group.group)"
            let fits = group.ks <= group.critical
            page.body.append("<section class=\"group\" data-dataset=\"\(group.dataset + 1)\" data-status=\"\(fits ? "pass" : "fail")\">")
            page.body.append("<h3>\(html(name)): \(html(group.metric.rawValue))</h3>")
            page.body.append("<p><span class=\"badge \(fits ? "pass" : "fail")\">\(fits ? "WITHIN" : "BEYOND")</span> "
                + html("Kolmogorov–Smirnov distance \(Format.fixed(group.ks, 3)) against the 5% critical value "
                    + "\(Format.fixed(group.critical, 3)); \(group.measuredCount) measured, \(group.simulatedCount) simulated")
                + (group.measuredSuccess.map { html("; success measured \(Format.fixed($0 * 100, 1))%, simulated \(Format.fixed(group.simulatedSuccess * 100, 1))%") } ?? "")
                + "</p>")
            let header = ["quantile"] + group.quantiles.map { Format.percentile($0.level * 100) }
            let rows = [
                ["measured"] + group.quantiles.map { Format.measuredMilliseconds($0.measured) },
                ["simulated"] + group.quantiles.map { $0.simulated.map(Format.measuredMilliseconds) ?? "—" },
            ]
            page.body += htmlTable(header, rows, numeric: Set(1..<header.count), className: "quantiles")
            page.body.append("</section>")
        }
        page.body.append("<p class=\"note\">The objective sums, over groups, the KS distance and the quantile loss; "
            + "see docs/calibration.md in the HandoffSim repository.</p>")
        return page.render(context)
    }

    /// The report of `baseline check`: every figure that moved past its
    /// tolerance (worse, better, new or gone, by how much), the notes, and
    /// the tolerances that applied; every figure not listed is within its
    /// tolerance.
    ///
    /// - Parameters:
    ///   - comparison: The comparison.
    ///   - tolerances: The tolerances as given (`acceptToContinue=5%`).
    ///   - context: How the report was made.
    /// - Returns: The HTML document.
    public static func baseline(_ comparison: BaselineComparison, tolerances: [String], context: Context) -> String {
        var page = HTMLPage(kind: "baseline", title: "Baseline check")
        let verdict = comparison.hasRegression ? "fail" : "pass"
        page.lede = "<span class=\"badge \(verdict)\">\(comparison.hasRegression ? "REGRESSED" : "OK")</span> "
            + html(BaselineReport.verdict(comparison))
        page.facts = [("tolerances", tolerances.isEmpty ? "none: every figure exactly" : tolerances.joined(separator: ", "))]
        if !comparison.notes.isEmpty {
            page.body.append("<h2>Notes</h2>")
            page.body.append("<ul class=\"notes\">")
            for note in comparison.notes { page.body.append("<li>\(html(note))</li>") }
            page.body.append("</ul>")
        }
        page.body.append("<h2>Figures past their tolerance</h2>")
        if comparison.rows.isEmpty {
            page.body.append("<p>None: every figure is within its tolerance of the baseline.</p>")
        } else {
            var table = [
                "<div class=\"scroll\"><table class=\"changes\">",
                "<thead><tr><th scope=\"col\">scenario</th><th scope=\"col\">entry</th><th scope=\"col\">metric</th>"
                    + "<th scope=\"col\" class=\"number\">baseline</th><th scope=\"col\" class=\"number\">now</th>"
                    + "<th scope=\"col\">change</th></tr></thead>",
                "<tbody>",
            ]
            for row in comparison.rows {
                let cells = BaselineReport.cells(row)
                table.append("<tr data-change=\"\(row.change.rawValue)\" data-scenario=\"\(html(row.file))\">"
                    + "<td><code>\(html(cells[0]))</code></td><td>\(html(cells[1]))</td><td>\(html(cells[2]))</td>"
                    + "<td class=\"number\">\(html(cells[3]))</td><td class=\"number\">\(html(cells[4]))</td>"
                    + "<td><span class=\"badge \(row.change == .regression ? "fail" : row.change == .improvement ? "pass" : "skipped")\">"
                    + "\(html(cells[5]))</span></td></tr>")
            }
            table.append("</tbody></table></div>")
            page.body += table
            page.body.append("<p class=\"note\">Every figure not listed is within its tolerance of the baseline.</p>")
        }
        return page.render(context)
    }
}
