import Handoff
import HandoffScenario
import SimKernel

/// A sweep drawn as SVG small multiples: one panel per internet profile
/// (and per value of any other axis), each with a latency against the
/// userInfo payload size and, below it, where the slowest trials' time goes
/// as the payload grows.
///
/// The x axis is `SweepPoint.payloadBytes` on a log₂ scale whose ends are
/// the powers of two around the smallest and largest payload, ticked at
/// powers of two (`256 B`, `1 KiB`, `64 KiB`; every k-th power when there
/// would be more than eleven). The y axis is the latency in milliseconds,
/// shared by every panel, linear from 0 to the smallest 1, 1.5, 2, 2.5, 3,
/// 4, 5, 6 or 8 × 10ᵏ that covers every plotted p99 and the target with a
/// twentieth to spare (at least 0.001 ms; 1 ms when nothing is plotted), so
/// the data fills most of it.
///
/// Each series has exactly three paths, each with a `data-series` attribute
/// holding the series label: the p5–p95 band (`class="band"`, filled, no
/// stroke), the p50 line (`class="p50"`, solid) and the p99 line
/// (`class="p99"`, dashed), plus a dot per p50 so a single point shows.
/// Series follow the first appearance of their key in
/// `SweepResult.points`; colours come from the Okabe–Ito palette (safe for
/// the common colour-vision deficiencies) and repeat after eight series;
/// the panel's title names the series, so colour is never the only cue. A
/// dashed vertical line marks Apple's 3 KiB userInfo guidance when 3072
/// bytes lies within the x range; it is left out, not clamped to an edge,
/// when it does not.
///
/// With a ``Target``, every panel draws it as a horizontal line
/// (`class="target"`) and marks its answer (`class="answer"`, with
/// `data-bytes`): the largest payload swept whose percentile meets the
/// target with every smaller one meeting it too, or "no size meets the
/// target". When the sweep ran an overlay's bootstrap replicates, each
/// point has a whisker (`class="interval"`) spanning the 95% interval of
/// the target's percentile (p95 without a target) over them, drawn to the
/// top of the plot when some replicate's trials never reached the metric.
/// When the points carry latency budgets, each panel has a budget
/// strip below it (`class="budget"`): per payload, the share of the p95
/// trials' time in each `LatencyBudget.Phase` (`data-phase`), stacked in
/// phase order, with a legend of the phases that appear.
///
/// ```swift
/// let svg = SweepChart.svg(result, target: SweepChart.Target(latency: .seconds(1)))
/// try svg.write(to: URL(fileURLWithPath: "sweep.svg"), atomically: true, encoding: .utf8)
/// ```
///
/// Not guaranteed: panel titles and legend labels are not shortened, so
/// very long profile names can run past their panel.
public enum SweepChart {
    /// A latency target to draw: a percentile of the chart's metric must
    /// be at most ``latency``.
    public struct Target: Hashable, Sendable {
        /// The bound.
        public var latency: SimDuration
        /// Which percentile is bounded (95 for p95).
        public var percentile: Double

        /// A target: the `percentile`th percentile at most `latency`.
        public init(latency: SimDuration, percentile: Double = 95) {
            self.latency = latency
            self.percentile = min(max(percentile, 0), 100)
        }
    }

