import Handoff
import HandoffScenario

/// What `handoff-sim replay` prints: the trial's trace, one timestamped
/// record per line, then each activity's outcome on each device.
public enum TraceReport {
    /// The replay as text.
    public static func render(_ replay: TrialReplay, scenario: Scenario) -> String {
        var lines = [
            "scenario \(scenario.name) (\(scenario.file)), seed \(replay.seed), trial \(replay.trial)",
            "",
        ]
        for record in replay.trace { lines.append(record.description) }
        if !replay.summaries.isEmpty { lines.append("") }
        for summary in replay.summaries {
            let activity = scenario.activities[summary.activity.index].name
            var line = "\(activity) on \(summary.device): \(summary.outcome)"
            var latencies: [String] = []
            if let value = summary.advertToOffered { latencies.append("advert→offered \(value)") }
            if let value = summary.acceptToContinue { latencies.append("accept→continue \(value)") }
            if let value = summary.acceptToRestored { latencies.append("accept→restored \(value)") }
            if let value = summary.fetch { latencies.append("fetch \(value)") }
            if !latencies.isEmpty { line += " (" + latencies.joined(separator: ", ") + ")" }
            lines.append(line)
        }
        for violation in replay.violations { lines.append("violation: \(violation)") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// What `handoff-sim list` prints for one scenario.
public enum ListReport {
    /// The scenario's name, file, trials, seed, activities and expectations.
    public static func render(_ scenario: Scenario) -> String {
        var lines = ["\(scenario.name)  (\(scenario.file))"]
        if let summary = scenario.summary { lines.append("  \(summary)") }
        var run = "  \(scenario.trials) trials, seed \(scenario.seed)"
        if let duration = scenario.duration { run += ", \(duration) per trial" }
        lines.append(run)
        for activity in scenario.activities {
            lines.append("  activity \(activity.name): \(activity.content.activityType) on \(activity.device) (\(activity.app))")
        }
        for expectation in scenario.expectations {
            lines.append("  expect \(expectation.question(in: scenario))")
        }
        return lines.joined(separator: "\n") + "\n\n"
    }
}
