/// Compares two runs of the same suite, for `--check-determinism`.
package enum DeterminismCheck {
    /// The first scenario and trial where `first` and `second` differ, in
    /// words, or nil if they agree on every trial of every scenario.
    package static func firstDifference(_ first: [FileResult], _ second: [FileResult]) -> String? {
        guard first.count == second.count else {
            return "the runs have \(first.count) and \(second.count) files"
        }
        for (a, b) in zip(first, second) {
            switch (a.outcome, b.outcome) {
            case let (.ran(left), .ran(right)):
                if let trials = left.fingerprints.firstDifference(from: right.fingerprints) {
                    let which = trials.count == 1 ? "trial \(trials.lowerBound)" : "a trial in \(trials.lowerBound)...\(trials.upperBound - 1)"
                    return "\(a.file) (scenario \"\(left.scenario.name)\"), \(which), seed \(left.seed)"
                }
                if left.expectations != right.expectations || left.failure != right.failure {
                    return "\(a.file) (scenario \"\(left.scenario.name)\"): the expectation results differ"
                }
            case (.skipped, .skipped):
                continue
            case let (.invalid(left), .invalid(right)):
                if left != right { return "\(a.file): the validation problems differ" }
            case (.ran, _), (.skipped, _), (.invalid, _):
                return "\(a.file): valid in one run and invalid in the other"
            }
        }
        return nil
    }
}
