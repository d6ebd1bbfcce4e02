import Foundation
import Handoff
@testable import HandoffScenario
import SimKernel
import Testing

/// The confidence behind verdicts: binomial tails and Clopper–Pearson
/// bounds against closed forms, order-statistic ranks against the classic
/// table, and fragile verdicts built on purpose.
@Suite("Verdict confidence")
struct VerdictConfidenceTests {
    @Test("ln k! matches the sum of logarithms, on both sides of the switch to Stirling's series")
    func logFactorial() {
        var sum = 0.0
        for k in 1...200 {
            sum += PortableMath.log(Double(k))
            #expect(abs(BinomialBounds.logFactorial(k) - sum) <= 1e-12 * max(1, sum), "k = \(k)")
        }
        #expect(BinomialBounds.logFactorial(0) == 0)
    }

    @Test("binomial tails equal their closed forms")
    func cumulative() {
        // P(X ≤ 1; 10, 0.2) = 0.8^10 + 10 · 0.2 · 0.8^9.
        let exact = 0.107_374_182_4 + 0.268_435_456
        #expect(abs(BinomialBounds.cumulative(1, trials: 10, probability: 0.2) - exact) < 1e-12)
        // P(X ≤ 0; n, p) = (1 − p)^n.
        #expect(abs(BinomialBounds.cumulative(0, trials: 50, probability: 0.1) - 0.005_153_775_207_320_113) < 1e-15)
        // By symmetry, P(X ≤ 500; 1000, ½) = ½ + P(X = 500)/2 = 0.51261250908918…
        #expect(abs(BinomialBounds.cumulative(500, trials: 1000, probability: 0.5) - 0.512_612_509_089_180_3) < 1e-10)
        // The upper tail summed from above the mode: P(X ≤ 98; 100, 0.95) = 1 − 0.95^100 − 100·0.05·0.95^99.
        let tail = 1 - 0.005_920_529_220_334_5 - 0.031_160_680_107_023_7
        #expect(abs(BinomialBounds.cumulative(98, trials: 100, probability: 0.95) - tail) < 1e-12)
        #expect(BinomialBounds.cumulative(10, trials: 10, probability: 0.3) == 1)
        #expect(BinomialBounds.cumulative(-1, trials: 10, probability: 0.3) == 0)
    }

    /// The rule of three (Hanley & Lippman-Hand, JAMA 1983): with no event
    /// in n trials, the one-sided 95% upper bound on the rate is
    /// 1 − 0.05^(1/n) ≈ 3/n.
    @Test("with no exception the bound is the rule of three", arguments: [100, 1000, 10_000, 1_000_000])
    func ruleOfThree(trials: Int) {
        let bound = BinomialBounds.upperBound(events: 0, trials: trials, alpha: 0.05)
        let exact = 1 - PortableMath.exp(PortableMath.log(0.05) / Double(trials))
        #expect(bound == exact)
        // n · (1 − 0.05^(1/n)) rises towards −ln 0.05 = 2.996 from below.
        #expect(bound * Double(trials) > 2.95 && bound * Double(trials) < 3, "\(bound * Double(trials))")
    }

    /// Clopper–Pearson (Biometrika 1934): the one-sided 95% upper bound
    /// for 1 event in 10 trials is 0.3942 (the upper end of the two-sided
    /// 90% interval [0.0051, 0.3942]).
    @Test("a Clopper–Pearson bound solves its equation and matches the published value")
    func clopperPearson() {
        let bound = BinomialBounds.upperBound(events: 1, trials: 10, alpha: 0.05)
        #expect(abs(bound - 0.3942) < 0.0001, "\(bound)")
        for (events, trials) in [(1, 10), (5, 100), (3, 5000), (40, 100), (999, 1000)] {
            let bound = BinomialBounds.upperBound(events: events, trials: trials, alpha: 0.05)
            #expect(bound > Double(events) / Double(trials))
            #expect(abs(BinomialBounds.cumulative(events, trials: trials, probability: bound) - 0.05) < 1e-9)
        }
        #expect(BinomialBounds.upperBound(events: 10, trials: 10, alpha: 0.05) == 1)
    }

