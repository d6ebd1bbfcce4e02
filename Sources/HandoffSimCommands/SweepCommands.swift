import Foundation
import Handoff
import HandoffAdvice
import HandoffReport
import HandoffScenario
import SimKernel

extension CommandSpec {
    /// `handoff-sim sweep`.
    static let sweep = CommandSpec(
        name: "sweep",
        abstract: "Run a scenario at every point of a grid of payload sizes, network profiles and parameters.",
        discussion: """
            Reports latency percentiles, success rates and failures at every point. \
            Without --payload, --profile and --vary, the file's "sweep" block is \
            used. docs/sweeps.md describes sweeps.
            """,
        arguments: [.scenarioFile],
        options: [
            .payloads, .profiles, .vary,
            .trials.helping("Trials per point instead of the file's \"trials\"."),
            .seed, .activity, .device,
            .jobs.helping("Spread the trials over N threads. The output never depends on N."),
            .shard, .shards, .sweepFormat, .chartMetric,
            .p50.helping("A target: a bound on the median, e.g. 1s (see --p95)."), .p90.helping("A target: a bound on the 90th percentile (see --p95)."), .p95.helping("A target: a bound on the 95th percentile, e.g. 1s, answered under the text and markdown tables and on the svg chart and --html page with the largest size swept that meets it per series; refused with csv and jsonl.", shownInUsage: false), .p99.helping("A target: a bound on the 99th percentile (see --p95)."),
            .columns.helping(
                "The text table's columns: compact has the axes, trials, success, failures, not offered and the accept → continue percentiles (under 120 columns); full has every error code and latency."),
            .output, .html, .samples, .overlay, .noIntervals, .noProgress,
        ],
        notes: """
            When the sweep varies network profiles but the scenario does not fetch \
            over the cloud relay (the only path that uses the internet link a \
            profile shapes), sweep prints a warning on standard error: the profiles \
            would change nothing.
            """,
        exitCodes: [
            ExitCodeSpec(.success, "the sweep ran"),
            ExitCodeSpec(.expectationFailed, "a trial stopped at a limit"),
            ExitCodeSpec(.usage, "bad command-line usage (a bad value given on the command line included), or a file that does not exist"),
            ExitCodeSpec(.dataError, "the scenario file (or the file at some point of the grid) is invalid, or its setup was refused"),
            ExitCodeSpec(.software, "internal error (the simulator broke one of its own rules), or the output could not be written"),
        ],
        action: sweepCommand)

    /// `handoff-sim merge`.
    static let merge = CommandSpec(
        name: "merge",
        abstract: "Merge the shards of a sweep into the result the unsharded sweep gives, byte for byte.",
        discussion: """
            Every part must come from the same scenario file (by digest), seed, \
            trials, axes and tool version, and the parts must be the shards \
            0/N ... N-1/N, each once; otherwise merge says which part does not fit.
            """,
        arguments: [ArgumentSpec("part", repeating: true, help: "A partial result of 'handoff-sim sweep --shard' (JSON Lines).")],
        options: [.sweepFormat, .chartMetric, .p50.helping("A target: a bound on the median, e.g. 1s (see --p95)."), .p90.helping("A target: a bound on the 90th percentile (see --p95)."), .p95.helping("A target: a bound on the 95th percentile, e.g. 1s, answered under the text and markdown tables and on the svg chart and --html page with the largest size swept that meets it per series; refused with csv and jsonl.", shownInUsage: false), .p99.helping("A target: a bound on the 99th percentile (see --p95)."), .columns, .output, .html],
        exitCodes: [
            ExitCodeSpec(.success, "merged"),
            ExitCodeSpec(.usage, "bad command-line usage, or a part that does not exist"),
            ExitCodeSpec(.dataError, "a part is unreadable, or the parts do not belong together"),
            ExitCodeSpec(.software, "the output could not be written"),
        ],
        action: mergeCommand)
}

/// `result` in `format`.
func render(
    _ result: SweepResult, format: SweepFormat, metric: LatencyMetric, columns: SweepTable.Columns = .compact,
    target: SweepChart.Target? = nil
) -> String {
    switch format {
    case .text:
        return SweepTable.text(result, columns: columns)
            + (target.map { SweepTable.targetText(result, metric: metric, target: $0) } ?? "")
    case .csv: return SweepTable.csv(result)
    case .jsonl: return SweepJSONLines.render(result, toolVersion: toolVersion)
    case .markdown:
        return SweepTable.markdown(result)
            + (target.map { SweepTable.targetText(result, metric: metric, target: $0, markdown: true) } ?? "")
    case .svg: return SweepChart.svg(result, metric: metric, target: target)
    }
}