    /// An SVG chart of `metric` (default `.acceptToContinue`) against payload size.
    ///
    /// Points are skipped when the metric's histogram is empty (no trial
    /// reached it) or their payload is not positive (a log scale has no
    /// place for 0 bytes); a series left with no points keeps its panel and
    /// legend entry and draws nothing, not even empty paths. Without a
    /// `payload` axis, without points, or without a point of positive
    /// payload, the result is still a valid SVG: a title and the words "no
    /// data" with the reason. When there are points but no trial reached
    /// the metric, the panels are drawn with "no data" in them. Whether to
    /// draw such a chart at all is the caller's call.
    ///
    /// The text is a complete SVG 1.1 document (`xmlns`, `viewBox`, 960
    /// wide, as tall as its rows of panels) with every text and attribute
    /// XML-escaped, coordinates printed with at most two decimals, and
    /// nothing that varies between runs or machines.
    ///
    /// - Parameters:
    ///   - result: the sweep.
    ///   - metric: the latency to draw.
    ///   - target: a target to draw, with each panel's answer.
    /// - Returns: the SVG document, ending in `\n`.
    /// - Complexity: O(points × log points) plus the histograms' percentile
    ///   queries.
    public static func svg(_ result: SweepResult, metric: LatencyMetric = .acceptToContinue, target: Target? = nil) -> String {
        guard result.axes.contains(where: { $0.name == payloadAxis }) else {
            return noData(result, metric: metric, reason: "the sweep has no payload axis")
        }
        let sizes = result.points.map(\.payloadBytes).filter { $0 > 0 }
        guard let smallest = sizes.min(), let largest = sizes.max() else {
            let reason = result.points.isEmpty ? "the sweep has no points" : "no point has a positive payload size"
            return noData(result, metric: metric, reason: reason)
        }
        let allSeries = series(of: result, metric: metric, percentile: target?.percentile ?? 95)
        let highestP99 = allSeries.flatMap(\.samples).map(\.p99).max()
        let highestInterval = allSeries.flatMap(\.samples).compactMap { $0.interval?.high }.max() ?? 0
        let top = max(highestP99 ?? 1_000_000, target.map { $0.latency.nanoseconds } ?? 0, highestInterval)
        // A twentieth of headroom, so a line at the top is not lost in the frame.
        let y = LatencyScale(covering: top + top / 20)
        let hasBudget = allSeries.contains { series in series.samples.contains { $0.budget != nil } }
        let layout = Layout(panels: allSeries.count, hasBudget: hasBudget)

        var lines = opening(result, metric: metric, target: target, height: layout.height)
        for (index, entry) in allSeries.enumerated() {
            let frame = layout.frame(index)
            let x = PayloadScale(smallest: smallest, largest: largest, left: frame.left, right: frame.right)
            let latency = LatencyScale(maximum: y.maximum, step: y.step, top: frame.top, bottom: frame.latencyBottom)
            lines.append("  <g class=\"panel\" data-series=\"\(Escape.xml(entry.label))\">")
            lines.append(
                "    <text class=\"panel-title\" x=\"\(Format.decimal(frame.left))\" y=\"\(Format.decimal(frame.top - 10))\" font-weight=\"bold\" "
                    + "fill=\"\(entry.colour)\">\(Escape.xml(entry.label))</text>")
            lines += grid(x: x, y: latency)
            lines += axes(x: x, y: latency, metric: metric, showsXTicks: !hasBudget, showsYTitle: layout.column(index) == 0)
            if x.contains(guidanceBytes) {
                let position = Format.decimal(x.position(guidanceBytes))
                lines.append("    <g class=\"guidance\">")
                lines.append(
                    "      <line x1=\"\(position)\" y1=\"\(Format.decimal(frame.top))\" x2=\"\(position)\" y2=\"\(Format.decimal(frame.latencyBottom))\" "
                        + "stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"4 4\"/>")
                lines.append(
                    "      <text x=\"\(Format.decimal(x.position(guidanceBytes) + 4))\" y=\"\(Format.decimal(frame.top + 12))\" fill=\"#555555\">"
                        + "3 KiB guidance</text>")
                lines.append("    </g>")
            }
            if !entry.samples.isEmpty { lines += seriesElements(entry, x: x, y: latency) }
            if let target { lines += targetElements(target, entry, x: x, y: latency, metric: metric) }
            if highestP99 == nil {
                lines.append(
                    "    <text class=\"no-data\" x=\"\(Format.decimal((frame.left + frame.right) / 2))\" "
                        + "y=\"\(Format.decimal((frame.top + frame.latencyBottom) / 2))\" text-anchor=\"middle\" font-size=\"14\" "
                        + "fill=\"#555555\">no data: no trial reached \(Escape.xml(metric.label))</text>")
            }
            if hasBudget { lines += budgetStrip(entry, x: x, frame: frame) }
            lines.append("  </g>")
        }
        let replicates = result.replicates > 0 ? (result.replicates, target?.percentile ?? 95) : nil
        lines += legend(allSeries, hasBudget: hasBudget, target: target, replicates: replicates, top: layout.legendTop)
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Layout

    /// The canvas width, in SVG user units.
    static let width = 960
    /// The height of the canvas without panels (title) and of the legend.
    static let titleHeight = 70.0
    static let legendHeight = 96.0
    /// Margins around and between the panels.
    static let leftMargin = 80.0
    static let rightMargin = 24.0
    static let columnGap = 70.0

    /// Where each panel goes: one or two columns, rows as needed.
    struct Layout {
        let panels: Int
        let hasBudget: Bool

        var columns: Int { panels > 1 ? 2 : 1 }
        var rows: Int { max(1, (panels + columns - 1) / columns) }
        /// The latency plot's height, the budget strip's, and a row's.
        var latencyHeight: Double { panels > 2 ? 220 : 300 }
        var budgetHeight: Double { hasBudget ? 90 : 0 }
        var rowHeight: Double { latencyHeight + (hasBudget ? budgetHeight + 22 : 0) + 76 }
        var height: Int { Int(titleHeight + Double(rows) * rowHeight + legendHeight) }
        var legendTop: Double { titleHeight + Double(rows) * rowHeight }

        func column(_ index: Int) -> Int { index % columns }

        func frame(_ index: Int) -> Frame {
            let plotWidth = (Double(SweepChart.width) - leftMargin - rightMargin - Double(columns - 1) * columnGap) / Double(columns)
            let left = leftMargin + Double(column(index)) * (plotWidth + columnGap)
            let top = titleHeight + 24 + Double(index / columns) * rowHeight
            let latencyBottom = top + latencyHeight
            let budgetTop = latencyBottom + 22
            return Frame(
                left: left, right: left + plotWidth, top: top, latencyBottom: latencyBottom, budgetTop: budgetTop,
                budgetBottom: budgetTop + budgetHeight)
        }
    }

    /// One panel's plot areas.
    struct Frame {
        let left, right, top, latencyBottom, budgetTop, budgetBottom: Double
    }

    /// The axis names with a meaning of their own.
    static let payloadAxis = "payload"
    static let profileAxis = "profile"

    /// Apple's guidance: keep userInfo payloads under 3 KiB.
    static let guidanceBytes = 3072

    /// Okabe & Ito's colour-blind-safe palette, the pale yellow last.
    static let palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]

