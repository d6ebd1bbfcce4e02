import Handoff
import HandoffScenario
import SimKernel

/// A sweep drawn as an SVG line chart: one latency against the userInfo
/// payload size, one series per internet profile (and per value of any
/// other axis).
///
/// The x axis is ``SweepPoint/payloadBytes`` on a log₂ scale whose ends are
/// the powers of two around the smallest and largest payload, ticked at
/// powers of two (`256 B`, `1 KiB`, `64 KiB`; every k-th power when there
/// would be more than eleven). The y axis is the latency in milliseconds,
/// linear from 0 to the smallest 1, 2 or 5 × 10ᵏ that covers every plotted
/// p99 (at least 0.001 ms; 1 ms when nothing is plotted).
///
/// Each series has exactly three paths, each with a `data-series` attribute
/// holding the series label: the p5–p95 band (`class="band"`, filled, no
/// stroke), the p50 line (`class="p50"`, solid) and the p99 line
/// (`class="p99"`, dashed), plus a dot per p50 so a single point shows.
/// Series follow the first appearance of their key in
/// ``SweepResult/points``; colours come from the Okabe–Ito palette (safe for
/// the common colour-vision deficiencies) and repeat after eight series. A
/// dashed vertical line marks Apple's 3 KiB userInfo guidance when 3072
/// bytes lies within the x range; it is left out, not clamped to an edge,
/// when it does not.
///
/// ```swift
/// let svg = SweepChart.svg(result, metric: .acceptToRestored)
/// try svg.write(to: URL(fileURLWithPath: "sweep.svg"), atomically: true, encoding: .utf8)
/// ```
///
/// Not guaranteed: legend labels are not shortened, so very long profile
/// names or many series can run past the 960 × 540 canvas.
public enum SweepChart {
    /// An SVG line chart of `metric` (default `.acceptToContinue`) against payload size.
    ///
    /// Points are skipped when the metric's histogram is empty (no trial
    /// reached it) or their payload is not positive (a log scale has no
    /// place for 0 bytes); a series left with no points keeps its legend
    /// entry and draws nothing, not even empty paths. Without a `payload`
    /// axis, without points, or without a point of positive payload, the
    /// result is still a valid SVG: a title and the words "no data" with
    /// the reason. When there are points but no trial reached the metric,
    /// the axes and legend are drawn with "no data" in the plot. Whether to
    /// draw such a chart at all is the caller's call.
    ///
    /// The text is a complete SVG 1.1 document (`xmlns`, `viewBox`,
    /// 960 × 540) with every text and attribute XML-escaped, coordinates
    /// printed with at most two decimals, and nothing that varies between
    /// runs or machines.
    ///
    /// - Parameters:
    ///   - result: the sweep.
    ///   - metric: the latency to draw.
    /// - Returns: the SVG document, ending in `\n`.
    /// - Complexity: O(points × log points) plus the histograms' percentile
    ///   queries.
    public static func svg(_ result: SweepResult, metric: LatencyMetric = .acceptToContinue) -> String {
        guard result.axes.contains(where: { $0.name == payloadAxis }) else {
            return noData(result, metric: metric, reason: "the sweep has no payload axis")
        }
        let sizes = result.points.map(\.payloadBytes).filter { $0 > 0 }
        guard let smallest = sizes.min(), let largest = sizes.max() else {
            let reason = result.points.isEmpty ? "the sweep has no points" : "no point has a positive payload size"
            return noData(result, metric: metric, reason: reason)
        }
        let allSeries = series(of: result, metric: metric)
        let x = PayloadScale(smallest: smallest, largest: largest)
        let highestP99 = allSeries.flatMap(\.samples).map(\.p99).max()
        let y = LatencyScale(covering: highestP99 ?? 1_000_000)

        var lines = opening(result, metric: metric)
        lines += grid(x: x, y: y)
        lines += axes(x: x, y: y, metric: metric)
        if x.contains(guidanceBytes) {
            let position = number(x.position(guidanceBytes))
            lines.append("  <g class=\"guidance\">")
            lines.append(
                "    <line x1=\"\(position)\" y1=\"\(number(plotTop))\" x2=\"\(position)\" y2=\"\(number(plotBottom))\" "
                    + "stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"4 4\"/>")
            lines.append("    <text x=\"\(number(x.position(guidanceBytes) + 4))\" y=\"\(number(plotTop + 12))\" fill=\"#555555\">3 KiB guidance</text>")
            lines.append("  </g>")
        }
        for entry in allSeries where !entry.samples.isEmpty {
            lines += seriesElements(entry, x: x, y: y)
        }
        if highestP99 == nil {
            lines.append(
                "  <text class=\"no-data\" x=\"\(number((plotLeft + plotRight) / 2))\" y=\"\(number((plotTop + plotBottom) / 2))\" "
                    + "text-anchor=\"middle\" font-size=\"16\" fill=\"#555555\">no data: no trial reached \(metric.label)</text>")
        }
        lines += legend(allSeries)
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Layout

    /// The canvas and plot area, in SVG user units; the legend sits right
    /// of the plot.
    static let width = 960
    static let height = 540
    static let plotLeft = 80.0
    static let plotRight = 730.0
    static let plotTop = 60.0
    static let plotBottom = 460.0
    static let legendLeft = 750.0

    /// The axis names with a meaning of their own.
    static let payloadAxis = "payload"
    static let profileAxis = "profile"

    /// Apple's guidance: keep userInfo payloads under 3 KiB.
    static let guidanceBytes = 3072

    /// Okabe & Ito's colour-blind-safe palette, the pale yellow last.
    static let palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]

