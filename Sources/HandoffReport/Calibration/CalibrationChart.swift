import Foundation
import HandoffCalibration
import HandoffScenario

/// `handoff-sim calibrate --chart`: measured against simulated empirical
/// distribution functions, one panel per group.
///
/// Each panel plots, on a log₁₀ millisecond axis from the decade below the
/// smaller sample's least value to the decade above the larger's greatest,
/// the share of each sample at or below x: the measured runs as a solid
/// black step line (`class="measured"`), the simulated trials as a dashed
/// blue one (`class="simulated"`), each drawn through at most 400 of its
/// quantiles. The panel's title gives the group, the metric and the
/// Kolmogorov–Smirnov distance with its 5% critical value. Coordinates have
/// at most two decimals; nothing varies between runs or machines.
public enum CalibrationChart {
    static let width = 960.0
    static let panelHeight = 300.0
    static let left = 70.0, right = 30.0, top = 50.0, bottom = 45.0

    /// The chart as an SVG document, ending in `\n`.
    public static func svg(_ result: CalibrationResult) -> String {
        let height = 40 + panelHeight * Double(max(result.groups.count, 1))
        var lines = [
            ##"<?xml version="1.0" encoding="UTF-8"?>"##,
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Format.decimal(width))" height="\##(Format.decimal(height))" viewBox="0 0 \##(Format.decimal(width)) \##(Format.decimal(height))" font-family="sans-serif" font-size="12">"##,
            ##"  <title>\##(Escape.xml(result.name))</title>"##,
            ##"  <text x="\##(Format.decimal(width / 2))" y="24" text-anchor="middle" font-size="14">\##(Escape.xml(result.name))</text>"##,
        ]
        for (index, group) in result.groups.enumerated() {
            lines += panel(group, offset: 40 + panelHeight * Double(index))
        }
        if result.groups.isEmpty {
            lines.append(##"  <text x="\##(Format.decimal(width / 2))" y="80" text-anchor="middle">no data</text>"##)
        }
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    static func panel(_ group: GroupFit, offset: Double) -> [String] {
        let name = (group.group.isEmpty ? "dataset \(group.dataset + 1)" : "dataset \(group.dataset + 1), \(group.group)")
            + ": \(group.metric.rawValue), measured (solid, \(group.measuredCount)) and simulated (dashed, \(group.simulatedCount)); "
            + "KS \(Format.fixed(group.ks, 3)) (5% critical \(Format.fixed(group.critical, 3)))"
        var lines = [##"  <g transform="translate(0,\##(Format.decimal(offset)))">"##,
                     ##"    <text x="\##(Format.decimal(left))" y="\##(Format.decimal(top - 16))">\##(Escape.xml(name))</text>"##]
        let positive = (group.measuredSorted + group.simulatedSorted).filter { $0 > 0 }
        guard let least = positive.min(), let greatest = positive.max() else {
            lines.append(##"    <text x="\##(Format.decimal(width / 2))" y="\##(Format.decimal(panelHeight / 2))" text-anchor="middle">no data</text>"##)
            lines.append("  </g>")
            return lines
        }
        let low = floor(log10(least)), high = max(ceil(log10(greatest)), low + 1)
        let plotWidth = width - left - right, plotHeight = panelHeight - top - bottom
        // Values at or below zero sit on the left edge (the decade below the least).
        func x(_ value: Double) -> Double { left + (log10(max(value, pow(10, low))) - low) / (high - low) * plotWidth }
        func y(_ share: Double) -> Double { top + (1 - share) * plotHeight }
        // Axes, decades and shares.
        lines.append(##"    <rect x="\##(Format.decimal(left))" y="\##(Format.decimal(top))" width="\##(Format.decimal(plotWidth))" height="\##(Format.decimal(plotHeight))" fill="none" stroke="#999"/>"##)
        var decade = low
        while decade <= high {
            let position = x(pow(10, decade))
            lines.append(##"    <line x1="\##(Format.decimal(position))" y1="\##(Format.decimal(top))" x2="\##(Format.decimal(position))" y2="\##(Format.decimal(top + plotHeight))" stroke="#ddd"/>"##)
            lines.append(##"    <text x="\##(Format.decimal(position))" y="\##(Format.decimal(top + plotHeight + 16))" text-anchor="middle">\##(decadeLabel(decade))</text>"##)
            decade += 1
        }
        for share in [0.0, 0.25, 0.5, 0.75, 1.0] {
            lines.append(##"    <text x="\##(Format.decimal(left - 8))" y="\##(Format.decimal(y(share) + 4))" text-anchor="end">\##(Format.fixed(share, 2))</text>"##)
        }
        lines.append(##"    <text x="\##(Format.decimal(left + plotWidth / 2))" y="\##(Format.decimal(top + plotHeight + 34))" text-anchor="middle">latency (log scale)</text>"##)
        lines.append(##"    <path class="measured" d="\##(steps(group.measuredSorted, x: x, y: y))" fill="none" stroke="#000" stroke-width="1.5"/>"##)
        lines.append(##"    <path class="simulated" d="\##(steps(group.simulatedSorted, x: x, y: y))" fill="none" stroke="#0072B2" stroke-width="1.5" stroke-dasharray="6 3"/>"##)
        lines.append("  </g>")
        return lines
    }

    /// A step line through at most 400 quantiles of `sorted`.
    static func steps(_ sorted: [Double], x: (Double) -> Double, y: (Double) -> Double) -> String {
        guard !sorted.isEmpty else { return "" }
        let count = min(sorted.count, 400)
        var path = "M\(Format.decimal(x(sorted[0]))),\(Format.decimal(y(0)))"
        var previousShare = 0.0
        for step in 1...count {
            let share = Double(step) / Double(count)
            let value = sorted[min(sorted.count - 1, Int((share * Double(sorted.count)).rounded(.up)) - 1)]
            path += " L\(Format.decimal(x(value))),\(Format.decimal(y(previousShare))) L\(Format.decimal(x(value))),\(Format.decimal(y(share)))"
            previousShare = share
        }
        return path
    }

    /// The label of the decade 10^`decade` ms: `1us` … `100ms`, `1s`,
    /// `10s` … up to 10¹⁵ s, then `1e18s` and on.
    static func decadeLabel(_ decade: Double) -> String {
        let milliseconds = pow(10, decade)
        if milliseconds >= 1e18 { return "1e\(Int(decade.rounded()) - 3)s" }
        if milliseconds >= 1000 { return "\(Int64(roundingClamped: milliseconds / 1000))s" }
        if milliseconds >= 1 { return "\(Int64(roundingClamped: milliseconds))ms" }
        if milliseconds >= 1e-3 { return "\(Int64(roundingClamped: milliseconds * 1000))us" }
        return "1e\(Int(max(decade, -400).rounded()) + 3)us"
    }

}
