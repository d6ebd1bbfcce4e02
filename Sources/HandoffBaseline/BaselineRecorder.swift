import Foundation
import Handoff
import HandoffScenario

/// Measures scenario files for a baseline.
public struct BaselineRecorder: Sendable {
    /// Threads per measurement.
    var jobs: Int
    /// Values written over every scenario first (a fitted model).
    var overlay: Overlay?

    /// A recorder on `jobs` threads, with `overlay`'s values written over
    /// every scenario.
    public init(jobs: Int = 1, overlay: Overlay? = nil) {
        self.jobs = max(1, jobs)
        self.overlay = overlay
    }

    /// The figures of one scenario file: every activity on every receiving
    /// device, then every point of its `sweep` block, if it has one.
    ///
    /// ```swift
    /// let measured = try BaselineRecorder(jobs: 4).measure(file: "scenarios/payload-3kib.json")
    /// let now = Baseline(toolVersion: "local", scenarios: [measured])
    /// ```
    ///
    /// - Parameter file: The scenario file's path.
    /// - Returns: The figures, one entry per activity and receiving device,
    ///   then one per sweep point.
    /// - Throws: `ScenarioError` saying why there are none: an invalid file
    ///   (`ScenarioError.Category.invalidInput`, with its problems, or a
    ///   `sweep` block that cannot run as written), a file that cannot be
    ///   read (`ScenarioError.Category.missingInput`), or a trial that
    ///   stopped, its message after the file's name.
    public func measure(file: String) throws(ScenarioError) -> Baseline.Scenario {
        guard let bytes = InputFile.contents(atPath: file) else {
            throw .unreadable(file)
        }
        let scenario: Scenario
        switch ScenarioSuite.loadResult(bytes: bytes, file: file, overlay: overlay) {
        case let .success(value): scenario = value
        case let .failure(problems): throw .invalid(problems)
        }
        let runner = SweepRunner(jobs: jobs)
        var entries: [Baseline.Entry] = []
        // The edits that make the scenario again from the file: the overlay
        // it names, then the one given.
        let edits: [(path: ParameterPath, value: String)]
        switch ScenarioDecoder.parse(bytes, file: file).mapError(ScenarioError.invalid).flatMap({
            Overlay.apply(to: $0, file: file, given: overlay)
        }) {
        case let .success((_, value, _)): edits = value
        case let .failure(error): throw error
        }
        let point = SweepPointScenario(
            coordinates: [], scenario: scenario, bytes: bytes, edits: edits, digest: scenario.digest)
        for (index, activity) in scenario.activities.enumerated() {
            for device in scenario.setup.devices where device.name != activity.device {
                switch runner.runPoint(point, activity: index, device: device.name, trials: 0..<scenario.trials, seed: scenario.seed) {
                case let .success(aggregate):
                    entries.append(Baseline.Entry(
                        key: "\(activity.name) on \(device.name)", metrics: BaselineMetrics.metrics(of: aggregate)))
                case let .failure(failure):
                    throw failure.prefixed("\(file): ")
                }
            }
        }
        if scenario.sweep != nil {
            let prepared: PreparedSweep
            do {
                prepared = try SweepRunner.prepare(bytes, file: file, options: SweepRunner.Options(overlay: overlay))
            } catch where error.problems != nil {
                throw error
            } catch {
                // The file's own sweep block, not a value of the caller's:
                // one that cannot run as written makes the file invalid.
                let category = error.category == .badValue ? .invalidInput : error.category
                throw error.prefixed("\(file): sweep: ").recategorized(category)
            }
            let result: SweepResult
            do {
                result = try runner.run(prepared)
            } catch {
                throw error.prefixed("\(file): sweep: ")
            }
            for point in result.points {
                let key = "sweep: " + zip(result.axes, point.coordinates).map { "\($0.name)=\($1)" }.joined(separator: ", ")
                entries.append(Baseline.Entry(key: key, metrics: BaselineMetrics.metrics(of: point.aggregate)))
            }
        }
        return Baseline.Scenario(
            file: file, name: scenario.name, digest: scenario.digest, seed: scenario.seed, trials: scenario.trials,
            entries: entries)
    }
}
