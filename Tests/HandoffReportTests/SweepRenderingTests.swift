import Handoff
@testable import HandoffReport
import HandoffScenario
import SimKernel
import Testing

#if canImport(FoundationXML)
import Foundation
import FoundationXML
#else
import Foundation
#endif

/// The renderings of sweep results: tables (text, CSV, Markdown) and the
/// SVG chart.
@Suite("Sweep rendering")
struct SweepRenderingTests {
    // MARK: CSV

    @Test("CSV: header names every column in order; rows hold exact counts, rates and nanoseconds")
    func csvExact() {
        var first = PointAggregate()
        first.trials = 1000
        first.continued = 1000
        for value in Int64(1)...1000 { first[.acceptToContinue].record(value) }
        first[.advertToOffered].record(1500)
        var second = PointAggregate()
        second.trials = 3
        second.continued = 1
        second.continuedInBrowser = 1
        second.failures = [0, 0, 1, 0]
        second[.acceptToContinue].record(7)
        second[.acceptToContinue].record(9)
        second[.acceptToRestored].record(8)
        let result = sweep(
            axes: [SweepAxis(name: "payload", values: ["1KiB", "4KiB"])],
            points: [
                SweepPoint(coordinates: ["1KiB"], payloadBytes: 1024, profile: "WiFi", aggregate: first),
                SweepPoint(coordinates: ["4KiB"], payloadBytes: 4096, profile: "WiFi", aggregate: second),
            ])
        let header = "payload,payload_bytes,trials,success_rate,failed_4608,failed_4609,failed_4610,failed_4611,not_offered,"
            + "accept_to_continue_p50_ns,accept_to_continue_p90_ns,accept_to_continue_p95_ns,accept_to_continue_p99_ns,"
            + "accept_to_continue_p99_9_ns,accept_to_continue_max_ns,"
            + "accept_to_restored_p50_ns,accept_to_restored_p90_ns,accept_to_restored_p95_ns,accept_to_restored_p99_ns,"
            + "accept_to_restored_p99_9_ns,accept_to_restored_max_ns,"
            + "advert_to_offered_p50_ns,advert_to_offered_p90_ns,advert_to_offered_p95_ns,advert_to_offered_p99_ns,"
            + "advert_to_offered_p99_9_ns,advert_to_offered_max_ns,"
            + "fetch_p50_ns,fetch_p90_ns,fetch_p95_ns,fetch_p99_ns,fetch_p99_9_ns,fetch_max_ns,"
        let shares: [String] = LatencyBudget.Phase.allCases.map { String($0.csvName.dropLast(3)) + "_p95_share" }
        let means: [String] = LatencyBudget.Phase.allCases.map { String($0.csvName.dropLast(3)) + "_mean_ns" }
        let budgetHeader: String = (shares + means).joined(separator: ",")
        // No budgets recorded here: their 26 columns are empty.
        let noBudget = String(repeating: ",", count: 26)
        let expected = header + budgetHeader + "\n"
            + "1KiB,1024,1000,1,0,0,0,0,0,500,900,950,990,999,1000,,,,,,,1500,1500,1500,1500,1500,1500,,,,,," + noBudget + "\n"
            + "4KiB,4096,3,0.666667,0,0,1,0,0,7,9,9,9,9,9,8,8,8,8,8,8,,,,,,,,,,,," + noBudget + "\n"
        #expect(SweepTable.csv(result) == expected)
    }

