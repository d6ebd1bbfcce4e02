import HandoffScenario
import SimKernel

/// The trials `handoff-sim run --trials-with/--trials-over` lists after
/// its summary: per scenario, the matching trials (at most the filter's
/// limit, then how many more), each with what matched and its replay
/// command.
///
/// ```text
/// trials with failed, over acceptToContinue=1.5s (at most 20 per scenario)
/// slow-source: 2 of 100 trials
///   trial 3: activity on iphone failed (4610 remoteApplicationTimedOut)
///     handoff-sim replay scenarios/slow-source.json --seed 1 --trial 3
///   trial 17: …
/// payload-3kib: no trials
/// ```
///
/// Scenarios that did not run (invalid files, sweep files) are left out;
/// one stopped by an error lists the trials before the error.
package enum TrialListReport {
    /// The list for every scenario of `results` that ran with a filter.
    ///
    /// - Parameters:
    ///   - filter: the filter, for the heading.
    ///   - command: how to invoke the tool in replay commands.
    package static func render(_ results: [FileResult], filter: TrialFilter, command: String = "handoff-sim") -> String {
        var lines = ["", heading(filter)]
        for result in results {
            guard case let .ran(run) = result.outcome, let matches = run.matchingTrials else { continue }
            guard matches.total > 0 else {
                lines.append("\(run.scenario.name): no trials of \(run.trials)")
                continue
            }
            lines.append("\(run.scenario.name): \(matches.total) of \(run.trials) trial\(run.trials == 1 ? "" : "s")")
            for match in matches.trials {
                let what = match.pairs.map { pair in
                    let activity = run.scenario.activities[pair.activity].name
                    var text = "\(activity) on \(pair.device) \(pair.outcome)"
                    if let latency = pair.latency, let metric = filter.latencyMetric {
                        text += ", \(metric.rawValue) \(latency)"
                    }
                    return text
                }
                lines.append("  trial \(match.trial): " + what.joined(separator: "; "))
                lines.append("    " + ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: match.trial))
            }
            let more = matches.total - matches.trials.count
            if more > 0 { lines.append("  … and \(more) more (raise --limit to list them)") }
        }
        return lines.escapedLines
    }

    /// `trials with failed, over acceptToContinue=1.5s (at most 20 per scenario)`.
    static func heading(_ filter: TrialFilter) -> String {
        var conditions: [String] = []
        if let outcome = filter.outcome { conditions.append("with \(outcome.rawValue)") }
        if let metric = filter.latencyMetric { conditions.append("over \(metric.rawValue)=\(filter.latencyOver)") }
        return "trials \(conditions.joined(separator: ", ")) (at most \(filter.limit) per scenario)"
    }
}