    /// A colour per budget phase; neighbours in the stack differ in
    /// lightness as well as hue, and the legend names each.
    static func colour(of phase: LatencyBudget.Phase) -> String {
        switch phase {
        case .launch: return "#BBBBBB"
        case .willContinue: return "#777777"
        case .rapportGaveUp: return "#882255"
        case .resolve: return "#0072B2"
        case .connect: return "#56B4E9"
        case .pairVerify: return "#009E73"
        case .systemInfo: return "#99DDCC"
        case .request: return "#E69F00"
        case .sourceUpdate: return "#F0E442"
        case .encode: return "#CC79A7"
        case .relay: return "#EE3377"
        case .transfer: return "#332288"
        case .decode: return "#DDAADD"
        }
    }

    // MARK: Series

    /// The percentiles drawn at one payload size, in nanoseconds, the
    /// target's percentile, and the budget's shares of the p95 trials.
    struct Sample: Equatable {
        let bytes: Int
        let p5: Int64
        let p50: Int64
        let p95: Int64
        let p99: Int64
        /// The percentile a target bounds.
        let targeted: Int64
        /// Each phase's share of the p95 trials' time (nil without budgets).
        let budget: [Double]?
        /// The targeted percentile's 95% interval over the fit's bootstrap
        /// replicates (nil without them).
        var interval: PercentileInterval? = nil
    }

