// The scenario layer's errors as the command line shows them: each category
// has its exit status, and each value the library names is named by the
// option that gives it.
import HandoffScenario

extension ExitCode {
    /// The status for a scenario-layer error of `category`.
    package init(_ category: ScenarioError.Category) {
        switch category {
        case .invalidInput, .invalidSetup: self = .dataError
        case .missingInput, .badValue: self = .usage
        case .stoppedAtLimit: self = .expectationFailed
        case .internal: self = .software
        }
    }
}

/// The option that gives `argument` in `sweep` (and `advise`, which shares
/// its options).
func optionName(_ argument: ScenarioError.Argument) -> String {
    switch argument {
    case .payloads: return Option<[String]?>.payloads.name
    case .profiles: return Option<[String]?>.profiles.name
    case .parameters: return Option<[VariedParameter]>.vary.name
    case let .parameter(path): return "\(Option<[VariedParameter]>.vary.name) \(path)"
    case .activity: return Option<String?>.activity.name
    case .device: return Option<String?>.device.name
    case .shard: return "\(Option<Shard?>.shard.name) i/n"
    }
}

/// Prints `error` as the command line words it: the problems of an invalid
/// file as they are, a bad value of an option as "option '--x' value 'v':
/// why", anything else after `error: `, with values named by `naming`.
///
/// - Returns: the status for the error's category.
func reportError(
    _ error: ScenarioError, _ context: CommandContext,
    naming: (ScenarioError.Argument) -> String = optionName
) -> ExitCode {
    if let problems = error.problems {
        context.io.writeError(problems.description)
    } else if error.category == .badValue, let argument = error.argument, let value = error.value,
        let detail = error.detail
    {
        context.io.writeError("error: option '\(naming(argument))' value '\(value.escapingControlCharacters)': \(detail)")
    } else {
        context.io.writeError("error: " + error.message(naming: naming))
    }
    return ExitCode(error.category)
}
