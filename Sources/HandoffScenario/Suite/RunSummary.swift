// The one result of a run of scenario files: each file's status decided
// once, with --strict applied, and the run's exit status derived from
// them. Every report (text, Markdown, JUnit, JSON, annotations, the seeds
// table, HTML) renders this object; none decides a status of its own.

/// What a run of scenario files came to: every file's status (under each
/// seed), decided once with `--strict` applied, the counts, the order in
/// which reports list what needs a look, and the run's conclusion.
///
/// Reports render a summary; they never decide a status themselves, so the
/// text, the JUnit XML, the HTML page and the exit code cannot disagree.
///
/// ```swift
/// let files = try ScenarioSuite.files(in: ["scenarios"])
/// let summary = RunSummary(ScenarioSuite.run(files: files, runner: ScenarioRunner()), strict: true)
/// print(summary.count(of: .pass), summary.conclusion)
/// ```
public struct RunSummary: Sendable {
    /// A scenario file's status in a run. The same words name it in every
    /// report (the text report upper-cases them).
    public enum Status: String, CaseIterable, Hashable, Sendable, Comparable {
        /// Every expectation held, each surely (its confidence interval
        /// within what it promises).
        case pass
        /// Every expectation held, at least one only fragilely (its
        /// confidence interval crosses what it promises). Never the status
        /// of a file under `--strict`, where such a file fails.
        case fragile
        /// An expectation failed; under `--strict`, also a fragile one.
        case fail
        /// The scenario stopped before its expectations could be checked
        /// (a limit, a refused setup, an internal error).
        case error
        /// The file is invalid; nothing ran.
        case invalid
        /// The file expects nothing (a file for sweeps); nothing ran.
        case skipped

        /// Whether the status fails the run.
        public var fails: Bool {
            switch self {
            case .pass, .fragile, .skipped: false
            case .fail, .error, .invalid: true
            }
        }

        /// How bad the status is, from skipped (0) to invalid (5): the
        /// order in which the seeds table takes a file's worst status.
        var severity: Int {
            switch self {
            case .skipped: 0
            case .pass: 1
            case .fragile: 2
            case .fail: 3
            case .error: 4
            case .invalid: 5
            }
        }

        /// Where reports list a file of this status: what failed first,
        /// then fragile passes, passes, and files that did not run.
        var listingRank: Int {
            switch self {
            case .fail, .error, .invalid: 0
            case .fragile: 1
            case .pass: 2
            case .skipped: 3
            }
        }

        /// Orders by how bad the status is: skipped, pass, fragile, fail,
        /// error, invalid.
        public static func < (lhs: Status, rhs: Status) -> Bool { lhs.severity < rhs.severity }
    }

    /// How a run ends, from which a command line takes its exit status.
    public enum Conclusion: Hashable, Sendable {
        /// Every file passed (surely or fragilely) or was skipped.
        case success
        /// An expectation failed (or, under `--strict`, was fragile), or a
        /// scenario stopped at a limit.
        case expectationFailed
        /// A file is invalid, or a scenario's setup was refused.
        case invalidInput
        /// The simulator broke one of its own rules.
        case internalError
    }

    /// One scenario file under one seed.
    public struct Entry: Sendable {
        /// The file's result.
        public let result: FileResult
        /// The seed of the pass over the files this entry belongs to: the
        /// `--seeds` value, or the seed the scenario ran under; nil for a
        /// file that did not run in a run without `--seeds`.
        public let seed: UInt64?
        /// The file's status, `--strict` applied.
        public let status: Status
        /// Whether the file fails only because `--strict` made its fragile
        /// expectations failures (its status is then ``Status/fail``).
        public let failsOnlyUnderStrict: Bool

        /// The file, as named on the command line.
        public var file: String { result.file }

        /// The scenario's result, when it ran.
        public var run: ScenarioResult? {
            if case let .ran(run) = result.outcome { return run }
            return nil
        }

        /// The scenario's name, or the file's for an invalid file.
        public var name: String {
            switch result.outcome {
            case let .ran(run): run.scenario.name
            case let .skipped(scenario): scenario.name
            case .invalid: result.file
            }
        }

        /// The expectations a report lists as what went wrong: those that
        /// failed, or, for a fragile file (or one failing only under
        /// `--strict`), the fragile ones. Empty for a pass or a file that
        /// did not run.
        public var notableExpectations: [ExpectationResult] {
            guard let run, run.failure == nil else { return [] }
            switch status {
            case .fragile: return run.expectations.filter { $0.verdict == .fragile }
            case .fail:
                return failsOnlyUnderStrict
                    ? run.expectations.filter { $0.verdict == .fragile } : run.expectations.filter { $0.verdict == .fail }
            case .pass, .error, .invalid, .skipped: return []
            }
        }

