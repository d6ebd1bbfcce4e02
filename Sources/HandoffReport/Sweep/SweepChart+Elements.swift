import Handoff
import HandoffScenario
import SimKernel

/// The chart's SVG elements: the opening, the grid and axes, each panel's
/// series, target and budget strip, and the legend.
extension SweepChart {
    /// The `<svg>` start tag, `<title>`, `<desc>`, background, title and
    /// subtitle.
    static func opening(_ result: SweepResult, metric: LatencyMetric, target: Target?, height: Int) -> [String] {
        var description = "Scenario \(result.name) (\(result.file)); \(metric.label) latency; seed \(result.seed); "
        description += "\(result.trials) trial\(result.trials == 1 ? "" : "s") per point"
        if let shard = result.shard { description += " (this result holds shard \(shard) of them)" }
        description += "; activity \(result.activity) on \(result.device). "
        description += "One panel per series: p50 solid line, p5–p95 band, p99 dashed line; points no trial reached are left out"
        if let target { description += "; target p\(Format.number(target.percentile)) ≤ \(target.latency), with each panel's answer" }
        description += "."
        var subtitle = "\(metric.label) latency: p50 (solid), p5–p95 (band), p99 (dashed); seed \(result.seed), "
            + "\(result.trials) trial\(result.trials == 1 ? "" : "s") per point"
        if let target { subtitle += "; target p\(Format.number(target.percentile)) ≤ \(target.latency)" }
        return [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" "
                + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">",
            "  <title>\(Escape.xml(result.name)): \(metric.label) latency by userInfo payload</title>",
            "  <desc>\(Escape.xml(description))</desc>",
            "  <rect class=\"background\" x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>",
            "  <text class=\"title\" x=\"\(Format.decimal(leftMargin))\" y=\"28\" font-size=\"16\" font-weight=\"bold\">\(Escape.xml(result.name))</text>",
            "  <text class=\"subtitle\" x=\"\(Format.decimal(leftMargin))\" y=\"46\" fill=\"#444444\">\(Escape.xml(subtitle))</text>",
        ]
    }

    /// A light line at every tick of both axes.
    static func grid(x: PayloadScale, y: LatencyScale) -> [String] {
        var lines = ["    <g class=\"grid\" stroke=\"#e6e6e6\" stroke-width=\"1\">"]
        for tick in y.ticks {
            let position = Format.decimal(y.position(tick))
            lines.append("      <line x1=\"\(Format.decimal(x.left))\" y1=\"\(position)\" x2=\"\(Format.decimal(x.right))\" y2=\"\(position)\"/>")
        }
        for exponent in x.tickExponents {
            let position = Format.decimal(x.position(exponent: exponent))
            lines.append("      <line x1=\"\(position)\" y1=\"\(Format.decimal(y.top))\" x2=\"\(position)\" y2=\"\(Format.decimal(y.bottom))\"/>")
        }
        lines.append("    </g>")
        return lines
    }

    /// Both axes with their tick labels and titles (the x ticks under the
    /// budget strip when there is one).
    static func axes(
        x: PayloadScale, y: LatencyScale, metric: LatencyMetric, showsXTicks: Bool, showsYTitle: Bool
    ) -> [String] {
        let left = Format.decimal(x.left)
        let bottom = Format.decimal(y.bottom)
        var lines = [
            "    <g class=\"y-axis\" fill=\"#333333\">",
            "      <line x1=\"\(left)\" y1=\"\(Format.decimal(y.top))\" x2=\"\(left)\" y2=\"\(bottom)\" stroke=\"#333333\" stroke-width=\"1\"/>",
        ]
        for tick in y.ticks {
            lines.append(
                "      <text class=\"y-tick\" x=\"\(Format.decimal(x.left - 8))\" y=\"\(Format.decimal(y.position(tick) + 4))\" "
                    + "text-anchor=\"end\">\(Format.decimalText(UInt64(tick), scale: 1_000_000))</text>")
        }
        if showsYTitle {
            let middle = Format.decimal((y.top + y.bottom) / 2)
            lines.append(
                "      <text class=\"axis-title\" transform=\"translate(\(Format.decimal(x.left - 56)) \(middle)) rotate(-90)\" "
                    + "text-anchor=\"middle\">\(metric.label) latency (ms)</text>")
        }
        lines.append("    </g>")
        lines.append("    <g class=\"x-axis\" fill=\"#333333\">")
        lines.append(
            "      <line x1=\"\(left)\" y1=\"\(bottom)\" x2=\"\(Format.decimal(x.right))\" y2=\"\(bottom)\" stroke=\"#333333\" stroke-width=\"1\"/>")
        if showsXTicks { lines += xTicks(x, below: y.bottom) }
        lines.append("    </g>")
        return lines
    }

