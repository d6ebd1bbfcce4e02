import Foundation
import Testing

@Suite("handoff-bench compare")
struct BenchCompareTests {
    /// A suite result with the given handoff figures.
    static func result(trialsPerSecond: Double, eventsPerTrial: Double, peak: Int = 20_000_000, withSweep: Bool = true) -> String {
        var workloads = [
            """
            "handoff": {
              "trialsPerSecond": { "value": \(trialsPerSecond), "kind": "higher" },
              "nsPerEvent": { "value": \(1e9 / (trialsPerSecond * eventsPerTrial)), "kind": "lower" },
              "eventsPerTrial": { "value": \(eventsPerTrial), "kind": "exact" },
              "peakResidentBytes": { "value": \(peak), "kind": "lower" }
            }
            """,
        ]
        if withSweep {
            workloads.append(#""sweep": { "eventsPerTrial": { "value": 63.5, "kind": "exact" } }"#)
        }
        return #"{ "tool": "handoff-bench", "format": 1, "cores": 2, "workloads": { "# + workloads.joined(separator: ", ") + " } }"
    }

    static func compare(_ old: String, _ new: String, _ extra: [String] = []) throws -> ProductRun {
        let directory = NSTemporaryDirectory() + "bench-compare-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try old.write(toFile: directory + "/old.json", atomically: true, encoding: .utf8)
        try new.write(toFile: directory + "/new.json", atomically: true, encoding: .utf8)
        return try ProductRunner.run("handoff-bench", ["compare", directory + "/old.json", directory + "/new.json"] + extra)
    }

    @Test("identical, within the time threshold, or better: exit 0")
    func unchanged() throws {
        let old = Self.result(trialsPerSecond: 180_000, eventsPerTrial: 33.85)
        #expect(try Self.compare(old, old).status == 0)
        let slightlySlower = try Self.compare(old, Self.result(trialsPerSecond: 171_000, eventsPerTrial: 33.85))
        #expect(slightlySlower.status == 0)
        #expect(slightlySlower.standardOutput.contains("handoff.trialsPerSecond: 180000 → 171000 (×0.950, higher) ok"))
        #expect(try Self.compare(old, Self.result(trialsPerSecond: 250_000, eventsPerTrial: 33.85)).status == 0)
    }

    @Test("slower past the threshold, more memory, a changed counter or a missing workload: exit 2")
    func regressions() throws {
        let old = Self.result(trialsPerSecond: 180_000, eventsPerTrial: 33.85)
        let slower = try Self.compare(old, Self.result(trialsPerSecond: 150_000, eventsPerTrial: 33.85))
        #expect(slower.status == 2)
        #expect(slower.standardOutput.contains("handoff.trialsPerSecond: 180000 → 150000 (×0.833, higher) REGRESSED"))
        // The same figure passes with a looser threshold.
        #expect(try Self.compare(old, Self.result(trialsPerSecond: 150_000, eventsPerTrial: 33.85), ["--time-threshold", "25%"]).status == 0)
        let counter = try Self.compare(old, Self.result(trialsPerSecond: 180_000, eventsPerTrial: 33.9))
        #expect(counter.status == 2)
        #expect(counter.standardOutput.contains("handoff.eventsPerTrial: 33.850 → 33.900 (×1.001, exact) CHANGED"))
        #expect(try Self.compare(old, Self.result(trialsPerSecond: 180_000, eventsPerTrial: 33.85, peak: 25_000_000)).status == 2)
        let missing = try Self.compare(old, Self.result(trialsPerSecond: 180_000, eventsPerTrial: 33.85, withSweep: false))
        #expect(missing.status == 2)
        #expect(missing.standardOutput.contains("sweep: missing from "))
    }

    @Test("unreadable input or bad options: exit 64")
    func usage() throws {
        #expect(try Self.compare("{", Self.result(trialsPerSecond: 1, eventsPerTrial: 1)).status == 64)
        #expect(try Self.compare(#"{"tool": "x"}"#, Self.result(trialsPerSecond: 1, eventsPerTrial: 1)).status == 64)
        let old = Self.result(trialsPerSecond: 1, eventsPerTrial: 1)
        #expect(try Self.compare(old, old, ["--time-threshold", "ten"]).status == 64)
    }
}
