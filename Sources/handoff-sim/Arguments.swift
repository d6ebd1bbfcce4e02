// A small command-line option reader: flags, options with values
// (`--seed 7` or `--seed=7`) and positional arguments. Problems are usage
// errors (exit 64).
import HandoffScenario

/// A command's options as given.
struct ParsedArguments {
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positional: [String] = []

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    /// The option's value (the last, if given more than once).
    func value(_ option: String) -> String? { values[option]?.last }
    /// Every value of a repeatable option, in order.
    func all(_ option: String) -> [String] { values[option] ?? [] }
}

/// A usage error: the message, then exit 64.
struct UsageError: Error {
    let message: String
}

/// Reads `arguments` for a command that accepts `flags` and `options`
/// (names with their dashes).
func parseArguments(
    _ arguments: [String], command: String, flags: [String], options: [String], repeatable: [String] = []
) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments()
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
        if flags.contains(name), inlineValue == nil {
            parsed.flags.insert(name)
        } else if options.contains(name) {
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError(message: "option '\(name)' needs a value")
            }
            if parsed.values[name] != nil, !repeatable.contains(name) {
                throw UsageError(message: "option '\(name)' given twice")
            }
            parsed.values[name, default: []].append(value)
        } else {
            let known = flags + options
            var message = "unknown option '\(name)' for '\(command)'"
            if let close = suggestion(for: name, among: known) { message += " (did you mean '\(close)'?)" }
            throw UsageError(message: message)
        }
    }
    return parsed
}

/// A whole number option in `range`.
func integerOption(_ parsed: ParsedArguments, _ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = parsed.value(name) else { return nil }
    guard let value = Int(text), range.contains(value) else {
        throw UsageError(message: "option '\(name)' expects a whole number from \(range.lowerBound) to \(range.upperBound), found '\(text)'")
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
            throw UsageError(message: "option '--seed' expects a whole number from 0 to \(Int64.max), found '\(text)'")
        }
        seed = value
    }
    return (trials, seed, jobs)
}
