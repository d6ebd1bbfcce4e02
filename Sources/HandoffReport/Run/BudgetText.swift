import Handoff
import HandoffScenario
import SimKernel

/// A pair's latency budget in words, as the text and Markdown reports
/// show it: the p95 trials' time by phase, largest first, and each phase's
/// mean.
enum BudgetText {
    /// The shares of the p95 trials' time, largest first: `app launch 62%
    /// · transfer 20% · …` (phases under 0.5% are left out).
    static func shares(_ budget: BudgetSummary) -> String {
        let shown = budget.ranked.filter { $0.tailShare >= 0.005 }
        return shown.map { "\($0.phase.label) \(Format.wholePercent($0.tailShare))" }.joined(separator: " · ")
    }

    /// The means, largest first: `app launch 312ms + transfer 80ms + …`
    /// (phases with no time left out).
    static func means(_ budget: BudgetSummary) -> String {
        let shown = budget.phases.filter { $0.mean > .zero }
            .sorted { ($1.mean, $0.phase.rawValue) < ($0.mean, $1.phase.rawValue) }
        return shown.map { "\($0.phase.label) \($0.mean.rounded(toSignificantDigits: 3))" }.joined(separator: " + ")
    }

    /// Two lines for a text report, indented by `indent`.
    static func lines(_ pair: PairSummary, indent: String) -> [String] {
        guard let budget = pair.budget else { return [] }
        let tail = "p\(Int(budget.tailPercentile)) trials (\(budget.tailTrials) of \(budget.trials) continued)"
        return [
            "\(indent)where accept → continue goes on \(pair.device) (\(pair.activity)): \(tail): \(shares(budget))",
            "\(indent)  mean: \(means(budget))",
        ]
    }

}
