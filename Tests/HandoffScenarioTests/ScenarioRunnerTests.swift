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
        #expect(results[0].trialFingerprints.count == 30)
        #expect(Set(results[0].trialFingerprints).count > 1)
        for result in results.dropFirst() {
            #expect(result.trialFingerprints == results[0].trialFingerprints)
            #expect(result.expectations == results[0].expectations)
            #expect(result.pairs == results[0].pairs)
        }
        // Another seed gives other trials.
        #expect(ScenarioRunner().run(scenario, seed: 99).trialFingerprints != results[0].trialFingerprints)
    }

    @Test("the determinism check names the first scenario and trial that differ")
    func determinismCheck() throws {
        let scenario = try validScenario(scenarioText(#""trials": 5"#), file: "s.json")
        let first = ScenarioRunner().run(scenario)
        let second = ScenarioRunner().run(scenario)
        let same = [FileResult(file: "s.json", outcome: .ran(first))]
        #expect(DeterminismCheck.firstDifference(same, [FileResult(file: "s.json", outcome: .ran(second))]) == nil)
        var fingerprints = second.trialFingerprints
        fingerprints[3] ^= 1
        let altered = ScenarioResult(
            scenario: scenario, seed: second.seed, trials: second.trials, expectations: second.expectations,
            pairs: second.pairs, failure: nil, trialFingerprints: fingerprints, wallClockSeconds: 0)
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

    @Test("shares: every trial by default, at least or at most a fraction otherwise; the failing trial is named")
    func shares() throws {
        let scenario = try validScenario(scenarioText(
            #""trials": 40, "network": { "wifiPeerToPeer": { "loss": 0.3 } }"#,
            expect: """
                [{ "outcome": "continued" }, { "outcome": "continued", "atLeast": "10%" },
                 { "outcome": "failed", "atMost": "0%" }, { "error": 4609, "atLeast": "1%" }]
                """))
        let result = ScenarioRunner().run(scenario)
        let continued = result.pairs[0].outcomes.first { $0.outcome == "continued" }?.trials ?? 0
        #expect(continued > 4 && continued < 40)
        #expect(result.expectations.map(\.passed) == [false, true, false, true])
        let first = result.expectations[0]
        #expect(first.measured.hasPrefix("continued in \(continued) of 40 trials"))
        let failing = try #require(first.failingTrial)
        let replay = try ScenarioRunner.replay(scenario, seed: 1, trial: failing)
        #expect(replay.summaries.first?.outcome != .continued)
    }

    @Test("nearest-rank percentiles")
    func percentiles() {
        let values = Array(1...200)
        #expect(nearestRank(values, 50) == 100)
        #expect(nearestRank(values, 95) == 190)
        #expect(nearestRank(values, 99.9) == 200)
        #expect(nearestRank(values, 0.1) == 1)
        #expect(nearestRank([Int](), 50) == nil)
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