    /// One panel of the chart: its label, colour and samples by payload.
    struct Series {
        let label: String
        let colour: String
        let samples: [Sample]
    }

    /// The series of `result`: points grouped by profile and the
    /// coordinates of every axis other than payload and profile, in order
    /// of first appearance, each sorted by payload (ties keep point order).
    static func series(of result: SweepResult, metric: LatencyMetric, percentile: Double = 95) -> [Series] {
        let otherAxes = result.axes.indices.filter {
            result.axes[$0].name != payloadAxis && result.axes[$0].name != profileAxis
        }
        let names = labelNames(otherAxes.map { result.axes[$0].name })
        var keys: [[String]] = []
        var groups: [[(order: Int, point: SweepPoint)]] = []
        var groupOfKey: [[String]: Int] = [:]  // lookup only; order comes from `keys`
        for (order, point) in result.points.enumerated() {
            let key = [point.profile] + otherAxes.map { $0 < point.coordinates.count ? point.coordinates[$0] : "" }
            if let group = groupOfKey[key] {
                groups[group].append((order, point))
            } else {
                groupOfKey[key] = keys.count
                keys.append(key)
                groups.append([(order, point)])
            }
        }
        // Off the cloud relay a profile shapes nothing: name the path instead.
        let fixedPath = result.axes.contains { $0.name == profileAxis } ? nil : result.fixedPath
        return keys.indices.map { group in
            var label = fixedPath ?? keys[group][0]
            for (name, value) in zip(names, keys[group].dropFirst()) { label += ", \(name)=\(value)" }
            let samples = groups[group]
                .sorted { ($0.point.payloadBytes, $0.order) < ($1.point.payloadBytes, $1.order) }
                .compactMap { sample($0.point, metric: metric, percentile: percentile) }
            return Series(label: label, colour: palette[group % palette.count], samples: samples)
        }
    }

    /// How series labels name the other axes: the last component of each
    /// JSON path (`loss` for `network.wifiPeerToPeer.loss`), or the whole
    /// path where two axes share a last component.
    static func labelNames(_ axisNames: [String]) -> [String] {
        let short = axisNames.map { name in name.split(separator: ".").last.map(String.init) ?? name }
        return axisNames.indices.map { index in
            short.filter { $0 == short[index] }.count > 1 ? axisNames[index] : short[index]
        }
    }

    /// The sample of `point`, or `nil` when it cannot be drawn.
    static func sample(_ point: SweepPoint, metric: LatencyMetric, percentile: Double = 95) -> Sample? {
        let histogram = point.aggregate.histogram(metric)
        guard point.payloadBytes > 0, let p5 = histogram.value(atPercentile: 5),
            let p50 = histogram.value(atPercentile: 50), let p95 = histogram.value(atPercentile: 95),
            let p99 = histogram.value(atPercentile: 99), let targeted = histogram.value(atPercentile: percentile)
        else { return nil }
        let budget = point.aggregate.budget.summary().map { $0.phases.map(\.tailShare) }
        return Sample(
            bytes: point.payloadBytes, p5: p5, p50: p50, p95: p95, p99: p99, targeted: targeted, budget: budget,
            interval: point.interval(metric, atPercentile: percentile))
    }

    // MARK: Scales

    /// Payload bytes to x, on a log₂ scale from 2^low to 2^high.
    struct PayloadScale {
        let low: Int
        let high: Int
        let left: Double
        let right: Double

        /// The powers of two around `smallest` and `largest` (both ≥ 1),
        /// one power wider on each side when they are the same power,
        /// drawn from `left` to `right`.
        init(smallest: Int, largest: Int, left: Double = 80, right: Double = 730) {
            var low = floorLog2(smallest)
            var high = ceilingLog2(largest)
            if low == high {
                if low > 0 { low -= 1 }
                high += 1
            }
            self.low = low
            self.high = high
            self.left = left
            self.right = right
        }

