import Foundation
import Handoff

/// Measures scenario files for a baseline.
public struct BaselineRecorder: Sendable {
    /// Threads per measurement.
    public var jobs: Int

    /// A recorder on `jobs` threads.
    public init(jobs: Int = 1) { self.jobs = max(1, jobs) }

    /// Why a file could not be measured.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The file is invalid (exit 65).
        case invalid(ScenarioProblems)
        /// The file cannot be read.
        case unreadable(file: String)
        /// A trial stopped at a limit (events or simulated time).
        case stopped(file: String, String)

        public var description: String {
            switch self {
            case let .invalid(problems): return problems.description
            case let .unreadable(file): return "\(file): no such file or cannot be read"
            case let .stopped(file, message): return "\(file): \(message)"
            }
        }
    }

    /// The figures of one scenario file: every activity on every receiving
    /// device, then every point of its `sweep` block, if it has one.
    public func measure(file: String) -> Result<Baseline.Scenario, Failure> {
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(.unreadable(file: file))
        }
        let bytes = Array(data)
        let scenario: Scenario
        switch ScenarioDecoder.decode(bytes, file: file) {
        case let .success(value): scenario = value
        case let .failure(problems): return .failure(.invalid(problems))
        }
        let runner = SweepRunner(jobs: jobs)
        var entries: [Baseline.Entry] = []
        let point = SweepPointScenario(coordinates: [], scenario: scenario, bytes: bytes, edits: [], digest: scenario.digest)
        for (index, activity) in scenario.activities.enumerated() {
            for device in scenario.setup.devices where device.name != activity.device {
                switch runner.runPoint(point, activity: index, device: device.name, trials: 0..<scenario.trials, seed: scenario.seed) {
                case let .success(aggregate):
                    entries.append(Baseline.Entry(
                        key: "\(activity.name) on \(device.name)", metrics: BaselineMetrics.metrics(of: aggregate)))
                case let .failure(failure):
                    return .failure(.stopped(file: file, "\(failure)"))
                }
            }
        }
        if scenario.sweep != nil {
            switch SweepRunner.prepare(bytes, file: file, options: SweepRunner.Options()) {
            case let .failure(.invalid(problems)): return .failure(.invalid(problems))
            case let .failure(failure): return .failure(.stopped(file: file, "sweep: \(failure)"))
            case let .success(prepared):
                switch runner.run(prepared) {
                case let .failure(failure): return .failure(.stopped(file: file, "sweep: \(failure)"))
                case let .success(result):
                    for point in result.points {
                        let key = "sweep: " + zip(result.axes, point.coordinates).map { "\($0.name)=\($1)" }.joined(separator: ", ")
                        entries.append(Baseline.Entry(key: key, metrics: BaselineMetrics.metrics(of: point.aggregate)))
                    }
                }
            }
        }
        return .success(Baseline.Scenario(
            file: file, name: scenario.name, digest: scenario.digest, seed: scenario.seed, trials: scenario.trials,
            entries: entries))
    }
}