    /// The payload ticks and the axis title under a plot whose bottom is
    /// `bottom`.
    static func xTicks(_ x: PayloadScale, below bottom: Double) -> [String] {
        var lines: [String] = []
        for exponent in x.tickExponents {
            lines.append(
                "      <text class=\"x-tick\" x=\"\(Format.decimal(x.position(exponent: exponent)))\" y=\"\(Format.decimal(bottom + 18))\" "
                    + "text-anchor=\"middle\" data-bytes=\"\(UInt64(1) << UInt64(exponent))\">\(Format.size(exponent: exponent))</text>")
        }
        lines.append(
            "      <text class=\"axis-title\" x=\"\(Format.decimal((x.left + x.right) / 2))\" y=\"\(Format.decimal(bottom + 40))\" "
                + "text-anchor=\"middle\">userInfo payload (bytes, log₂ scale)</text>")
        return lines
    }

    /// One series: the band, the p50 and p99 paths, and a dot per p50.
    ///
    /// - Precondition: the series has samples.
    static func seriesElements(_ series: Series, x: PayloadScale, y: LatencyScale) -> [String] {
        let label = Escape.xml(series.label)
        func point(_ bytes: Int, _ nanoseconds: Int64) -> String {
            "\(Format.decimal(x.position(bytes))),\(Format.decimal(y.position(nanoseconds)))"
        }
        func line(_ points: [String]) -> String {
            "M" + points.joined(separator: " L")
        }
        let upper = series.samples.map { point($0.bytes, $0.p95) }
        let lower = series.samples.reversed().map { point($0.bytes, $0.p5) }
        var lines = [
            "    <g class=\"series\" data-series=\"\(label)\">",
            "      <path class=\"band\" data-series=\"\(label)\" d=\"\(line(upper + lower)) Z\" "
                + "fill=\"\(series.colour)\" fill-opacity=\"0.2\" stroke=\"none\"/>",
            "      <path class=\"p50\" data-series=\"\(label)\" d=\"\(line(series.samples.map { point($0.bytes, $0.p50) }))\" "
                + "fill=\"none\" stroke=\"\(series.colour)\" stroke-width=\"2\"/>",
            "      <path class=\"p99\" data-series=\"\(label)\" d=\"\(line(series.samples.map { point($0.bytes, $0.p99) }))\" "
                + "fill=\"none\" stroke=\"\(series.colour)\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
        ]
        for sample in series.samples {
            guard let interval = sample.interval else { continue }
            // An end no trial reached is drawn at the plot's top.
            let centre = x.position(sample.bytes)
            let low = y.position(interval.low ?? y.maximum), high = y.position(interval.high ?? y.maximum)
            lines.append(
                "      <path class=\"interval\" data-series=\"\(label)\" data-bytes=\"\(sample.bytes)\" "
                    + "d=\"M\(Format.decimal(centre)),\(Format.decimal(low)) L\(Format.decimal(centre)),\(Format.decimal(high)) "
                    + "M\(Format.decimal(centre - 4)),\(Format.decimal(low)) L\(Format.decimal(centre + 4)),\(Format.decimal(low)) "
                    + "M\(Format.decimal(centre - 4)),\(Format.decimal(high)) L\(Format.decimal(centre + 4)),\(Format.decimal(high))\" "
                    + "fill=\"none\" stroke=\"\(series.colour)\" stroke-width=\"1.5\"/>")
        }
        for sample in series.samples {
            lines.append(
                "      <circle class=\"p50-point\" cx=\"\(Format.decimal(x.position(sample.bytes)))\" cy=\"\(Format.decimal(y.position(sample.p50)))\" "
                    + "r=\"3\" fill=\"\(series.colour)\"/>")
        }
        lines.append("    </g>")
        return lines
    }

