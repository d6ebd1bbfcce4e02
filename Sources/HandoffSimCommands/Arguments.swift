// The argument parser, driven by a command's spec: flags, options with
// values (`--seed 7` or `--seed=7`), repeatable options, `--` (everything
// after it is positional) and `-` as a positional (standard input or
// output). Every value is converted to its option's type as it is read
// (see Option.swift), and required options are checked. Problems are usage
// errors (exit 64).
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

/// A command's arguments as given, read against its spec: every option's
/// values converted to their types, and the positional arguments.
///
/// A command reads an option by its typed declaration, never by its name:
///
///     let trials = parsed[.trials]        // Int?: nil when not given
///     let jobs = parsed[.jobs]            // Int: every core when not given
///     if parsed[.quiet] { ... }           // Bool: whether the flag was given
package struct ParsedArguments: Sendable {
    /// One option as given: its long name, its text (nil for a flag) and
    /// its value, converted.
    private struct Given: Sendable {
        let name: String
        let text: String?
        let value: any Sendable
    }

    /// Every option given, in the order given.
    private var given: [Given] = []
    /// The long names of the command's options.
    private let known: [String]
    /// The positional arguments, in order.
    package private(set) var positional: [String] = []

    /// Empty arguments of a command with options named `known`.
    private init(known: [String]) {
        self.known = known
    }

    /// The value of `option`: its value as given (the last, for an option
    /// given once; every one in order, for a repeatable option), or, when
    /// it was not given, what its declaration says (its default, nil, the
    /// empty array, false).
    ///
    /// - Complexity: O(*n*) in the number of options given.
    package subscript<Value>(option: Option<Value>) -> Value {
        assert(known.contains(option.name), "\(option.name) is not in the command's spec")
        return option.read(given.filter { $0.name == option.name }.map(\.value))
    }

    /// Whether `option` was given (for an option whose absence reads as
    /// its default, when the command must tell the two apart).
    package func isGiven<Value>(_ option: Option<Value>) -> Bool {
        assert(known.contains(option.name), "\(option.name) is not in the command's spec")
        return given.contains { $0.name == option.name }
    }

    /// The texts given to `option`, in order (for the output paths, checked
    /// by their spec before a command runs; see ``preflightOutputs(_:_:)``).
    func texts(of option: OptionSpec) -> [String] {
        given.filter { $0.name == option.name }.compactMap(\.text)
    }

    /// Reads `arguments` for the command at `path`: its options by the
    /// spec, each value converted to its type, the rest as positional
    /// arguments (not yet counted; see ``checkPositionals(for:)``). When
    /// `-h` or `--help` is among them, no value is converted and nothing is
    /// required: the command shows its help.
    ///
    /// - Throws: ``UsageError`` for an unknown option (with a did-you-mean,
    ///   or the sibling subcommand it belongs to), a missing value, a value
    ///   given to a flag, an option given twice that is not repeatable, a
    ///   value its option cannot read ("option '--jobs' expects a whole
    ///   number from 1 to 1024, found '0'"), or a required option missing
    ///   ("replay needs '--seed S' (…)").
    package static func parse(_ arguments: [String], for path: CommandPath) throws(UsageError) -> ParsedArguments {
        let spec = path.spec
        var parsed = ParsedArguments(known: spec.options.map(\.name))
        var texts: [(option: OptionSpec, text: String?)] = []
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
                if !option.isRepeatable, texts.contains(where: { $0.option.name == option.name }) {
                    throw UsageError(message: "option '\(option.name)' given twice")
                }
            } else if inlineValue != nil {
                throw UsageError(message: "option '\(name)' takes no value, found '\(argument.escapingControlCharacters)'")
            }
            texts.append((option, value))
        }
        // `--help` shows the help whatever else is given.
        if texts.contains(where: { $0.option.name == Option<Bool>.help.name }) {
            parsed.given = texts.filter { $0.option.name == Option<Bool>.help.name }.map {
                Given(name: $0.option.name, text: nil, value: true)
            }
            return parsed
        }
        for (option, text) in texts {
            guard let text, let convert = option.convert else {
                parsed.given.append(Given(name: option.name, text: nil, value: true))
                continue
            }
            parsed.given.append(Given(name: option.name, text: text, value: try convert(text)))
        }
        for option in spec.options where option.isRequired && !parsed.given.contains(where: { $0.name == option.name }) {
            let expected = option.expected.map { " (\($0))" } ?? ""
            throw UsageError(message: "\(path.words) needs '\(option.label)'\(expected)")
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
