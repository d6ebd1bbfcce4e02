import Handoff
@testable import HandoffReport
@testable import HandoffScenario
import SimKernel
import Testing

#if canImport(FoundationXML)
import Foundation
import FoundationXML
#else
import Foundation
#endif

/// The sweep chart's SVG: structure, axes, series, escaping and numbers.
extension SweepRenderingTests {
    // MARK: SVG structure

    @Test("SVG: parses as XML with exactly three classed paths per series, a legend entry each, and the 3 KiB marker")
    func svgStructure() throws {
        let result = twoProfilesFourPayloads()
        let root = try #require(parseXML(SweepChart.svg(result)))
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["viewBox"]?.hasPrefix("0 0 960 ") == true)
        // One panel per series, side by side.
        let panels = root.descendants("g").filter { $0.attributes["class"] == "panel" }
        #expect(panels.compactMap { $0.attributes["data-series"] } == ["WiFi", "Very Bad Network"])
        let labels = ["WiFi", "Very Bad Network"]
        let paths = root.descendants("path")
        #expect(paths.count == 3 * labels.count)
        for label in labels {
            let own = paths.filter { $0.attributes["data-series"] == label }
            #expect(own.compactMap { $0.attributes["class"] }.sorted() == ["band", "p50", "p99"])
            let p99 = try #require(own.first { $0.attributes["class"] == "p99" })
            #expect(p99.attributes["stroke-dasharray"] != nil)
            let p50 = try #require(own.first { $0.attributes["class"] == "p50" })
            #expect(p50.attributes["stroke-dasharray"] == nil)
            let band = try #require(own.first { $0.attributes["class"] == "band" })
            #expect(band.attributes["stroke"] == "none")
            #expect(band.attributes["d"]?.hasSuffix("Z") == true)
            #expect(pathPoints(p50).count == 4)
        }
        // Distinct colours, first series first.
        let strokes = labels.map { label in paths.first { $0.attributes["data-series"] == label && $0.attributes["class"] == "p50" }?.attributes["stroke"] }
        #expect(strokes == ["#0072B2", "#D55E00"])
        let legend = try #require(root.descendants("g").first { $0.attributes["class"] == "legend" })
        let entries = legend.descendants("g").filter { $0.attributes["class"] == "legend-entry" }
        #expect(entries.map { $0.descendants("text").first?.text } == labels)
        let guidance = try #require(root.descendants("g").first { $0.attributes["class"] == "guidance" })
        #expect(guidance.descendants("text").first?.text == "3 KiB guidance")
        #expect(guidance.descendants("line").first?.attributes["stroke-dasharray"] != nil)
        #expect(root.descendants("title").first?.text.contains("Payload sweep") == true)
        let description = root.descendants("desc").first?.text ?? ""
        #expect(description.contains("seed 42"))
        #expect(description.contains("100 trials per point"))
        let axisTitles = root.descendants("text").filter { $0.attributes["class"] == "axis-title" }.map(\.text)
        // The y title once per row, the x title under each panel.
        #expect(axisTitles == ["accept → continue latency (ms)", "userInfo payload (bytes, log₂ scale)", "userInfo payload (bytes, log₂ scale)"])
    }

    @Test("SVG: x ticks are the powers of two across the payloads, labelled in B, KiB, MiB")
    func svgTicks() throws {
        // One panel, the whole width: every power of two.
        let one = sweep(points: [256, 1024, 4096, 16384].map { point(profile: "WiFi", bytes: $0, milliseconds: [5]) })
        let root = try #require(parseXML(SweepChart.svg(one)))
        let ticks = root.descendants("text").filter { $0.attributes["class"] == "x-tick" }
        let bytes = ticks.compactMap { $0.attributes["data-bytes"].flatMap { Int($0) } }
        #expect(bytes == [256, 512, 1024, 2048, 4096, 8192, 16384])
        #expect(ticks.map(\.text) == ["256 B", "512 B", "1 KiB", "2 KiB", "4 KiB", "8 KiB", "16 KiB"])
        let positions = ticks.compactMap { $0.attributes["x"].flatMap { Double($0) } }
        #expect(positions.first == 80 && positions.last == 936)
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 })
        // Two panels side by side: at most six ticks each, still powers of two.
        let two = try #require(parseXML(SweepChart.svg(twoProfilesFourPayloads())))
        let narrow = two.descendants("g").first { $0.attributes["class"] == "panel" }?.descendants("text")
            .filter { $0.attributes["class"] == "x-tick" }.compactMap { $0.attributes["data-bytes"].flatMap { Int($0) } }
        #expect(narrow == [256, 1024, 4096, 16384])

        // A wide range keeps at most eleven ticks, still powers of two.
        let wide = sweep(points: [1, 1 << 30].map { point(profile: "WiFi", bytes: $0, milliseconds: [5]) })
        let wideRoot = try #require(parseXML(SweepChart.svg(wide)))
        let wideTicks = wideRoot.descendants("text").filter { $0.attributes["class"] == "x-tick" }
        let wideBytes = wideTicks.compactMap { $0.attributes["data-bytes"].flatMap { Int($0) } }
        #expect(wideBytes.count <= 11 && wideBytes.count >= 2)
        #expect(wideBytes.allSatisfy { $0 > 0 && $0 & ($0 - 1) == 0 })
        #expect(wideTicks.first?.text == "1 B")
        #expect(wideTicks.last?.text == "1 GiB")
        #expect(Format.size(exponent: 20) == "1 MiB")
        #expect(Format.size(exponent: 16) == "64 KiB")
    }

    @Test("SVG: y runs from 0 to the nice maximum covering every p99, in milliseconds")
    func svgLatencyScale() throws {
        #expect(SweepChart.LatencyScale.niceMaximum(covering: 430_000_000) == (500_000_000, 100_000_000))
        #expect(SweepChart.LatencyScale.niceMaximum(covering: 1_200_000_000) == (1_500_000_000, 500_000_000))
        #expect(SweepChart.LatencyScale.niceMaximum(covering: 2_600_000_000) == (3_000_000_000, 500_000_000))
        #expect(SweepChart.LatencyScale.niceMaximum(covering: 7_000_000_000) == (8_000_000_000, 2_000_000_000))
        #expect(SweepChart.LatencyScale.niceMaximum(covering: 1_000_000) == (1_000_000, 200_000))
        #expect(SweepChart.LatencyScale.niceMaximum(covering: 12_500) == (15_000, 5_000))
        #expect(SweepChart.LatencyScale.niceMaximum(covering: 0) == (1_000, 200))
        // The fixture's highest p99 is 448 ms (Very Bad Network at 16 KiB).
        let root = try #require(parseXML(SweepChart.svg(twoProfilesFourPayloads())))
        let ticks = root.descendants("text").filter { $0.attributes["class"] == "y-tick" }.map(\.text)
        // Both panels share the scale.
        #expect(ticks == ["0", "100", "200", "300", "400", "500", "0", "100", "200", "300", "400", "500"])
    }

    @Test("SVG: points are drawn in payload order whatever order the sweep lists them in")
    func svgSortsByPayload() throws {
        let result = sweep(points: [4096, 256, 1024].map { point(profile: "WiFi", bytes: $0, milliseconds: [Int64($0 / 64)]) })
        let root = try #require(parseXML(SweepChart.svg(result)))
        let p50 = try #require(root.descendants("path").first { $0.attributes["class"] == "p50" })
        let points = pathPoints(p50)
        #expect(points.count == 3)
        #expect(zip(points, points.dropFirst()).allSatisfy { $0.x < $1.x && $0.y > $1.y })
    }

    @Test("SVG: further axes split series by profile plus their values, labelled by the path's last name")
    func svgGroupsByOtherAxes() throws {
        let axes = [
            SweepAxis(name: "profile", values: ["WiFi"]),
            SweepAxis(name: "network.wifiPeerToPeer.loss", values: ["0.01", "0.1"]),
            SweepAxis(name: "payload", values: ["1KiB", "4KiB"]),
        ]
        var points: [SweepPoint] = []
        for loss in ["0.01", "0.1"] {
            for (text, bytes) in [("1KiB", 1024), ("4KiB", 4096)] {
                points.append(point(profile: "WiFi", bytes: bytes, milliseconds: [10], coordinates: ["WiFi", loss, text]))
            }
        }
        let root = try #require(parseXML(SweepChart.svg(sweep(axes: axes, points: points))))
        let labels = root.descendants("g").filter { $0.attributes["class"] == "legend-entry" }.compactMap { $0.attributes["data-series"] }
        #expect(labels == ["WiFi, loss=0.01", "WiFi, loss=0.1"])
        #expect(root.descendants("path").filter { $0.attributes["data-series"] == "WiFi, loss=0.1" }.count == 3)
        #expect(SweepChart.labelNames(["a.loss", "b.loss", "c.delay"]) == ["a.loss", "b.loss", "delay"])
    }

    @Test("SVG: a series no trial reached keeps its legend entry and draws no path")
    func svgEmptySeries() throws {
        var points = [256, 1024].map { point(profile: "WiFi", bytes: $0, milliseconds: [20]) }
        points += [256, 1024].map { point(profile: "Offline", bytes: $0, milliseconds: []) }
        let root = try #require(parseXML(SweepChart.svg(sweep(points: points))))
        #expect(root.descendants("path").count == 3)
        #expect(root.descendants("path").allSatisfy { $0.attributes["data-series"] == "WiFi" })
        let legend = root.descendants("g").filter { $0.attributes["class"] == "legend-entry" }.map { $0.descendants("text").first?.text }
        #expect(legend == ["WiFi", "Offline"])
    }

    @Test("SVG: the 3 KiB marker is left out when 3072 bytes is outside the x range")
    func svgGuidanceOutOfRange() throws {
        let result = sweep(points: [256, 512, 1024].map { point(profile: "WiFi", bytes: $0, milliseconds: [5]) })
        let root = try #require(parseXML(SweepChart.svg(result)))
        #expect(!root.descendants("g").contains { $0.attributes["class"] == "guidance" })
        #expect(!root.allText.contains("3 KiB guidance"))
    }

    @Test("SVG: other metrics name themselves on the y axis")
    func svgMetricTitle() throws {
        var aggregate = PointAggregate()
        aggregate.trials = 1
        aggregate[.advertToOffered].record(SimDuration.milliseconds(3))
        let result = sweep(points: [SweepPoint(coordinates: ["1KiB"], payloadBytes: 1024, profile: "WiFi", aggregate: aggregate)])
        let root = try #require(parseXML(SweepChart.svg(result, metric: .advertToOffered)))
        let titles = root.descendants("text").filter { $0.attributes["class"] == "axis-title" }.map(\.text)
        #expect(titles.first == "advert → offered latency (ms)")
        #expect(root.descendants("path").count == 3)
        // Accept → continue was never reached: the frame says so, no paths.
        let other = try #require(parseXML(SweepChart.svg(result)))
        #expect(other.descendants("path").isEmpty)
        #expect(other.allText.contains("no data"))
    }

    @Test("SVG: the accept → restored chart plots that metric's percentiles, a millisecond above accept → continue's")
    func svgRestoredMetric() throws {
        // The fixture's restores take (21 + trial % 21 + payload KiB) ms on
        // WiFi over 100 trials, 8 × (20 + trial % 21 + payload KiB) + 1 ms on
        // Very Bad Network over 90. Ranked by hand, at 256 B, 1 KiB, 4 KiB
        // and 16 KiB: WiFi p50 30, 31, 34, 46 ms and p99 41, 42, 45, 57 ms;
        // Very Bad Network p50 233, 241, 265, 361 ms and p99 (its maximum)
        // 321, 329, 353, 449 ms. The y axis runs 0–500 ms from y = 394 up
        // to 94: 0.6 units per millisecond. A percentile is its bucket's
        // top, never below the exact value and at most 1/1024 above it, and
        // a coordinate is rounded to 0.01 units (under 0.01 ms), so each
        // reads back within those bounds, closer than the whole millisecond
        // that separates accept → continue's.
        let root = try #require(parseXML(SweepChart.svg(twoProfilesFourPayloads(), metric: .acceptToRestored)))
        let titles = root.descendants("text").filter { $0.attributes["class"] == "axis-title" }.map(\.text)
        #expect(titles.first == "accept → restored latency (ms)")
        let ticks = root.descendants("text").filter { $0.attributes["class"] == "y-tick" }.map(\.text)
        #expect(ticks.prefix(6) == ["0", "100", "200", "300", "400", "500"])
        let expected: [(series: String, line: String, milliseconds: [Double])] = [
            ("WiFi", "p50", [30, 31, 34, 46]),
            ("WiFi", "p99", [41, 42, 45, 57]),
            ("Very Bad Network", "p50", [233, 241, 265, 361]),
            ("Very Bad Network", "p99", [321, 329, 353, 449]),
        ]
        for (series, line, milliseconds) in expected {
            let path = try #require(
                root.descendants("path").first { $0.attributes["data-series"] == series && $0.attributes["class"] == line })
            let readings = pathPoints(path).map { (394 - $0.y) / 0.6 }
            #expect(readings.count == milliseconds.count, "\(series) \(line)")
            for (reading, exact) in zip(readings, milliseconds) {
                #expect(
                    reading > exact - 0.01 && reading < exact * (1 + 1.0 / 1024) + 0.01,
                    "\(series) \(line): \(reading) ms, expected \(exact) ms")
            }
        }
    }

    // MARK: SVG text and numbers

    @Test("SVG: a scenario name and profile with <&\"> are escaped and read back intact")
    func svgEscaping() throws {
        let name = "Bad <&\"> name"
        let result = sweep(name: name, points: [point(profile: "A&B \"x\" <y>", bytes: 2048, milliseconds: [5])])
        let text = SweepChart.svg(result)
        #expect(!text.contains(name))
        let root = try #require(parseXML(text))
        #expect(root.descendants("text").first { $0.attributes["class"] == "title" }?.text == name)
        #expect(root.descendants("title").first?.text.hasPrefix(name) == true)
        #expect(root.descendants("path").allSatisfy { $0.attributes["data-series"] == "A&B \"x\" <y>" })
    }

    @Test("SVG: without a payload axis, or without points, it is still valid SVG saying no data")
    func svgNoData() throws {
        let noAxis = sweep(
            axes: [SweepAxis(name: "profile", values: ["WiFi"])],
            points: [point(profile: "WiFi", bytes: 1024, milliseconds: [5], coordinates: ["WiFi"])])
        let noPoints = sweep(points: [])
        for (result, reason) in [(noAxis, "no payload axis"), (noPoints, "no points")] {
            let root = try #require(parseXML(SweepChart.svg(result)))
            #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
            #expect(root.descendants("path").isEmpty)
            let message = root.descendants("text").first { $0.attributes["class"] == "no-data" }?.text ?? ""
            #expect(message.hasPrefix("no data"))
            #expect(message.contains(reason))
        }
    }

    @Test("coordinates print with at most two decimals, half away from zero, never -0")
    func coordinates() {
        #expect(Format.decimal(12.346) == "12.35")
        #expect(Format.decimal(3.10) == "3.1")
        #expect(Format.decimal(80) == "80")
        #expect(Format.decimal(-0.001) == "0")
        #expect(Format.decimal(-2.5) == "-2.5")
        #expect(Format.decimal(0.005) == "0.01")
        #expect(Format.decimal(.nan) == "0")
        // Every coordinate in the chart: digits, at most two decimals, no -0.
        let root = parseXML(SweepChart.svg(twoProfilesFourPayloads()))
        var numbers: [String] = []
        for element in root?.descendants(in: ["line", "text", "rect", "circle", "path"]) ?? [] {
            for name in ["x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "width", "height"] {
                if let value = element.attributes[name] { numbers.append(value) }
            }
            if let d = element.attributes["d"] {
                numbers += d.split(whereSeparator: { "ML Z,".contains($0) }).map(String.init)
            }
        }
        #expect(numbers.count > 100)
        for number in numbers {
            #expect(isPlainNumber(number), "\(number)")
        }
    }
}