    /// The largest payload of `series` whose targeted percentile meets
    /// `target`, every smaller payload meeting it too; nil when the
    /// smallest does not.
    static func answer(_ series: Series, target: Target) -> Int? {
        var largest: Int?
        for sample in series.samples {
            guard sample.targeted <= target.latency.nanoseconds else { break }
            largest = sample.bytes
        }
        return largest
    }

    /// The target's line across the panel and the panel's answer: a marker
    /// on the curve at the largest size that meets it, or words saying
    /// none does.
    static func targetElements(_ target: Target, _ series: Series, x: PayloadScale, y: LatencyScale, metric: LatencyMetric) -> [String] {
        let level = Format.decimal(y.position(target.latency.nanoseconds))
        let percentile = Format.number(target.percentile)
        var lines = [
            "    <g class=\"target\" data-nanoseconds=\"\(target.latency.nanoseconds)\">",
            "      <line x1=\"\(Format.decimal(x.left))\" y1=\"\(level)\" x2=\"\(Format.decimal(x.right))\" y2=\"\(level)\" stroke=\"#B00020\" "
                + "stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>",
            "      <text x=\"\(Format.decimal(x.right - 4))\" y=\"\(Format.decimal(y.position(target.latency.nanoseconds) - 5))\" text-anchor=\"end\" "
                + "fill=\"#B00020\">target p\(percentile) ≤ \(target.latency)</text>",
            "    </g>",
        ]
        guard !series.samples.isEmpty else { return lines }
        if let bytes = answer(series, target: target), let sample = series.samples.last(where: { $0.bytes == bytes }) {
            let cx = Format.decimal(x.position(bytes))
            let cy = Format.decimal(y.position(sample.targeted))
            lines.append("    <g class=\"answer\" data-series=\"\(Escape.xml(series.label))\" data-bytes=\"\(bytes)\">")
            lines.append(
                "      <line x1=\"\(cx)\" y1=\"\(cy)\" x2=\"\(cx)\" y2=\"\(Format.decimal(y.bottom))\" stroke=\"#B00020\" stroke-width=\"1\"/>")
            lines.append(
                "      <circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"5\" fill=\"#ffffff\" stroke=\"#B00020\" stroke-width=\"2\"/>")
            let anchor = x.position(bytes) > (x.left + x.right) / 2 ? "end" : "start"
            let offset = anchor == "end" ? -8.0 : 8.0
            lines.append(
                "      <text x=\"\(Format.decimal(x.position(bytes) + offset))\" y=\"\(Format.decimal(y.position(sample.targeted) + 16))\" "
                    + "text-anchor=\"\(anchor)\" fill=\"#B00020\" font-weight=\"bold\">up to \(Format.size(bytes)) "
                    + "(p\(percentile) \(SimDuration.nanoseconds(sample.targeted).rounded(toSignificantDigits: 3)))</text>")
            lines.append("    </g>")
        } else {
            let smallest = series.samples[0]
            lines.append("    <g class=\"answer\" data-series=\"\(Escape.xml(series.label))\" data-bytes=\"none\">")
            lines.append(
                "      <text x=\"\(Format.decimal(x.right))\" y=\"\(Format.decimal(y.top - 10))\" text-anchor=\"end\" fill=\"#B00020\" font-weight=\"bold\">"
                    + "no size meets the target: p\(percentile) is "
                    + "\(SimDuration.nanoseconds(smallest.targeted).rounded(toSignificantDigits: 3)) at \(Format.size(smallest.bytes))</text>")
            lines.append("    </g>")
        }
        return lines
    }

