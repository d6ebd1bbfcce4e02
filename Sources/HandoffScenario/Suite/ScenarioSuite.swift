import Foundation

/// Finding, loading and running scenario files.
///
/// The entry point from Swift: ``load(_:overlay:)`` reads one file into a
/// ``Scenario`` for a ``ScenarioRunner``; ``files(in:)`` and
/// ``run(files:runner:trials:seed:overlay:progress:)`` do what
/// `handoff-sim run` does with a folder.
///
/// ```swift
/// let files = try ScenarioSuite.files(in: ["scenarios"])
/// let results = ScenarioSuite.run(files: files, runner: ScenarioRunner(jobs: 4))
/// ```
public enum ScenarioSuite {
    /// The scenario files under `paths`: each file as given, and every
    /// `.json` file under each directory (recursively), in byte order of
    /// their paths; duplicates once.
    ///
    /// - Throws: ``ScenarioError`` (``ScenarioError/Category/missingInput``)
    ///   for a path that does not exist or a directory without any.
    public static func files(in paths: [String]) throws(ScenarioError) -> [String] {
        var result: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .noSuchPath(path) }
            if isDirectory.boolValue {
                let base = path.hasSuffix("/") ? String(path.dropLast()) : path
                var found: [String] = []
                if let enumerator = manager.enumerator(atPath: path) {
                    while let relative = enumerator.nextObject() as? String {
                        guard relative.hasSuffix(".json") else { continue }
                        let full = base + "/" + relative
                        var nestedDirectory: ObjCBool = false
                        if manager.fileExists(atPath: full, isDirectory: &nestedDirectory), !nestedDirectory.boolValue {
                            found.append(full)
                        }
                    }
                }
                guard !found.isEmpty else { throw .noScenarios(path) }
                result.append(contentsOf: found.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            } else {
                result.append(path)
            }
        }
        var seen = Set<String>()
        return result.filter { seen.insert($0).inserted }
    }

    /// Reads and decodes one scenario file, with `overlay`'s values written
    /// over it first.
    ///
    /// ```swift
    /// let scenario = try ScenarioSuite.load("scenarios/payload-3kib.json")
    /// print(scenario.name, scenario.trials)
    /// ```
    ///
    /// - Parameters:
    ///   - file: The scenario file's path, as problems name it.
    ///   - overlay: Values written over the file's before it is decoded
    ///     (after the overlay the file names itself, if any).
    /// - Returns: The validated scenario.
    /// - Throws: ``ScenarioError`` in category
    ///   ``ScenarioError/Category/invalidInput``, with every problem found in
    ///   ``ScenarioError/problems`` (a file that cannot be read is one
    ///   problem at `$`).
    public static func load(_ file: String, overlay: Overlay? = nil) throws(ScenarioError) -> Scenario {
        try loadResult(file, overlay: overlay).mapError(ScenarioError.invalid).get()
    }

    /// Decodes a scenario from the bytes of a file, naming it `file` in
    /// problems.
    ///
    /// - Throws: ``ScenarioError`` in category
    ///   ``ScenarioError/Category/invalidInput``, with every problem found in
    ///   ``ScenarioError/problems``.
    public static func decode(_ bytes: [UInt8], file: String) throws(ScenarioError) -> Scenario {
        try ScenarioDecoder.decode(bytes, file: file).mapError(ScenarioError.invalid).get()
    }

    /// ``load(_:overlay:)``, its problems as a result: for the command line
    /// and ``run(files:runner:trials:seed:overlay:progress:)``, which report
    /// an invalid file and go on.
    package static func loadResult(_ file: String, overlay: Overlay? = nil) -> Result<Scenario, ScenarioProblems> {
        guard let bytes = InputFile.contents(atPath: file) else {
            return .failure(ScenarioProblems(problems: [
                ScenarioProblem(file: file, path: "$", position: nil, message: "cannot read the file"),
            ]))
        }
        return loadResult(bytes: bytes, file: file, overlay: overlay)
    }

    /// ``loadResult(_:overlay:)`` of a file already read (once: a pipe or a
    /// FIFO cannot be read again), its bytes `bytes`.
    package static func loadResult(bytes: [UInt8], file: String, overlay: Overlay? = nil) -> Result<Scenario, ScenarioProblems> {
        switch ScenarioDecoder.parse(bytes, file: file) {
        case let .failure(problems): return .failure(problems)
        case let .success(root):
            // The overlay the file names, then the one given.
            switch Overlay.apply(to: root, file: file, given: overlay) {
            case let .failure(error):
                return .failure(error.problems ?? ScenarioProblems(problems: [
                    ScenarioProblem(file: file, path: "$", position: nil, message: error.message),
                ]))
            case let .success((tree, edits, overlays)):
                return ScenarioDecoder.decode(root: tree, file: file, digest: Overlay.digest(of: bytes, edits: edits)).map { decoded in
                    var scenario = decoded
                    scenario.overlayFile = overlay?.file
                    return scenario
                }.mapError { Overlay.attributing($0, to: overlays, scenario: root, file: file) }
            }
        }
    }

    /// Loads every file, then runs the valid ones; an invalid file runs
    /// nothing and is reported with its problems.
    ///
    /// Nothing here throws: each file's fate, run, invalid or skipped, is in
    /// its ``FileResult``.
    ///
    /// - Parameters:
    ///   - files: The scenario files, as ``files(in:)`` lists them.
    ///   - runner: The runner each valid file runs on.
    ///   - trials: Trials replacing each file's own, when given.
    ///   - seed: A seed replacing each file's own, when given.
    ///   - overlay: Values written over every file's.
    ///   - progress: Called before each file with its index, the number of
    ///     files and the file.
    public static func run(
        files: [String], runner: ScenarioRunner, trials: Int? = nil, seed: UInt64? = nil, overlay: Overlay? = nil,
        progress: ((Int, Int, String) -> Void)? = nil
    ) -> [FileResult] {
        run(loaded: files.lazy.map { ($0, loadResult($0, overlay: overlay)) }, count: files.count, runner: runner,
            trials: trials, seed: seed, progress: progress)
    }

    /// Each file loaded with `overlay` (or its problems), read once: what
    /// ``run(loaded:runner:trials:seed:progress:)`` runs as often as asked
    /// (once per seed, twice for a determinism check) without reading a
    /// file again, which a pipe or a FIFO would not allow.
    package static func load(
        files: [String], overlay: Overlay? = nil
    ) -> [(file: String, scenario: Result<Scenario, ScenarioProblems>)] {
        files.map { ($0, loadResult($0, overlay: overlay)) }
    }

    /// ``run(files:runner:trials:seed:overlay:progress:)`` of files already
    /// loaded (``load(files:overlay:)``).
    package static func run(
        loaded: some Collection<(file: String, scenario: Result<Scenario, ScenarioProblems>)>, runner: ScenarioRunner,
        trials: Int? = nil, seed: UInt64? = nil, progress: ((Int, Int, String) -> Void)? = nil
    ) -> [FileResult] {
        run(loaded: loaded, count: loaded.count, runner: runner, trials: trials, seed: seed, progress: progress)
    }

    private static func run(
        loaded: some Sequence<(file: String, scenario: Result<Scenario, ScenarioProblems>)>, count: Int,
        runner: ScenarioRunner, trials: Int?, seed: UInt64?, progress: ((Int, Int, String) -> Void)?
    ) -> [FileResult] {
        var results: [FileResult] = []
        for (index, (file, loaded)) in loaded.enumerated() {
            progress?(index, count, file)
            switch loaded {
            case let .success(scenario) where scenario.expectations.isEmpty:
                results.append(FileResult(file: file, outcome: .skipped(scenario)))
            case let .success(scenario):
                results.append(FileResult(file: file, outcome: .ran(runner.run(scenario, trials: trials, seed: seed))))
            case let .failure(problems):
                results.append(FileResult(file: file, outcome: .invalid(problems)))
            }
        }
        return results
    }
}

