import Foundation
import Handoff
import HandoffAdvice
import HandoffReport
import HandoffScenario
import SimKernel

extension CommandSpec {
    /// `handoff-sim advise`.
    static let advise = CommandSpec(
        name: "advise",
        abstract: "Find the largest userInfo that meets a latency and success target, and when to switch to continuation streams.",
        discussion: """
            Finds, per network profile, the largest userInfo payload that meets a \
            latency and success target, and the size above which continuation \
            streams restore sooner than a userInfo payload. Give exactly one \
            latency bound: --p50, --p90, --p95 or --p99.
            """,
        arguments: [.scenarioFile],
        options: [
            .p50, .p90, .p95, .p99, .success, .chartMetric.helping("The latency bounded."),
            .advisedProfiles,
            .resolution,
            .trials.helping("Trials at every size first, instead of the file's \"trials\"."),
            .maximumTrials,
            .seed, .activity, .device,
            .jobs.helping("Spread the trials over N threads. The advice never depends on N."),
            .reportFormat.helping("The advice's format."),
            .sensitivity, .output, .html, .overlay, .noIntervals,
        ],
        notes: """
            Each answer is found by bisection over the payload size. At every size \
            tried, advise runs the scenario's trials, then twice as many at each look, \
            until the percentile's sampling interval and the success rate's lie on one \
            side of the target (95% confidence over all of a size's looks) or \
            --max-trials is reached: the answer is the largest size decided to meet the \
            target, with the sizes where the decision turns, or says it is undecided. \
            The search assumes latency grows with size (it does in the transfer model). Like sweep, advise warns when \
            the profiles it is given cannot matter because the scenario does not \
            fetch over the cloud relay. See docs/sweeps.md.
            """,
        exitCodes: [
            ExitCodeSpec(.success, "advice given"),
            ExitCodeSpec(.expectationFailed, "a trial stopped at a limit"),
            ExitCodeSpec(.usage, "bad command-line usage, or a file that does not exist"),
            ExitCodeSpec(.dataError, "the scenario file is invalid, or its setup was refused"),
            ExitCodeSpec(.software, "internal error (the simulator broke one of its own rules), or the output could not be written"),
        ],
        action: adviseCommand)
}

/// `handoff-sim advise`: the largest userInfo per profile that meets a
/// target, and when streams win.
func adviseCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    let bounds = latencyBounds
    if let failure = preflightOutputs(parsed, context) { return failure }
    let clock = ContinuousClock()
    let started = clock.now
    let file = parsed.positional[0]
    let given = bounds.compactMap { bound in parsed[bound.option].map { (latency: $0, percentile: bound.percentile) } }
    guard given.count == 1, case let (bound, percentile)? = given.first else {
        let names = HandoffSimCommandLine.alternatives(bounds.map(\.option.name))
        throw UsageError(message: "advise needs exactly one latency bound: \(names) with a duration such as 1s")
    }
    let (success, metric, resolution) = (parsed[.success], parsed[.chartMetric], parsed[.resolution])
    let (trials, seed, jobs) = (parsed[.trials], parsed[.seed], parsed[.jobs])
    guard let data = InputFile.contents(atPath: file) else {
        throw UsageError(message: "\(file.escapingControlCharacters): no such file or cannot be read")
    }
    var profiles = parsed[.advisedProfiles] ?? []
    if case let .success(scenario) = ScenarioDecoder.decode(Array(data), file: file) {
        if profiles.isEmpty { profiles = scenario.sweep?.profiles ?? [] }
        if let warning = SweepRunner.profileWarning(for: scenario, profiles: !profiles.isEmpty) {
            io.writeError("warning: \(warning)")
        }
    }
    let target = Advisor.Target(metric: metric, percentile: percentile, latency: bound, success: success)
    let (overlay, overlayFailure) = try loadOverlay(parsed, context.io)
    if let overlayFailure { return overlayFailure }
    let options = SweepRunner.Options(
        trials: trials, seed: seed, activity: parsed[.activity], device: parsed[.device], overlay: overlay,
        runsReplicates: !parsed[.noIntervals])
    let advisor = Advisor(
        jobs: jobs, resolution: resolution, sensitivity: parsed[.sensitivity], maximumTrials: parsed[.maximumTrials])
    switch Result(catching: { () throws(ScenarioError) in
        try advisor.advise(Array(data), file: file, profiles: profiles, target: target, options: options)
    }) {
    case let .success(advice):
        if let path = parsed[.html] {
            do {
                let report = HTMLReport.advice(
                    advice, target: target, file: file, context: htmlContext(context, parsed, since: started, clock: clock))
                try writeAtomically(report, to: path, io: io)
            } catch {
                io.writeError("error: \(error.message)")
                return .software
            }
        }
        let text = parsed[.reportFormat] == .json
            ? AdviceReport.json(advice, target: target, file: file, toolVersion: toolVersion)
            : AdviceReport.text(advice, target: target)
        return emit(text, parsed, context)
    case let .failure(error):
        // advise varies only profiles on the caller's behalf; its other
        // axes are its own, named by their paths.
        return reportError(error, context) { argument in
            switch argument {
            case .profiles, .activity, .device: return optionName(argument)
            case .payloads: return "payload"
            case .parameters: return "parameters"
            case let .parameter(path): return path
            case .shard: return "shard"
            }
        }
    }
}
