/// Compares two runs of the same suite, for `--check-determinism`.
public enum DeterminismCheck {
    /// The first scenario and trial where `first` and `second` differ, in
    /// words, or nil if they agree on every trial of every scenario.
    public static func firstDifference(_ first: [FileResult], _ second: [FileResult]) -> String? {
        guard first.count == second.count else {
            return "the runs have \(first.count) and \(second.count) files"
        }
        for (a, b) in zip(first, second) {
            switch (a.outcome, b.outcome) {
            case let (.ran(left), .ran(right)):
                let count = max(left.trialFingerprints.count, right.trialFingerprints.count)
                for trial in 0..<count {
                    let x = trial < left.trialFingerprints.count ? left.trialFingerprints[trial] : nil
                    let y = trial < right.trialFingerprints.count ? right.trialFingerprints[trial] : nil
                    if x != y {
                        return "\(a.file) (scenario \"\(left.scenario.name)\"), trial \(trial), seed \(left.seed)"
                    }
                }
                if left.expectations != right.expectations || left.failure != right.failure {
                    return "\(a.file) (scenario \"\(left.scenario.name)\"): the expectation results differ"
                }
            case (.skipped, .skipped):
                continue
            case let (.invalid(left), .invalid(right)):
                if left != right { return "\(a.file): the validation problems differ" }
            default:
                return "\(a.file): valid in one run and invalid in the other"
            }
        }
        return nil
    }
}
