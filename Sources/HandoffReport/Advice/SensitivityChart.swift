import HandoffAdvice
import HandoffScenario
import SimKernel

/// One answer's sensitivity as an SVG tornado chart: a bar per parameter,
/// largest movement first, spanning the percentile with the parameter at
/// the low end of its plausible range to the percentile at the high end,
/// the low end's half light and the high end's dark; a solid line at the
/// value as the file stands and a dotted red line at the target. Each bar
/// is labelled with the parameter and its evidence, so colour is never
/// the only cue.
enum SensitivityChart {
    static let width = 960.0
    static let labelWidth = 360.0
    static let rowHeight = 26.0
    static let top = 56.0

    /// The chart of `item` against `target`; nil when it has no
    /// sensitivity to draw.
    static func svg(_ item: Advisor.Advice, target: Advisor.Target) -> String? {
        let entries = item.sensitivity.filter { $0.low != nil || $0.high != nil }
        guard !entries.isEmpty else { return nil }
        let reference = item.largestPayload != nil ? item.latencyAtLargest : item.smallestTried.value
        let values = entries.flatMap { [$0.low, $0.high] }.compactMap { $0?.nanoseconds }
            + [target.latency.nanoseconds] + (reference.map { [$0.nanoseconds] } ?? [])
        let highest = values.max() ?? 1
        let scale = SweepChart.LatencyScale(covering: highest + highest / 20)
        let left = labelWidth, right = width - 24
        func x(_ nanoseconds: Int64) -> Double {
            left + (right - left) * Double(min(max(nanoseconds, 0), scale.maximum)) / Double(max(scale.maximum, 1))
        }
        let height = top + Double(entries.count) * rowHeight + 64
        let percentile = "p\(Format.number(target.percentile))"
        let at = item.largestPayload ?? item.smallestTried.bytes
        var lines = [
            "<svg class=\"sensitivity\" width=\"\(Format.decimal(width))\" height=\"\(Format.decimal(height))\" viewBox=\"0 0 \(Format.decimal(width)) \(Format.decimal(height))\" "
                + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" role=\"img\">",
            "  <title>\(Escape.xml("Sensitivity of \(item.label): \(percentile) at \(Format.size(at))"))</title>",
            "  <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
            "  <text x=\"12\" y=\"20\" font-size=\"14\" font-weight=\"bold\">\(Escape.xml("\(percentile) of \(target.metric.label) at \(Format.size(at)), each default at either end of its plausible range"))</text>",
        ]
        // Grid and axis.
        let bottom = top + Double(entries.count) * rowHeight
        var tick: Int64 = 0
        while tick <= scale.maximum {
            let position = x(tick)
            lines.append("  <line x1=\"\(Format.decimal(position))\" y1=\"\(Format.decimal(top - 6))\" x2=\"\(Format.decimal(position))\" y2=\"\(Format.decimal(bottom))\" stroke=\"#e5e5e5\"/>")
            lines.append("  <text x=\"\(Format.decimal(position))\" y=\"\(Format.decimal(bottom + 16))\" text-anchor=\"middle\" fill=\"#555555\">"
                + "\(Escape.xml(SimDuration(nanoseconds: tick).description))</text>")
            tick += max(scale.step, 1)
        }
        lines.append("  <text x=\"\(Format.decimal((left + right) / 2))\" y=\"\(Format.decimal(bottom + 34))\" text-anchor=\"middle\" fill=\"#333333\">"
            + "\(Escape.xml("\(percentile) \(target.metric.label)"))</text>")
        for (index, entry) in entries.enumerated() {
            let y = top + Double(index) * rowHeight
            let label = "\(entry.parameter) (\(entry.evidenceLabel))"
            lines.append("  <g class=\"parameter\" data-parameter=\"\(Escape.xml(entry.parameter))\" data-evidence=\"\(entry.evidence.kind)\">")
            lines.append("    <text x=\"\(Format.decimal(left - 8))\" y=\"\(Format.decimal(y + 15))\" text-anchor=\"end\">\(Escape.xml(label))</text>")
            let middle = reference.map { x($0.nanoseconds) }
            for (end, value, colour) in [(Advisor.RangeEnd.low, entry.low, "#56B4E9"), (.high, entry.high, "#0072B2")]
            where !entry.skipped.contains(end) {
                // An end no trial reached runs to the axis' end.
                let to = value.map { x($0.nanoseconds) } ?? right
                let from = middle ?? left
                lines.append("    <rect class=\"\(end.rawValue)\" x=\"\(Format.decimal(min(from, to)))\" y=\"\(Format.decimal(y + 4))\" width=\"\(Format.decimal(max(abs(to - from), 1)))\" "
                    + "height=\"\(Format.decimal(rowHeight - 8))\" fill=\"\(colour)\"><title>\(Escape.xml("\(end.rawValue) end (\(entry.range.description)): \(value.map { $0.rounded(toSignificantDigits: 3).description } ?? "not reached")"))</title></rect>")
            }
            lines.append("  </g>")
        }
        if let reference {
            let position = x(reference.nanoseconds)
            lines.append("  <line class=\"reference\" x1=\"\(Format.decimal(position))\" y1=\"\(Format.decimal(top - 10))\" x2=\"\(Format.decimal(position))\" y2=\"\(Format.decimal(bottom))\" stroke=\"#333333\" stroke-width=\"1.5\"/>")
        }
        let targetX = x(target.latency.nanoseconds)
        lines.append("  <line class=\"target\" x1=\"\(Format.decimal(targetX))\" y1=\"\(Format.decimal(top - 10))\" x2=\"\(Format.decimal(targetX))\" y2=\"\(Format.decimal(bottom))\" stroke=\"#B00020\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>")
        // Legend.
        let legendY = height - 14
        lines.append("  <rect x=\"12\" y=\"\(Format.decimal(legendY - 9))\" width=\"14\" height=\"10\" fill=\"#56B4E9\"/>")
        lines.append("  <text x=\"30\" y=\"\(Format.decimal(legendY))\">low end</text>")
        lines.append("  <rect x=\"100\" y=\"\(Format.decimal(legendY - 9))\" width=\"14\" height=\"10\" fill=\"#0072B2\"/>")
        lines.append("  <text x=\"118\" y=\"\(Format.decimal(legendY))\">high end</text>")
        lines.append("  <line x1=\"190\" y1=\"\(Format.decimal(legendY - 4))\" x2=\"206\" y2=\"\(Format.decimal(legendY - 4))\" stroke=\"#333333\" stroke-width=\"1.5\"/>")
        lines.append("  <text x=\"212\" y=\"\(Format.decimal(legendY))\">as the file stands</text>")
        lines.append("  <line x1=\"340\" y1=\"\(Format.decimal(legendY - 4))\" x2=\"356\" y2=\"\(Format.decimal(legendY - 4))\" stroke=\"#B00020\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>")
        lines.append("  <text x=\"362\" y=\"\(Format.decimal(legendY))\">\(Escape.xml("target \(percentile) ≤ \(target.latency)"))</text>")
        lines.append("</svg>")
        return lines.joined(separator: "\n")
    }

}
