import Handoff
@testable import HandoffReport
@testable import HandoffScenario
import SimKernel
import Testing

/// A sweep's intervals over a fit's bootstrap replicates in every table
/// and in the chart.
@Suite("Sweep rendering: intervals from the fit's replicates")
struct SweepIntervalRenderingTests {
    let helpers = SweepRenderingTests()

    /// One payload point with 100 trials at 10…109 ms, and one replicate
    /// per shift of those latencies (−5, +5 and +20 ms unless given).
    func result(shifts: [Int64] = [-5, 5, 20]) -> SweepResult {
        var point = helpers.point(profile: "WiFi", bytes: 1024, milliseconds: Array(10...109))
        point.replicates = shifts.map { shift in
            helpers.point(profile: "WiFi", bytes: 1024, milliseconds: (10...109).map { $0 + shift }).aggregate
        }
        return helpers.sweep(axes: [SweepAxis(name: "payload", values: ["1KiB"])], points: [point])
    }

    @Test("text and Markdown: the interval beside each p50, p90, p95 and p99, and one line saying what it is")
    func tables() {
        let result = result()
        let text = SweepTable.text(result)
        // Nearest rank: p95 of 10…109 ms is 104 ms; the replicates give 99 and 124 ms.
        #expect(text.contains("104ms [99ms–124ms]"))
        #expect(text.contains("59ms [54ms–79ms]"))
        #expect(!text.contains("109ms ["), "max has no interval")
        #expect(text.contains("over the overlay's 3 bootstrap replicates"))
        let markdown = SweepTable.markdown(result)
        #expect(markdown.contains("104ms [99ms–124ms]"))
        #expect(markdown.contains("3 bootstrap replicates"))
        // Without replicates, neither.
        var plain = result
        plain.points[0].replicates = []
        #expect(!SweepTable.text(plain).contains("["))
        #expect(!SweepTable.text(plain).contains("bootstrap"))
    }

    @Test("CSV: low and high columns after every other, in nanoseconds")
    func csv() throws {
        let result = result()
        let lines = SweepTable.csv(result).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0], row = lines[1]
        #expect(header.count == row.count)
        let low = try #require(header.firstIndex(of: "accept_to_continue_p95_low_ns"))
        #expect(header[low + 1] == "accept_to_continue_p95_high_ns")
        // The fastest and the slowest replicate's histogram values.
        let ends = [0, 2].map { result.points[0].replicates[$0][.acceptToContinue].value(atPercentile: 95).map { String($0) } }
        #expect(row[low] == ends[0] && row[low + 1] == ends[1])
        #expect(row[low] != row[low + 1])
        #expect(header.last == "advert_to_offered_p99_high_ns" || header.last?.hasSuffix("_p99_high_ns") == true)
        // The accept → restored metric has no trials: empty ends.
        let restored = try #require(header.firstIndex(of: "accept_to_restored_p50_low_ns"))
        #expect(row[restored] == "" && row[restored + 1] == "")
        var plain = result
        plain.points[0].replicates = []
        #expect(!SweepTable.csv(plain).contains("_low_ns"))
    }

    @Test("chart: a whisker per point over the target's percentile, inside the plot, and a legend entry")
    func chart() throws {
        // The slowest replicate's p95 (164 ms) is above what the p99 and
        // the target alone would give the axis (150 ms).
        let svg = SweepChart.svg(result(shifts: [-5, 5, 60]), target: SweepChart.Target(latency: .milliseconds(110)))
        let root = try #require(parseXML(svg))
        let whiskers = root.descendants("path").filter { $0.attributes["class"] == "interval" }
        #expect(whiskers.count == 1)
        let ys = pathPoints(try #require(whiskers.first)).map(\.y)
        let p99 = try #require(root.descendants("path").first { $0.attributes["class"] == "p99" })
        let p99Top = try #require(pathPoints(p99).map(\.y).min())
        let whiskerTop = try #require(ys.min())
        // The whisker's high end (164 ms) stands above the p99 (109 ms), and
        // the y axis covers it: it lies inside the plot, below its top edge
        // (the grid's highest line).
        #expect(whiskerTop < p99Top)
        let gridTop = try #require(root.descendants("line").compactMap { $0.attributes["y1"].flatMap(Double.init) }.min())
        #expect(whiskerTop >= gridTop)
        #expect(svg.contains("p95: 95% interval over 3 fit replicates"))
        var plain = result()
        plain.points[0].replicates = []
        #expect(!SweepChart.svg(plain).contains("class=\"interval\""))
    }
}
