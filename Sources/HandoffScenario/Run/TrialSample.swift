import Handoff
import SimKernel

/// What one trial showed for one activity on one receiving device: one row
/// of `--samples`.
///
/// Recorded only when the runner is asked to
/// (``ScenarioRunner/recordsSamples``, ``SweepRunner/recordsSamples``), in
/// trial order, the same for any number of threads.
public struct TrialSample: Hashable, Sendable, LatencyRecord {
    /// The trial's index, from 0.
    public let trial: Int
    /// The activity's index in the scenario's activities.
    public let activity: Int
    /// The receiving device's index in the scenario's devices.
    public let device: Int
    /// How the continuation ended on the device (nil: the device never
    /// heard of the activity).
    public let outcome: ContinuationOutcome?
    /// First advertisement → offer.
    public let advertToOffered: SimDuration?
    /// Accept → `continue`.
    public let acceptToContinue: SimDuration?
    /// Accept → first `restoreUserActivityState`.
    public let acceptToRestored: SimDuration?
    /// The fetch's start → the payload's arrival.
    public let fetch: SimDuration?
    /// The first continuation-stream request → its response.
    public let streamRound: SimDuration?

    /// A sample.
    public init(
        trial: Int, activity: Int, device: Int, outcome: ContinuationOutcome?, advertToOffered: SimDuration?,
        acceptToContinue: SimDuration?, acceptToRestored: SimDuration?, fetch: SimDuration?,
        streamRound: SimDuration? = nil
    ) {
        self.trial = trial
        self.activity = activity
        self.device = device
        self.outcome = outcome
        self.advertToOffered = advertToOffered
        self.acceptToContinue = acceptToContinue
        self.acceptToRestored = acceptToRestored
        self.fetch = fetch
        self.streamRound = streamRound
    }

    /// The value of `metric` (nil where the trial did not reach it).
    public func latency(_ metric: LatencyMetric) -> SimDuration? { value(of: metric) }

    /// The sample of `summary`, if the device heard of the activity.
    init?(trial: Int, activity: Int, device: Int, summary: ContinuationSummary?) {
        guard let summary else { return nil }
        self.init(
            trial: trial, activity: activity, device: device, outcome: summary.outcome,
            advertToOffered: summary.advertToOffered, acceptToContinue: summary.acceptToContinue,
            acceptToRestored: summary.acceptToRestored, fetch: summary.fetch, streamRound: summary.streamRound)
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

/// Something with the five latencies of one activity on one device, read
/// by ``LatencyMetric``: a summary, a sample, an observation.
protocol LatencyRecord {
    var advertToOffered: SimDuration? { get }
    var acceptToContinue: SimDuration? { get }
    var acceptToRestored: SimDuration? { get }
    var fetch: SimDuration? { get }
    var streamRound: SimDuration? { get }
}

extension LatencyRecord {
    /// The latency `metric` names.
    func value(of metric: LatencyMetric) -> SimDuration? {
        switch metric {
        case .advertToOffered: return advertToOffered
        case .acceptToContinue: return acceptToContinue
        case .acceptToRestored: return acceptToRestored
        case .fetch: return fetch
        case .streamRound: return streamRound
        }
    }
}