/// One scenario file's result: run, or refused with its problems.
public struct FileResult: Sendable {
    /// What became of the file.
    public enum Outcome: Sendable {
        /// It was valid and ran.
        case ran(ScenarioResult)
        /// It was invalid; nothing ran.
        case invalid(ScenarioProblems)
        /// It is valid but expects nothing (a file for sweeps): nothing ran.
        case skipped(Scenario)
    }

    /// The file, as named on the command line.
    public let file: String
    /// What became of it.
    public let outcome: Outcome
    /// The warnings of a file that ran or was skipped
    /// (``Scenario/warnings``); none for an invalid one.
    public var warnings: [ScenarioProblem] {
        switch outcome {
        case let .ran(result): return result.scenario.warnings
        case let .skipped(scenario): return scenario.warnings
        case .invalid: return []
        }
    }

    /// A file result.
    init(file: String, outcome: Outcome) {
        self.file = file
        self.outcome = outcome
    }
}

extension ScenarioError {
    /// A path that does not exist.
    static func noSuchPath(_ path: String) -> ScenarioError {
        ScenarioError(.missingInput, "\(path): no such file or directory", file: path)
    }

    /// A folder that holds no `.json` file.
    static func noScenarios(_ path: String) -> ScenarioError {
        ScenarioError(.missingInput, "\(path): no scenario files (*.json) in this directory", file: path)
    }
}