    // MARK: Series

    /// The percentiles drawn at one payload size, in nanoseconds.
    struct Sample: Equatable {
        let bytes: Int
        let p5: Int64
        let p50: Int64
        let p95: Int64
        let p99: Int64
    }

    /// One line of the chart: its label, colour and samples by payload.
    struct Series {
        let label: String
        let colour: String
        let samples: [Sample]
    }

    /// The series of `result`: points grouped by profile and the
    /// coordinates of every axis other than payload and profile, in order
    /// of first appearance, each sorted by payload (ties keep point order).
    static func series(of result: SweepResult, metric: LatencyMetric) -> [Series] {
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
        return keys.indices.map { group in
            var label = keys[group][0]
            for (name, value) in zip(names, keys[group].dropFirst()) { label += ", \(name)=\(value)" }
            let samples = groups[group]
                .sorted { ($0.point.payloadBytes, $0.order) < ($1.point.payloadBytes, $1.order) }
                .compactMap { sample($0.point, metric: metric) }
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
    static func sample(_ point: SweepPoint, metric: LatencyMetric) -> Sample? {
        let histogram = point.aggregate.histogram(metric)
        guard point.payloadBytes > 0, let p5 = histogram.value(atPercentile: 5),
            let p50 = histogram.value(atPercentile: 50), let p95 = histogram.value(atPercentile: 95),
            let p99 = histogram.value(atPercentile: 99)
        else { return nil }
        return Sample(bytes: point.payloadBytes, p5: p5, p50: p50, p95: p95, p99: p99)
    }

    // MARK: Scales

    /// Payload bytes to x, on a log₂ scale from 2^low to 2^high.
    struct PayloadScale {
        let low: Int
        let high: Int

        /// The powers of two around `smallest` and `largest` (both ≥ 1),
        /// one power wider on each side when they are the same power.
        init(smallest: Int, largest: Int) {
            var low = floorLog2(smallest)
            var high = ceilingLog2(largest)
            if low == high {
                if low > 0 { low -= 1 }
                high += 1
            }
            self.low = low
            self.high = high
        }

        /// Whether `bytes` lies within 2^low…2^high.
        func contains(_ bytes: Int) -> Bool {
            bytes > 0 && floorLog2(bytes) >= low && ceilingLog2(bytes) <= high
        }

        /// The x coordinate of `bytes` (≥ 1).
        func position(_ bytes: Int) -> Double {
            let exponent = bytes & (bytes - 1) == 0
                ? Double(floorLog2(bytes)) : PortableMath.log(Double(bytes)) / naturalLogOf2
            return plotLeft + (exponent - Double(low)) / Double(high - low) * (plotRight - plotLeft)
        }

        /// The x coordinate of 2^exponent.
        func position(exponent: Int) -> Double {
            plotLeft + Double(exponent - low) / Double(high - low) * (plotRight - plotLeft)
        }

        /// The exponents of the ticks: every power of two from low to high,
        /// or every k-th so that there are at most eleven.
        var tickExponents: [Int] {
            let step = (high - low + 9) / 10
            return Array(stride(from: low, through: high, by: step))
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

    /// 2^exponent bytes as `256 B`, `4 KiB`, `1 MiB`.
    static func bytesText(exponent: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        let unit = min(exponent / 10, units.count - 1)
        return "\(1 << (exponent - unit * 10)) \(units[unit])"
    }

    /// Nanoseconds to y, linear from 0 to a nice maximum, with ticks.
    struct LatencyScale {
        /// The top of the axis, in nanoseconds.
        let maximum: Int64
        /// The distance between ticks, in nanoseconds.
        let step: Int64

        /// The smallest 1, 2 or 5 × 10ᵏ nanoseconds (k ≥ 3, so at least
        /// 0.001 ms) not below `nanoseconds`, ticked in fifths, quarters or
        /// fifths respectively (0.2, 0.5, 1 × 10ᵏ).
        init(covering nanoseconds: Int64) {
            (maximum, step) = Self.niceMaximum(covering: nanoseconds)
        }

        /// The maximum and tick step for `nanoseconds`, as described at
        /// ``init(covering:)``.
        static func niceMaximum(covering nanoseconds: Int64) -> (maximum: Int64, step: Int64) {
            var power: Int64 = 1000
            while true {
                if nanoseconds <= power { return (power, power / 5) }
                if nanoseconds <= 2 * power { return (2 * power, power / 2) }
                if nanoseconds <= 5 * power { return (5 * power, power) }
                // Beyond 10¹⁸ ns (30 years): cover it, plainly.
                guard power <= Int64.max / 50 else { return (nanoseconds, nanoseconds / 4) }
                power *= 10
            }
        }

        /// The y coordinate of `nanoseconds`.
        func position(_ nanoseconds: Int64) -> Double {
            plotBottom - Double(nanoseconds) / Double(maximum) * (plotBottom - plotTop)
        }

        /// The tick values, from 0 up to the maximum.
        var ticks: [Int64] { Array(stride(from: 0, through: maximum, by: Int(step))) }
    }

    // MARK: Elements

    /// The `<svg>` start tag, `<title>`, `<desc>`, background, title and
    /// subtitle.
    static func opening(_ result: SweepResult, metric: LatencyMetric) -> [String] {
        var description = "Scenario \(result.name) (\(result.file)); \(metric.label) latency; seed \(result.seed); "
        description += "\(result.trials) trial\(result.trials == 1 ? "" : "s") per point"
        if let shard = result.shard { description += " (this result holds shard \(shard) of them)" }
        description += "; activity \(result.activity) on \(result.device). "
        description += "p50 solid line, p5–p95 band, p99 dashed line; points no trial reached are left out."
        return [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" "
                + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">",
            "  <title>\(escape(result.name)): \(metric.label) latency by userInfo payload</title>",
            "  <desc>\(escape(description))</desc>",
            "  <rect class=\"background\" x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>",
            "  <text class=\"title\" x=\"\(number(plotLeft))\" y=\"28\" font-size=\"16\" font-weight=\"bold\">\(escape(result.name))</text>",
            "  <text class=\"subtitle\" x=\"\(number(plotLeft))\" y=\"46\" fill=\"#444444\">"
                + "\(metric.label) latency: p50 (solid), p5–p95 (band), p99 (dashed); seed \(result.seed), "
                + "\(result.trials) trial\(result.trials == 1 ? "" : "s") per point</text>",
        ]
    }

    /// A light line at every tick of both axes.
    static func grid(x: PayloadScale, y: LatencyScale) -> [String] {
        var lines = ["  <g class=\"grid\" stroke=\"#e6e6e6\" stroke-width=\"1\">"]
        for tick in y.ticks {
            let position = number(y.position(tick))
            lines.append("    <line x1=\"\(number(plotLeft))\" y1=\"\(position)\" x2=\"\(number(plotRight))\" y2=\"\(position)\"/>")
        }
        for exponent in x.tickExponents {
            let position = number(x.position(exponent: exponent))
            lines.append("    <line x1=\"\(position)\" y1=\"\(number(plotTop))\" x2=\"\(position)\" y2=\"\(number(plotBottom))\"/>")
        }
        lines.append("  </g>")
        return lines
    }

    /// Both axes with their tick labels and titles.
    static func axes(x: PayloadScale, y: LatencyScale, metric: LatencyMetric) -> [String] {
        let left = number(plotLeft)
        let bottom = number(plotBottom)
        var lines = [
            "  <g class=\"y-axis\" fill=\"#333333\">",
            "    <line x1=\"\(left)\" y1=\"\(number(plotTop))\" x2=\"\(left)\" y2=\"\(bottom)\" stroke=\"#333333\" stroke-width=\"1\"/>",
        ]
        for tick in y.ticks {
            lines.append(
                "    <text class=\"y-tick\" x=\"\(number(plotLeft - 8))\" y=\"\(number(y.position(tick) + 4))\" "
                    + "text-anchor=\"end\">\(SweepTable.decimalText(UInt64(tick), scale: 1_000_000))</text>")
        }
        let middle = number((plotTop + plotBottom) / 2)
        lines.append(
            "    <text class=\"axis-title\" transform=\"translate(24 \(middle)) rotate(-90)\" text-anchor=\"middle\">"
                + "\(metric.label) latency (ms)</text>")
        lines.append("  </g>")
        lines.append("  <g class=\"x-axis\" fill=\"#333333\">")
        lines.append(
            "    <line x1=\"\(left)\" y1=\"\(bottom)\" x2=\"\(number(plotRight))\" y2=\"\(bottom)\" stroke=\"#333333\" stroke-width=\"1\"/>")
        for exponent in x.tickExponents {
            lines.append(
                "    <text class=\"x-tick\" x=\"\(number(x.position(exponent: exponent)))\" y=\"\(number(plotBottom + 18))\" "
                    + "text-anchor=\"middle\" data-bytes=\"\(UInt64(1) << UInt64(exponent))\">\(bytesText(exponent: exponent))</text>")
        }
        lines.append(
            "    <text class=\"axis-title\" x=\"\(number((plotLeft + plotRight) / 2))\" y=\"\(number(plotBottom + 48))\" "
                + "text-anchor=\"middle\">userInfo payload (bytes, log₂ scale)</text>")
        lines.append("  </g>")
        return lines
    }

    /// One series: the band, the p50 and p99 paths, and a dot per p50.
    ///
    /// - Precondition: the series has samples.
    static func seriesElements(_ series: Series, x: PayloadScale, y: LatencyScale) -> [String] {
        let label = escape(series.label)
        func point(_ bytes: Int, _ nanoseconds: Int64) -> String {
            "\(number(x.position(bytes))),\(number(y.position(nanoseconds)))"
        }
        func line(_ points: [String]) -> String {
            "M" + points.joined(separator: " L")
        }
        let upper = series.samples.map { point($0.bytes, $0.p95) }
        let lower = series.samples.reversed().map { point($0.bytes, $0.p5) }
        var lines = [
            "  <g class=\"series\" data-series=\"\(label)\">",
            "    <path class=\"band\" data-series=\"\(label)\" d=\"\(line(upper + lower)) Z\" "
                + "fill=\"\(series.colour)\" fill-opacity=\"0.18\" stroke=\"none\"/>",
            "    <path class=\"p50\" data-series=\"\(label)\" d=\"\(line(series.samples.map { point($0.bytes, $0.p50) }))\" "
                + "fill=\"none\" stroke=\"\(series.colour)\" stroke-width=\"2\"/>",
            "    <path class=\"p99\" data-series=\"\(label)\" d=\"\(line(series.samples.map { point($0.bytes, $0.p99) }))\" "
                + "fill=\"none\" stroke=\"\(series.colour)\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
        ]
        for sample in series.samples {
            lines.append(
                "    <circle class=\"p50-point\" cx=\"\(number(x.position(sample.bytes)))\" cy=\"\(number(y.position(sample.p50)))\" "
                    + "r=\"3\" fill=\"\(series.colour)\"/>")
        }
        lines.append("  </g>")
        return lines
    }

    /// A swatch and label per series, then a key to the three line styles.
    static func legend(_ allSeries: [Series]) -> [String] {
        let left = number(legendLeft)
        let textLeft = number(legendLeft + 24)
        var lines = ["  <g class=\"legend\">"]
        var top = plotTop
        for series in allSeries {
            lines.append("    <g class=\"legend-entry\" data-series=\"\(escape(series.label))\">")
            lines.append("      <rect x=\"\(left)\" y=\"\(number(top))\" width=\"18\" height=\"10\" fill=\"\(series.colour)\"/>")
            lines.append("      <text x=\"\(textLeft)\" y=\"\(number(top + 10))\">\(escape(series.label))</text>")
            lines.append("    </g>")
            top += 20
        }
        top += 10
        let end = number(legendLeft + 18)
        lines.append("    <g class=\"legend-key\" fill=\"#333333\">")
        lines.append("      <line x1=\"\(left)\" y1=\"\(number(top + 5))\" x2=\"\(end)\" y2=\"\(number(top + 5))\" stroke=\"#333333\" stroke-width=\"2\"/>")
        lines.append("      <text x=\"\(textLeft)\" y=\"\(number(top + 10))\">p50</text>")
        top += 20
        lines.append("      <rect x=\"\(left)\" y=\"\(number(top))\" width=\"18\" height=\"10\" fill=\"#333333\" fill-opacity=\"0.18\"/>")
        lines.append("      <text x=\"\(textLeft)\" y=\"\(number(top + 10))\">p5–p95</text>")
        top += 20
        lines.append(
            "      <line x1=\"\(left)\" y1=\"\(number(top + 5))\" x2=\"\(end)\" y2=\"\(number(top + 5))\" stroke=\"#333333\" "
                + "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>")
        lines.append("      <text x=\"\(textLeft)\" y=\"\(number(top + 10))\">p99</text>")
        lines.append("    </g>")
        lines.append("  </g>")
        return lines
    }

    /// A complete SVG with the title and "no data: `reason`".
    static func noData(_ result: SweepResult, metric: LatencyMetric, reason: String) -> String {
        var lines = opening(result, metric: metric)
        lines.append(
            "  <text class=\"no-data\" x=\"\(width / 2)\" y=\"\(height / 2)\" text-anchor=\"middle\" font-size=\"16\" "
                + "fill=\"#555555\">no data: \(escape(reason))</text>")
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Text

    /// Text escaped for XML content and attributes.
    static func escape(_ text: String) -> String { JUnitReport.escape(text) }

    /// `value` rounded half away from zero to at most two decimals, trailing
    /// zeros dropped, never `-0`: `12.346` → `"12.35"`, `-0.001` → `"0"`,
    /// `3.10` → `"3.1"`. Not finite, or beyond ±10¹³, prints `0`.
    static func number(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        guard hundredths.isFinite, hundredths.magnitude < 1e15 else { return "0" }
        let whole = Int64(hundredths)
        let text = SweepTable.decimalText(whole.magnitude, scale: 100)
        return whole < 0 ? "-" + text : text
    }
}
