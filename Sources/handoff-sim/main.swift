// handoff-sim: the command-line tool. Kept thin: parse, call the library,
// render, exit. Exit codes follow sysexits(3): 0 success and help, 1 an
// expectation failed, 64 (EX_USAGE) bad command-line usage, 65 (EX_DATAERR)
// an invalid scenario file, 70 (EX_SOFTWARE) an internal error.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Handoff
import HandoffScenario
import HandoffWorld

/// The tool's version, printed by `--version` and recorded in every report
/// so that results from different versions are never mixed.
let toolVersion = "0.1.0"

let help = """
    OVERVIEW: A deterministic discrete-event simulator of Apple Handoff.

    HandoffSim models devices, proximity, iCloud accounts, lossy links and
    stream bandwidth, runs scenario files through the NSUserActivity state
    machine, and reports handoff latency against payload size. The same
    scenario and seed always give the same result.

    USAGE: handoff-sim <command> [options]

    OPTIONS:
      -h, --help      Show this help.
      --version       Show the version.

    COMMANDS:
      run             Run scenario files; every scenario is a test case.
      validate        Check scenario files without running them.
      replay          Re-run one trial and print its timestamped trace.
      list            List scenarios, their trials and expectations.
      sweep           Run a scenario over payload sizes, profiles and
                      parameters; report percentiles at every point.
      merge           Merge the shards of a sweep.
      advise          The largest userInfo that meets a latency and success
                      target, and when to switch to continuation streams.
      baseline        Record simulated figures (update) or check them
                      against a recorded baseline (check).
      defaults        Print every calibrated default of the world and the
                      continuity protocol with its source, as a Markdown table
                      (docs/defaults.md).

    See 'handoff-sim <command> --help' for a command's options, and
    docs/scenario-format.md for the scenario format.
    """

let defaultsHelp = """
    OVERVIEW: Print every calibrated default of the world and the continuity
    protocol with its source or reasoning, as a Markdown table.

    USAGE: handoff-sim defaults

    Rows marked "assumption" are not published figures. Every default can be
    overridden (see docs/scenario-format.md).
    """

/// The defaults table as Markdown, one row per default.
func defaultsTable() -> String {
    var lines = ["| setting | default | source |", "|---|---|---|"]
    for row in HandoffDefaults.table {
        let source = row.isAssumption && !row.source.hasPrefix("assumption") ? "assumption; " + row.source : row.source
        lines.append("| \(row.setting) | \(row.value) | \(source) |")
    }
    return lines.joined(separator: "\n")
}

/// Runs a scenario command, turning a usage error into exit 64.
func dispatch(_ command: ([String]) throws(UsageError) -> Int32, _ arguments: [String]) -> Never {
    do {
        exit(finish(try command(arguments)))
    } catch {
        writeError("error: \(error.message)")
        exit(ExitCode.usage)
    }
}

/// `handoff-sim defaults`: the table, or its help.
func defaultsCommand(_ arguments: [String]) throws(UsageError) -> Int32 {
    switch arguments {
    case []:
        writeOutput(defaultsTable() + "\n")
    case ["-h"], ["--help"]:
        writeOutput(defaultsHelp + "\n")
    case let extra:
        throw UsageError(message: "unexpected argument '\(extra[0].escapingControlCharacters)'\nUsage: handoff-sim defaults; see 'handoff-sim defaults --help'")
    }
    return ExitCode.success
}

/// Every command, by name, in the order `--help` lists them.
let commands: [(name: String, run: ([String]) throws(UsageError) -> Int32)] = [
    ("run", runCommand), ("validate", validateCommand), ("replay", replayCommand), ("list", listCommand),
    ("sweep", sweepCommand), ("merge", mergeCommand), ("advise", adviseCommand), ("baseline", baselineCommand),
    ("defaults", defaultsCommand),
]

/// "unknown command 'x'" with a did-you-mean.
@MainActor func unknownCommand(_ word: String) -> Never {
    var message = "error: unknown command '\(word.escapingControlCharacters)'"
    if let close = suggestion(for: word, among: commands.map(\.name)) { message += " (did you mean '\(close)'?)" }
    writeError(message + "\nUsage: handoff-sim <command> [options]; see 'handoff-sim --help'")
    exit(ExitCode.usage)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case let name? where commands.contains { $0.name == name }:
    dispatch(commands.first { $0.name == name }!.run, Array(arguments.dropFirst()))
case "help" where arguments.count > 1:
    // `handoff-sim help CMD` is `handoff-sim CMD --help`.
    guard let command = commands.first(where: { $0.name == arguments[1] }) else { unknownCommand(arguments[1]) }
    dispatch(command.run, ["--help"])
case "-h", "--help", "help":
    writeOutput(help + "\n")
    exit(finish(ExitCode.success))
case "--version":
    writeOutput(toolVersion + "\n")
    exit(finish(ExitCode.success))
case nil:
    writeError("error: missing command\n\n\(help)")
    exit(ExitCode.usage)
case let word?:
    if word.hasPrefix("-") {
        writeError("error: unknown option '\(word.escapingControlCharacters)'\nUsage: handoff-sim <command> [options]; see 'handoff-sim --help'")
        exit(ExitCode.usage)
    }
    unknownCommand(word)
}
