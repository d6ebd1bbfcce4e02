import Foundation
import HandoffScenario
import HandoffSimCommands
import Testing

private let fixtures = packageRoot + "/Tests/Fixtures/run-scenarios/"
private let invalid = packageRoot + "/Tests/Fixtures/invalid-scenarios/"

/// Commands run in-process through `runCommandLine`, their output captured.
@Suite("Commands in-process")
struct InProcessCommandTests {
    @Test("help CMD equals CMD --help and -h, for every command and subcommand")
    func helpCommand() {
        for path in everyCommandPath() {
            let words = words(of: path)
            let viaHelp = runInProcess(["help"] + words)
            let viaFlag = runInProcess(words + ["--help"])
            let viaShort = runInProcess(words + ["-h"])
            #expect(viaHelp.status == .success, "\(words)")
            #expect(viaHelp.output == Help.text(for: path), "\(words)")
            #expect(viaFlag.output == viaHelp.output && viaShort.output == viaHelp.output, "\(words)")
            #expect(viaFlag.status == .success && viaFlag.error.isEmpty, "\(words)")
        }
    }

    @Test("--version prints the version")
    func version() {
        let run = runInProcess(["--version"])
        #expect(run.status == .success)
        #expect(run.output == "0.1.0\n")
    }

    @Test("validate: an invalid fixture is exit 65 with its problem on the error sink")
    func validateInvalid() {
        let file = invalid + "wrong-type.json"
        let run = runInProcess(["validate", file])
        #expect(run.status == .dataError)
        #expect(run.output.isEmpty)
        #expect(run.error == """
            \(file):51:13: error: $.trials: expected a whole number from 1 to 10000000, found "ten"
            1 of 1 file invalid

            """)
    }

    @Test("validate annotates for GitHub when the environment given says so")
    func environmentIsInjected() {
        let file = invalid + "wrong-type.json"
        let github = runInProcess(["validate", file], environment: ["GITHUB_ACTIONS": "true"])
        #expect(github.status == .dataError)
        #expect(github.output.hasPrefix("::error file=\(file),line=51"))
    }

    @Test("run: a passing fixture is exit 0 with the summary on the output sink")
    func runPasses() {
        let run = runInProcess(["run", fixtures + "passes.json", "--no-progress"])
        #expect(run.status == .success)
        #expect(run.output.hasPrefix("PASS     Passes"))
        #expect(run.error.isEmpty)
    }

    @Test("run: a failing expectation is exit 1; a scenario stopped at a limit too")
    func runFails() {
        #expect(runInProcess(["run", fixtures + "latency-bound.json", "--no-progress"]).status == .expectationFailed)
        #expect(runInProcess(["run", fixtures + "event-limit.json", "--no-progress"]).status == .expectationFailed)
    }

    @Test("usage errors are exit 64 with the message on the error sink", arguments: [
        (["swep"], "error: unknown command 'swep' (did you mean 'sweep'?)\nUsage: handoff-sim <command> [options]; see 'handoff-sim --help'\n"),
        (["run", "--trails", "3"], "error: unknown option '--trails' for 'run' (did you mean '--trials'?)\n"),
        (["run", "x", "--seed"], "error: option '--seed' needs a value\n"),
        (["run", "x", "--seed", "1", "--seed=2"], "error: option '--seed' given twice\n"),
        (["run", "--jobs=0", "x"], "error: option '--jobs' expects a whole number from 1 to 1024, found '0'\n"),
        (["defaults", "--json"], "error: unknown option '--json' for 'defaults'\n"),
        (["baseline", "chek"], "error: unknown baseline subcommand 'chek'; expected update or check (did you mean 'check'?)\n"),
        (["baseline"], "error: baseline needs 'update' or 'check'\nUsage: handoff-sim baseline update|check ...; see 'handoff-sim baseline --help'\n"),
        (["help", "baseline", "chek"], "error: unknown baseline subcommand 'chek'; expected update or check (did you mean 'check'?)\n"),
        (["--verison"], "error: unknown option '--verison' (did you mean '--version'?)\nUsage: handoff-sim <command> [options]; see 'handoff-sim --help'\n"),
    ])
    func usageErrors(arguments: [String], message: String) {
        let run = runInProcess(arguments)
        #expect(run.status == .usage)
        #expect(run.error == message)
        #expect(run.output.isEmpty)
    }

    @Test("no command: the tool's help on the error sink, exit 64")
    func missingCommand() {
        let run = runInProcess([])
        #expect(run.status == .usage)
        #expect(run.error == "error: missing command\n\n" + Help.text(for: HandoffSimCommandLine.rootPath))
    }

    @Test("a failed write to standard output is exit 70 with its reason")
    func failedOutput() {
        let error = MemorySink()
        let io = CommandIO(output: FailingSink(), error: error)
        let status = runCommandLine(["list", fixtures + "passes.json"], environment: [:], io: io)
        #expect(status == .software)
        #expect(error.text == "error: cannot write standard output: No space left on device\n")
    }

    @Test("each category of scenario error has one exit code")
    func categories() {
        let codes = ScenarioError.Category.allCases.map { ExitCode($0) }
        #expect(codes == [.dataError, .usage, .usage, .expectationFailed, .dataError, .software])
    }

    @Test("scenario errors as the command line words them: values named by their options, exit by category", arguments: [
        (["sweep", fixtures + "passes.json"], ExitCode.usage,
         "error: nothing to sweep: give --payload, --profile or --vary (or a \"sweep\" block in the file)\n"),
        (["sweep", packageRoot + "/scenarios/monkeybrowser-four-tabs.json", "--payload", "1KiB"], ExitCode.usage,
         "error: \(packageRoot)/scenarios/monkeybrowser-four-tabs.json has several activities; say which with --activity (tab1, tab2, tab3, tab4)\n"),
        (["sweep", fixtures + "passes.json", "--payload", "1KiB,lots"], ExitCode.usage,
         "error: option '--payload' value 'lots': expected a size such as \"3KiB\", \"64 KiB\" or \"256B\" (units B, kB, MB, GB, KiB, MiB, GiB), found \"lots\"\n"),
        (["sweep", fixtures + "event-limit.json", "--payload", "1KiB"], ExitCode.expectationFailed,
         "error: at the sweep point payload=1KiB: trial 0 handled 5 events (limits.maxEvents) without settling\n"),
        (["baseline", "update", fixtures + "event-limit.json", "--output", "/dev/null"], ExitCode.expectationFailed,
         "error: \(fixtures)event-limit.json: trial 0 handled 5 events (limits.maxEvents) without settling\n"),
    ])
    func scenarioErrors(arguments: [String], status: ExitCode, message: String) {
        let run = runInProcess(arguments)
        #expect(run.status == status)
        #expect(run.error == message)
    }

    @Test("merge: a whole result among the parts is exit 65, and says which option makes parts")
    func mergeWholeResult() throws {
        let directory = NSTemporaryDirectory() + "handoff-sim-commands-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let sweep = ["sweep", fixtures + "passes.json", "--payload", "1KiB", "--trials", "2", "--no-progress"]
        #expect(runInProcess(sweep + ["--format", "jsonl", "--output", directory + "/whole.jsonl"]).status == .success)
        #expect(runInProcess(sweep + ["--shard", "0/2", "--output", directory + "/part.jsonl"]).status == .success)
        let merge = runInProcess(["merge", directory + "/part.jsonl", directory + "/whole.jsonl"])
        #expect(merge.status == .dataError)
        #expect(merge.error == "error: \(directory)/whole.jsonl is a whole result, not a shard (run with --shard i/n to make parts)\n")
    }

    @Test("the defaults table goes to the output sink")
    func defaults() {
        let run = runInProcess(["defaults"])
        #expect(run.status == .success)
        #expect(run.output.hasPrefix("| setting | default | evidence | plausible range | source |\n|---|---|---|---|---|\n"))
    }
}