    /// The budget strip: per payload, each phase's share of the p95
    /// trials' time, stacked in phase order from the bottom.
    static func budgetStrip(_ series: Series, x: PayloadScale, frame: Frame) -> [String] {
        let height = frame.budgetBottom - frame.budgetTop
        var lines = [
            "    <g class=\"budget\" data-series=\"\(Escape.xml(series.label))\">",
            "      <text class=\"budget-title\" x=\"\(Format.decimal(frame.left))\" y=\"\(Format.decimal(frame.budgetTop - 6))\" fill=\"#333333\">"
                + "where the p95 trials' time goes</text>",
            "      <rect x=\"\(Format.decimal(frame.left))\" y=\"\(Format.decimal(frame.budgetTop))\" width=\"\(Format.decimal(frame.right - frame.left))\" "
                + "height=\"\(Format.decimal(height))\" fill=\"#f4f4f4\"/>",
        ]
        let samples = series.samples.filter { $0.budget != nil }
        if !samples.isEmpty {
            var below = [Double](repeating: 0, count: samples.count)
            for phase in LatencyBudget.Phase.allCases {
                let shares = samples.map { $0.budget?[phase.rawValue] ?? 0 }
                guard shares.contains(where: { $0 > 0 }) else { continue }
                let above = zip(below, shares).map { $0 + $1 }
                func y(_ share: Double) -> Double { frame.budgetBottom - min(share, 1) * height }
                var points: [String] = []
                if samples.count == 1 {
                    // One payload: a bar a tenth of the panel wide.
                    let centre = x.position(samples[0].bytes)
                    let half = (frame.right - frame.left) / 20
                    points = [
                        "\(Format.decimal(centre - half)),\(Format.decimal(y(above[0])))", "\(Format.decimal(centre + half)),\(Format.decimal(y(above[0])))",
                        "\(Format.decimal(centre + half)),\(Format.decimal(y(below[0])))", "\(Format.decimal(centre - half)),\(Format.decimal(y(below[0])))",
                    ]
                } else {
                    for (index, sample) in samples.enumerated() {
                        points.append("\(Format.decimal(x.position(sample.bytes))),\(Format.decimal(y(above[index])))")
                    }
                    for (index, sample) in samples.enumerated().reversed() {
                        points.append("\(Format.decimal(x.position(sample.bytes))),\(Format.decimal(y(below[index])))")
                    }
                }
                lines.append(
                    "      <path class=\"budget-phase\" data-phase=\"\(phase.description)\" d=\"M\(points.joined(separator: " L")) Z\" "
                        + "fill=\"\(colour(of: phase))\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>")
                below = above
            }
        }
        for (share, label) in [(0.0, "0%"), (0.5, "50%"), (1.0, "100%")] {
            lines.append(
                "      <text class=\"budget-tick\" x=\"\(Format.decimal(frame.left - 8))\" y=\"\(Format.decimal(frame.budgetBottom - share * height + 4))\" "
                    + "text-anchor=\"end\" fill=\"#333333\">\(label)</text>")
        }
        lines.append("    </g>")
        lines.append("    <g class=\"x-axis\" fill=\"#333333\">")
        lines += xTicks(x, below: frame.budgetBottom)
        lines.append("    </g>")
        return lines
    }

