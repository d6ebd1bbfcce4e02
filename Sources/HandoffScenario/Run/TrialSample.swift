import Handoff
import SimKernel

/// What one trial showed for one activity on one receiving device: one row
/// of `--samples`.
///
/// Recorded only when the runner is asked to
/// (``ScenarioRunner/recordsSamples``, ``SweepRunner/recordsSamples``), in
/// trial order, the same for any number of threads.
package struct TrialSample: Hashable, Sendable {
    /// The trial's index, from 0.
    package let trial: Int
    /// The activity's index in the scenario's activities.
    package let activity: Int
    /// The receiving device's index in the scenario's devices.
    package let device: Int
    /// How the continuation ended on the device (nil: the device never
    /// heard of the activity).
    package let outcome: ContinuationOutcome?
    /// When the attempt reached each milestone.
    let milestones: MilestoneTimes
    /// Where accept → continue went (nil unless the trial continued).
    package let budget: LatencyBudget?

    /// A sample.
    init(
        trial: Int, activity: Int, device: Int, outcome: ContinuationOutcome?, milestones: MilestoneTimes,
        budget: LatencyBudget? = nil
    ) {
        self.trial = trial
        self.activity = activity
        self.device = device
        self.outcome = outcome
        self.milestones = milestones
        self.budget = budget
    }

    /// The value of `metric` (nil where the trial did not reach it).
    package subscript(metric: LatencyMetric) -> SimDuration? { milestones.latency(metric) }

    /// The value of `metric` (nil where the trial did not reach it).
    package func latency(_ metric: LatencyMetric) -> SimDuration? { milestones.latency(metric) }

    /// The sample of `summary`, if the device heard of the activity.
    init?(trial: Int, activity: Int, device: Int, summary: ContinuationSummary?) {
        guard let summary else { return nil }
        self.init(
            trial: trial, activity: activity, device: device, outcome: summary.outcome, milestones: summary.milestones,
            budget: summary.budget)
    }

    /// Appends the samples of the trial `run` has just run: every activity
    /// on every device but its source, in the scenario's order, where the
    /// device heard of the activity.
    static func collect(
        _ scenario: Scenario, run: HandoffRun, trial: Int, into samples: inout [TrialSample]
    ) {
        for (activity, description) in scenario.activities.enumerated() {
            for (device, receiver) in scenario.setup.devices.enumerated() where receiver.name != description.device {
                if let sample = TrialSample(
                    trial: trial, activity: activity, device: device,
                    summary: run.summary(of: ActivityID(activity), on: receiver.name))
                {
                    samples.append(sample)
                }
            }
        }
    }
}
