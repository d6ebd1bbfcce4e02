// The declaration of every command: what it is called, what it takes, what
// it says about itself and how it exits. Both `--help` and the argument
// parser are generated from these declarations, so they cannot disagree.

/// A positional argument of a command.
package struct ArgumentSpec: Sendable {
    /// The name shown between angle brackets, e.g. `file or dir`.
    package let valueName: String
    /// What the argument is, for the help.
    package let help: String
    /// Whether the argument takes one or more values (it must be the last).
    package let isRepeating: Bool

    /// An argument shown as `<valueName>`, or `<valueName>...` when it
    /// takes one or more values.
    package init(_ valueName: String, repeating: Bool = false, help: String) {
        self.valueName = valueName
        self.help = help
        self.isRepeating = repeating
    }

    /// The argument as the usage line and the help show it.
    package var label: String { "<\(valueName)>" + (isRepeating ? "..." : "") }
}

/// A named option of a command, whatever the type of its value: what the
/// parser and the help need. Options are declared as typed ``Option``
/// values, which make their spec; this is not written by hand.
package struct OptionSpec: Sendable {
    /// The name with its dashes, e.g. `--seed`.
    package let name: String
    /// A one-letter name with its dash, e.g. `-h`, if any.
    package let shortName: String?
    /// The value's name in the help, e.g. `S`; nil for a flag.
    package let valueName: String?
    /// What the option does, for the help; the choices and the default
    /// are added to it (see ``helpText``).
    package let help: String
    /// Whether the option may be given more than once; its values are kept
    /// in order.
    package let isRepeatable: Bool
    /// Whether the command cannot run without the option (`replay`'s
    /// `--seed S`): the parser refuses arguments without it.
    package let isRequired: Bool
    /// Whether the usage line shows the option (required options, and
    /// `advise`'s `--p95 DURATION`, one of which it needs).
    package let isShownInUsage: Bool
    /// Whether the value is a path the command writes, checked before any
    /// work is done (see ``OutputTarget``).
    package let isOutputPath: Bool
    /// What a value must be (`a whole number from 1 to 1024`), for the
    /// message about a missing value.
    package let expected: String?
    /// The values the option takes, when they are a closed set, in the
    /// order the help lists them.
    package let choices: [String]
    /// What the help calls the choices (`values`, or `metrics` for a
    /// compound value such as `METRIC=DURATION`).
    package let choicesLabel: String
    /// The default as the help shows it, if the help shows one.
    package let defaultText: String?
    /// Converts a value given to the option (a usage error when it cannot);
    /// nil for a flag.
    let convert: (@Sendable (String) throws(UsageError) -> any Sendable)?

    /// The same option with other help text (and, when `shownInUsage` is
    /// given, shown in the usage line or not).
    func helping(_ help: String, shownInUsage: Bool? = nil) -> OptionSpec {
        OptionSpec(
            name: name, shortName: shortName, valueName: valueName, help: help, isRepeatable: isRepeatable,
            isRequired: isRequired, isShownInUsage: shownInUsage ?? isShownInUsage, isOutputPath: isOutputPath, expected: expected,
            choices: choices, choicesLabel: choicesLabel, defaultText: defaultText, convert: convert)
    }

    /// Whether the option takes a value.
    package var takesValue: Bool { valueName != nil }

    /// Every name the option answers to.
    package var names: [String] { (shortName.map { [$0] } ?? []) + [name] }

    /// The option as the help lists it: `-h, --help`, `--seed S`.
    package var label: String {
        names.joined(separator: ", ") + (valueName.map { " " + $0 } ?? "")
    }

    /// The help as `--help` shows it: ``help``, `Repeatable.` for a
    /// repeatable option, then the choices and the default in parentheses,
    /// made from the declaration: `The latency an svg chart shows. (values:
    /// advertToOffered, acceptToContinue, …; default: acceptToContinue)`.
    package var helpText: String {
        var text = help + (isRepeatable ? " Repeatable." : "")
        var notes: [String] = []
        if !choices.isEmpty { notes.append("\(choicesLabel): " + choices.joined(separator: ", ")) }
        if let defaultText { notes.append("default: \(defaultText)") }
        if !notes.isEmpty { text += " (" + notes.joined(separator: "; ") + ")" }
        return text
    }
}

/// A command (or a subcommand, or the tool itself): its name, its help
/// text, its arguments and options, its exit codes and what it runs.
///
/// A command either runs (``action``) or groups ``subcommands``; the tool
/// itself is the root of the tree (see ``HandoffSimCommandLine/root``).
package struct CommandSpec: Sendable {
    /// What a command runs: the parsed arguments, checked against the spec,
    /// and where to write. A usage error it throws becomes exit 64.
    package typealias Action = @Sendable (ParsedArguments, CommandContext) throws(UsageError) -> ExitCode

    /// The name typed on the command line.
    package let name: String
    /// One sentence: the help's OVERVIEW and the line in the parent's
    /// command list.
    package let abstract: String
    /// Paragraphs after the usage line: what the command does and how.
    /// Lines are wrapped at 80 columns; a line that starts with spaces (an
    /// example) keeps its indentation; an empty line separates paragraphs.
    package let discussion: String
    /// The positional arguments, in order; only the last may repeat.
    package let arguments: [ArgumentSpec]
    /// The options' specs, in the order the help lists them (the help
    /// flag is added last).
    package let declaredOptions: [OptionSpec]
    /// Paragraphs after the options: notes, examples, where to read more.
    package let notes: String
    /// Every status the command can return, with its meaning here, in
    /// numeric order.
    package let exitCodes: [ExitCodeSpec]
    /// The subcommands, in the order the help lists them.
    package let subcommands: [CommandSpec]
    /// What the command runs; nil for a command that only groups
    /// subcommands.
    package let action: Action?

    /// A command that runs `action`.
    package init(
        name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
        options: [any CommandOption] = [], notes: String = "", exitCodes: [ExitCodeSpec],
        action: @escaping Action
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.declaredOptions = options.map(\.spec)
        self.notes = notes
        self.exitCodes = exitCodes
        self.subcommands = []
        self.action = action
    }

    /// A command that groups `subcommands` (the first argument names one).
    package init(
        name: String, abstract: String, discussion: String = "", options: [any CommandOption] = [],
        notes: String = "", exitCodes: [ExitCodeSpec], subcommands: [CommandSpec]
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = []
        self.declaredOptions = options.map(\.spec)
        self.notes = notes
        self.exitCodes = exitCodes
        self.subcommands = subcommands
        self.action = nil
    }

    /// Every option, the help flag last.
    package var options: [OptionSpec] { declaredOptions + [Option<Bool>.help.spec] }

    /// The option named `name` (long or short), if the command has it.
    package func option(named name: String) -> OptionSpec? {
        options.first { $0.names.contains(name) }
    }

    /// The subcommand named `name`, if any.
    package func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}