/// Refuses a latency target where nothing would show it: `--format csv`
/// or `jsonl` (a shard's part included) without `--html`. The chart, the
/// text and Markdown tables and the HTML page each answer it.
func checkTargetShown(_ target: SweepChart.Target?, format: SweepFormat, html: Bool) throws(UsageError) {
    guard let target, !html else { return }
    switch format {
    case .text, .markdown, .svg: return
    case .csv, .jsonl:
        let option = latencyBounds.first { $0.percentile == target.percentile }?.option.name ?? "--p95"
        throw UsageError(message: "option '\(option)' answers a latency target in --format text, markdown or svg, or with --html; --format \(format.rawValue) holds every point's figures without it (use 'handoff-sim advise' for the answer in words)")
    }
}

/// The latency bounds `--p50`, `--p90`, `--p95`, `--p99`, with their
/// percentiles.
let latencyBounds: [(option: Option<SimDuration?>, percentile: Double)] = [(.p50, 50), (.p90, 90), (.p95, 95), (.p99, 99)]

/// The target a sweep chart draws: the one latency bound given, or none.
func chartTarget(_ parsed: ParsedArguments) throws(UsageError) -> SweepChart.Target? {
    let given = latencyBounds.compactMap { bound in parsed[bound.option].map { (latency: $0, percentile: bound.percentile) } }
    guard given.count <= 1 else {
        let names = HandoffSimCommandLine.alternatives(latencyBounds.map(\.option.name))
        throw UsageError(message: "give at most one target: \(names)")
    }
    return given.first.map { SweepChart.Target(latency: $0.latency, percentile: $0.percentile) }
}

/// Writes `text` to `--output` or standard output.
func emit(_ text: String, _ parsed: ParsedArguments, _ context: CommandContext) -> ExitCode {
    if let path = parsed[.output] {
        do {
            try writeAtomically(text, to: path, io: context.io)
        } catch {
            context.io.writeError("error: \(error.message)")
            return .software
        }
    } else {
        context.io.writeOutput(text)
    }
    return .success
}

/// The shard from `--shard`, `--shards` and the environment.
func shardOption(_ parsed: ParsedArguments, environment: [String: String]) throws(UsageError) -> Shard? {
    if let shard = parsed[.shard] { return shard }
    if let count = parsed[.shards] {
        let index: Int
        if let value = environment["JOB_COMPLETION_INDEX"] {
            guard let parsedIndex = Int(value) else {
                throw UsageError(message: "JOB_COMPLETION_INDEX is '\(value.escapingControlCharacters)', not a whole number")
            }
            index = parsedIndex
        } else if let value = environment["SLURM_ARRAY_TASK_ID"] {
            guard let id = Int(value) else {
                throw UsageError(message: "SLURM_ARRAY_TASK_ID is '\(value.escapingControlCharacters)', not a whole number")
            }
            index = try slurmIndex(id, environment: environment)
        } else {
            throw UsageError(message: "option '--shards' takes the shard's index from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID, and neither is set; use --shard I/N")
        }
        guard let shard = Shard(index: index, count: count) else {
            throw UsageError(message: "the shard index from the environment is \(index), outside 0..<\(count)")
        }
        return shard
    }
    if let idText = environment["SLURM_ARRAY_TASK_ID"], let countText = environment["SLURM_ARRAY_TASK_COUNT"],
        let id = Int(idText), let count = Int(countText), count >= 1
    {
        let index = try slurmIndex(id, environment: environment)
        guard let shard = Shard(index: index, count: count) else {
            throw UsageError(message: "SLURM_ARRAY_TASK_ID \(id) (less SLURM_ARRAY_TASK_MIN) is outside 0..<\(count), or SLURM_ARRAY_TASK_COUNT is over \(Shard.maximumCount)")
        }
        return shard
    }
    return nil
}

/// SLURM_ARRAY_TASK_ID `id` less SLURM_ARRAY_TASK_MIN (0 when unset).
private func slurmIndex(_ id: Int, environment: [String: String]) throws(UsageError) -> Int {
    var minimum = 0
    if let text = environment["SLURM_ARRAY_TASK_MIN"] {
        guard let value = Int(text) else {
            throw UsageError(message: "SLURM_ARRAY_TASK_MIN is '\(text.escapingControlCharacters)', not a whole number")
        }
        minimum = value
    }
    let (index, overflow) = id.subtractingReportingOverflow(minimum)
    guard !overflow else {
        throw UsageError(message: "SLURM_ARRAY_TASK_ID \(id) less SLURM_ARRAY_TASK_MIN \(minimum) is out of range")
    }
    return index
}

