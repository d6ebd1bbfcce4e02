import Foundation
import Handoff
import SimKernel
import Testing

/// The metric table: each latency a pair of milestones, its names defined
/// once, and the milestone times it is computed from.
@Suite("Latency metrics")
struct LatencyMetricTests {
    @Test("every name of a metric is its own: raw value, label, short name and CSV name are unique")
    func uniqueNames() {
        let metrics = LatencyMetric.allCases
        for name in [metrics.map(\.rawValue), metrics.map(\.label), metrics.map(\.shortName), metrics.map(\.csvName)] {
            #expect(Set(name).count == metrics.count, "\(name)")
        }
        #expect(metrics.allSatisfy { $0.start != $0.end })
        #expect(LatencyMetric.tabulated.allSatisfy(metrics.contains))
    }

    @Test("a latency is its end minus its start, when both were reached and the end is not earlier")
    func latencyFromMilestones() {
        var times = MilestoneTimes()
        #expect(times.latency(.acceptToContinue) == nil)
        times[.accepted] = .milliseconds(20)
        #expect(times.latency(.acceptToContinue) == nil)
        times[.continued] = .milliseconds(470)
        #expect(times.latency(.acceptToContinue) == .milliseconds(450))
        times[.continued] = .milliseconds(10)
        #expect(times.latency(.acceptToContinue) == nil, "an end before the start is no value")
        times.reach(.connected, at: .milliseconds(100))
        times.reach(.connected, at: .milliseconds(300))
        #expect(times[.connected] == .milliseconds(100), "reach keeps the first time")
        times[.connected] = nil
        #expect(times[.connected] == nil)
    }

    @Test("milestone times hold every milestone, each apart from the others")
    func everyMilestoneHasRoom() {
        var times = MilestoneTimes()
        for (index, milestone) in Milestone.allCases.enumerated() { times[milestone] = .nanoseconds(Int64(index) * 7 + 1) }
        for (index, milestone) in Milestone.allCases.enumerated() {
            #expect(times[milestone] == .nanoseconds(Int64(index) * 7 + 1), "\(milestone)")
        }
        #expect(Milestone.allCases.map(\.rawValue) == Array(0..<Milestone.allCases.count))
        var other = times
        #expect(other == times)
        other[.requested] = nil
        #expect(other != times)
    }

    @Test("the scenario format's table lists every metric with its milestones, label and column")
    func documented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let text = try String(contentsOfFile: root + "/docs/scenario-format.md", encoding: .utf8)
        for metric in LatencyMetric.allCases {
            let row = "| `\(metric.rawValue)` | `\(metric.start)` | `\(metric.end)` | \(metric.label) | `\(metric.csvName)_ns` |"
            #expect(text.contains(row), "docs/scenario-format.md lacks \(row)")
        }
    }
}