        /// How many expectations held (surely or fragilely); 0 for a file
        /// that did not run.
        public var heldExpectations: Int { run?.expectations.filter(\.passed).count ?? 0 }

        /// How the entry ends the run on its own.
        var conclusion: Conclusion {
            switch status {
            case .pass, .fragile, .skipped: return .success
            case .fail: return .expectationFailed
            case .invalid: return .invalidInput
            case .error:
                switch run?.failure?.category {
                case .stoppedAtLimit: return .expectationFailed
                case .internal: return .internalError
                case .invalidInput, .missingInput, .badValue, .invalidSetup: return .invalidInput
                case nil: return .internalError
                }
            }
        }

        init(_ result: FileResult, seed: UInt64?, strict: Bool) {
            self.result = result
            switch result.outcome {
            case .invalid:
                (status, failsOnlyUnderStrict) = (.invalid, false)
                self.seed = seed
            case .skipped:
                (status, failsOnlyUnderStrict) = (.skipped, false)
                self.seed = seed
            case let .ran(run):
                self.seed = seed ?? run.seed
                if run.failure != nil {
                    (status, failsOnlyUnderStrict) = (.error, false)
                } else if !run.passed {
                    (status, failsOnlyUnderStrict) = (.fail, false)
                } else if run.isFragile {
                    (status, failsOnlyUnderStrict) = strict ? (.fail, true) : (.fragile, false)
                } else {
                    (status, failsOnlyUnderStrict) = (.pass, false)
                }
            }
        }
    }

    /// One file's statuses under every seed (for `run --seeds`).
    public struct FileStatuses: Sendable {
        /// The file's entries, one per seed, in the seeds' order.
        public let entries: [Entry]
        /// The worst of its statuses (in ``Status``'s order, invalid the
        /// worst).
        public var worst: Status { entries.map(\.status).max() ?? .skipped }
    }

    /// Whether `--strict` was applied (a fragile file then fails).
    public let strict: Bool
    /// The `--seeds` list, when the files ran once per seed; nil otherwise.
    public let seeds: [UInt64]?
    /// Every file under every seed: the files in order under the first
    /// seed, then under the next, …
    public let entries: [Entry]

    /// The summary of `results`.
    ///
    /// - Parameters:
    ///   - results: The files' results, as ``ScenarioSuite/run(files:runner:trials:seed:overlay:progress:)``
    ///     returns them; with `seeds`, every file under the first seed,
    ///     then every file under the next, ….
    ///   - strict: Make a fragile file a failure.
    ///   - seeds: The seeds the files ran under, one pass over the files
    ///     each, or nil for one pass under each file's own seed (or one
    ///     given seed).
    /// - Precondition: With `seeds`, `results.count` is a multiple of
    ///   `seeds.count`.
    public init(_ results: [FileResult], strict: Bool = false, seeds: [UInt64]? = nil) {
        self.strict = strict
        self.seeds = seeds
        let filesPerSeed = seeds.map { $0.isEmpty ? 0 : results.count / $0.count } ?? results.count
        precondition(seeds == nil || filesPerSeed * (seeds?.count ?? 0) == results.count, "results do not cover every seed")
        entries = results.enumerated().map { index, result in
            Entry(result, seed: seeds.map { $0[index / max(1, filesPerSeed)] }, strict: strict)
        }
    }

    /// How many files (under all seeds) have `status`.
    public func count(of status: Status) -> Int { entries.count { $0.status == status } }

    /// How the run ends: an invalid input before an internal error before
    /// a failed expectation.
    public var conclusion: Conclusion {
        let conclusions = entries.map(\.conclusion)
        for conclusion in [Conclusion.invalidInput, .internalError, .expectationFailed] where conclusions.contains(conclusion) {
            return conclusion
        }
        return .success
    }

    /// The entries' indices in the order reports list their details:
    /// failing ones first, then fragile passes, passes and files that did
    /// not run, each in run order.
    public var listingOrder: [Int] {
        entries.indices.sorted { (entries[$0].status.listingRank, $0) < (entries[$1].status.listingRank, $1) }
    }

    /// The files of a run over several seeds, each with its statuses under
    /// every seed, in the files' order; one per entry without `--seeds`.
    public var files: [FileStatuses] {
        guard let seeds, !seeds.isEmpty else { return entries.map { FileStatuses(entries: [$0]) } }
        let filesPerSeed = entries.count / seeds.count
        return (0..<filesPerSeed).map { file in
            FileStatuses(entries: seeds.indices.map { entries[$0 * filesPerSeed + file] })
        }
    }

    /// The wall-clock seconds the scenarios took, summed (the only figure
    /// that differs between runs).
    public var wallClockSeconds: Double {
        entries.reduce(0) { $0 + ($1.run?.wallClockSeconds ?? 0) }
    }
}
