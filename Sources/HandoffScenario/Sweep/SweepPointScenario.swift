import ScenarioJSON

/// One point of a prepared sweep: its coordinates, its scenario, and how
/// to make it again from the file (so each thread can make its own copy).
package struct SweepPointScenario: Sendable {
    /// The value of each axis.
    let coordinates: [String]
    /// The scenario at this point.
    package let scenario: Scenario
    /// The file's bytes and the values written into it at this point.
    let bytes: [UInt8]
    let edits: [(path: ParameterPath, value: String)]
    let digest: String

    /// A point: its coordinates, its scenario, and the file's `bytes` with
    /// the `edits` and `digest` that make the scenario again.
    package init(
        coordinates: [String], scenario: Scenario, bytes: [UInt8], edits: [(path: ParameterPath, value: String)],
        digest: String
    ) {
        self.coordinates = coordinates
        self.scenario = scenario
        self.bytes = bytes
        self.edits = edits
        self.digest = digest
    }

    /// A copy of ``scenario`` that shares no storage with it, down to its
    /// strings: the file is parsed again and the values written in again.
    func unsharedScenario() -> Scenario {
        (try? SweepPointRecipe.decode(bytes, file: scenario.file, edits: edits, digest: digest).get()) ?? scenario
    }
}

/// How to make one point's scenario again: the file's bytes and the values
/// written into it. What a prepared sweep keeps of the points it runs under
/// a fit's bootstrap replicates, instead of the decoded scenarios, which
/// would grow with the replicates.
struct SweepPointRecipe: Sendable {
    /// The value of each axis.
    let coordinates: [String]
    /// The scenario file's name.
    let file: String
    /// The file's bytes and the values written into it at this point.
    let bytes: [UInt8]
    let edits: [(path: ParameterPath, value: String)]
    let digest: String

    /// The recipe of `point`'s scenario.
    init(_ point: SweepPointScenario) {
        coordinates = point.coordinates
        file = point.scenario.file
        bytes = point.bytes
        edits = point.edits
        digest = point.digest
    }

    /// The point, its scenario made again.
    ///
    /// - Returns: The point, or the problems of a file that no longer
    ///   decodes as it did when the sweep was prepared.
    func point() -> Result<SweepPointScenario, ScenarioProblems> {
        Self.decode(bytes, file: file, edits: edits, digest: digest).map {
            SweepPointScenario(coordinates: coordinates, scenario: $0, bytes: bytes, edits: edits, digest: digest)
        }
    }

    /// The scenario of a file's `bytes` with `edits` written in: the file
    /// parsed, each value set, the result decoded.
    static func decode(
        _ bytes: [UInt8], file: String, edits: [(path: ParameterPath, value: String)], digest: String
    ) -> Result<Scenario, ScenarioProblems> {
        var tree: JSONNode
        switch ScenarioDecoder.parse(bytes, file: file) {
        case let .success(node): tree = node
        case let .failure(problems): return .failure(problems)
        }
        for edit in edits {
            guard let edited = tree.setting(edit.path.components[...], to: JSONNode.parameterValue(edit.value)) else {
                return .failure(ScenarioProblems(problems: [ScenarioProblem(
                    file: file, path: "$." + edit.path.description, position: nil,
                    message: "cannot be set to \(edit.value)")]))
            }
            tree = edited
        }
        return ScenarioDecoder.decode(root: tree, file: file, digest: digest)
    }
}
