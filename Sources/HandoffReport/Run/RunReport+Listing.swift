import HandoffScenario

extension RunReport {
    /// What `handoff-sim list` prints for one scenario file, before any
    /// run: the scenario's name, file, trials, seed, activities and
    /// expectations.
    public static func listing(_ scenario: Scenario) -> String {
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
        return lines.escapedLines + "\n"
    }
}