    /// The distribution-free 95% interval of the median of 100 values lies
    /// between the 40th and 61st values (e.g. Conover, Practical
    /// Nonparametric Statistics, table A3); for p95 of 100 values between
    /// the 90th and the largest, and p99 of 100 values has no upper end.
    @Test("order-statistic ranks match the classic table")
    func quantileRanks() {
        #expect(BinomialBounds.quantileRanks(count: 100, fraction: 0.5, alpha: 0.05) == (40, 61))
        #expect(BinomialBounds.quantileRanks(count: 100, fraction: 0.95, alpha: 0.05) == (90, 100))
        #expect(BinomialBounds.quantileRanks(count: 100, fraction: 0.99, alpha: 0.05).high == nil)
        #expect(BinomialBounds.quantileRanks(count: 100, fraction: 0.01, alpha: 0.05).low == nil)
    }

    /// 100 values, 1 ms to 100 ms: p95 = 95 ms; its 95% interval runs from
    /// the 90th value to the 100th.
    static func histogram() -> LatencyHistogram {
        var histogram = LatencyHistogram()
        for value in 1...100 { histogram.record(SimDuration.milliseconds(Int64(value))) }
        return histogram
    }

    @Test("a percentile bound inside the interval is fragile, beyond it a pass, below the estimate a failure")
    func percentileVerdicts() {
        let histogram = Self.histogram()
        func verdict(below bound: SimDuration, point: SimDuration = .milliseconds(95)) -> (Verdict, VerdictConfidence) {
            VerdictConfidence.percentile(
                passed: bound > point, histogram: histogram, percentile: 95, bound: .below(bound), point: point,
                trials: 100)
        }
        let (fragile, confidence) = verdict(below: .milliseconds(97))
        #expect(fragile == .fragile)
        guard case let .percentile(low, high, values) = confidence.interval else {
            Issue.record("not a percentile interval")
            return
        }
        #expect(values == 100)
        #expect(high == .milliseconds(100))
        #expect(low.map { abs($0.nanoseconds - 90_000_000) <= 90_000_000 / 1000 } == true)
        // The upper side is 5 ms wide and the margin 2 ms: 100 · (5/2)² = 625.
        #expect(confidence.trialsToSettle == 625)
        #expect(verdict(below: .milliseconds(101)).0 == .pass)
        #expect(verdict(below: .milliseconds(90)).0 == .fail)
        // Above a bound: the interval's lower end faces it.
        let above = VerdictConfidence.percentile(
            passed: true, histogram: histogram, percentile: 95, bound: .above(.milliseconds(92)), point: .milliseconds(95),
            trials: 100)
        #expect(above.0 == .fragile)
        #expect(VerdictConfidence.percentile(
            passed: true, histogram: histogram, percentile: 95, bound: .above(.milliseconds(80)), point: .milliseconds(95),
            trials: 100).0 == .pass)
    }

    @Test("p99 of 100 values has no upper end: fragile, and at least the trials for an end are named")
    func percentileWithoutEnd() {
        let (verdict, confidence) = VerdictConfidence.percentile(
            passed: true, histogram: Self.histogram(), percentile: 99, bound: .below(.seconds(1)),
            point: .milliseconds(99), trials: 100)
        #expect(verdict == .fragile)
        // 0.99^n ≤ 0.025 from n = ⌈ln 0.025 / ln 0.99⌉ = 368.
        #expect(confidence.trialsToSettle == 368)
        #expect(confidence.trialsToSettleIsMinimum)
        #expect(confidence.settleText == "at least 368 trials would settle it")
    }

    @Test("shares: every trial is never fragile; a rate is when its bound crosses the promise")
    func shareVerdicts() {
        // Every trial, none missed: a pass, with the rule-of-three bound.
        let every = VerdictConfidence.share(passed: true, exceptions: 0, trials: 100, allowed: nil)
        #expect(every.0 == .pass)
        #expect(every.1?.text == "exception rate ≤ 2.95% (95% upper bound, rule of three)")
        // At least 99% with 100 of 100: the bound 2.95% crosses the 1% allowed.
        let fragile = VerdictConfidence.share(passed: true, rate: .atLeast(0.99), matches: 100, trials: 100)
        #expect(fragile.0 == .fragile)
        // ⌈ln 0.05 / ln 0.99⌉ = 299 trials without an exception settle it.
        #expect(fragile.1?.trialsToSettle == 299)
        #expect(fragile.1?.settleText == "about 299 trials would settle it")
        // At least 95% with 100 of 100: the bound is within the 5% allowed.
        #expect(VerdictConfidence.share(passed: true, rate: .atLeast(0.95), matches: 100, trials: 100).0 == .pass)
        // At most 10% with 8 of 100: the bound crosses 10%.
        let atMost = VerdictConfidence.share(passed: true, rate: .atMost(0.1), matches: 8, trials: 100)
        #expect(atMost.0 == .fragile)
        // … and the trials named do settle it if the rate holds.
        let settle = try? #require(atMost.1?.trialsToSettle)
        if let settle {
            let events = Int((0.08 * Double(settle)).rounded())
            #expect(BinomialBounds.upperBound(events: events, trials: settle, alpha: 0.05) <= 0.1)
            let fewer = settle - 1
            #expect(BinomialBounds.upperBound(events: Int((0.08 * Double(fewer)).rounded()), trials: fewer, alpha: 0.05) > 0.1)
        }
        // A measured rate at the bound: no count settles it.
        let atBound = VerdictConfidence.share(passed: true, rate: .atLeast(0.99), matches: 99, trials: 100)
        #expect(atBound.0 == .fragile)
        #expect(atBound.1?.trialsToSettle == nil)
        // A failure stays a failure.
        #expect(VerdictConfidence.share(passed: false, rate: .atLeast(0.99), matches: 90, trials: 100).0 == .fail)
        // At least 100% promises what every trial does.
        #expect(VerdictConfidence.share(passed: true, rate: .atLeast(1), matches: 100, trials: 100).0 == .pass)
    }

    @Test("a scenario whose rate the trials cannot vouch for is fragile, passes, and names the trials that settle it")
    func fragileScenario() throws {
        let scenario = try validScenario(scenarioText(
            #""trials": 50"#, expect: #"[{ "outcome": "continued", "atLeast": "99%" }, { "outcome": "continued" }]"#))
        let result = ScenarioRunner(jobs: 2).run(scenario)
        #expect(result.passed)
        #expect(result.isFragile)
        #expect(result.expectations.map(\.verdict) == [.fragile, .pass])
        #expect(result.expectations[0].confidence?.trialsToSettle == 299)
        let settled = ScenarioRunner(jobs: 2).run(scenario, trials: 300)
        #expect(settled.passed && !settled.isFragile)
    }

    @Test("rates print to three significant digits")
    func rateText() {
        #expect(VerdictConfidence.rateText(0.029_513) == "2.95%")
        #expect(VerdictConfidence.rateText(0.000_3) == "0.0300%")
        #expect(VerdictConfidence.rateText(0.3) == "30.0%")
        #expect(VerdictConfidence.rateText(1) == "100%")
        #expect(VerdictConfidence.rateText(0) == "0%")
    }

    /// A receiver out of range never hears the advertisement. The source's
    /// user goes idle 2 min after the last input (becomeCurrent at 0 s),
    /// the advertisement goes 3 s later and the resume window closes 10 s
    /// after that (AdvertisingPolicy's defaults): from 133 s nothing can
    /// offer the activity any more, so the trial ends there as not offered
    /// instead of running to the time limit.
    @Test("a trial in which nothing is ever offered ends as not offered once advertising has ended for good")
    func neverOfferedEndsEarly() throws {
        let far = #""position": [100, 0], "acceptance": { "after": "1s" }"#
        func run(limit: String) throws -> ScenarioResult {
            let scenario = try validScenario(scenarioText(
                #""trials": 3, "limits": { "maxSimulatedTime": "\#(limit)" }"#,
                expect: #"[{ "notOffered": "outOfRange" }]"#, iphone: far))
            return ScenarioRunner().run(scenario)
        }
        let ended = try run(limit: "134s")
        #expect(ended.failure == nil)
        #expect(ended.passed && !ended.isFragile)
        #expect(ended.expectations.map(\.verdict) == [.pass])
        // Just before the resume window closes, the trial is still waiting.
        #expect(try run(limit: "132s").failure == .timeLimit(trial: 0, limit: .seconds(132)))
        // A source whose user keeps using it advertises for ever: an offer
        // could still come, so the limit still applies.
        let inUse = try validScenario(scenarioText(
            #""trials": 1, "limits": { "maxSimulatedTime": "200s" }"#,
            expect: #"[{ "notOffered": "outOfRange" }]"#, iphone: far
        ).replacingOccurrences(of: #""kind": "mac","#, with: #""kind": "mac", "inUse": true,"#))
        #expect(ScenarioRunner().run(inUse).failure == .timeLimit(trial: 0, limit: .seconds(200)))
    }
}
