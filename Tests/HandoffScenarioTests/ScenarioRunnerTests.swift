import Handoff
@testable import HandoffScenario
import SimKernel
import Testing

/// Running scenarios: results independent of threads, limits, expectation
/// arithmetic, digests.
@Suite("Scenario runner")
struct ScenarioRunnerTests {
    @Test("every trial's result is the same on 1, 2 and 3 threads")
    func jobsDoNotMatter() throws {
        let scenario = try validScenario(scenarioText(
            #""trials": 30, "network": { "wifiPeerToPeer": { "loss": 0.05 } }"#,
            expect: #"[{ "successRate": "50%" }, { "latency": "acceptToContinue", "percentile": 90, "below": "5s" }]"#))
        let results = [1, 2, 3].map { ScenarioRunner(jobs: $0).run(scenario) }
        #expect(results[0].fingerprints.count == 30)
        #expect(results[0].fingerprints.trialsPerBlock == 1)
        for result in results.dropFirst() {
            #expect(result.fingerprints == results[0].fingerprints)
            #expect(result.expectations == results[0].expectations)
            #expect(result.pairs == results[0].pairs)
        }
        // Another seed gives other trials.
        #expect(ScenarioRunner().run(scenario, seed: 99).fingerprints.firstDifference(from: results[0].fingerprints) == 0..<1)
    }

    @Test("the determinism check names the first scenario and trial that differ")
    func determinismCheck() throws {
        let scenario = try validScenario(scenarioText(#""trials": 5"#), file: "s.json")
        let first = ScenarioRunner().run(scenario)
        let second = ScenarioRunner().run(scenario)
        let same = [FileResult(file: "s.json", outcome: .ran(first))]
        #expect(DeterminismCheck.firstDifference(same, [FileResult(file: "s.json", outcome: .ran(second))]) == nil)
        var fingerprints = second.fingerprints
        fingerprints.add(1, trial: 3)
        let altered = ScenarioResult(
            scenario: scenario, seed: second.seed, trials: second.trials, expectations: second.expectations,
            pairs: second.pairs, failure: nil, fingerprints: fingerprints, samples: [], wallClockSeconds: 0)
        #expect(DeterminismCheck.firstDifference(same, [FileResult(file: "s.json", outcome: .ran(altered))])
            == "s.json (scenario \"test\"), trial 3, seed 1")
    }

    @Test("a trial that does not settle within the simulated-time limit is an error; with a duration it is observed")
    func timeLimit() throws {
        // 100 m away with automatic acceptance: the receiver waits for an
        // advertisement that never comes.
        let far = #""position": [100, 0], "acceptance": { "after": "1s" }"#
        let unbounded = try validScenario(scenarioText(
            #""trials": 2, "limits": { "maxSimulatedTime": "20s" }"#, expect: #"[{ "notOffered": "outOfRange" }]"#,
            iphone: far))
        let stopped = ScenarioRunner().run(unbounded)
        #expect(stopped.failure == .timeLimit(trial: 0, limit: .seconds(20)))
        #expect(!stopped.passed)
        let observed = try validScenario(scenarioText(
            #""trials": 2, "duration": "20s""#, expect: #"[{ "notOffered": "outOfRange" }]"#, iphone: far))
        #expect(ScenarioRunner().run(observed).passed)
    }

    @Test("with a duration a receiver in range whose user never accepts is offered, every trial; without one it is not yet, and says so")
    func durationObservesExplicitReceivers() throws {
        // 0.5 m away, explicit acceptance, no accept action.
        let near = #""position": [0.5, 0], "acceptance": "explicit""#
        let observed = try validScenario(scenarioText(
            #""trials": 20, "duration": "30s""#,
            expect: #"[{ "outcome": "notAccepted" }, { "notOffered": "outOfRange", "atMost": "0%" }]"#, iphone: near))
        let result = ScenarioRunner().run(observed)
        #expect(result.expectations.map(\.passed) == [true, true])
        let settled = try validScenario(scenarioText(
            #""trials": 20"#, expect: #"[{ "notOffered": "trialEndedFirst" }]"#, iphone: near))
        #expect(ScenarioRunner().run(settled).passed)
    }

    @Test("shares: every trial by default, at least or at most a fraction otherwise; the failing trial is named")
    func shares() throws {
        let scenario = try validScenario(scenarioText(
            #""trials": 40, "network": { "wifiPeerToPeer": { "loss": 0.3 } }, "protocol": { "rapport": { "cloudFallback": false } }"#,
            expect: """
                [{ "outcome": "continued" }, { "outcome": "continued", "atLeast": "10%" },
                 { "outcome": "failed", "atMost": "0%" }, { "error": 4609, "atLeast": "1%" }]
                """))
        let result = ScenarioRunner().run(scenario)
        let continued = result.pairs[0].outcomes.first { $0.outcome == .continued }?.trials ?? 0
        #expect(continued > 4 && continued < 40)
        #expect(result.expectations.map(\.passed) == [false, true, false, true])
        let first = result.expectations[0]
        #expect(first.measured.hasPrefix("continued in \(continued) of 40 trials"))
        let failing = try #require(first.failingTrial)
        let replay = try ScenarioRunner.replay(scenario, seed: 1, trial: failing)
        #expect(replay.summaries.first?.outcome != .continued)
    }

    @Test("callbacks and events as shares: every trial by default, or at least a fraction; a failing trial is named")
    func sequenceShares() throws {
        let callbacks = #"["willContinueUserActivity", "continueUserActivity", "restoreUserActivityState"]"#
        let scenario = try validScenario(scenarioText(
            #""trials": 40, "network": { "wifiPeerToPeer": { "loss": 0.3 } }, "protocol": { "rapport": { "cloudFallback": false } }"#,
            expect: """
                [{ "outcome": "continued", "atLeast": "0%" },
                 { "callbacks": \(callbacks), "on": "iphone" }, { "callbacks": \(callbacks), "on": "iphone", "atLeast": "10%" },
                 { "callbacks": \(callbacks), "on": "iphone", "atLeast": "100%" },
                 { "callbacks": \(callbacks), "on": "iphone", "atMost": "0%" }]
                """))
        let result = ScenarioRunner().run(scenario)
        let continued = result.pairs[0].outcomes.first { $0.outcome == .continued }?.trials ?? 0
        #expect(continued > 4 && continued < 40)
        #expect(result.expectations.map(\.passed) == [true, false, true, false, false])
        #expect(result.expectations[2].measured.hasPrefix("as expected in \(continued) of 40 trials"))
        #expect(result.expectations[2].asked.hasSuffix("in ≥ 10% of trials"))
        let failing = try #require(result.expectations[3].failingTrial)
        let replay = try ScenarioRunner.replay(scenario, seed: 1, trial: failing)
        #expect(replay.summaries.first?.outcome != .continued)
    }

    @Test("trial fingerprints stay at 1,024 blocks: a difference is pinned to a trial, or to a block of trials")
    func fingerprintBlocks() {
        var small = TrialFingerprints(trials: 1000)
        var large = TrialFingerprints(trials: 3000)
        #expect(small.trialsPerBlock == 1 && large.trialsPerBlock == 3)
        var (smallCopy, largeCopy) = (small, large)
        for trial in 0..<3000 {
            if trial < 1000 {
                small.add(UInt64(trial), trial: trial)
                smallCopy.add(trial == 617 ? 1 : UInt64(trial), trial: trial)
            }
            large.add(UInt64(trial), trial: trial)
            largeCopy.add(trial == 1000 ? 0 : UInt64(trial), trial: trial)
        }
        #expect(small.firstDifference(from: small) == nil)
        #expect(small.firstDifference(from: smallCopy) == 617..<618)
        #expect(large.firstDifference(from: largeCopy) == 999..<1002)
        // Merging pieces in any cut gives the same digest.
        var first = TrialFingerprints(trials: 3000), second = TrialFingerprints(trials: 3000)
        for trial in 0..<1234 { first.add(UInt64(trial), trial: trial) }
        for trial in 1234..<3000 { second.add(UInt64(trial), trial: trial) }
        first.merge(second)
        #expect(first == large)
        // A run that stopped early differs where it stopped.
        var stopped = TrialFingerprints(trials: 1000)
        for trial in 0..<10 { stopped.add(UInt64(trial), trial: trial) }
        #expect(stopped.firstDifference(from: small) == 10..<11)
    }

    @Test("run and sweep report the same latency percentiles for the same trials; memory per pair is a histogram")
    func runMatchesSweepPercentiles() throws {
        let text = scenarioText(
            #""trials": 200, "network": { "wifiPeerToPeer": { "loss": 0.05 } }"#,
            expect: #"[{ "latency": "acceptToContinue", "percentile": 95, "below": "50s" }]"#)
        let scenario = try validScenario(text)
        let result = ScenarioRunner(jobs: 2).run(scenario)
        let point = SweepPointScenario(
            coordinates: [], scenario: scenario, bytes: Array(text.utf8), edits: [], digest: scenario.digest)
        guard case let .success(aggregate) = SweepRunner(jobs: 1).runPoint(
            point, activity: 0, device: "iphone", trials: 0..<200, seed: scenario.seed)
        else { Issue.record("the sweep point failed"); return }
        let latency = try #require(result.pairs[0].latencies.first { $0.metric == .acceptToContinue })
        #expect(latency.count == Int(aggregate[.acceptToContinue].count))
        #expect(latency.p95?.nanoseconds == aggregate[.acceptToContinue].value(atPercentile: 95))
        #expect(latency.p50?.nanoseconds == aggregate[.acceptToContinue].value(atPercentile: 50))
        #expect(latency.max?.nanoseconds == aggregate[.acceptToContinue].max)
        let p95 = SimDuration(nanoseconds: aggregate[.acceptToContinue].value(atPercentile: 95)!)
        #expect(result.expectations[0].measured
            == "p95 = \(p95.rounded(toSignificantDigits: 3)) over \(latency.count) of 200 trials")
    }

    @Test("a latency bound inside the percentile's histogram bucket fails, saying so, with a trial that breaks it")
    func latencyBoundInsideBucket() throws {
        // Nineteen trials of 1.5s and one (trial 7) of 2s: p90 is 1.5s, known
        // to within its histogram bucket.
        func latency(_ trial: Int) -> Int64 { trial == 7 ? 2_000_000_000 : 1_500_000_000 }
        var histogram = LatencyHistogram()
        for trial in 0..<20 { histogram.record(latency(trial)) }
        let range = try #require(histogram.range(atPercentile: 90))
        #expect(range.lowerBound == 1_500_000_000 && range.upperBound > range.lowerBound)
        let inside = SimDuration(nanoseconds: range.lowerBound + (range.upperBound - range.lowerBound) / 2)
        let above = SimDuration(nanoseconds: range.upperBound + 1)
        let scenario = try validScenario(scenarioText(
            #""trials": 20"#,
            expect: """
                [{ "latency": "acceptToContinue", "percentile": 90, "below": "\(inside)" },
                 { "latency": "acceptToContinue", "percentile": 90, "below": "\(above)" },
                 { "latency": "acceptToContinue", "percentile": 90, "above": "\(SimDuration(nanoseconds: range.lowerBound - 1))" },
                 { "latency": "acceptToContinue", "percentile": 90, "above": "\(inside)" }]
                """))
        let plan = ObservationPlan(scenario)
        var tally = TrialTally(scenario, plan: plan, trialCount: 20)
        for trial in 0..<20 {
            var observation = TrialObservation.empty
            var milestones = MilestoneTimes()
            milestones[.accepted] = .zero
            milestones[.continued] = .nanoseconds(latency(trial))
            observation.pairs = [PairObservation(outcome: .continued, milestones: milestones, budget: nil)]
            tally.add(observation, trial: trial, scenario: scenario, plan: plan)
        }
        let results = ExpectationEvaluator(scenario: scenario, plan: plan, tally: tally).evaluateAll()
        #expect(results.map(\.passed) == [false, true, true, false])
        #expect(results[0].failingTrial == 7)
        #expect(results[0].measured == "p90 = 1.5s over 20 of 20 trials (the histogram places it between 1.5s and "
            + "\(SimDuration(nanoseconds: range.upperBound)), on both sides of the bound)")
        #expect(results[1].measured == "p90 = 1.5s over 20 of 20 trials")
        // A lower bound fails on the bucket's lower end: trial 0 (1.5s) breaks it.
        #expect(results[3].failingTrial == 0)
    }

    @Test("SHA-256 matches the FIPS 180-4 examples")
    func sha256() {
        #expect(SHA256.hexDigest(of: Array("abc".utf8))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hexDigest(of: [UInt8](repeating: 0x61, count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