/// `handoff-sim sweep`: every point of the grid, or one shard of it.
func sweepCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    if let failure = preflightOutputs(parsed, context) { return failure }
    let file = parsed.positional[0]
    let (format, metric, columns) = (parsed[.sweepFormat], parsed[.chartMetric], parsed[.columns])
    let target = try chartTarget(parsed)
    let (trials, seed, jobs) = (parsed[.trials], parsed[.seed], parsed[.jobs])
    let shard = try shardOption(parsed, environment: context.environment)
    if shard != nil, format != .jsonl, parsed.isGiven(.sweepFormat) {
        throw UsageError(message: "a shard writes a partial result as JSON Lines; merge the parts with 'handoff-sim merge' to render \(format)")
    }
    try checkTargetShown(target, format: shard == nil ? format : .jsonl, html: parsed.isGiven(.html))
    if shard != nil, parsed.isGiven(.html) {
        throw UsageError(message: "a shard holds part of the trials; merge the parts with 'handoff-sim merge --html PATH' for the report")
    }
    let parameters = parsed[.vary].map { (path: $0.path, values: $0.values) }
    guard let data = InputFile.contents(atPath: file) else {
        throw UsageError(message: "\(file.escapingControlCharacters): no such file or cannot be read")
    }
    let (overlay, overlayFailure) = try loadOverlay(parsed, context.io)
    if let overlayFailure { return overlayFailure }
    let options = SweepRunner.Options(
        trials: trials, seed: seed, shard: shard, activity: parsed[.activity], device: parsed[.device], overlay: overlay,
        runsReplicates: !parsed[.noIntervals])
    let prepared: PreparedSweep
    do {
        prepared = try SweepRunner.prepare(
            Array(data), file: file, payloads: parsed[.payloads] ?? [], profiles: parsed[.profiles] ?? [],
            parameters: parameters, options: options)
    } catch {
        return reportError(error, context)
    }
    if let warning = SweepRunner.profileWarning(
        for: prepared.base, profiles: prepared.axes.contains { $0.name == "profile" })
    {
        io.writeError("warning: \(warning)")
    }
    let showsProgress = io.standardErrorIsTerminal && !parsed[.noProgress]
    let clock = ContinuousClock()
    let start = clock.now
    let perPoint = (shard?.trials(of: prepared.trials) ?? 0..<prepared.trials).count
    @Sendable func report(done: Int, total: Int) {
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let rate = seconds > 0 ? Double(done * perPoint) / seconds : 0
        let remaining = rate > 0 ? Double((total - done) * perPoint) / rate : 0
        io.writeError(
            "\u{1B}[2K\rpoint \(done)/\(total), \(Int(rate)) trials/s, about \(Int(remaining.rounded(.up))) s left",
            newline: false)
    }
    let progress: (@Sendable (Int, Int) -> Void)? = showsProgress ? report : nil
    let samplesPath = parsed[.samples]
    let runner = SweepRunner(jobs: jobs, recordsSamples: samplesPath != nil)
    let outcome = Result { () throws(ScenarioError) in try runner.run(prepared, progress: progress) }
    if showsProgress { io.writeError("\u{1B}[2K\r", newline: false) }
    switch outcome {
    case let .success(result):
        if let samplesPath {
            do {
                try writeAtomically(SamplesCSV.render(result), to: samplesPath, io: io)
            } catch {
                io.writeError("error: \(error.message)")
                return .software
            }
        }
        if let path = parsed[.html] {
            do {
                let report = HTMLReport.sweep(
                    result, context: htmlContext(context, parsed, since: start, clock: clock), metric: metric, target: target)
                try writeAtomically(report, to: path, io: io)
            } catch {
                io.writeError("error: \(error.message)")
                return .software
            }
        }
        return emit(
            render(result, format: shard == nil ? format : .jsonl, metric: metric, columns: columns, target: target),
            parsed, context)
    case let .failure(error):
        return reportError(error, context)
    }
}

/// `handoff-sim merge`: the parts of a sharded sweep as one result.
func mergeCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    if let failure = preflightOutputs(parsed, context) { return failure }
    let clock = ContinuousClock()
    let started = clock.now
    let (format, metric, columns) = (parsed[.sweepFormat], parsed[.chartMetric], parsed[.columns])
    let target = try chartTarget(parsed)
    try checkTargetShown(target, format: format, html: parsed.isGiven(.html))
    // A missing input is a usage error (64) in every command.
    var texts: [(file: String, text: String)] = []
    for file in parsed.positional {
        guard let data = InputFile.contents(atPath: file) else {
            throw UsageError(message: "\(file.escapingControlCharacters): no such file or cannot be read")
        }
        texts.append((file, String(decoding: data, as: UTF8.self)))
    }
    do throws(ScenarioError) {
        var parts: [(file: String, part: SweepJSONLines.Part)] = []
        for (file, text) in texts {
            parts.append((file, try SweepJSONLines.read(text, file: file)))
        }
        let merged = try SweepJSONLines.merge(parts)
        let text: String
        if format == .jsonl {
            text = SweepJSONLines.render(merged.result, toolVersion: merged.toolVersion)
        } else {
            text = render(merged.result, format: format, metric: metric, columns: columns, target: target)
        }
        if let path = parsed[.html] {
            do {
                let report = HTMLReport.sweep(
                    merged.result, context: htmlContext(context, parsed, since: started, clock: clock), metric: metric, target: target)
                try writeAtomically(report, to: path, io: context.io)
            } catch {
                context.io.writeError("error: \(error.message)")
                return .software
            }
        }
        return emit(text, parsed, context)
    } catch {
        return reportError(error, context)
    }
}
