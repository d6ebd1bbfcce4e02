import HandoffScenario
import ScenarioJSON
import SimKernel

extension RunReport {
    /// The JSON report's format version; bumped when a field changes meaning
    /// (2: a scenario's status may be "fragile", which `summary.passed` no
    /// longer counts; each expectation has its `verdict` and `confidence`.
    /// 3: each expectation has its `measurement` as numbers, and each
    /// outcome count its `errorCode`; a scenario's `status` is one of the
    /// statuses every report uses,
    /// pass, fragile, fail, error, invalid or skipped, with `--strict`
    /// applied; `summary` counts them under those names, and `conclusion`
    /// says how the run ends: success, expectationFailed, invalidInput or
    /// internalError).
    public static let jsonFormatVersion: Int64 = 3

    /// The JSON report of a run: a header (tool version, the run's overrides)
    /// and one record per scenario file.
    ///
    /// The same files and seed give byte-identical output, whatever `--jobs`
    /// was, except for the fields named `wallClockSeconds`.
    ///
    /// The report as pretty-printed JSON.
    ///
    /// - Parameters:
    ///   - summary: The run, its statuses decided.
    ///   - toolVersion: the `handoff-sim` version.
    ///   - trials: the `--trials` override, if any.
    ///   - seed: the `--seed` override, if any.
    ///   - command: how to invoke the tool in replay commands.
    public static func json(
        _ summary: RunSummary, toolVersion: String, trials: Int?, seed: UInt64?, command: String = "handoff-sim"
    ) -> String {
        var counts: [(String, JSONOutput)] = [("scenarios", .int(Int64(summary.entries.count)))]
        for status in RunSummary.Status.allCases {
            counts.append((status.rawValue, .int(Int64(summary.count(of: status)))))
        }
        let report: JSONOutput = .object([
            ("tool", .string("handoff-sim")),
            ("toolVersion", .string(toolVersion)),
            ("format", .int(jsonFormatVersion)),
            ("run", .object([
                ("trials", trials.map { .int(Int64($0)) } ?? .null),
                ("seed", seed.map { .int(Int64($0)) } ?? .null),
                ("seeds", summary.seeds.map { .array($0.map { .int(Int64($0)) }) } ?? .null),
                ("strict", .bool(summary.strict)),
            ])),
            ("summary", .object(counts)),
            ("conclusion", .string(conclusionName(summary.conclusion))),
            ("wallClockSeconds", .double(roundedSeconds(summary.wallClockSeconds))),
            ("scenarios", .array(summary.entries.map { scenario($0, command: command) })),
        ])
        return report.render(pretty: true)
    }

    /// The conclusion's name in the report.
    static func conclusionName(_ conclusion: RunSummary.Conclusion) -> String {
        switch conclusion {
        case .success: "success"
        case .expectationFailed: "expectationFailed"
        case .invalidInput: "invalidInput"
        case .internalError: "internalError"
        }
    }

    static func scenario(_ entry: RunSummary.Entry, command: String) -> JSONOutput {
        let status: (String, JSONOutput) = ("status", .string(entry.status.rawValue))
        switch entry.result.outcome {
        case let .invalid(problems):
            return .object([
                ("file", .string(entry.file)),
                status,
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
                ("file", .string(entry.file)),
                ("name", .string(scenario.name)),
                ("digest", .string(scenario.digest)),
                status,
                ("reason", .string("no expectations (a file for sweeps)")),
            ])
        case let .ran(run):
            return .object([
                ("file", .string(entry.file)),
                ("name", .string(run.scenario.name)),
                ("digest", .string(run.scenario.digest)),
                status,
                ("failsOnlyUnderStrict", .bool(entry.failsOnlyUnderStrict)),
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
                        ("measurement", measurement(expectation.measurement)),
                        ("failingTrial", expectation.failingTrial.map { .int(Int64($0)) } ?? .null),
                        ("replay", replay(run, trial: expectation.failingTrial, command: command)),
                    ])
                })),
                ("results", .array(run.pairs.map(pair))),
                ("wallClockSeconds", .double(roundedSeconds(run.wallClockSeconds))),
            ])
        }
    }

    /// An outcome count: the outcome in words, its error code when it
    /// failed (null otherwise), and the trials.
    static func outcomeCount(_ count: OutcomeCount) -> JSONOutput {
        var errorCode: JSONOutput = .null
        if case let .failed(error) = count.outcome { errorCode = .int(Int64(error.code)) }
        return .object([
            ("outcome", .string(outcomeWords(count.outcome))),
            ("errorCode", errorCode),
            ("trials", .int(Int64(count.trials))),
        ])
    }

    /// What an expectation measured, as numbers: `kind` share, sequence or
    /// percentile, with the counts, the trials and the values behind the
    /// verdict.
    static func measurement(_ measurement: ExpectationMeasurement) -> JSONOutput {
        switch measurement {
        case let .share(share):
            return .object([
                ("kind", .string("share")),
                ("matching", .int(Int64(share.matching))),
                ("trials", .int(Int64(share.trials))),
                ("others", .array(share.others.map(outcomeCount))),
                ("firstMissTrial", share.firstMiss.map { .int(Int64($0.trial)) } ?? .null),
                ("firstMatchTrial", share.firstMatch.map { .int(Int64($0)) } ?? .null),
            ])
        case let .sequence(sequence):
            return .object([
                ("kind", .string("sequence")),
                ("matching", .int(Int64(sequence.matching))),
                ("trials", .int(Int64(sequence.trials))),
                ("firstDifference", sequence.firstDifference.map { difference in
                    .object([
                        ("trial", .int(Int64(difference.trial))),
                        ("got", .array(difference.got.map { .string($0.rawValue) })),
                        ("position", .int(Int64(difference.position))),
                        ("expected", difference.expected.map { .string($0.rawValue) } ?? .null),
                        ("found", difference.found.map { .string($0.rawValue) } ?? .null),
                    ])
                } ?? .null),
            ])
        case let .percentile(percentile):
            return .object([
                ("kind", .string("percentile")),
                ("percentile", .double(percentile.percentile)),
                ("reached", .int(Int64(percentile.reached))),
                ("trials", .int(Int64(percentile.trials))),
                ("lowNanoseconds", percentile.low.map { .int($0.nanoseconds) } ?? .null),
                ("highNanoseconds", percentile.high.map { .int($0.nanoseconds) } ?? .null),
                ("straddlesBound", .bool(percentile.straddlesBound)),
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
            ("outcomes", .array(pair.outcomes.map(outcomeCount))),
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
