import Handoff
import HandoffReport
@testable import HandoffScenario
import SimKernel
import Testing

/// `--samples`: every trial's outcome and latencies, in trial order,
/// whatever the number of threads, agreeing with the aggregates.
@Suite("Per-trial samples")
struct TrialSampleTests {
    /// A latency column per metric, in the metric table's order (the
    /// table is the one place a metric is declared; the columns around
    /// them are literal).
    static let metricColumns = LatencyMetric.allCases.map { $0.csvName + "_ns," }.joined()

    /// A lossy link, so that trials differ.
    static let lossy = scenarioText(
        #""trials": 40, "network": { "wifiPeerToPeer": { "loss": 0.05 } }"#,
        expect: #"[{ "outcome": "continued", "on": "iphone", "atLeast": "10%" }]"#)

    @Test("a run records one sample per trial and receiving device, the same for 1 and 3 threads, matching the histograms")
    func runSamples() throws {
        let scenario = try validScenario(Self.lossy)
        let one = ScenarioRunner(jobs: 1, recordsSamples: true).run(scenario)
        let three = ScenarioRunner(jobs: 3, recordsSamples: true).run(scenario)
        #expect(one.samples.count == 40)
        #expect(one.samples == three.samples)
        #expect(one.samples.map(\.trial) == Array(0..<40))
        #expect(one.samples.allSatisfy { $0.activity == 0 && $0.device == 1 })
        // Without the option nothing is kept, and nothing else changes.
        let plain = ScenarioRunner(jobs: 3).run(scenario)
        #expect(plain.samples.isEmpty)
        #expect(plain.pairs == one.pairs)
        // The samples are the trials the summary counts.
        let pair = try #require(one.pairs.first)
        let summary = try #require(pair.latencies.first { $0.metric == .acceptToContinue })
        let continues = one.samples.compactMap { $0[.acceptToContinue] }
        #expect(continues.count == summary.count)
        #expect(continues.max() == summary.max)
        let fetches = one.samples.compactMap { $0[.fetch] }
        #expect(fetches.count == continues.count)
        #expect(Set(fetches).count > 1, "a lossy link gives trials different fetch times")
        // A trial replayed alone gives its sample's figures.
        let replay = try ScenarioRunner.replay(scenario, seed: scenario.seed, trial: 7)
        let replayed = try #require(replay.summaries.first { $0.device == "iphone" })
        #expect(replayed[.fetch] == one.samples[7][.fetch])
        #expect(replayed[.acceptToContinue] == one.samples[7][.acceptToContinue])
    }

    @Test("the run's CSV has a header, one row per sample, and empty fields for latencies not reached")
    func runCSV() throws {
        let scenario = try validScenario(Self.lossy, file: "a, b.json")
        let result = ScenarioRunner(recordsSamples: true).run(scenario, trials: 5)
        let csv = SamplesCSV.render([FileResult(file: "a, b.json", outcome: .ran(result))])
        let lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "scenario,trial,activity,device,outcome," + Self.metricColumns
            + "phase_launch_ns,phase_will_continue_ns,phase_rapport_gave_up_ns,phase_resolve_ns,phase_connect_ns,"
            + "phase_pair_verify_ns,phase_system_info_ns,phase_request_ns,phase_source_update_ns,phase_encode_ns,"
            + "phase_relay_ns,phase_transfer_ns,phase_decode_ns")
        #expect(lines.count == 1 + 5 + 1)
        #expect(lines.last == "")
        let sample = result.samples[2]
        let expected = "\"a, b.json\",2,activity,iphone,\(sample.outcome!),"
            + LatencyMetric.allCases.map { sample[$0] }
            .map { $0.map { String($0.nanoseconds) } ?? "" }.joined(separator: ",") + ","
            + LatencyBudget.Phase.allCases.map { phase in sample.budget.map { String($0[phase].nanoseconds) } ?? "" }
            .joined(separator: ",")
        #expect(lines[3] == expected)
    }

    @Test("a sweep records every point's trials in order, the same for 1 and 2 threads, as CSV with the axes")
    func sweepSamples() throws {
        let prepared = try SweepTests.prepare(
            scenarioText(#""trials": 12, "network": { "wifiPeerToPeer": { "loss": 0.05 } }"#),
            payloads: ["1KiB", "8KiB"])
        func run(_ jobs: Int) throws -> SweepResult {
            try SweepRunner(jobs: jobs, recordsSamples: true).run(prepared)
        }
        let one = try run(1)
        let two = try run(2)
        #expect(one.points.map(\.samples) == two.points.map(\.samples))
        for point in one.points {
            #expect(point.samples.map(\.trial) == Array(0..<12))
            #expect(UInt64(point.samples.compactMap { $0[.acceptToContinue] }.count) == point.aggregate[.acceptToContinue].count)
        }
        let csv = SamplesCSV.render(one).split(separator: "\n").map(String.init)
        #expect(csv.first == "payload,payload_bytes,trial,activity,device,outcome," + Self.metricColumns
            + LatencyBudget.Phase.allCases.map(\.csvName).joined(separator: ","))
        #expect(csv.count == 1 + 24)
        #expect(csv[13].hasPrefix("8KiB,8192,0,activity,iphone,"))
    }
}
