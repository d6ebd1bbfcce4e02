import Foundation
import Handoff
import HandoffReport
@testable import HandoffScenario
import SimKernel
import Testing

/// The latency budget: accept → continue cut into phases on its critical
/// path, which add up to it exactly in every trial, and its aggregates.
@Suite("Latency budget")
struct LatencyBudgetTests {
    static let scenarioFiles: [String] =
        (try? ScenarioSuite.files(in: [packageRoot() + "/scenarios", packageRoot() + "/calibration/scenarios"])) ?? []
    static let sweepFiles: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: packageRoot() + "/sweeps")) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted().map { packageRoot() + "/sweeps/" + $0 }
        + (((try? FileManager.default.contentsOfDirectory(atPath: packageRoot() + "/sweeps/guidance")) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted().map { packageRoot() + "/sweeps/guidance/" + $0 })

    /// Checks every sample: a budget exactly when the trial continued, and
    /// its phases adding up to accept → continue to the nanosecond.
    static func checkSums(_ samples: [TrialSample], file: String) {
        for sample in samples {
            let continued = sample.outcome == .continued || sample.outcome == .continuedInBrowser
            #expect((sample.budget != nil) == continued, "\(file) trial \(sample.trial): \(sample.outcome.map { "\($0)" } ?? "-")")
            guard let budget = sample.budget, let total = sample[.acceptToContinue] else { continue }
            #expect(budget.total == total, "\(file) trial \(sample.trial): phases \(budget.total) ≠ accept → continue \(total)")
            #expect(LatencyBudget.Phase.allCases.allSatisfy { budget[$0] >= .zero })
        }
    }

    @Test("in every shipped scenario, the phases of each continued trial add up to accept → continue", arguments: scenarioFiles)
    func shippedScenarios(file: String) throws {
        let scenario = try ScenarioSuite.load(file)
        let result = ScenarioRunner(jobs: 2, recordsSamples: true).run(scenario, trials: min(12, scenario.trials))
        Self.checkSums(result.samples, file: file)
    }

    @Test("in every shipped sweep, the phases of each continued trial add up to accept → continue", arguments: sweepFiles)
    func shippedSweeps(file: String) throws {
        let bytes = try #require(FileManager.default.contents(atPath: file))
        let prepared = try SweepRunner.prepare(Array(bytes), file: file, options: SweepRunner.Options(trials: 6))
        let result = try SweepRunner(jobs: 2, recordsSamples: true).run(prepared)
        for point in result.points { Self.checkSums(point.samples, file: file) }
    }

    /// A scenario with a cold launch far longer than any fetch: the app is
    /// last, so the budget is its launch and `willContinue`.
    @Test("when the app is ready after the payload, the budget is the launch and willContinue")
    func appLast() throws {
        let scenario = try validScenario(scenarioText(#""trials": 8"#, app: #", "coldLaunch": "5s""#))
        let result = ScenarioRunner(recordsSamples: true).run(scenario)
        for sample in result.samples {
            let budget = try #require(sample.budget)
            #expect(budget[.launch] == .seconds(5))
            #expect(budget[.launch] + budget[.willContinue] == sample[.acceptToContinue])
            #expect(budget[.transfer] == .zero && budget[.resolve] == .zero)
        }
    }

    /// A scenario whose app launches at once: the fetch is last, so its
    /// phases carry the time and follow the milestones.
    @Test("when the payload is last, the fetch's phases follow its milestones")
    func fetchLast() throws {
        let scenario = try validScenario(scenarioText(#""trials": 8"#, app: #", "coldLaunch": "0s""#))
        let result = ScenarioRunner(recordsSamples: true).run(scenario)
        for sample in result.samples {
            let budget = try #require(sample.budget)
            #expect(budget[.launch] == .zero)
            #expect(budget[.resolve] == sample[.resolve])
            #expect(budget[.pairVerify] == sample[.pairVerify])
            #expect(budget[.connect] >= sample[.connect] ?? .zero)
            #expect(budget[.relay] == .zero)
            // The transfer and the source's work together are request → payload.
            let transferSide = budget[.request] + budget[.sourceUpdate] + budget[.encode] + budget[.transfer]
            #expect(transferSide == sample[.transfer])
        }
    }

    /// Over the cloud relay the relay's delay is its own phase, and
    /// nothing is resolved or verified.
    @Test("over the cloud relay the relay's delay is a phase and nothing is resolved or verified")
    func relay() throws {
        let scenario = try validScenario(scenarioText(
            #""trials": 8, "network": { "fetchPath": "cloudRelay" }"#, app: #", "coldLaunch": "0s""#))
        let result = ScenarioRunner(recordsSamples: true).run(scenario)
        #expect(!result.samples.isEmpty)
        for sample in result.samples {
            let budget = try #require(sample.budget)
            #expect(budget[.relay] > .milliseconds(10), "two relay delays (log-normal, median 600 ms each)")
            #expect(budget[.resolve] == .zero && budget[.pairVerify] == .zero)
        }
    }

    @Test("bands are monotone, 1/16 octave wide, and the encoded tally round-trips")
    func bands() throws {
        var previous = -1
        for value in stride(from: Int64(0), to: 5_000_000, by: 997) {
            let band = BudgetTally.band(of: value)
            #expect(band >= previous)
            previous = band
        }
        #expect(BudgetTally.band(of: 1_000_000) < BudgetTally.band(of: 1_045_000))
        #expect(BudgetTally.band(of: 1_000_000) >= BudgetTally.band(of: 1_000_000 * 16 / 17))
        var tally = BudgetTally()
        var budget = LatencyBudget()
        budget[.resolve] = .milliseconds(30)
        budget[.transfer] = .milliseconds(70)
        tally.record(budget)
        budget[.transfer] = .seconds(2)
        tally.record(budget)
        let decoded = try #require(BudgetTally(encoded: tally.encoded))
        #expect(decoded == tally)
        #expect(BudgetTally(encoded: "1 2") == nil)
        #expect(BudgetTally(encoded: tally.encoded + " 7") == nil)
    }

    @Test("tallies merge exactly, and the tail share is that of the slowest trials")
    func mergeAndTail() throws {
        var generator = RandomStreamKey(seed: 3).child("budget-test").generator()
        var whole = BudgetTally()
        var first = BudgetTally(), second = BudgetTally()
        var budgets: [LatencyBudget] = []
        for index in 0..<400 {
            var budget = LatencyBudget()
            budget[.resolve] = .milliseconds(Int64(generator.next() % 50))
            // One trial in ten has a long transfer: those are the tail.
            budget[.transfer] = .milliseconds(index % 10 == 0 ? 3_000 + Int64(generator.next() % 100) : Int64(generator.next() % 100))
            budgets.append(budget)
            whole.record(budget)
            if index < 150 { first.record(budget) } else { second.record(budget) }
        }
        first.merge(second)
        #expect(first == whole)
        let summary = try #require(whole.summary(tailPercentile: 95))
        #expect(summary.trials == 400)
        // The slowest 5% (20 trials) are among the 40 long transfers, all
        // in bands well above the rest: the tail is those bands.
        let tail = budgets.filter { $0.total >= .seconds(3) }
        let transfer = tail.reduce(0.0) { $0 + Double($1[.transfer].nanoseconds) }
        let total = tail.reduce(0.0) { $0 + Double($1.total.nanoseconds) }
        let share = try #require(summary.phases.first { $0.phase == .transfer }).tailShare
        #expect(summary.tailTrials >= 20 && summary.tailTrials <= 40)
        #expect(abs(share - transfer / total) < 0.01)
        let meanResolve = budgets.reduce(Int64(0)) { $0 + $1[.resolve].nanoseconds } / 400
        #expect(abs(try #require(summary.phases.first { $0.phase == .resolve }).mean.nanoseconds - meanResolve) <= 1)
    }

    @Test("the samples CSV has one column per phase, adding up to accept → continue")
    func csv() throws {
        let scenario = try validScenario(scenarioText(#""trials": 4"#))
        let result = ScenarioRunner(recordsSamples: true).run(scenario)
        let csv = SamplesCSV.render([FileResult(file: "a.json", outcome: .ran(result))])
        let lines = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        let phases = header.indices.filter { header[$0].hasPrefix("phase_") }
        #expect(phases.count == LatencyBudget.Phase.allCases.count)
        #expect(header.contains("phase_pair_verify_ns"))
        let total = try #require(header.firstIndex(of: "accept_to_continue_ns"))
        for row in lines.dropFirst() where !row[total].isEmpty {
            #expect(phases.map { Int64(row[$0])! }.reduce(0, +) == Int64(row[total])!)
        }
    }
}
