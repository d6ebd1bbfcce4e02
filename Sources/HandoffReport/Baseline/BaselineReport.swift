import HandoffBaseline
import HandoffScenario
import SimKernel

/// The diff table of `handoff-sim baseline check`: metric, baseline, now,
/// change, in text and Markdown.
public enum BaselineReport {
    /// The comparison as text: the notes, then an aligned table of every
    /// figure that moved, then a verdict.
    public static func text(_ comparison: BaselineComparison) -> String {
        var lines = comparison.notes.map { "note: \($0)" }
        if !comparison.rows.isEmpty {
            if !lines.isEmpty { lines.append("") }
            let header = ["scenario", "entry", "metric", "baseline", "now", "change"]
            let rows = comparison.rows.map(cells)
            var widths = header.map(\.count)
            for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
            func line(_ cells: [String]) -> String {
                cells.enumerated().map { index, cell in
                    index == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
                }.joined(separator: "  ")
            }
            lines.append(line(header))
            lines.append(line(widths.map { String(repeating: "-", count: $0) }))
            lines.append(contentsOf: rows.map(line))
        }
        if !lines.isEmpty { lines.append("") }
        lines.append(verdict(comparison))
        return lines.escapedLines
    }

    /// The comparison as Markdown.
    public static func markdown(_ comparison: BaselineComparison) -> String {
        var lines = ["## HandoffSim baseline", ""]
        for note in comparison.notes { lines.append("> \(note)") }
        if !comparison.notes.isEmpty { lines.append("") }
        if !comparison.rows.isEmpty {
            lines.append("| scenario | entry | metric | baseline | now | change |")
            lines.append("|---|---|---|---:|---:|---|")
            for row in comparison.rows {
                lines.append("| " + cells(row).map(Escape.markdownCell).joined(separator: " | ") + " |")
            }
            lines.append("")
        }
        lines.append("**\(verdict(comparison))**")
        return lines.escapedLines
    }

    /// One `::error` line per figure that moved past its tolerance or
    /// disappeared (for `baseline check`), on the scenario file.
    public static func annotations(_ comparison: BaselineComparison) -> [String] {
        comparison.rows.compactMap { row in
            switch row.change {
            case .regression, .removed:
                let what = row.metric.map { "\(row.entry): \($0.name)" } ?? row.entry
                // The figures as the table shows them (durations, shares).
                let values = "baseline \(row.baseline == nil ? "none" : BaselineReport.value(row.baseline, metric: row.metric)), "
                    + "now \(row.now == nil ? "none" : BaselineReport.value(row.now, metric: row.metric))"
                return RunReport.annotation(
                    file: row.file, line: nil, column: nil, title: "baseline changed",
                    message: "\(what) \(row.change == .removed ? "is gone" : "got worse") (\(values))".escapingControlCharacters)
            case .improvement, .added:
                return nil
            }
        }
    }

    static func verdict(_ comparison: BaselineComparison) -> String {
        let regressions = comparison.rows.filter { $0.change == .regression }.count
        let others = comparison.rows.count - regressions
        if comparison.rows.isEmpty { return "Every simulated figure matches the baseline." }
        if regressions > 0 {
            return "\(regressions) figure\(regressions == 1 ? "" : "s") regressed" + (others > 0 ? ", \(others) other change\(others == 1 ? "" : "s")" : "") + "."
        }
        return "No regression; \(others) figure\(others == 1 ? "" : "s") changed for the better or were added or removed: update the baseline."
    }

    /// A row as table cells.
    static func cells(_ row: BaselineComparison.Row) -> [String] {
        let change: String
        switch row.change {
        case .regression: change = "worse" + delta(row)
        case .improvement: change = "better" + delta(row)
        case .added: change = row.metric == nil ? "new, not in the baseline" : "new"
        case .removed: change = row.metric == nil ? "gone, in the baseline only" : "gone"
        }
        return [row.file, row.entry, row.metric?.name ?? "", value(row.baseline, metric: row.metric), value(row.now, metric: row.metric), change]
    }

    /// " (+12.5%)" when both values exist and the baseline is not zero.
    static func delta(_ row: BaselineComparison.Row) -> String {
        guard let old = row.baseline, let new = row.now, old != 0 else { return "" }
        let percent = (new - old) / abs(old) * 100
        // Values come from files: keep any ratio printable.
        guard let tenths = Int64(exactly: (min(max(percent, -1e15), 1e15) * 10).rounded()) else { return "" }
        let sign = tenths >= 0 ? "+" : "-"
        let magnitude = abs(tenths)
        return " (\(sign)\(magnitude / 10).\(magnitude % 10)%)"
    }

    /// A value as people read it: durations for latencies, percentages for
    /// rates.
    static func value(_ value: Double?, metric: BaselineMetric?) -> String {
        guard let value else { return "—" }
        // Values come from files: print any that no integer holds as read.
        guard value.isFinite, abs(value) < 9e18 else { return "\(value)" }
        switch metric {
        case .latency: return SimDuration.nanoseconds(Int64(value.rounded())).description
        case .trials: return String(Int64(value.rounded()))
        case .successRate, .failed, .notOffered, .otherOutcomes, nil: break
        }
        guard abs(value) < 9e10 else { return "\(value)" }
        let millionths = Int64((value * 100_000_000).rounded())
        let whole = millionths / 1_000_000
        var fraction = String(millionths % 1_000_000)
        while fraction.count < 6 { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(whole)%" : "\(whole).\(fraction)%"
    }
}
