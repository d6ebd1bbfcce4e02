import Handoff
import HandoffScenario
import SimKernel

/// Every trial as one CSV row per (activity, receiving device): what
/// `handoff-sim run --samples` and `sweep --samples` write.
///
/// Columns: for a run, `scenario` (the file as named on the command line);
/// for a sweep, one column per axis (the coordinate as written) and
/// `payload_bytes`; then `trial`, `activity`, `device`, `outcome` (as the
/// text reports word it: `continued`, `failed (4610 …)`, `not offered: …`),
/// and one column per latency metric, in `LatencyMetric.allCases` order
/// (`advert_to_offered_ns`, `accept_to_continue_ns`, …, `transfer_ns`, each
/// `LatencyMetric.csvName` with `_ns`): whole nanoseconds, empty where the
/// trial did not reach that point; then one column per phase of
/// accept → continue's `LatencyBudget` (`phase_launch_ns`, …,
/// `phase_decode_ns`, each `LatencyBudget.Phase.csvName`), in whole
/// nanoseconds that add up to `accept_to_continue_ns` exactly, empty
/// where the trial did not continue. Rows are in file (or point) order, then
/// trial order, then activity and device order; a pair whose device never
/// heard of the activity has no row.
///
/// ```swift
/// let results = ScenarioSuite.run(files: files, runner: ScenarioRunner(recordsSamples: true))
/// print(SamplesCSV.render(results), terminator: "")
/// ```
public enum SamplesCSV {
    /// The latency columns, in order.
    static let latencyColumns = LatencyMetric.allCases.map { $0.csvName + "_ns" }
        + LatencyBudget.Phase.allCases.map(\.csvName)

    /// The samples of every file that ran.
    public static func render(_ results: [FileResult]) -> String {
        var text = (["scenario", "trial", "activity", "device", "outcome"] + latencyColumns).joined(separator: ",") + "\n"
        for result in results {
            guard case let .ran(run) = result.outcome else { continue }
            let file = Escape.csvField(result.file)
            for sample in run.samples {
                text += file + ","
                append(sample, scenario: run.scenario, to: &text)
            }
        }
        return text
    }

    /// The samples of every point of a sweep.
    public static func render(_ result: SweepResult) -> String {
        let header = result.axes.map(\.name) + ["payload_bytes", "trial", "activity", "device", "outcome"] + latencyColumns
        var text = header.map(Escape.csvField).joined(separator: ",") + "\n"
        let activity = Escape.csvField(result.activity)
        let device = Escape.csvField(result.device)
        for point in result.points {
            let prefix = SweepTable.coordinates(point, axisCount: result.axes.count).map(Escape.csvField)
                .joined(separator: ",") + (result.axes.isEmpty ? "" : ",") + "\(point.payloadBytes),"
            for sample in point.samples {
                text += prefix
                text += "\(sample.trial),\(activity),\(device),"
                appendOutcomeAndLatencies(sample, to: &text)
            }
        }
        return text
    }

    private static func append(_ sample: TrialSample, scenario: Scenario, to text: inout String) {
        let activity = sample.activity < scenario.activities.count ? scenario.activities[sample.activity].name : ""
        let device = sample.device < scenario.setup.devices.count ? scenario.setup.devices[sample.device].name : ""
        text += "\(sample.trial),\(Escape.csvField(activity)),\(Escape.csvField(device)),"
        appendOutcomeAndLatencies(sample, to: &text)
    }

    private static func appendOutcomeAndLatencies(_ sample: TrialSample, to text: inout String) {
        text += Escape.csvField(sample.outcome.map { "\($0)" } ?? "not observed")
        for metric in LatencyMetric.allCases {
            text += ","
            if let latency = sample[metric] { text += String(latency.nanoseconds) }
        }
        for phase in LatencyBudget.Phase.allCases {
            text += ","
            if let budget = sample.budget { text += String(budget[phase].nanoseconds) }
        }
        text += "\n"
    }
}
