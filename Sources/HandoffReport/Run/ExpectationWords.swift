import Handoff
import HandoffScenario

// An expectation and its measurement in words: the scenario layer hands
// over typed results (ExpectationMeasurement), and every report says them
// with these sentences.

extension Expectation {
    /// What a share expectation counts, in words: "continued", "continued
    /// (app or browser)", "failed with 4611", "not offered (noApp)"; nil
    /// for other kinds.
    var shareWords: String? {
        switch kind.shape {
        case let .share(kind): kind.countedWords
        case .sequence, .percentile: nil
        }
    }

    /// The bound on the share of trials, if the expectation has one.
    var rate: RateBound? {
        switch kind.shape {
        case let .share(kind): kind.rate
        case let .sequence(kind): kind.rate
        case .percentile: nil
        }
    }
}

/// An outcome in words, "not observed" for none.
func outcomeWords(_ outcome: ContinuationOutcome?) -> String {
    outcome.map { "\($0)" } ?? "not observed"
}

extension ExpectationResult {
    /// What the expectation asks, in words: "outcome on ipad is continued
    /// in every trial", "acceptToContinue p95 on ipad < 1.5s".
    public var asked: String {
        expectation.question(activityName: activityName, namesActivity: namesActivity)
    }

    /// What was measured, in words: "continued in 97 of 100 trials (97%)",
    /// with how the other trials ended when the expectation did not hold
    /// surely ("; the others: 3 failed (4611 handoffUserInfoTooLarge)"),
    /// "p95 = 1.03s over 20 of 20 trials".
    public var measured: String {
        switch measurement {
        case let .share(share): return shareWords(share)
        case let .sequence(sequence): return sequenceWords(sequence)
        case let .percentile(percentile): return percentileWords(percentile)
        }
    }

    func shareWords(_ share: ExpectationMeasurement.Share) -> String {
        let fraction = share.trials == 0 ? 0 : Double(share.matching) / Double(share.trials)
        var words = "\(expectation.shareWords ?? "") in \(share.matching) of \(share.trials) trials (\(Format.percent(fraction)))"
        let rate = expectation.rate
        if rate == nil, verdict == .fail, let miss = share.firstMiss {
            words += "; trial \(miss.trial) was \(outcomeWords(miss.outcome))"
        }
        // How the others ended, when they are what breaks the expectation
        // (every trial, or at least a share).
        let countsOthers: Bool
        switch rate {
        case .none, .atLeast: countsOthers = true
        case .atMost: countsOthers = false
        }
        if countsOthers, verdict != .pass, !share.others.isEmpty {
            let shown = share.others.prefix(3).map { "\($0.trials) \(outcomeWords($0.outcome))" }
            words += "; the others: " + shown.joined(separator: ", ") + (share.others.count > 3 ? ", …" : "")
        }
        return words
    }

    func sequenceWords(_ sequence: ExpectationMeasurement.Sequence) -> String {
        func difference(_ difference: ExpectationMeasurement.Sequence.Difference) -> String {
            func quoted(_ name: TraceEvent.Name?) -> String { name.map { "\"\($0)\"" } ?? "nothing" }
            return "trial \(difference.trial) had [\(difference.got.map(\.rawValue).joined(separator: ", "))]"
                + "; at position \(difference.position + 1) expected \(quoted(difference.expected)), found \(quoted(difference.found))"
        }
        guard expectation.rate != nil else {
            return sequence.firstDifference.map(difference) ?? "as expected in all \(sequence.trials) trials"
        }
        let fraction = sequence.trials == 0 ? 0 : Double(sequence.matching) / Double(sequence.trials)
        let words = "as expected in \(sequence.matching) of \(sequence.trials) trials (\(Format.percent(fraction)))"
        return sequence.firstDifference.map { words + "; " + difference($0) } ?? words
    }

    func percentileWords(_ percentile: ExpectationMeasurement.Percentile) -> String {
        guard let low = percentile.low, let high = percentile.high else {
            let metric: String
            switch expectation.kind.shape {
            case let .percentile(kind): metric = kind.metric.rawValue
            case .share, .sequence: metric = "its latency"
            }
            return "no trial of \(percentile.trials) reached the end of \(metric)"
        }
        var words = "\(Format.percentile(percentile.percentile)) = \(high.rounded(toSignificantDigits: 3)) over \(percentile.reached) of \(percentile.trials) trials"
        if percentile.straddlesBound {
            // The bound falls inside the bucket: say why it does not pass.
            words += " (the histogram places it between \(low) and \(high), on both sides of the bound)"
        }
        return words
    }
}
