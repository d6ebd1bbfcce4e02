// handoff-sim's exit statuses: one meaning per number in every command.
// The numbers follow sysexits(3) where one fits (64, 65, 70); 1, 2, 4 and 5
// are the tool's own.

/// The status `handoff-sim` exits with. Each number has one meaning in
/// every command; a command's ``CommandSpec/exitCodes`` say which of them
/// it can return and what each means for that command.
package enum ExitCode: Int32, CaseIterable, Sendable, Hashable {
    /// The command did what was asked; for `run`, every expectation held.
    case success = 0
    /// An expectation failed, or a trial stopped at a limit
    /// (`limits.maxEvents`, `limits.maxSimulatedTime`).
    case expectationFailed = 1
    /// `baseline check`: a figure regressed.
    case regression = 2
    /// `baseline check`: only improvements, or scenarios and entries added
    /// or removed; the baseline needs updating.
    case improvementsOnly = 4
    /// `baseline check`: the baseline is missing or unreadable.
    case baselineUnusable = 5
    /// Bad command-line usage (EX_USAGE): an unknown command or option, a
    /// missing or malformed value, an input that does not exist.
    case usage = 64
    /// An input file is invalid (EX_DATAERR): a scenario file, or a part of
    /// a sharded sweep.
    case dataError = 65
    /// An internal error (EX_SOFTWARE): a determinism check that found a
    /// difference, or an output that could not be written.
    case software = 70

    /// The number's meaning in every command, as the tool's help and
    /// docs/cli.md list it.
    package var meaning: String {
        switch self {
        case .success: return "success"
        case .expectationFailed: return "an expectation failed, or a trial stopped at a limit"
        case .regression: return "baseline check: a figure regressed"
        case .improvementsOnly: return "baseline check: only improvements, or entries added or removed"
        case .baselineUnusable: return "baseline check: the baseline is missing or unreadable"
        case .usage: return "bad command-line usage, or an input that does not exist"
        case .dataError: return "an invalid input file"
        case .software: return "internal error, or an output that could not be written"
        }
    }
}

/// One exit status a command can return, with what it means there.
package struct ExitCodeSpec: Sendable {
    /// The status.
    package let code: ExitCode
    /// What the status means for this command.
    package let meaning: String

    /// `code`, meaning `meaning` for this command.
    package init(_ code: ExitCode, _ meaning: String) {
        self.code = code
        self.meaning = meaning
    }
}
