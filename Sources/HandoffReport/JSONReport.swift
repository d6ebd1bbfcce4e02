import HandoffScenario
import SimKernel

/// The JSON report of a run: a header (tool version, the run's overrides)
/// and one record per scenario file.
///
/// The same files and seed give byte-identical output, whatever `--jobs`
/// was, except for the fields named `wallClockSeconds`.
public enum JSONReport {
    /// The report's format version; bumped when a field changes meaning
    /// (2: a scenario's status may be "fragile", which `summary.passed` no
    /// longer counts; each expectation has its `verdict` and `confidence`).
    public static let formatVersion: Int64 = 2

    /// The report as pretty-printed JSON.
    ///
    /// - Parameters:
    ///   - toolVersion: the `handoff-sim` version.
    ///   - trials: the `--trials` override, if any.
    ///   - seed: the `--seed` override, if any.
    ///   - seeds: the `--seeds` list, if any (`results` then holds every
    ///     file under the first seed, then every file under the next, …).
    ///   - strict: whether `--strict` made a fragile verdict a failure.
    public static func render(
        _ results: [FileResult], toolVersion: String, trials: Int?, seed: UInt64?, seeds: [UInt64]? = nil,
        strict: Bool = false, command: String = "handoff-sim"
    ) -> String {
        var passed: Int64 = 0
        var fragile: Int64 = 0
        var failed: Int64 = 0
        var errors: Int64 = 0
        var invalid: Int64 = 0
        var skipped: Int64 = 0
        var seconds = 0.0
        for result in results {
            switch result.outcome {
            case .invalid: invalid += 1
            case .skipped: skipped += 1
            case let .ran(run):
                seconds += run.wallClockSeconds
                if run.failure != nil {
                    errors += 1
                } else if run.isFragile {
                    fragile += 1
                } else if run.passed {
                    passed += 1
                } else {
                    failed += 1
                }
            }
        }
        let report: JSONOutput = .object([
            ("tool", .string("handoff-sim")),
            ("toolVersion", .string(toolVersion)),
            ("format", .int(formatVersion)),
            ("run", .object([
                ("trials", trials.map { .int(Int64($0)) } ?? .null),
                ("seed", seed.map { .int(Int64($0)) } ?? .null),
                ("seeds", seeds.map { .array($0.map { .int(Int64($0)) }) } ?? .null),
                ("strict", .bool(strict)),
            ])),
            ("summary", .object([
                ("scenarios", .int(Int64(results.count))),
                ("passed", .int(passed)),
                ("fragile", .int(fragile)),
                ("failed", .int(failed)),
                ("errors", .int(errors)),
                ("invalid", .int(invalid)),
                ("skipped", .int(skipped)),
            ])),
            ("wallClockSeconds", .double(roundedSeconds(seconds))),
            ("scenarios", .array(results.map { scenario($0, command: command) })),
        ])
        return report.render(pretty: true)
    }

    static func scenario(_ result: FileResult, command: String) -> JSONOutput {
        switch result.outcome {
        case let .invalid(problems):
            return .object([
                ("file", .string(result.file)),
                ("status", .string("invalid")),
                ("problems", .array(problems.problems.map { problem in
                    .object([
                        ("path", .string(problem.path)),
                        ("line", problem.position.map { .int(Int64($0.line)) } ?? .null),
                        ("column", problem.position.map { .int(Int64($0.column)) } ?? .null),
                        ("message", .string(problem.message)),
                    ])
                })),
            ])
        case let .skipped(scenario):
            return .object([
                ("file", .string(result.file)),
                ("name", .string(scenario.name)),
                ("digest", .string(scenario.digest)),
                ("status", .string("skipped")),
                ("reason", .string("no expectations (a file for sweeps)")),
            ])
        case let .ran(run):
            let status = run.failure != nil ? "error" : run.isFragile ? "fragile" : run.passed ? "passed" : "failed"
            return .object([
                ("file", .string(result.file)),
                ("name", .string(run.scenario.name)),
                ("digest", .string(run.scenario.digest)),
                ("status", .string(status)),
                ("seed", .int(Int64(run.seed))),
                ("trials", .int(Int64(run.trials))),
                ("error", run.failure.map { .string("\($0)") } ?? .null),
                ("replay", replay(run, trial: run.failure?.trial, command: command)),
                ("expectations", .array(run.expectations.map { expectation in
                    .object([
                        ("path", .string(expectation.expectation.path)),
                        ("line", expectation.expectation.line.map { .int(Int64($0)) } ?? .null),
                        ("passed", .bool(expectation.passed)),
                        ("verdict", .string(expectation.verdict.rawValue)),
                        ("confidence", expectation.confidence.map(confidence) ?? .null),
                        ("expected", .string(expectation.asked)),
                        ("measured", .string(expectation.measured)),
                        ("failingTrial", expectation.failingTrial.map { .int(Int64($0)) } ?? .null),
                        ("replay", replay(run, trial: expectation.failingTrial, command: command)),
                    ])
                })),
                ("results", .array(run.pairs.map(pair))),
                ("wallClockSeconds", .double(roundedSeconds(run.wallClockSeconds))),
            ])
        }
    }

