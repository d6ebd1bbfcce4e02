import Handoff
import HandoffScenario
import SimKernel

extension SweepTable {
    /// The lines under a text or Markdown table that answer a latency
    /// target (`sweep --p95 1s`): per series, as the chart's panels, the
    /// largest size swept whose percentile meets it, every smaller size
    /// meeting it too (as the chart answers it), or that none does.
    ///
    /// ```text
    /// target: acceptToContinue p95 ≤ 1s; the largest size swept that meets it
    ///   WiFi: 64 KiB
    ///   LTE: none (3 KiB is over)
    /// ```
    ///
    /// - Parameters:
    ///   - result: the sweep.
    ///   - metric: the latency bounded.
    ///   - target: the bound.
    ///   - markdown: a Markdown list (series names and sizes escaped) rather
    ///     than plain lines.
    /// - Returns: the lines, each ending in a newline, after one blank line.
    public static func targetText(
        _ result: SweepResult, metric: LatencyMetric, target: SweepChart.Target, markdown: Bool = false
    ) -> String {
        let bound = "\(metric.rawValue) \(Format.percentile(target.percentile)) ≤ \(Format.duration(target.latency))"
        var lines = [markdown
            ? "**Target:** \(Escape.markdownCell(bound)); the largest size swept that meets it:"
            : "target: \(bound); the largest size swept that meets it"]
        let series = SweepChart.series(of: result, metric: metric, percentile: target.percentile)
        if series.allSatisfy(\.samples.isEmpty) {
            lines.append(markdown ? "- no point has a payload size and a measured \(metric.rawValue)" : "  no point has a payload size and a measured \(metric.rawValue)")
        }
        for one in series where !one.samples.isEmpty {
            let answer: String
            if let bytes = SweepChart.answer(one, target: target) {
                answer = Format.size(bytes)
            } else {
                answer = "none (\(Format.size(one.samples[0].bytes)) is over)"
            }
            lines.append(markdown ? "- \(Escape.markdownCell(one.label)): \(answer)" : "  \(one.label.escapingControlCharacters): \(answer)")
        }
        return "\n" + lines.joined(separator: "\n") + "\n"
    }
}