    @Test("CSV: fields with a comma or quote are quoted with inner quotes doubled; control characters are escaped, so a row is one line")
    func csvQuoting() {
        #expect(SweepTable.csvField("plain value") == "plain value")
        #expect(SweepTable.csvField("a,b") == "\"a,b\"")
        #expect(SweepTable.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(SweepTable.csvField("two\nlines") == "two\\nlines")
        #expect(SweepTable.csvField("a,\r\u{1B}") == "\"a,\\r\\u{1B}\"")
        let result = sweep(
            axes: [SweepAxis(name: "odd,\"axis\"", values: ["x, y"]), SweepAxis(name: "payload", values: ["1KiB"])],
            points: [SweepPoint(coordinates: ["x, y", "1KiB"], payloadBytes: 1024, profile: "WiFi", aggregate: PointAggregate())])
        let lines = SweepTable.csv(result).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)  // header, one row, and the empty text after the final LF
        #expect(lines[0].hasPrefix("\"odd,\"\"axis\"\"\",payload,payload_bytes,"))
        // No trials: the rate and every latency are empty, the counts 0.
        #expect(lines[1] == "\"x, y\",1KiB,1024,0,,0,0,0,0,0" + String(repeating: ",", count: 24 + 26))
    }

    @Test("success rates round half up to six decimals (CSV) and two decimals of a percent (text)")
    func successRates() {
        var aggregate = PointAggregate()
        aggregate.trials = 800
        aggregate.continued = 789
        aggregate.continuedInBrowser = 1
        #expect(SweepTable.successRate(aggregate, scale: 1_000_000) == 987_500)
        #expect(SweepTable.decimalText(987_500, scale: 1_000_000) == "0.9875")
        let point = SweepPoint(coordinates: [], payloadBytes: 1, profile: "WiFi", aggregate: aggregate)
        #expect(SweepTable.displayFields(point, axisCount: 0)[2] == "98.75%")
        aggregate.trials = 3
        aggregate.continued = 2
        aggregate.continuedInBrowser = 0
        #expect(SweepTable.successRate(aggregate, scale: 1_000_000) == 666_667)
        #expect(SweepTable.successRate(aggregate, scale: 10_000) == 6_667)
        #expect(SweepTable.decimalText(1_000_000, scale: 1_000_000) == "1")
        #expect(SweepTable.decimalText(50_000, scale: 1_000_000) == "0.05")
        #expect(SweepTable.decimalText(0, scale: 100) == "0")
    }

    // MARK: Durations

    @Test("latencies print as durations to three significant digits, — when nothing was recorded")
    func durations() {
        #expect(SweepTable.durationText(430_251_040) == "430ms")
        #expect(SweepTable.durationText(1_234_500_000) == "1.23s")
        #expect(SweepTable.durationText(1_235_000_000) == "1.24s")
        #expect(SweepTable.durationText(12_500) == "12.5us")
        #expect(SweepTable.durationText(999_600) == "1ms")
        #expect(SweepTable.durationText(17) == "17ns")
        #expect(SweepTable.durationText(0) == "0s")
        #expect(SweepTable.durationText(nil) == "—")
        #expect(SimDuration(nanoseconds: .max).rounded(toSignificantDigits: 3).nanoseconds == 9_220_000_000_000_000_000)  // no overflow
        #expect(SimDuration(nanoseconds: -1_235_000).rounded(toSignificantDigits: 3).nanoseconds == -1_240_000)
    }

    // MARK: Text and Markdown

    @Test("text table: every column lines up under its header, one row per point")
    func textAligned() throws {
        let result = twoProfilesFourPayloads()
        let lines = SweepTable.text(result, columns: .full).split(separator: "\n").map(String.init)
        #expect(lines.count == 2 + result.points.count)
        let rule = Array(lines[1])
        // The rule is runs of dashes separated by two spaces, one per column.
        let runs = String(rule).split(separator: " ", omittingEmptySubsequences: true)
        #expect(runs.count == SweepTable.displayHeader(result).count)
        #expect(runs.allSatisfy { $0.allSatisfy { $0 == "-" } })
        for line in lines {
            let characters = Array(line)
            #expect(characters.count == rule.count, "\(line)")
            for (index, mark) in rule.enumerated() where mark == " " && index < characters.count {
                #expect(characters[index] == " ", "column gap at \(index) in \(line)")
            }
        }
        #expect(lines[0].hasPrefix("profile           payload  bytes  trials  success"))
        #expect(lines[0].contains("a→c p50"))
        #expect(lines[0].hasSuffix("fetch max  p95 trials' time"))
        #expect(lines[2].hasPrefix("WiFi              256B       256     100"))
        #expect(lines[2].contains(" 40ms "))
        #expect(lines[2].hasSuffix("—"))  // advert → offered was never recorded

        // A line break in a value stays within its row.
        let broken = sweep(points: [point(profile: "WiFi", bytes: 1024, milliseconds: [5], coordinates: ["1\nKiB"])])
        let brokenLines = SweepTable.text(broken, columns: .full).split(separator: "\n")
        #expect(brokenLines.count == 3)
        #expect(brokenLines[2].hasPrefix("1 KiB"))
    }

    @Test("the default text table is compact: under 120 columns with the longest profile name and a payload axis")
    func compactTextFits() throws {
        let result = twoProfilesFourPayloads()
        #expect(result.points.contains { $0.coordinates.first == "Very Bad Network" })
        let lines = SweepTable.text(result).split(separator: "\n").map(String.init)
        #expect(lines.count == 2 + result.points.count)
        #expect(lines.allSatisfy { $0.count < 120 }, "\(lines.map(\.count))")
        #expect(lines[0] == "profile           payload  trials  success  failed  not offered  a→c p50  a→c p90  a→c p95  a→c p99  a→c max")
        #expect(lines[2].hasPrefix("WiFi              256B"))
        #expect(SweepTable.text(result, columns: .full).split(separator: "\n").first?.contains("err 4608") == true)
    }

    @Test("Markdown: a heading with scenario, seed and trials, then one table row per point")
    func markdown() {
        let result = twoProfilesFourPayloads()
        let lines = SweepTable.markdown(result).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "## Sweep: Payload sweep (seed 42, 100 trials per point)")
        let tableRows = lines.filter { $0.hasPrefix("|") }
        #expect(tableRows.count == 2 + result.points.count)
        let columns = SweepTable.displayHeader(result).count
        for row in tableRows {
            #expect(row.filter { $0 == "|" }.count == columns + 1, "\(row)")
        }
        #expect(tableRows[1].hasPrefix("|---|---|---:|"))
        #expect(tableRows[2].hasPrefix("| WiFi | 256B | 256 | 100 | 100% |"))
        #expect(lines.last == "")
    }

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
        #expect(SweepChart.bytesText(exponent: 20) == "1 MiB")
        #expect(SweepChart.bytesText(exponent: 16) == "64 KiB")
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
        #expect(SweepChart.number(12.346) == "12.35")
        #expect(SweepChart.number(3.10) == "3.1")
        #expect(SweepChart.number(80) == "80")
        #expect(SweepChart.number(-0.001) == "0")
        #expect(SweepChart.number(-2.5) == "-2.5")
        #expect(SweepChart.number(0.005) == "0.01")
        #expect(SweepChart.number(.nan) == "0")
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

    // MARK: Determinism

    @Test("every rendering is byte-identical for equal results, however their histograms were filled")
    func deterministic() {
        let forward = twoProfilesFourPayloads()
        let backward = twoProfilesFourPayloads(reversedRecording: true)
        #expect(forward == backward)
        #expect(SweepTable.text(forward) == SweepTable.text(backward))
        #expect(SweepTable.csv(forward) == SweepTable.csv(backward))
        #expect(SweepTable.markdown(forward) == SweepTable.markdown(backward))
        #expect(SweepChart.svg(forward) == SweepChart.svg(backward))
        #expect(SweepChart.svg(forward, metric: .acceptToRestored) == SweepChart.svg(forward, metric: .acceptToRestored))
    }

    // MARK: Fixtures

    /// A sweep result with the given axes and points.
    func sweep(
        name: String = "Payload sweep", axes: [SweepAxis] = [SweepAxis(name: "payload", values: [])], points: [SweepPoint]
    ) -> SweepResult {
        SweepResult(
            file: "scenarios/sweep.json", name: name, digest: "00", seed: 42, trials: 100, activity: "note",
            device: "mac", axes: axes, points: points, shard: nil)
    }

    /// A point whose trials all continued, one per latency in `milliseconds`.
    func point(profile: String, bytes: Int, milliseconds: [Int64], coordinates: [String]? = nil) -> SweepPoint {
        var aggregate = PointAggregate()
        aggregate.trials = UInt64(milliseconds.count)
        aggregate.continued = UInt64(milliseconds.count)
        for value in milliseconds { aggregate[.acceptToContinue].record(SimDuration.milliseconds(value)) }
        return SweepPoint(coordinates: coordinates ?? ["\(bytes)B"], payloadBytes: bytes, profile: profile, aggregate: aggregate)
    }

    /// Two profiles × four payloads, 100 trials each. WiFi always continues
    /// in 20–40 ms plus 1 ms per KiB; Very Bad Network loses 4608 in a
    /// tenth of the trials and takes eight times as long. Restores take a
    /// millisecond longer; no advertisement timing is recorded.
    func twoProfilesFourPayloads(reversedRecording: Bool = false) -> SweepResult {
        let payloads = [("256B", 256), ("1KiB", 1024), ("4KiB", 4096), ("16KiB", 16384)]
        let profiles = ["WiFi", "Very Bad Network"]
        var points: [SweepPoint] = []
        for (index, profile) in profiles.enumerated() {
            for (text, bytes) in payloads {
                var aggregate = PointAggregate()
                aggregate.trials = 100
                let continued: UInt64 = index == 0 ? 100 : 90
                aggregate.continued = continued
                aggregate.failures = [100 - continued, 0, 0, 0]
                var values = (0..<continued).map { trial in
                    (20 + Int64(trial % 21) + Int64(bytes / 1024)) * (index == 0 ? 1 : 8) * 1_000_000
                }
                if reversedRecording { values.reverse() }
                for value in values {
                    aggregate[.acceptToContinue].record(value)
                    aggregate[.acceptToRestored].record(value + 1_000_000)
                }
                points.append(SweepPoint(coordinates: [profile, text], payloadBytes: bytes, profile: profile, aggregate: aggregate))
            }
        }
        return sweep(
            axes: [SweepAxis(name: "profile", values: profiles), SweepAxis(name: "payload", values: payloads.map(\.0))],
            points: points)
    }
}