    /// An expectation's confidence interval or bound.
    static func confidence(_ confidence: VerdictConfidence) -> JSONOutput {
        var fields: [(String, JSONOutput)] = [("level", .double(VerdictConfidence.level))]
        switch confidence.interval {
        case let .percentile(low, high, values):
            fields += [
                ("kind", .string("percentile")),
                ("values", .int(Int64(values))),
                ("lowNanoseconds", low.map { .int($0.nanoseconds) } ?? .null),
                ("highNanoseconds", high.map { .int($0.nanoseconds) } ?? .null),
            ]
        case let .exceptionRate(exceptions, trials, upperBound, allowed):
            fields += [
                ("kind", .string("exceptionRate")),
                ("exceptions", .int(Int64(exceptions))),
                ("trials", .int(Int64(trials))),
                ("upperBound", .double(rounded(upperBound))),
                ("allowed", .double(allowed)),
            ]
        }
        fields += [
            ("trialsToSettle", confidence.trialsToSettle.map { .int(Int64($0)) } ?? .null),
            ("trialsToSettleIsMinimum", .bool(confidence.trialsToSettleIsMinimum)),
        ]
        return .object(fields)
    }

    /// A rate to nine decimals, so the field is short.
    static func rounded(_ rate: Double) -> Double { (rate * 1e9).rounded() / 1e9 }

    static func pair(_ pair: PairSummary) -> JSONOutput {
        .object([
            ("activity", .string(pair.activity)),
            ("device", .string(pair.device)),
            ("outcomes", .array(pair.outcomes.map { .object([("outcome", .string($0.outcome)), ("trials", .int(Int64($0.trials)))]) })),
            ("latencies", .array(pair.latencies.map { latency in
                func nanoseconds(_ value: SimDuration?) -> JSONOutput { value.map { .int($0.nanoseconds) } ?? .null }
                return .object([
                    ("metric", .string(latency.metric.rawValue)),
                    ("trials", .int(Int64(latency.count))),
                    ("p50Nanoseconds", nanoseconds(latency.p50)),
                    ("p90Nanoseconds", nanoseconds(latency.p90)),
                    ("p95Nanoseconds", nanoseconds(latency.p95)),
                    ("p99Nanoseconds", nanoseconds(latency.p99)),
                    ("maxNanoseconds", nanoseconds(latency.max)),
                ])
            })),
            ("budget", budget(pair.budget)),
        ])
    }

    /// Where accept → continue goes: per phase its mean and its share of
    /// the p95 trials' time; null when no trial continued.
    static func budget(_ budget: BudgetSummary?) -> JSONOutput {
        guard let budget else { return .null }
        return .object([
            ("trials", .int(Int64(budget.trials))),
            ("tailPercentile", .double(budget.tailPercentile)),
            ("tailTrials", .int(Int64(budget.tailTrials))),
            ("phases", .array(budget.phases.map { figure in
                .object([
                    ("phase", .string(figure.phase.description)),
                    ("meanNanoseconds", .int(figure.mean.nanoseconds)),
                    ("tailShare", .double((figure.tailShare * 1e6).rounded() / 1e6)),
                ])
            })),
        ])
    }

    static func replay(_ run: ScenarioResult, trial: Int?, command: String) -> JSONOutput {
        guard let trial else { return .null }
        return .string(ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))
    }

    /// Seconds to the millisecond, so the field is short.
    static func roundedSeconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
