// The one error type of the scenario layer: every reason finding, reading,
// running, sweeping, merging or recording scenarios stops, as a category, a
// message and, when known, the file, the trial and the problems found.

/// Why something in the scenario layer could not be done.
///
/// Every public call of HandoffScenario that can fail throws this one type
/// (`throws(ScenarioError)`), so a `catch` needs no cast. The ``category``
/// says what kind of reason it is, so a caller can decide what to do
/// without reading the message: a command-line tool maps it to an exit
/// status, a test to an expectation. The ``message`` is a sentence for
/// people. A file that is invalid is one error in category
/// ``Category/invalidInput`` with every problem found kept whole in
/// ``problems``, each with its file, JSON path and line.
///
/// ```swift
/// do {
///     let prepared = try SweepRunner.prepare(bytes, file: "relay.json", payloads: ["3KiB"], options: .init())
///     print(prepared.axes.count)
/// } catch where error.category == .invalidInput {
///     print(error.problems?.description ?? error.message)
/// } catch {
///     print(error.message)
/// }
/// ```
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of reason an error is.
    public enum Category: String, Hashable, Sendable, CaseIterable {
        /// An input file is invalid: a scenario file with problems (see
        /// ``ScenarioError/problems``), a baseline or a part of a sharded
        /// sweep that cannot be used, or parts that do not belong together.
        case invalidInput
        /// An input does not exist or cannot be read, or a folder holds no
        /// scenario files.
        case missingInput
        /// A value the caller gave is not valid, or one the caller must
        /// give is missing (which one, the message says).
        case badValue
        /// A trial stopped at a limit (`limits.maxEvents`,
        /// `limits.maxSimulatedTime`) without settling.
        case stoppedAtLimit
        /// The scenario's setup was refused when its run was made.
        case invalidSetup
        /// The simulator broke one of its own rules (a bug).
        case `internal`
    }

    /// A value a caller gives the scenario layer, which an error can be
    /// about. Its ``description`` names it as the Swift API does; a caller
    /// with other names (a command line's options) passes its own to
    /// ``ScenarioError/message(naming:)``.
    package enum Argument: Hashable, Sendable, CustomStringConvertible {
        /// The payload sizes of a sweep (`payloads:`).
        case payloads
        /// The network profiles of a sweep (`profiles:`).
        case profiles
        /// The parameters a sweep varies (`parameters:`).
        case parameters
        /// One parameter a sweep varies, by its path.
        case parameter(String)
        /// The activity measured (``SweepRunner/Options/activity``).
        case activity
        /// The receiving device measured (``SweepRunner/Options/device``).
        case device
        /// The slice of trials a sweep runs (``SweepRunner/Options/shard``).
        case shard

        /// The value as the Swift API names it.
        package var description: String {
            switch self {
            case .payloads: return "payloads"
            case .profiles: return "profiles"
            case .parameters: return "parameters"
            case let .parameter(path): return path
            case .activity: return "SweepRunner.Options.activity"
            case .device: return "SweepRunner.Options.device"
            case .shard: return "SweepRunner.Options.shard"
            }
        }
    }

    /// A message in pieces: text, and the values the caller gave, which
    /// each caller names its own way. Every interpolated value has its
    /// control characters escaped (`String.escapingControlCharacters`);
    /// only the literal text can break a line.
    struct Message: Hashable, Sendable, ExpressibleByStringInterpolation {
        enum Piece: Hashable, Sendable {
            case text(String)
            case argument(Argument)
        }

        var pieces: [Piece]

        init(pieces: [Piece]) {
            self.pieces = pieces
        }

        init(stringLiteral value: String) {
            pieces = [.text(value)]
        }

        init(stringInterpolation: StringInterpolation) {
            pieces = stringInterpolation.pieces
        }

        struct StringInterpolation: StringInterpolationProtocol {
            var pieces: [Piece] = []

            init(literalCapacity: Int, interpolationCount: Int) {}

            mutating func appendLiteral(_ literal: String) {
                pieces.append(.text(literal))
            }

            /// A value, with its control characters escaped: a name from
            /// an input file or a caller cannot break the message's line or
            /// forge another one.
            mutating func appendInterpolation(_ value: some CustomStringConvertible) {
                pieces.append(.text(value.description.escapingControlCharacters))
            }

            /// A value the caller gave, named by the caller.
            mutating func appendInterpolation(argument: Argument) {
                pieces.append(.argument(argument))
            }
        }

        func text(naming name: (Argument) -> String) -> String {
            pieces.map { piece in
                switch piece {
                case let .text(text): return text
                case let .argument(argument): return name(argument)
                }
            }.joined()
        }
    }

    /// What kind of reason this is.
    public let category: Category
    /// The file it is about, when there is one.
    public let file: String?
    /// The trial it happened in, when it happened in one.
    public let trial: Int?
    /// The problems found in a file, for an invalid scenario file.
    public let problems: ScenarioProblems?
    /// The value the caller gave (or must give) that the error is about.
    package let argument: Argument?
    /// The value given, when the error is about one value of ``argument``.
    package let value: String?
    /// What is wrong with ``value``, when the error is about one value.
    package let detail: String?
    /// The message, in pieces.
    let text: Message
    /// For a quantity (a size, rate, percentage or duration): whether the
    /// text has the quantity's form but a value out of range, which
    /// (except for percentages) the JSON Schema's patterns do not check.
    let isOutOfRange: Bool

    /// An error with every field given.
    init(
        _ category: Category, _ text: Message, file: String? = nil, trial: Int? = nil, problems: ScenarioProblems? = nil,
        argument: Argument? = nil, value: String? = nil, detail: String? = nil, isOutOfRange: Bool = false
    ) {
        self.category = category
        self.isOutOfRange = isOutOfRange
        self.text = text
        self.file = file
        self.trial = trial
        self.problems = problems
        self.argument = argument
        self.value = value
        self.detail = detail
    }

    /// The message: what went wrong, naming the values the caller gave as
    /// the Swift API names them.
    public var message: String { message(naming: \.description) }

    /// The message, naming each value the caller gave with `name`: a
    /// command-line tool names them by its options.
    package func message(naming name: (Argument) -> String) -> String {
        text.text(naming: name)
    }

    /// The message.
    public var description: String { message }

    /// The same error with its message after `prefix` (where it happened:
    /// a file, a sweep point).
    package func prefixed(_ prefix: String) -> ScenarioError {
        var pieces = text.pieces
        pieces.insert(.text(prefix.escapingControlCharacters), at: 0)
        return ScenarioError(
            category, Message(pieces: pieces), file: file, trial: trial, problems: problems, argument: argument,
            value: value, detail: detail, isOutOfRange: isOutOfRange)
    }

    /// The same error in `category`.
    package func recategorized(_ category: Category) -> ScenarioError {
        ScenarioError(
            category, text, file: file, trial: trial, problems: problems, argument: argument, value: value,
            detail: detail, isOutOfRange: isOutOfRange)
    }

    /// An error in `category` with `message` (one line: its control
    /// characters are escaped), about `file` when given: for the modules
    /// above, whose messages name no value of a caller's.
    package init(_ category: Category, message: String, file: String? = nil) {
        self.init(category, Message(stringLiteral: message.escapingControlCharacters), file: file)
    }

    /// A file that does not exist or cannot be read: a missing input.
    package static func unreadable(_ file: String) -> ScenarioError {
        ScenarioError(.missingInput, "\(file): no such file or cannot be read", file: file)
    }

    /// The problems found in a scenario file: an invalid input.
    package static func invalid(_ problems: ScenarioProblems) -> ScenarioError {
        ScenarioError(.invalidInput, Message(stringLiteral: problems.description), file: problems.problems.first?.file, problems: problems)
    }
}
