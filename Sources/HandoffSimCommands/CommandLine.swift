// handoff-sim's entry point, runnable in-process: the tree of commands, the
// dispatch from words to a command, help and the version. Kept thin: parse,
// call the library, render; the process exits in main.swift only.
import Handoff
import HandoffScenario

/// The tool's version, printed by `--version` and recorded in every report
/// so that results from different versions are never mixed.
package let toolVersion = "0.1.0"

/// What a running command has beside its arguments: where to write, the
/// environment it reads (`GITHUB_ACTIONS`, `GITHUB_STEP_SUMMARY`, Slurm and
/// Kubernetes indices) and where it sits in the tree of commands.
package struct CommandContext: Sendable {
    /// Standard output and standard error.
    package let io: CommandIO
    /// The environment variables.
    package let environment: [String: String]
    /// The command being run.
    package let path: CommandPath
    /// The command's own arguments, as given (after its words: `run`,
    /// `baseline check`).
    package var arguments: [String] = []

    /// The command's words and arguments, as a report names the command
    /// that made it (`["baseline", "check", "b.json", "scenarios"]`).
    package var commandArguments: [String] {
        Array(path.invocation.split(separator: " ").dropFirst().map(String.init)) + arguments
    }
}

/// Runs `handoff-sim` with `arguments` (without the program's name) and
/// returns the status to exit with. Nothing is written but through `io`,
/// and the process is never ended, so commands can run in-process.
package func runCommandLine(_ arguments: [String], environment: [String: String], io: CommandIO) -> ExitCode {
    io.finish(HandoffSimCommandLine.dispatch(arguments, environment: environment, io: io))
}

/// The tree of `handoff-sim`'s commands and the dispatch through it.
package enum HandoffSimCommandLine {
    /// The tool itself: its overview, its own options and every command, in
    /// the order the help lists them.
    package static let root = CommandSpec(
        name: "handoff-sim",
        abstract: "A deterministic discrete-event simulator of Apple Handoff.",
        discussion: """
            HandoffSim models devices, proximity, iCloud accounts, lossy links and \
            stream bandwidth, runs scenario files through the NSUserActivity state \
            machine, and reports handoff latency against payload size. The same \
            scenario and seed always give the same result.
            """,
        options: [.version],
        notes: """
            Wherever a command takes <file or dir>, folders are searched \
            recursively for *.json files, in byte order of their paths. \
            docs/cli.md describes every command and docs/scenario-format.md the \
            scenario format.
            """,
        exitCodes: ExitCode.allCases.map { ExitCodeSpec($0, $0.meaning) },
        subcommands: [
            .run, .validate, .replay, .list, .sweep, .merge, .advise, .calibrate, .baseline, .defaults,
        ])

    /// The tool's path in the tree.
    package static var rootPath: CommandPath { CommandPath(root: root) }

    /// Runs the command `arguments` name, returning its status (before
    /// standard output's own failure is accounted for).
    static func dispatch(_ arguments: [String], environment: [String: String], io: CommandIO) -> ExitCode {
        let root = rootPath
        guard let first = arguments.first else {
            io.writeError("error: missing command\n\n" + Help.text(for: root))
            return .usage
        }
        switch first {
        case "help":
            // `handoff-sim help CMD [SUB]` is `handoff-sim CMD [SUB] --help`.
            return help(Array(arguments.dropFirst()), io: io)
        case _ where Option<Bool>.help.spec.names.contains(first):
            io.writeOutput(Help.text(for: root))
            return .success
        case Option<Bool>.version.name:
            io.writeOutput(toolVersion + "\n")
            return .success
        default:
            return run(arguments, at: root, environment: environment, io: io)
        }
    }

    /// `handoff-sim help [CMD [SUB]]`: the help of the command the words
    /// name, or a usage error for a word that names none.
    static func help(_ words: [String], io: CommandIO) -> ExitCode {
        var path = rootPath
        for word in words {
            guard let subcommand = path.spec.subcommand(named: word) else {
                let message = path.spec.subcommands.isEmpty
                    ? "unexpected argument '\(word.escapingControlCharacters)'\nUsage: \(rootPath.invocation) help <command>"
                    : unknownSubcommand(word, at: path)
                io.writeError("error: " + message)
                return .usage
            }
            path = path.appending(subcommand)
        }
        io.writeOutput(Help.text(for: path))
        return .success
    }

    /// Runs the command at `path` with `arguments`: a command that groups
    /// subcommands passes them to the one the first argument names; a
    /// command that runs has its arguments parsed against its spec, and
    /// prints its help for `-h` or `--help`.
    static func run(_ arguments: [String], at path: CommandPath, environment: [String: String], io: CommandIO)
        -> ExitCode
    {
        let spec = path.spec
        do throws(UsageError) {
            guard let action = spec.action else {
                guard let first = arguments.first else {
                    let names = spec.subcommands.map { "'\($0.name)'" }
                    throw UsageError(message: "\(path.words) needs \(alternatives(names))\n\(path.usageHint)")
                }
                if let subcommand = spec.subcommand(named: first) {
                    return run(Array(arguments.dropFirst()), at: path.appending(subcommand), environment: environment, io: io)
                }
                if Option<Bool>.help.spec.names.contains(first) {
                    io.writeOutput(Help.text(for: path))
                    return .success
                }
                guard first.hasPrefix("-"), first != "-" else { throw UsageError(message: unknownSubcommand(first, at: path)) }
                throw UsageError(message: unknownOption(first, at: path))
            }
            let parsed = try ParsedArguments.parse(arguments, for: path)
            if parsed[.help] {
                io.writeOutput(Help.text(for: path))
                return .success
            }
            try parsed.checkPositionals(for: path)
            return try action(parsed, CommandContext(io: io, environment: environment, path: path, arguments: arguments))
        } catch {
            io.writeError("error: \(error.message)")
            return .usage
        }
    }

    /// "unknown option 'x'" before a command or subcommand is named: with
    /// the subcommands it belongs to, or a did-you-mean, and the usage.
    static func unknownOption(_ word: String, at path: CommandPath) -> String {
        let name = String(word.prefix { $0 != "=" })
        var message = "unknown option '\(name.escapingControlCharacters)'" + (path.isRoot ? "" : " for '\(path.words)'")
        let owners = path.spec.subcommands.filter { $0.option(named: name) != nil }.map { "'\($0.name)'" }
        if !owners.isEmpty {
            message += " (give it after \(alternatives(owners)))"
        } else if let close = suggestion(for: name, among: path.spec.options.flatMap(\.names)) {
            message += " (did you mean '\(close)'?)"
        }
        return message + "\n" + path.usageHint
    }

    /// "unknown command 'x'" (for the tool) or "unknown baseline subcommand
    /// 'x'; expected update or check", with a did-you-mean.
    static func unknownSubcommand(_ word: String, at path: CommandPath) -> String {
        let names = path.spec.subcommands.map(\.name)
        let close = suggestion(for: word, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        if path.isRoot {
            return "unknown command '\(word.escapingControlCharacters)'\(close)\n\(path.usageHint)"
        }
        return "unknown \(path.words) subcommand '\(word.escapingControlCharacters)'; expected \(alternatives(names))\(close)"
    }

    /// `a`, `a or b`, `a, b or c`.
    static func alternatives(_ words: [String]) -> String {
        words.count <= 1 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
    }
}