    /// A swatch and label per series, a key to the line styles and the
    /// target, and the budget's phases that appear.
    static func legend(
        _ allSeries: [Series], hasBudget: Bool, target: Target?, replicates: (count: Int, percentile: Double)?, top: Double
    ) -> [String] {
        var lines = ["  <g class=\"legend\">"]
        var left = leftMargin
        var row = top
        /// A swatch of `colour` and `label`, on the next row when the row is full.
        func entry(_ colour: String, _ label: String) {
            let width = 40 + Double(label.count) * 6.5
            if left + width > Double(SweepChart.width) - rightMargin {
                left = leftMargin
                row += 18
            }
            lines.append("      <rect x=\"\(Format.decimal(left))\" y=\"\(Format.decimal(row))\" width=\"18\" height=\"10\" fill=\"\(colour)\"/>")
            lines.append("      <text x=\"\(Format.decimal(left + 24))\" y=\"\(Format.decimal(row + 10))\">\(Escape.xml(label))</text>")
            lines.append("    </g>")
            left += width
        }
        for series in allSeries {
            lines.append("    <g class=\"legend-entry\" data-series=\"\(Escape.xml(series.label))\">")
            entry(series.colour, series.label)
        }
        left = leftMargin
        row += 20
        lines.append("    <g class=\"legend-key\" fill=\"#333333\">")
        lines.append(
            "      <line x1=\"\(Format.decimal(left))\" y1=\"\(Format.decimal(row + 5))\" x2=\"\(Format.decimal(left + 18))\" y2=\"\(Format.decimal(row + 5))\" "
                + "stroke=\"#333333\" stroke-width=\"2\"/>")
        lines.append("      <text x=\"\(Format.decimal(left + 24))\" y=\"\(Format.decimal(row + 10))\">p50</text>")
        left += 70
        lines.append("      <rect x=\"\(Format.decimal(left))\" y=\"\(Format.decimal(row))\" width=\"18\" height=\"10\" fill=\"#333333\" fill-opacity=\"0.2\"/>")
        lines.append("      <text x=\"\(Format.decimal(left + 24))\" y=\"\(Format.decimal(row + 10))\">p5–p95</text>")
        left += 80
        lines.append(
            "      <line x1=\"\(Format.decimal(left))\" y1=\"\(Format.decimal(row + 5))\" x2=\"\(Format.decimal(left + 18))\" y2=\"\(Format.decimal(row + 5))\" "
                + "stroke=\"#333333\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>")
        lines.append("      <text x=\"\(Format.decimal(left + 24))\" y=\"\(Format.decimal(row + 10))\">p99</text>")
        left += 70
        if let replicates {
            let middle = left + 9
            lines.append(
                "      <path d=\"M\(Format.decimal(middle)),\(Format.decimal(row)) L\(Format.decimal(middle)),\(Format.decimal(row + 10)) "
                    + "M\(Format.decimal(middle - 4)),\(Format.decimal(row)) L\(Format.decimal(middle + 4)),\(Format.decimal(row)) "
                    + "M\(Format.decimal(middle - 4)),\(Format.decimal(row + 10)) L\(Format.decimal(middle + 4)),\(Format.decimal(row + 10))\" "
                    + "fill=\"none\" stroke=\"#333333\" stroke-width=\"1.5\"/>")
            let text = "p\(Format.number(replicates.percentile)): 95% interval over \(replicates.count) fit replicates"
            lines.append("      <text x=\"\(Format.decimal(left + 24))\" y=\"\(Format.decimal(row + 10))\">\(Escape.xml(text))</text>")
            left += 40 + Double(text.count) * 6.5
        }
        if let target {
            lines.append(
                "      <line x1=\"\(Format.decimal(left))\" y1=\"\(Format.decimal(row + 5))\" x2=\"\(Format.decimal(left + 18))\" y2=\"\(Format.decimal(row + 5))\" "
                    + "stroke=\"#B00020\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>")
            lines.append(
                "      <text x=\"\(Format.decimal(left + 24))\" y=\"\(Format.decimal(row + 10))\">target p\(Format.number(target.percentile)) ≤ "
                    + "\(target.latency); ○ the largest size meeting it</text>")
        }
        lines.append("    </g>")
        if hasBudget {
            left = leftMargin
            row += 20
            let shown = LatencyBudget.Phase.allCases.filter { phase in
                allSeries.contains { $0.samples.contains { ($0.budget?[phase.rawValue] ?? 0) > 0 } }
            }
            for phase in shown {
                lines.append("    <g class=\"legend-phase\" data-phase=\"\(phase.description)\">")
                entry(colour(of: phase), phase.label)
            }
        }
        lines.append("  </g>")
        return lines
    }

    /// A complete SVG with the title and "no data: `reason`".
    static func noData(_ result: SweepResult, metric: LatencyMetric, reason: String) -> String {
        let height = 540
        var lines = opening(result, metric: metric, target: nil, height: height)
        lines.append(
            "  <text class=\"no-data\" x=\"\(width / 2)\" y=\"\(height / 2)\" text-anchor=\"middle\" font-size=\"16\" "
                + "fill=\"#555555\">no data: \(Escape.xml(reason))</text>")
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }
}
