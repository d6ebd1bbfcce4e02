import Foundation
@testable import HandoffScenario
import SimKernel
import Testing

/// Every scenario shipped in scenarios/ and calibration/scenarios/ is valid,
/// runs without an illegal transition or a limit, and keeps on a few trials
/// every expectation that must hold in *every* trial (an outcome, an error
/// or a reason without a rate, an order of callbacks or events, a rate of
/// 0% or 100%): what holds in every one of 10⁴ trials holds in any few of
/// them, whatever the seed.
///
/// Expectations about a share of trials or a percentile need the file's
/// full trial count; CI checks them in a release build
/// (`handoff-sim run scenarios calibration/scenarios --check-determinism --strict`
/// in `.ci/run`), where the whole suite takes seconds rather than the
/// minutes a debug build needs.
@Suite("Shipped scenarios")
struct ShippedScenarioTests {
    static let files: [String] =
        (try? ScenarioSuite.files(in: [packageRoot() + "/scenarios", packageRoot() + "/calibration/scenarios"])) ?? []

    /// Trials per file here: a few, so the suite stays fast in a debug build.
    static let trials = 6

    @Test("there are at least 24 shipped scenarios")
    func count() {
        #expect(Self.files.count >= 24)
    }

    @Test("the shipped scenario is valid, runs cleanly and keeps its every-trial expectations on a few trials", arguments: files)
    func holds(file: String) throws {
        let scenario = try ScenarioSuite.load(file)
        let result = ScenarioRunner(jobs: 2).run(scenario, trials: min(Self.trials, scenario.trials))
        #expect(result.failure == nil, "\(result.failure.map { "\($0)" } ?? "")")
        for expectation in result.expectations where Self.holdsInEveryTrial(expectation.expectation.kind) {
            #expect(expectation.passed, "\(expectation.expectation.path): expected \(expectation.asked); measured \(expectation.measured)")
        }
    }

    /// Whether `kind` asks for something of every trial (so it holds on any
    /// subset of the trials it holds on).
    static func holdsInEveryTrial(_ kind: any ExpectationKind) -> Bool {
        switch kind.shape {
        case .sequence: return true
        case let .share(share): return share.rate.map(isEveryOrNone) ?? true
        case .percentile: return false
        }
    }

    /// A bound of "at least 100%" or "at most 0%".
    static func isEveryOrNone(_ bound: RateBound) -> Bool {
        switch bound {
        case let .atLeast(rate): return rate >= 1
        case let .atMost(rate): return rate <= 0
        }
    }

    @Test("the every-trial rule tells apart what needs a share of trials")
    func everyTrialRule() {
        #expect(Self.holdsInEveryTrial(OutcomeExpectation(outcome: .continued, rate: nil)))
        #expect(Self.holdsInEveryTrial(SuccessRateExpectation(bound: .atLeast(1))))
        #expect(Self.holdsInEveryTrial(OutcomeExpectation(outcome: .failed, rate: .atMost(0))))
        #expect(!Self.holdsInEveryTrial(SuccessRateExpectation(bound: .atLeast(0.99))))
        #expect(!Self.holdsInEveryTrial(OutcomeExpectation(outcome: .continued, rate: .atLeast(0.5))))
        #expect(!Self.holdsInEveryTrial(
            LatencyExpectation(metric: .acceptToContinue, percentile: 95, bound: .below(.seconds(1)))))
    }
}
