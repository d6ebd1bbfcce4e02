import Handoff
@testable import HandoffReport
@testable import HandoffScenario
import SimKernel
import Testing

/// The chart answers: a target line with each panel's answer, and the
/// budget strip where the points carry budgets.
@Suite("Sweep chart: target, answers and budget")
struct SweepChartAnswerTests {
    /// A point whose p95 is about `milliseconds` and whose trials all
    /// spend `resolveShare` of their time resolving, the rest transferring.
    static func point(bytes: Int, milliseconds: Int64, resolveShare: Double) -> SweepPoint {
        var aggregate = PointAggregate()
        for trial in 0..<20 {
            aggregate.trials += 1
            aggregate[.acceptToContinue].record(SimDuration.milliseconds(milliseconds - Int64(19 - trial)))
            var budget = LatencyBudget()
            let total = (milliseconds - Int64(19 - trial)) * 1_000_000
            budget[.resolve] = .nanoseconds(Int64(Double(total) * resolveShare))
            budget[.transfer] = .nanoseconds(total - budget[.resolve].nanoseconds)
            aggregate.budget.record(budget)
        }
        return SweepPoint(coordinates: [Format.size(bytes)], payloadBytes: bytes, profile: "WiFi", aggregate: aggregate)
    }

    static func result(_ points: [SweepPoint]) -> SweepResult {
        SweepResult(
            file: "s.json", name: "answers", digest: "0", seed: 1, trials: 20, activity: "a", device: "d",
            axes: [SweepAxis(name: "payload", values: points.map { $0.coordinates[0] })], points: points, shard: nil)
    }

    @Test("the target is drawn and the answer is the largest size meeting it, every smaller one meeting it too")
    func answer() throws {
        let points = [(1024, 300), (4096, 500), (16384, 900), (65536, 1400)].map {
            Self.point(bytes: $0.0, milliseconds: Int64($0.1), resolveShare: 0.5)
        }
        let root = try #require(parseXML(SweepChart.svg(Self.result(points), target: SweepChart.Target(latency: .seconds(1)))))
        let target = try #require(root.descendants("g").first { $0.attributes["class"] == "target" })
        #expect(target.attributes["data-nanoseconds"] == "1000000000")
        let answer = try #require(root.descendants("g").first { $0.attributes["class"] == "answer" })
        #expect(answer.attributes["data-bytes"] == "16384")
        #expect(answer.allText.contains("up to 16 KiB"))
        // The y axis covers the target and the data, no more than needed.
        let ticks = root.descendants("text").filter { $0.attributes["class"] == "y-tick" }.map(\.text)
        #expect(ticks.last == "1500")
        // A target no size meets says so, with the smallest size's figure.
        let strict = try #require(parseXML(SweepChart.svg(Self.result(points), target: SweepChart.Target(latency: .milliseconds(100)))))
        let none = try #require(strict.descendants("g").first { $0.attributes["class"] == "answer" })
        #expect(none.attributes["data-bytes"] == "none")
        #expect(none.allText.contains("no size meets the target"))
        #expect(none.allText.contains("1 KiB"))
        // Without a target, nothing of it.
        let plain = try #require(parseXML(SweepChart.svg(Self.result(points))))
        #expect(!plain.descendants("g").contains { $0.attributes["class"] == "target" || $0.attributes["class"] == "answer" })
    }

    @Test("the tables carry the budget: CSV every phase's p95 share and mean, the text and Markdown its largest phases")
    func budgetColumns() throws {
        let result = Self.result([Self.point(bytes: 1024, milliseconds: 300, resolveShare: 0.75)])
        let lines = SweepTable.csv(result).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        let shares = header.indices.filter { header[$0].hasSuffix("_p95_share") }
        #expect(shares.count == LatencyBudget.Phase.allCases.count)
        let values = shares.map { Double(lines[1][$0]) ?? -1 }
        #expect(abs(values.reduce(0, +) - 1) < 1e-5)
        let resolve = try #require(header.firstIndex(of: "phase_resolve_p95_share"))
        #expect(abs((Double(lines[1][resolve]) ?? 0) - 0.75) < 0.01)
        #expect(SweepTable.markdown(result).contains("resolve 75% · transfer 25%"))
        #expect(SweepTable.text(result, columns: .full).contains("resolve 75% · transfer 25%"))
    }

    @Test("the budget strip stacks each phase's share of the p95 trials, with a legend of the phases that appear")
    func budgetStrip() throws {
        let points = [(1024, 300, 0.8), (65536, 900, 0.2)].map {
            Self.point(bytes: $0.0, milliseconds: Int64($0.1), resolveShare: $0.2)
        }
        let root = try #require(parseXML(SweepChart.svg(Self.result(points))))
        let strip = try #require(root.descendants("g").first { $0.attributes["class"] == "budget" })
        let phases = strip.descendants("path").compactMap { $0.attributes["data-phase"] }
        #expect(phases == ["resolve", "transfer"])
        let legend = root.descendants("g").filter { $0.attributes["class"] == "legend-phase" }.compactMap { $0.attributes["data-phase"] }
        #expect(legend == ["resolve", "transfer"])
        // The resolve band is 80% of the strip at 1 KiB and 20% at 64 KiB:
        // its top edge falls as the payload grows.
        let resolve = try #require(strip.descendants("path").first { $0.attributes["data-phase"] == "resolve" })
        let corners = pathPoints(resolve)
        #expect(corners.count == 4)
        #expect(corners[0].y < corners[1].y)
    }
}
