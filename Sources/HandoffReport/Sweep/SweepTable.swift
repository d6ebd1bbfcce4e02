import Handoff
import HandoffScenario
import SimKernel

/// The points of a sweep as a table: aligned plain text, CSV, or Markdown.
///
/// Every rendering has one row per point, in the order of
/// `SweepResult.points`, and the same columns in the same order:
///
/// 1. one column per axis, named by `SweepAxis.name`, holding the point's
///    coordinate as written (`3KiB`, `Very Bad Network`);
/// 2. `payload_bytes`, `trials` (the trials this result holds for the point),
///    `success_rate`;
/// 3. `failed_4608`, `failed_4609`, `failed_4610`, `failed_4611` (trials that
///    ended in `didFail` with that code) and `not_offered`;
/// 4. for accept → continue, accept → restored and advert → offered, in that
///    order: p50, p90, p95, p99, p99.9 and max. Percentiles are the
///    histogram's nearest-rank values (see
///    `LatencyHistogram.value(atPercentile:)`);
/// 5. where the p95 trials' time goes (the latency budget): in the text
///    (`--columns full`) and Markdown tables its three largest phases, in
///    CSV every phase's share of the p95 trials' time and its mean;
/// 6. when the sweep ran an overlay's bootstrap replicates
///    (`SweepResult.replicates`), the 95% interval of each p50, p90, p95
///    and p99 over them: in the text and Markdown tables beside the value
///    (`1.05s [1.02s–1.10s]`, with a line saying what it is), in CSV as
///    `_low_ns` and `_high_ns` columns after every other
///    (`accept_to_continue_p95_low_ns`), empty where no trial reached the
///    metric under that replicate.
///
/// The output depends only on the result: numbers are formatted by hand
/// (never by locale), and nothing is iterated in hash order.
///
/// ```swift
/// print(SweepTable.text(result))
/// try SweepTable.csv(result).write(to: url, atomically: true, encoding: .utf8)
/// ```
///
/// Not shown: `PointAggregate.otherOutcomes` and the split between
/// continuing in the app and in the browser (both count as successes).
public enum SweepTable {
    /// Plain-text table, aligned columns, one row per point.
    ///
    /// A header row, a row of dashes under each column, then the points.
    /// Columns are separated by two spaces; axis values are left-aligned,
    /// numbers right-aligned, so no line has trailing spaces. Headers are
    /// abbreviated (`bytes`, `err 4608`, `a→c p50` for accept → continue,
    /// `a→r` accept → restored, `ad→o` advert → offered). Success rates
    /// print as percentages with up to two decimals (`98.75%`), latencies as
    /// durations to three significant digits (`430ms`, `1.23s`, `12.5us`);
    /// `—` marks a latency no trial reached, or a rate over no trials.
    /// Line breaks in axis names and values become spaces. Widths count
    /// characters, so axis values in wide scripts may not line up in a
    /// terminal.
    ///
    /// - Returns: the table, each line ending in `\n`.
    /// - Complexity: O(points × columns).
    public static func text(_ result: SweepResult, columns: Columns = .compact) -> String {
        func oneLine(_ field: String) -> String { String(field.map { $0.isNewline ? " " : $0 }) }
        let header: [String]
        let rows: [[String]]
        switch columns {
        case .full:
            header = displayHeader(result).map(oneLine)
            rows = result.points.map { displayFields($0, axisCount: result.axes.count).map(oneLine) }
        case .compact:
            header = compactHeader(result).map(oneLine)
            rows = result.points.map { compactFields($0, axisCount: result.axes.count).map(oneLine) }
        }
        let leftAligned = result.axes.count
        var widths = header.map(\.count)
        for row in rows {
            for (column, field) in row.enumerated() { widths[column] = max(widths[column], field.count) }
        }
        func line(_ fields: [String]) -> String {
            fields.enumerated().map { column, field in
                let padding = String(repeating: " ", count: widths[column] - field.count)
                return column < leftAligned ? field + padding : padding + field
            }
            .joined(separator: "  ")
        }
        var lines = [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        lines.append(contentsOf: rows.map(line))
        if let note = intervalNote(result) { lines.append(note) }
        return lines.escapedLines
    }

    /// CSV (RFC 4180 with LF line ends), a header row then one row per point.
    ///
    /// Fields are separated by commas. Lines end in LF (`\n`), not
    /// RFC 4180's CRLF; the last row ends in one too. Control characters in a
    /// field are written as escapes (`\n`, `\u{1B}`), so every row is one
    /// line; a field containing a comma or a double quote is enclosed in
    /// double quotes, with each inner double quote doubled.
    ///
    /// The header names the axes by `SweepAxis.name`, then `payload_bytes`,
    /// `trials`, `success_rate`, `failed_4608` … `failed_4611`,
    /// `not_offered`, then for each metric (`accept_to_continue`,
    /// `accept_to_restored`, `advert_to_offered`) `_p50_ns`, `_p90_ns`,
    /// `_p95_ns`, `_p99_ns`, `_p99_9_ns` and `_max_ns`, e.g.
    /// `accept_to_continue_p50_ns`. `success_rate` is a decimal fraction
    /// rounded to at most six decimals, trailing zeros dropped (`0.9875`,
    /// `1`, `0`), empty when the point ran no trials. Latencies are whole
    /// nanoseconds, empty when no trial reached the metric.
    ///
    /// - Returns: the CSV text, header first.
    /// - Complexity: O(points × columns).
    public static func csv(_ result: SweepResult) -> String {
        var lines = [csvHeader(result).map(Escape.csvField).joined(separator: ",")]
        for point in result.points {
            lines.append(csvFields(point, axisCount: result.axes.count).map(Escape.csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Markdown table with a heading naming the scenario, seed and trials.
    ///
    /// A level-2 heading `Sweep: NAME (seed S, N trials per point)` (with
    /// `, shard i/n` for a partial result), a line naming the file, activity
    /// and device, the table (columns as in ``text(_:columns:)``, numbers
    /// right-aligned), and a line explaining the abbreviations. Pipes in
    /// values are escaped and other control characters written as escapes (`\\n`).
    ///
    /// - Returns: the Markdown, each line ending in `\n`.
    /// - Complexity: O(points × columns).
    public static func markdown(_ result: SweepResult) -> String {
        var heading = "## Sweep: \(Escape.markdownCell(result.name)) (seed \(result.seed), \(result.trials) trial"
        heading += result.trials == 1 ? " per point" : "s per point"
        if let shard = result.shard { heading += ", shard \(shard)" }
        heading += ")"
        let header = displayHeader(result)
        let alignments = header.indices.map { $0 < result.axes.count ? "---" : "---:" }
        var lines = [
            heading, "",
            "`\(Escape.markdownCell(result.file))` · activity `\(Escape.markdownCell(result.activity))` "
                + "on `\(Escape.markdownCell(result.device))`",
            "",
            "| " + header.map(Escape.markdownCell).joined(separator: " | ") + " |",
            "|" + alignments.joined(separator: "|") + "|",
        ]
        for point in result.points {
            let fields = displayFields(point, axisCount: result.axes.count).map(Escape.markdownCell)
            lines.append("| " + fields.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append(Escape.markdownCell(legend))
        if let note = intervalNote(result) {
            lines.append("")
            lines.append(Escape.markdownCell(note))
        }
        return lines.escapedLines
    }

    // MARK: Columns

    /// The latency metrics, in column order.
    static let metrics = LatencyMetric.tabulated

    /// One latency statistic: its header suffixes and the percentile it
    /// reads (100 is the maximum).
    struct Statistic {
        let displayName: String
        let csvName: String
        let percentile: Double
    }

    /// The statistics of each metric, in column order.
    static let statistics = [
        Statistic(displayName: "p50", csvName: "p50", percentile: 50),
        Statistic(displayName: "p90", csvName: "p90", percentile: 90),
        Statistic(displayName: "p95", csvName: "p95", percentile: 95),
        Statistic(displayName: "p99", csvName: "p99", percentile: 99),
        Statistic(displayName: "p99.9", csvName: "p99_9", percentile: 99.9),
        Statistic(displayName: "max", csvName: "max", percentile: 100),
    ]

    /// The CSV column names.
    static func csvHeader(_ result: SweepResult) -> [String] {
        var names = result.axes.map(\.name)
        names += ["payload_bytes", "trials", "success_rate"]
        names += PointAggregate.failureCodes.map { "failed_\($0)" }
        names.append("not_offered")
        for metric in metrics {
            names += statistics.map { "\(metric.csvName)_\($0.csvName)_ns" }
        }
        names += LatencyBudget.Phase.allCases.map { budgetName($0) + "_p95_share" }
        names += LatencyBudget.Phase.allCases.map { budgetName($0) + "_mean_ns" }
        if result.replicates > 0 {
            for metric in metrics {
                for statistic in statistics where PercentileInterval.percentiles.contains(statistic.percentile) {
                    names += ["low", "high"].map { "\(metric.csvName)_\(statistic.csvName)_\($0)_ns" }
                }
            }
        }
        return names
    }

    /// A phase's stem in CSV names: `phase_pair_verify`.
    static func budgetName(_ phase: LatencyBudget.Phase) -> String { String(phase.csvName.dropLast(3)) }

    /// Where the p95 trials' time goes, for a table cell: the three
    /// largest shares, `resolve 90% · Pair-Verify 6% · …`; `—` without
    /// budgets.
    static func budgetCell(_ aggregate: PointAggregate) -> String {
        guard let summary = aggregate.budget.summary() else { return "—" }
        let top = summary.ranked.filter { $0.tailShare >= 0.005 }.prefix(3)
        return top.map { "\($0.phase.label) \(Format.wholePercent($0.tailShare))" }.joined(separator: " · ")
    }

    /// One CSV row, unquoted.
    static func csvFields(_ point: SweepPoint, axisCount: Int) -> [String] {
        let aggregate = point.aggregate
        var fields = coordinates(point, axisCount: axisCount)
        fields += [String(point.payloadBytes), String(aggregate.trials)]
        fields.append(successRate(aggregate, scale: 1_000_000).map { Format.decimalText($0, scale: 1_000_000) } ?? "")
        fields += aggregate.failures.map { String($0) }
        fields.append(String(aggregate.notOffered))
        for metric in metrics {
            let histogram = aggregate.histogram(metric)
            fields += statistics.map { histogram.value(atPercentile: $0.percentile).map { String($0) } ?? "" }
        }
        if let summary = aggregate.budget.summary() {
            fields += summary.phases.map { figure in Format.decimalText(UInt64((figure.tailShare * 1_000_000).rounded()), scale: 1_000_000) }
            fields += summary.phases.map { String($0.mean.nanoseconds) }
        } else {
            fields += Array(repeating: "", count: 2 * LatencyBudget.Phase.allCases.count)
        }
        if !point.replicates.isEmpty {
            for metric in metrics {
                for statistic in statistics where PercentileInterval.percentiles.contains(statistic.percentile) {
                    let interval = point.interval(metric, atPercentile: statistic.percentile)
                    fields += [interval?.low, interval?.high].map { $0.map { String($0) } ?? "" }
                }
            }
        }
        return fields
    }

    /// The abbreviated column names of the text and Markdown tables.
    /// Which columns the text table shows.
    public enum Columns: String, CaseIterable, Sendable {
        /// The axes, trials, success, failures, not offered and
        /// accept → `continue` at p50, p90, p95, p99 and max: under 120
        /// columns for two axes.
        case compact
        /// Every column: bytes, each error code, and every statistic of
        /// every latency.
        case full
    }

    /// The compact table's header.
    static func compactHeader(_ result: SweepResult) -> [String] {
        result.axes.map(\.name) + ["trials", "success", "failed", "not offered"]
            + compactStatistics.map { "a→c \($0.displayName)" }
    }

    /// One row of the compact table, unescaped.
    static func compactFields(_ point: SweepPoint, axisCount: Int) -> [String] {
        let aggregate = point.aggregate
        var fields = coordinates(point, axisCount: axisCount)
        fields.append(String(aggregate.trials))
        fields.append(successRate(aggregate, scale: 10_000).map { Format.decimalText($0, scale: 100) + "%" } ?? "—")
        fields.append(String(aggregate.failures.reduce(0, +)))
        fields.append(String(aggregate.notOffered))
        fields += compactStatistics.map { latencyCell(point, .acceptToContinue, percentile: $0.percentile) }
        return fields
    }

    /// The statistics of the compact table: all but p99.9.
    static var compactStatistics: [(displayName: String, percentile: Double)] {
        statistics.filter { $0.displayName != "p99.9" }.map { ($0.displayName, $0.percentile) }
    }

    /// What the tables' short metric names stand for, from the metric
    /// table (`LatencyMetric.tabulated`), and how latencies are read.
    static var legend: String {
        LatencyMetric.tabulated.map { "\($0.shortName): \($0.label)" }.joined(separator: "; ")
            + ". Latencies are nearest-rank percentiles to three significant digits; — where no trial reached them."
    }

    static func displayHeader(_ result: SweepResult) -> [String] {
        var names = result.axes.map(\.name)
        names += ["bytes", "trials", "success"]
        names += PointAggregate.failureCodes.map { "err \($0)" }
        names.append("not offered")
        for metric in metrics {
            names += statistics.map { "\(metric.shortName) \($0.displayName)" }
        }
        names.append("p95 trials' time")
        return names
    }

    /// One row of the text and Markdown tables, unescaped.
    static func displayFields(_ point: SweepPoint, axisCount: Int) -> [String] {
        let aggregate = point.aggregate
        var fields = coordinates(point, axisCount: axisCount)
        fields += [String(point.payloadBytes), String(aggregate.trials)]
        // Ten-thousandths of the fraction are hundredths of a percent.
        fields.append(successRate(aggregate, scale: 10_000).map { Format.decimalText($0, scale: 100) + "%" } ?? "—")
        fields += aggregate.failures.map { String($0) }
        fields.append(String(aggregate.notOffered))
        for metric in metrics {
            fields += statistics.map { latencyCell(point, metric, percentile: $0.percentile) }
        }
        fields.append(budgetCell(aggregate))
        return fields
    }

    /// A latency cell: the percentile, then with replicates its 95%
    /// interval over them, `1.05s [1.02s–1.10s]` (`—` for an end no trial
    /// reached).
    static func latencyCell(_ point: SweepPoint, _ metric: LatencyMetric, percentile: Double) -> String {
        let value = Format.duration(nanoseconds: point.aggregate[metric].value(atPercentile: percentile))
        guard PercentileInterval.percentiles.contains(percentile),
            let interval = point.interval(metric, atPercentile: percentile)
        else { return value }
        return value + " [" + Format.duration(nanoseconds: interval.low) + "–" + Format.duration(nanoseconds: interval.high) + "]"
    }

    /// The line explaining the intervals, when the sweep ran replicates.
    static func intervalNote(_ result: SweepResult) -> String? {
        guard result.replicates > 0 else { return nil }
        return "[low–high]: the 95% interval of p50, p90, p95 and p99 over the overlay's \(result.replicates) bootstrap "
            + "replicate\(result.replicates == 1 ? "" : "s"), each run on the same trials"
    }

    /// The point's coordinates, one per axis (empty where a malformed point
    /// has too few).
    static func coordinates(_ point: SweepPoint, axisCount: Int) -> [String] {
        (0..<axisCount).map { $0 < point.coordinates.count ? point.coordinates[$0] : "" }
    }

    // MARK: Formatting

    /// The success rate in units of `1/scale` (in millionths for
    /// `1_000_000`), rounded half up, computed exactly in integers; `nil`
    /// when no trial ran.
    static func successRate(_ aggregate: PointAggregate, scale: UInt64) -> UInt64? {
        guard aggregate.trials > 0 else { return nil }
        let (sum, overflow) = aggregate.continued.addingReportingOverflow(aggregate.continuedInBrowser)
        let successes = overflow ? aggregate.trials : min(sum, aggregate.trials)
        let product = successes.multipliedFullWidth(by: scale)
        let (low, carry) = product.low.addingReportingOverflow(aggregate.trials / 2)
        // successes ≤ trials, so the quotient is at most `scale`.
        return aggregate.trials.dividingFullWidth((product.high + (carry ? 1 : 0), low)).quotient
    }

}
