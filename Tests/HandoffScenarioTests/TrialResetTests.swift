import Handoff
@testable import HandoffScenario
import HandoffWorld
import SimKernel
import Testing

/// A run reused for many trials gives, for trial k, exactly what a new run
/// of trial k gives: the same trace, summaries, violations, packets and
/// event count, however many other trials it ran before and whatever they
/// left behind (retransmissions, backed-off timers, recoveries, streams,
/// relay connections, changed settings and accounts).
@Suite("Trial reset")
struct TrialResetTests {
    /// Shipped scenarios that between them reach every kind of per-trial
    /// state: a lossy peer-to-peer transfer (bursts: retransmissions, RACK,
    /// tail-loss probes, timeouts and their backoff, SACK blocks), the
    /// cloud relay over a lossy access link, continuation streams, a device
    /// walking out of range mid-fetch, an account signed out mid-fetch, and
    /// two sources.
    static let scenarios = [
        "burst-loss", "relay-very-bad-network", "streams-large-document", "walk-away-mid-fetch",
        "sign-out-during-fetch", "two-candidate-sources",
    ]

    /// What a trial shows, in full.
    struct Observed: Equatable {
        var trace: [TraceRecord]
        var traceCount: Int
        var events: UInt64
        var summaries: [ContinuationSummary]
        var violations: [Violation]
        var packets: [PacketRecord]
        var failure: String?
    }

    static func scenario(_ name: String) throws -> Scenario {
        let file = packageRoot() + "/scenarios/\(name).json"
        return try validScenario(try String(contentsOfFile: file, encoding: .utf8), file: file)
    }

    /// Runs `trial` on `trials` (as the runner does) and observes it.
    static func observe(
        _ scenario: Scenario, on trials: ScenarioTrialRun, seed: UInt64, trial: Int, keepsTrace: Bool = true
    ) throws -> Observed {
        let failure = try ScenarioRunner.runTrial(scenario, run: trials, seed: seed, trial: trial, keepsTrace: keepsTrace)
        let run = trials.run
        var summaries: [ContinuationSummary] = []
        for (index, activity) in scenario.activities.enumerated() {
            for device in scenario.setup.devices where device.name != activity.device {
                if let summary = run.summary(of: ActivityID(index), on: device.name) { summaries.append(summary) }
            }
        }
        return Observed(
            trace: run.trace, traceCount: run.traceCount, events: run.handledEventCount, summaries: summaries,
            violations: run.violations, packets: run.packetLog, failure: failure?.description)
    }

    /// A new run of `trial`, observed.
    static func fresh(_ scenario: Scenario, seed: UInt64, trial: Int) throws -> Observed {
        let trials = try ScenarioRunner.makeRun(scenario, seed: seed)
        trials.run.recordsPackets = true
        return try observe(scenario, on: trials, seed: seed, trial: trial)
    }

    @Test("trial k after other trials on a reused run equals a new run of trial k", arguments: scenarios)
    func resetEqualsFresh(name: String) throws {
        let scenario = try Self.scenario(name)
        for seed: UInt64 in [1, 7, 23] {
            let reused = try ScenarioRunner.makeRun(scenario, seed: seed)
            reused.run.recordsPackets = true
            // Trials run in an order that revisits one, some without a
            // trace (as a tally runs them) between those compared.
            var lossySeen = false
            for (step, trial) in [3, 0, 5, 3, 1, 4].enumerated() {
                if step % 2 == 1 {
                    for other in [trial + 7, trial + 11] {
                        _ = try Self.observe(scenario, on: reused, seed: seed, trial: other, keepsTrace: false)
                    }
                }
                let again = try Self.observe(scenario, on: reused, seed: seed, trial: trial)
                let new = try Self.fresh(scenario, seed: seed, trial: trial)
                #expect(again.events > 0)
                #expect(again == new, "\(name), seed \(seed), trial \(trial) after \(step) others")
                lossySeen = lossySeen || again.packets.contains { if case .lost = $0.fate { true } else { false } }
            }
            if name == "burst-loss" || name == "relay-very-bad-network" {
                #expect(lossySeen, "\(name), seed \(seed): some compared trial loses packets")
            }
        }
    }
}
