import Foundation
import HandoffReport
import Handoff
import HandoffBaseline
import HandoffScenario
@testable import HandoffSimCommands
import SimKernel
import Testing

/// Typed options: the help shows what the declarations say, and each
/// option reads good values as its type and refuses bad ones with exit 64.
@Suite("Typed options")
struct TypedOptionTests {
    /// The command the words name (`["baseline", "check"]`).
    static func path(_ words: [String]) -> CommandPath {
        var path = HandoffSimCommandLine.rootPath
        for word in words {
            guard let subcommand = path.spec.subcommand(named: word) else {
                Issue.record("no command \(words)")
                return path
            }
            path = path.appending(subcommand)
        }
        return path
    }

    /// `arguments` parsed for the command `words` names.
    static func parse(_ words: [String], _ arguments: [String]) throws -> ParsedArguments {
        try ParsedArguments.parse(arguments, for: path(words))
    }

    /// `text` with every line break and the indentation after it made one
    /// space, as a wrapped help reads.
    static func unwrapped(_ text: String) -> String {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// The row of the option labelled `label` in `help` (`--seed S`), with
    /// the lines wrapped under it, unwrapped.
    static func row(of label: String, in help: String) -> String? {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "  \(label)" || $0.hasPrefix("  \(label)  ") }) else {
            return nil
        }
        // Rows start with two spaces, the lines wrapped under them with more.
        let wrapped = lines[(start + 1)...].prefix { $0.hasPrefix("   ") }
        return unwrapped(([lines[start]] + wrapped).joined(separator: "\n"))
    }

    @Test("every option's help line lists its choices and its default from its declaration, never in its own words")
    func helpShowsTheDeclaration() throws {
        for path in everyCommandPath() {
            let help = Help.text(for: path)
            for option in path.spec.options {
                let row = try #require(Self.row(of: option.label, in: help), "\(path.invocation): \(option.label)")
                #expect(row.hasSuffix(Self.unwrapped(option.helpText)), "\(path.invocation): \(row)")
                if !option.choices.isEmpty {
                    #expect(row.contains("(\(option.choicesLabel): \(option.choices.joined(separator: ", "))"), "\(row)")
                }
                if let defaultText = option.defaultText {
                    #expect(row.hasSuffix("default: \(defaultText))"), "\(row)")
                }
                // The prose says what the option does; the declaration says
                // what it takes and what it defaults to.
                #expect(!option.help.contains("default"), "\(path.invocation) \(option.name): \(option.help)")
            }
        }
    }

    @Test("the choices of metric, outcome, format and column options are their types' cases, in order", arguments: [
        (["run"], "--trials-over", LatencyMetric.allCases.map(\.rawValue)),
        (["run"], "--trials-with", OutcomeKind.allCases.map(\.rawValue)),
        (["replay"], "--format", TraceFormat.allCases.map(\.rawValue)),
        (["sweep"], "--metric", LatencyMetric.allCases.map(\.rawValue)),
        (["sweep"], "--format", SweepFormat.allCases.map(\.rawValue)),
        (["sweep"], "--columns", SweepTable.Columns.allCases.map(\.rawValue)),
        (["merge"], "--metric", LatencyMetric.allCases.map(\.rawValue)),
        (["merge"], "--format", SweepFormat.allCases.map(\.rawValue)),
        (["merge"], "--columns", SweepTable.Columns.allCases.map(\.rawValue)),
        (["advise"], "--metric", LatencyMetric.allCases.map(\.rawValue)),
        (["advise"], "--format", ReportFormat.allCases.map(\.rawValue)),
        (["calibrate"], "--format", ReportFormat.allCases.map(\.rawValue)),
    ])
    func choicesAreTheCases(words: [String], name: String, cases: [String]) throws {
        let path = Self.path(words)
        let option = try #require(path.spec.option(named: name))
        #expect(option.choices == cases)
        let row = try #require(Self.row(of: option.label, in: Help.text(for: path)))
        #expect(row.contains(cases.joined(separator: ", ")), "\(row)")
    }

    @Test("integer options read whole numbers in their bounds, and the default when absent")
    func integers() throws {
        #expect(try Self.parse(["run"], ["--trials", "1"])[.trials] == 1)
        #expect(try Self.parse(["run"], ["--trials=10000000"])[.trials] == 10_000_000)
        #expect(try Self.parse(["run"], [])[.trials] == nil)
        #expect(try Self.parse(["run"], ["--seed", "0"])[.seed] == 0)
        #expect(try Self.parse(["run"], ["--seed", "9223372036854775807"])[.seed] == UInt64(Int64.max))
        #expect(try Self.parse(["run"], [])[.seed] == nil)
        #expect(try Self.parse(["run"], ["--jobs", "1024"])[.jobs] == 1024)
        #expect(try Self.parse(["run"], [])[.jobs] == max(1, ProcessInfo.processInfo.activeProcessorCount))
        #expect(try Self.parse(["run"], ["--limit", "1"])[.limit] == 1)
        #expect(try Self.parse(["run"], [])[.limit] == 20)
        #expect(try !Self.parse(["run"], []).isGiven(.limit))
        #expect(try Self.parse(["calibrate"], ["--bootstrap", "1000"])[.bootstrap] == 1000)
        #expect(try Self.parse(["calibrate"], [])[.bootstrap] == 0)
        #expect(try Self.parse(["calibrate"], ["--evaluations", "5"])[.evaluations] == 5)
        #expect(try Self.parse(["calibrate"], [])[.evaluations] == nil)
        #expect(try Self.parse(["sweep"], ["--shards", "8"])[.shards] == 8)
        let replay = try Self.parse(["replay"], ["--seed", "5", "--trial", "9999999"])
        #expect(replay[.replaySeed] == 5 && replay[.trial] == 9_999_999)
    }

    @Test("choice options read their cases, and the default when absent")
    func choices() throws {
        #expect(try Self.parse(["run"], ["--trials-with", "notOffered"])[.trialsWith] == .notOffered)
        #expect(try Self.parse(["run"], [])[.trialsWith] == nil)
        #expect(try Self.parse(["replay"], ["--seed", "1", "--trial", "0", "--format", "perfetto"])[.traceFormat] == .perfetto)
        #expect(try Self.parse(["replay"], ["--seed", "1", "--trial", "0"])[.traceFormat] == .text)
        for format in SweepFormat.allCases {
            #expect(try Self.parse(["merge"], ["--format", format.rawValue])[.sweepFormat] == format)
        }
        #expect(try Self.parse(["sweep"], [])[.sweepFormat] == .text)
        #expect(try !Self.parse(["sweep"], []).isGiven(.sweepFormat))
        for metric in LatencyMetric.allCases {
            #expect(try Self.parse(["sweep"], ["--metric", metric.rawValue])[.chartMetric] == metric)
            let bound = try #require(try Self.parse(["run"], ["--trials-over", "\(metric.rawValue)=1.5s"])[.trialsOver])
            let duration = try SimDuration(parsing: "1.5s")
            #expect(bound.metric == metric && bound.duration == duration)
        }
        #expect(try Self.parse(["advise"], [])[.chartMetric] == .acceptToContinue)
        #expect(try Self.parse(["sweep"], ["--columns", "full"])[.columns] == .full)
        #expect(try Self.parse(["merge"], [])[.columns] == .compact)
        #expect(try Self.parse(["advise"], ["--format", "json"])[.reportFormat] == .json)
        #expect(try Self.parse(["calibrate"], [])[.reportFormat] == .text)
    }

    @Test("quantities, lists, shards, tolerances, paths and flags read as their types")
    func otherValues() throws {
        let advise = try Self.parse(["advise"], ["--p95", "750ms", "--success", "99%", "--resolution", "1KiB"])
        #expect(advise[.p95] == (try SimDuration(parsing: "750ms")))
        #expect(advise[.p50] == nil)
        #expect(abs(advise[.success] - 0.99) < 1e-12)
        #expect(advise[.resolution] == 1024)
        let defaults = try Self.parse(["advise"], [])
        #expect(defaults[.success] == 0.99 && defaults[.resolution] == 64)
        let sweep = try Self.parse(
            ["sweep"],
            ["--payload", "1KiB, 3KiB", "--profile=WiFi,Very Bad Network", "--vary", "a.b=1,2", "--vary=c=x", "--shard", "1/4"])
        #expect(sweep[.payloads] == ["1KiB", "3KiB"])
        #expect(sweep[.profiles] == ["WiFi", "Very Bad Network"])
        #expect(sweep[.vary].map(\.path) == ["a.b", "c"] && sweep[.vary].map(\.values) == [["1", "2"], ["x"]])
        #expect(sweep[.shard] == Shard(index: 1, count: 4))
        #expect(try Self.parse(["sweep"], [])[.vary].isEmpty)
        let check = try Self.parse(["baseline", "check"], ["--tolerance", "*=5%", "--tolerance", "acceptToContinue=2ms"])
        #expect(check[.tolerances] == [Tolerance.parse("*=5%"), Tolerance.parse("acceptToContinue=2ms")].compactMap { $0 })
        #expect(try Self.parse(["baseline", "update"], ["--output", "-"])[.baselineOutput] == "-")
        let run = try Self.parse(["run"], ["--quiet", "--json", "report.json"])
        #expect(run[.quiet] && !run[.checkDeterminism])
        #expect(run[.json] == "report.json" && run[.junit] == nil)
    }

    @Test("a bad value is exit 64, naming the option and what it expects", arguments: [
        (["run", "x", "--trials", "0"], "option '--trials' expects a whole number from 1 to 10000000, found '0'"),
        (["run", "x", "--seed", "-1"], "option '--seed' expects a whole number from 0 to 9223372036854775807, found '-1'"),
        (["run", "x", "--seed=9223372036854775808"], "option '--seed' expects a whole number from 0 to 9223372036854775807, found '9223372036854775808'"),
        (["run", "x", "--jobs", "1025"], "option '--jobs' expects a whole number from 1 to 1024, found '1025'"),
        (["run", "x", "--limit", "0", "--trials-with", "failed"], "option '--limit' expects a whole number from 1 to 1000000, found '0'"),
        (["run", "x", "--trials-with", "crashed"], "option '--trials-with' expects one of continued, continuedInBrowser, failed, notOffered, withdrawn, notAccepted, unfinished, found 'crashed'"),
        (["run", "x", "--trials-over", "fetch"], "option '--trials-over' expects METRIC=DURATION with a metric of \(LatencyMetric.allCases.map(\.rawValue).joined(separator: ", ")) (e.g. acceptToContinue=1.5s), found 'fetch'"),
        (["run", "x", "--trials-over", "fetch=-1s"], "option '--trials-over' expects a duration after '=' (e.g. 1.5s, 250ms), found '-1s'"),
        (["replay", "x", "--seed", "1", "--trial", "-1"], "option '--trial' expects a whole number from 0 to 9999999, found '-1'"),
        (["replay", "x", "--seed", "1", "--trial", "0", "--format", "xml"], "option '--format' expects one of text, json, svg, perfetto, found 'xml'"),
        (["sweep", "x", "--format", "svgg"], "option '--format' expects one of text, csv, jsonl, markdown, svg, found 'svgg' (did you mean 'svg'?)"),
        (["sweep", "x", "--metric", "fetc"], "option '--metric' expects one of \(LatencyMetric.allCases.map(\.rawValue).joined(separator: ", ")), found 'fetc' (did you mean 'fetch'?)"),
        (["merge", "x", "--columns", "wide"], "option '--columns' expects one of compact, full, found 'wide'"),
        (["sweep", "x", "--shard", "4/4"], "option '--shard' expects I/N with 0 ≤ I < N ≤ 1000000, such as 0/4; found '4/4'"),
        (["sweep", "x", "--shards", "0"], "option '--shards' expects a whole number from 1 to 1000000, found '0'"),
        (["sweep", "x", "--vary", "loss"], "option '--vary' expects PATH=V1,V2,..., found 'loss'"),
        (["advise", "x", "--p95", "soon"], "option '--p95' expects a duration such as 1s or 750ms, found 'soon'"),
        (["advise", "x", "--p95", "1s", "--success", "most"], "option '--success' expects a percentage such as 99%, found 'most'"),
        (["advise", "x", "--p95", "1s", "--resolution", "0B"], "option '--resolution' expects a size such as 64B or 1KiB, found '0B'"),
        (["advise", "x", "--p95", "1s", "--format", "csv"], "option '--format' expects one of text, json, found 'csv'"),
        (["calibrate", "x", "--bootstrap", "1001"], "option '--bootstrap' expects a whole number from 0 to 1000, found '1001'"),
        (["calibrate", "x", "--evaluations", "0"], "option '--evaluations' expects a whole number from 1 to 100000, found '0'"),
        (["baseline", "check", "b", "x", "--tolerance", "p95"], "option '--tolerance' expects PATTERN=VALUE such as acceptToContinue.p95=5% or acceptToContinue=2ms, found 'p95'"),
    ])
    func badValues(arguments: [String], message: String) {
        let run = runInProcess(arguments)
        #expect(run.status == .usage)
        #expect(run.error == "error: \(message)\n")
        #expect(run.output.isEmpty)
    }

    @Test("a required option that is missing is exit 64, naming it and what it expects", arguments: [
        (["replay", "x", "--trial", "0"], "replay needs '--seed S' (a whole number from 0 to 9223372036854775807)"),
        (["replay", "x", "--seed", "1"], "replay needs '--trial K' (a whole number from 0 to 9999999)"),
        (["baseline", "update", "x"], "baseline update needs '--output PATH'"),
    ])
    func requiredOptions(arguments: [String], message: String) {
        let run = runInProcess(arguments)
        #expect(run.status == .usage)
        #expect(run.error == "error: \(message)\n")
    }

    @Test("rules between options are exit 64 and name the options", arguments: [
        (["run", packageRoot + "/Tests/Fixtures/run-scenarios/passes.json", "--limit", "3"],
         "option '--limit' needs '--trials-with' or '--trials-over'"),
        (["advise", "x"], "advise needs exactly one latency bound: --p50, --p90, --p95 or --p99 with a duration such as 1s"),
        (["advise", "x", "--p50", "1s", "--p99", "2s"], "advise needs exactly one latency bound: --p50, --p90, --p95 or --p99 with a duration such as 1s"),
    ])
    func rulesBetweenOptions(arguments: [String], message: String) {
        let run = runInProcess(arguments)
        #expect(run.status == .usage)
        #expect(run.error == "error: \(message)\n")
    }

    @Test("--help shows the help even beside a bad value or without a required option")
    func helpFirst() {
        for arguments in [["run", "--jobs", "0", "--help"], ["replay", "-h"], ["baseline", "update", "--help"]] {
            let run = runInProcess(arguments)
            #expect(run.status == .success, "\(arguments)")
            #expect(run.output.hasPrefix("OVERVIEW: "), "\(arguments)")
        }
    }
}
