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

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "run":
    dispatch(runCommand, Array(arguments.dropFirst()))
case "validate":
    dispatch(validateCommand, Array(arguments.dropFirst()))
case "replay":
    dispatch(replayCommand, Array(arguments.dropFirst()))
case "list":
    dispatch(listCommand, Array(arguments.dropFirst()))
case "sweep":
    dispatch(sweepCommand, Array(arguments.dropFirst()))
case "merge":
    dispatch(mergeCommand, Array(arguments.dropFirst()))
case "advise":
    dispatch(adviseCommand, Array(arguments.dropFirst()))
case "baseline":
    dispatch(baselineCommand, Array(arguments.dropFirst()))
case "defaults":
    switch Array(arguments.dropFirst()) {
    case []:
        writeOutput(defaultsTable() + "\n")
        exit(finish(ExitCode.success))
    case ["-h"], ["--help"]:
        writeOutput(defaultsHelp + "\n")
        exit(finish(ExitCode.success))
    case let extra:
        writeError("error: unexpected argument '\(extra[0])'\nUsage: handoff-sim defaults; see 'handoff-sim defaults --help'")
        exit(64)
    }
case "-h", "--help", "help":
    writeOutput(help + "\n")
    exit(finish(ExitCode.success))
case "--version":
    writeOutput(toolVersion + "\n")
    exit(finish(ExitCode.success))
case nil:
    writeError("error: missing command\n\n\(help)")
    exit(64)
case let word?:
    if word.hasPrefix("-") {
        writeError("error: unknown option '\(word)'\nUsage: handoff-sim <command> [options]; see 'handoff-sim --help'")
    } else {
        writeError("error: unknown command '\(word)'\nUsage: handoff-sim <command> [options]; see 'handoff-sim --help'")
    }
    exit(64)
}