// MARK: XML

/// An element read back from the SVG.
final class XMLElementNode {
    let name: String
    let attributes: [String: String]
    var children: [XMLElementNode] = []
    /// The element's own character data.
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// This element and every element under it named `name`, in document
    /// order.
    func descendants(_ name: String) -> [XMLElementNode] {
        (self.name == name ? [self] : []) + children.flatMap { $0.descendants(name) }
    }

    /// This element and every element under it with one of `names`, in
    /// document order.
    func descendants(in names: Set<String>) -> [XMLElementNode] {
        (names.contains(name) ? [self] : []) + children.flatMap { $0.descendants(in: names) }
    }

    /// The character data of this element and everything under it.
    var allText: String { text + children.map(\.allText).joined() }
}

/// Builds the tree of elements as the parser reports them.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    var stack: [XMLElementNode] = []
    var root: XMLElementNode?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let element = XMLElementNode(name: elementName, attributes: attributes)
        stack.last?.children.append(element)
        if stack.isEmpty { root = element }
        stack.append(element)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.text += string
    }
}

/// The document element of `text`, or `nil` when it is not well-formed XML.
func parseXML(_ text: String) -> XMLElementNode? {
    let parser = XMLParser(data: Data(text.utf8))
    let builder = XMLTreeBuilder()
    parser.delegate = builder
    guard parser.parse() else { return nil }
    return builder.root
}

/// Whether `text` is a number as the chart prints it: an optional minus,
/// digits, and at most two decimals without a trailing zero; never `-0`.
func isPlainNumber(_ text: String) -> Bool {
    let unsigned = text.hasPrefix("-") ? String(text.dropFirst()) : text
    let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
    guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber),
        parts.count <= 2
    else { return false }
    if parts.count == 2 {
        let fraction = parts[1]
        guard (1...2).contains(fraction.count), fraction.allSatisfy(\.isNumber), fraction.allSatisfy(\.isASCII),
            fraction.last != "0"
        else { return false }
    }
    return !(text.hasPrefix("-") && Double(unsigned) == 0)
}

/// The points of a path's `d` (`M x,y L x,y …`).
func pathPoints(_ path: XMLElementNode) -> [(x: Double, y: Double)] {
    let d = path.attributes["d"] ?? ""
    return d.split(whereSeparator: { $0 == "M" || $0 == "L" || $0 == " " || $0 == "Z" }).compactMap { pair in
        let parts = pair.split(separator: ",")
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]) else { return nil }
        return (x, y)
    }
}