        /// Whether `bytes` lies within 2^low…2^high.
        func contains(_ bytes: Int) -> Bool {
            bytes > 0 && floorLog2(bytes) >= low && ceilingLog2(bytes) <= high
        }

        /// The x coordinate of `bytes` (≥ 1).
        func position(_ bytes: Int) -> Double {
            let exponent = bytes & (bytes - 1) == 0
                ? Double(floorLog2(bytes)) : PortableMath.log(Double(bytes)) / naturalLogOf2
            return left + (exponent - Double(low)) / Double(high - low) * (right - left)
        }

        /// The x coordinate of 2^exponent.
        func position(exponent: Int) -> Double {
            left + Double(exponent - low) / Double(high - low) * (right - left)
        }

        /// The exponents of the ticks: every power of two from low to high,
        /// or every k-th so that there are at most eleven (at most six in a
        /// narrow panel).
        var tickExponents: [Int] {
            let most = right - left < 500 ? 6 : 11
            let step = (high - low + most - 2) / (most - 1)
            return Array(stride(from: low, through: high, by: max(1, step)))
        }
    }

    /// ln 2, computed the same way on every platform.
    static let naturalLogOf2 = PortableMath.log(2)

    /// ⌊log₂ n⌋ for n ≥ 1.
    static func floorLog2(_ value: Int) -> Int { Int.bitWidth - 1 - value.leadingZeroBitCount }

    /// ⌈log₂ n⌉ for n ≥ 1.
    static func ceilingLog2(_ value: Int) -> Int {
        value & (value - 1) == 0 ? floorLog2(value) : floorLog2(value) + 1
    }

    /// Nanoseconds to y, linear from 0 to a nice maximum, with ticks.
    struct LatencyScale {
        /// The top of the axis, in nanoseconds.
        let maximum: Int64
        /// The distance between ticks, in nanoseconds.
        let step: Int64
        let top: Double
        let bottom: Double

        /// The smallest 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10ᵏ nanoseconds
        /// (k ≥ 3, so at least 0.001 ms) not below `nanoseconds`, with
        /// three to six ticks.
        init(covering nanoseconds: Int64, top: Double = 60, bottom: Double = 460) {
            (maximum, step) = Self.niceMaximum(covering: nanoseconds)
            self.top = top
            self.bottom = bottom
        }

        /// A scale with this maximum and step, drawn from `top` to `bottom`.
        init(maximum: Int64, step: Int64, top: Double, bottom: Double) {
            self.maximum = maximum
            self.step = step
            self.top = top
            self.bottom = bottom
        }

        /// The maximum and tick step for `nanoseconds`, as described at
        /// ``init(covering:top:bottom:)``: each nice maximum (in tenths of
        /// a power of ten) with its step.
        static let steps: [(tenths: Int64, step: Int64)] = [
            (10, 2), (15, 5), (20, 5), (25, 5), (30, 5), (40, 10), (50, 10), (60, 10), (80, 20),
        ]

        static func niceMaximum(covering nanoseconds: Int64) -> (maximum: Int64, step: Int64) {
            var tenth: Int64 = 100  // a tenth of 10³ ns
            while true {
                for (tenths, step) in steps where nanoseconds <= tenths * tenth {
                    return (tenths * tenth, step * tenth)
                }
                // Beyond 10¹⁸ ns (30 years): cover it, plainly.
                guard tenth <= Int64.max / 1000 else { return (nanoseconds, nanoseconds / 4) }
                tenth *= 10
            }
        }

        /// The y coordinate of `nanoseconds`.
        func position(_ nanoseconds: Int64) -> Double {
            bottom - Double(nanoseconds) / Double(maximum) * (bottom - top)
        }

        /// The tick values, from 0 up to the maximum.
        var ticks: [Int64] { Array(stride(from: 0, through: maximum, by: Int(step))) }
    }

    // MARK: Text

}
