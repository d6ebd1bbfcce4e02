// The argument parser, driven by a command's spec: flags, options with
// values (`--seed 7` or `--seed=7`), repeatable options, `--` (everything
// after it is positional) and `-` as a positional (standard input or
// output). Problems are usage errors (exit 64).
import HandoffScenario

/// A usage error: the message, then exit 64.
package struct UsageError: Error, Sendable {
    /// The message, printed after `error: `.
    package let message: String

    /// A usage error saying `message`.
    package init(message: String) {
        self.message = message
    }
}

/// Where a command sits in the tree of commands, the tool itself first:
/// `handoff-sim`, `handoff-sim baseline`, `handoff-sim baseline check`.
package struct CommandPath: Sendable {
    /// The commands from the tool down to this one.
    package let chain: [CommandSpec]

    /// The path of the tool itself.
    package init(root: CommandSpec) {
        chain = [root]
    }

    private init(chain: [CommandSpec]) {
        self.chain = chain
    }

    /// The command this path ends at.
    package var spec: CommandSpec { chain[chain.count - 1] }

    /// The command one level up, if any.
    package var parent: CommandPath? { chain.count > 1 ? CommandPath(chain: Array(chain.dropLast())) : nil }

    /// Whether this is the tool itself.
    package var isRoot: Bool { chain.count == 1 }

    /// The path one level down, at `subcommand`.
    package func appending(_ subcommand: CommandSpec) -> CommandPath {
        CommandPath(chain: chain + [subcommand])
    }

    /// The command's words after the tool's name (`baseline check`), or the
    /// tool's name for the tool itself.
    package var words: String {
        isRoot ? spec.name : chain.dropFirst().map(\.name).joined(separator: " ")
    }

    /// The whole invocation: `handoff-sim baseline check`.
    package var invocation: String { chain.map(\.name).joined(separator: " ") }

    /// The usage in one line, then `; see '… --help'`, for usage errors:
    /// `handoff-sim baseline update|check ...` for a command that groups
    /// subcommands.
    package var usageHint: String {
        let usage = isRoot || spec.subcommands.isEmpty
            ? Help.usageLines(self)[0] : "\(invocation) \(spec.subcommands.map(\.name).joined(separator: "|")) ..."
        return "Usage: \(usage); see '\(invocation) --help'"
    }
}

/// A command's arguments as given, read against its spec.
package struct ParsedArguments: Sendable {
    /// Every option given, by its long name, in the order given.
    private var given: [(name: String, value: String?)] = []
    /// The long names of the command's options.
    private let known: [String]
    /// The positional arguments, in order.
    package private(set) var positional: [String] = []

    /// Empty arguments of a command with options named `known`.
    init(known: [String]) {
        self.known = known
    }

    /// Whether the flag `flag` (its long name) was given.
    package func has(_ flag: String) -> Bool {
        assert(known.contains(flag), "\(flag) is not in the command's spec")
        return given.contains { $0.name == flag }
    }

    /// The option's value (the last, for a repeatable option).
    package func value(_ option: String) -> String? {
        assert(known.contains(option), "\(option) is not in the command's spec")
        return given.last { $0.name == option }?.value
    }

    /// Every value of a repeatable option, in order.
    package func all(_ option: String) -> [String] {
        assert(known.contains(option), "\(option) is not in the command's spec")
        return given.filter { $0.name == option }.compactMap(\.value)
    }

    /// Reads `arguments` for the command at `path`: its options by the
    /// spec, the rest as positional arguments (not yet counted; see
    /// ``checkPositionals(for:)``).
    ///
    /// - Throws: ``UsageError`` for an unknown option (with a did-you-mean,
    ///   or the sibling subcommand it belongs to), a missing value, a value
    ///   given to a flag, or an option given twice that is not repeatable.
    package static func parse(_ arguments: [String], for path: CommandPath) throws(UsageError) -> ParsedArguments {
        let spec = path.spec
        var parsed = ParsedArguments(known: spec.options.map(\.name))
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || !argument.hasPrefix("-") || argument == "-" {
                parsed.positional.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = spec.option(named: name) else {
                throw UsageError(message: unknownOption(name, at: path))
            }
            var value: String?
            if option.takesValue {
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError(message: "option '\(name)' needs a value")
                }
                if !option.isRepeatable, parsed.given.contains(where: { $0.name == option.name }) {
                    throw UsageError(message: "option '\(option.name)' given twice")
                }
            } else if inlineValue != nil {
                throw UsageError(message: "option '\(name)' takes no value, found '\(argument.escapingControlCharacters)'")
            }
            parsed.given.append((option.name, value))
        }
        return parsed
    }

    /// "unknown option 'x' for 'cmd'", with the option of a sibling
    /// subcommand it belongs to, or a did-you-mean.
    static func unknownOption(_ name: String, at path: CommandPath) -> String {
        var message = "unknown option '\(name.escapingControlCharacters)' for '\(path.words)'"
        // Subcommands of one command share a hint; the tool's commands do not.
        let siblings = path.parent.map { $0.isRoot ? [] : $0.spec.subcommands } ?? []
        let owners = siblings.filter { $0.name != path.spec.name && $0.option(named: name) != nil }
        if !owners.isEmpty, let parent = path.parent {
            let names = owners.map { "'\(parent.appending($0).words)'" }
            message += " (it belongs to \(names.joined(separator: " and ")))"
        } else if let close = suggestion(for: name, among: path.spec.options.flatMap(\.names)) {
            message += " (did you mean '\(close)'?)"
        }
        return message
    }

    /// Checks the number of positional arguments against the spec.
    ///
    /// - Throws: ``UsageError`` naming the first missing argument, or the
    ///   first one too many, with the usage line.
    package func checkPositionals(for path: CommandPath) throws(UsageError) {
        let arguments = path.spec.arguments
        if positional.count < arguments.count {
            throw UsageError(message: "missing <\(arguments[positional.count].valueName)>\n\(path.usageHint)")
        }
        if positional.count > arguments.count, arguments.last?.isRepeating != true {
            let extra = positional[arguments.count]
            throw UsageError(message: "unexpected argument '\(extra.escapingControlCharacters)'\n\(path.usageHint)")
        }
    }
}

/// A whole number option in `range`.
func integerOption(_ parsed: ParsedArguments, _ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = parsed.value(name) else { return nil }
    guard let value = Int(text), range.contains(value) else {
        throw UsageError(message: "option '\(name)' expects a whole number from \(range.lowerBound) to \(range.upperBound), found '\(text.escapingControlCharacters)'")
    }
    return value
}

/// `--trials`, `--seed` and `--jobs`, as every running command reads them.
func runOptions(_ parsed: ParsedArguments) throws(UsageError) -> (trials: Int?, seed: UInt64?, jobs: Int) {
    let trials = try integerOption(parsed, "--trials", in: 1...ScenarioDecoder.maximumTrials)
    let jobs = try integerOption(parsed, "--jobs", in: 1...1024) ?? defaultJobs
    var seed: UInt64?
    if let text = parsed.value("--seed") {
        guard let value = UInt64(text), value <= UInt64(Int64.max) else {
            throw UsageError(message: "option '--seed' expects a whole number from 0 to \(Int64.max), found '\(text.escapingControlCharacters)'")
        }
        seed = value
    }
    return (trials, seed, jobs)
}
