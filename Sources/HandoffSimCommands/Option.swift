// Typed options. An option is declared once, with its name, the type of its
// value, how that value is read from text, its default and its choices; the
// help shows the choices and the default from that declaration, the parser
// converts every value as it reads it, and a command reads typed values
// (`parsed[.trials]`), so the three cannot drift apart.

/// An option a command declares, whatever the type of its value: what a
/// ``CommandSpec`` lists, in the order its help shows them.
///
/// The options themselves are static members of this protocol, each in an
/// extension for its ``Option`` type, so that a command's list and a
/// command's body both name them with a leading dot:
///
///     extension CommandOption where Self == Option<Int> {
///         static var limit: Option<Int> {
///             .option(name: "--limit", .integer("N", in: 1...1_000_000), default: 20, help: "List at most N trials.")
///         }
///     }
///     // options: [.limit, .quiet]     ...     let limit = parsed[.limit]
package protocol CommandOption: Sendable {
    /// The option as the parser and the help see it.
    var spec: OptionSpec { get }
}

/// A typed option: its spec (name, help, choices, default) and how the
/// values given, each converted as the parser read it, become the one value
/// a command reads.
///
/// An option that is absent reads as its default (``option(name:_:default:shownAs:inUsage:help:)``),
/// as nil (``option(name:_:shownDefault:inUsage:outputPath:help:)``), as the empty array
/// (``repeating(name:_:help:)``) or as false (``flag(name:short:help:)``); a
/// required option (``required(name:_:outputPath:help:)``) is never absent once parsed.
package struct Option<Value: Sendable>: CommandOption {
    package let spec: OptionSpec
    /// The value a command reads, from the option's values in the order
    /// given (empty when the option was not given).
    let read: @Sendable ([any Sendable]) -> Value

    /// The name with its dashes, e.g. `--trials`.
    package var name: String { spec.name }

    /// The same option with other help text (for options common to several
    /// commands, which some describe in their own words). The name, the
    /// value, the choices and the default stay the same.
    package func helping(_ help: String, shownInUsage: Bool? = nil) -> Option {
        Option(spec: spec.helping(help, shownInUsage: shownInUsage), read: read)
    }

    private init(spec: OptionSpec, read: @escaping @Sendable ([any Sendable]) -> Value) {
        self.spec = spec
        self.read = read
    }

    /// An option whose values `syntax` converts and `read` turns into the
    /// command's value.
    private init<Element>(
        _ name: String, _ syntax: ValueSyntax<Element>, defaultText: String?, repeatable: Bool = false,
        required: Bool = false, inUsage: Bool, outputPath: Bool, help: String,
        read: @escaping @Sendable ([Element]) -> Value
    ) {
        let convert = syntax.convert
        spec = OptionSpec(
            name: name, shortName: nil, valueName: syntax.placeholder, help: help, isRepeatable: repeatable,
            isRequired: required, isShownInUsage: inUsage || required, isOutputPath: outputPath,
            expected: syntax.expected, choices: syntax.choices, choicesLabel: syntax.choicesLabel,
            defaultText: defaultText,
            convert: { text throws(UsageError) in try convert(name, text) })
        self.read = { values in
            let elements = values.compactMap { $0 as? Element }
            assert(elements.count == values.count, "\(name) is read as another type than it was declared with")
            return read(elements)
        }
    }
}

extension Option where Value == Bool {
    /// A flag: an option without a value, true when given.
    package static func flag(name: String, short: String? = nil, help: String) -> Option {
        let spec = OptionSpec(
            name: name, shortName: short, valueName: nil, help: help, isRepeatable: false, isRequired: false,
            isShownInUsage: false, isOutputPath: false, expected: nil, choices: [], choicesLabel: "",
            defaultText: nil, convert: nil)
        return Option(spec: spec) { !$0.isEmpty }
    }
}

extension Option {
    /// An option with a value written as `syntax` says, `defaultValue`
    /// when it is not given.
    ///
    /// - Parameters:
    ///   - shownAs: the default as the help shows it (`every core`); nil to
    ///     show `defaultValue` as `syntax` writes it.
    package static func option(
        name: String, _ syntax: ValueSyntax<Value>, default defaultValue: Value, shownAs: String? = nil,
        inUsage: Bool = false, help: String
    ) -> Option {
        Option(
            name, syntax, defaultText: shownAs ?? syntax.describe(defaultValue), inUsage: inUsage, outputPath: false,
            help: help
        ) { $0.last ?? defaultValue }
    }

    /// An option with a value written as `syntax` says, nil when it is not
    /// given (the command then uses the file's value, or the library its
    /// own default).
    ///
    /// - Parameters:
    ///   - shownDefault: what happens without the option, for the help
    ///     (`60 × (parameters + 1)`); nil to show nothing.
    ///   - outputPath: whether the value is a path the command writes,
    ///     checked before any work is done (see ``OutputTarget``).
    package static func option<Wrapped>(
        name: String, _ syntax: ValueSyntax<Wrapped>, shownDefault: String? = nil, inUsage: Bool = false,
        outputPath: Bool = false, help: String
    ) -> Option where Value == Wrapped? {
        Option(name, syntax, defaultText: shownDefault, inUsage: inUsage, outputPath: outputPath, help: help) {
            $0.last
        }
    }

    /// An option the command cannot run without: the usage line shows it,
    /// and the parser refuses the arguments without it ("replay needs
    /// '--seed S' (a whole number from 0 to …)").
    ///
    /// - Parameters:
    ///   - outputPath: whether the value is a path the command writes.
    package static func required(
        name: String, _ syntax: ValueSyntax<Value>, outputPath: Bool = false, help: String
    ) -> Option {
        Option(name, syntax, defaultText: nil, required: true, inUsage: true, outputPath: outputPath, help: help) {
            guard let value = $0.last else {
                // ParsedArguments.parse refuses arguments without it, so no
                // input reaches this.
                preconditionFailure("\(name) is required, and ParsedArguments.parse checks that it is given")
            }
            return value
        }
    }

    /// An option that may be given more than once, each value written as
    /// `syntax` says; it reads as every value in the order given.
    package static func repeating<Element>(name: String, _ syntax: ValueSyntax<Element>, help: String) -> Option
    where Value == [Element] {
        Option(name, syntax, defaultText: nil, repeatable: true, inUsage: false, outputPath: false, help: help) { $0 }
    }
}

extension CommandOption where Self == Option<Bool> {
    /// `-h`, `--help`: every command has it, listed last.
    package static var help: Option<Bool> { .flag(name: "--help", short: "-h", help: "Show this help.") }
    /// `--version`, the tool's own (read before any command is).
    package static var version: Option<Bool> { .flag(name: "--version", help: "Show the version.") }
}
