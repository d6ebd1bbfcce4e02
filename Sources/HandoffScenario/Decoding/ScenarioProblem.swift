import ScenarioJSON

/// One problem found in a scenario file: where it is and what was
/// expected.
///
/// Its ``description`` has the compiler-style form editors and CI systems
/// understand:
///
///     scenarios/tabs.json:12:15: error: $.devices[1].kind: unknown device kind "iphone"; expected one of iPhone, iPad, mac, watch, visionPro (did you mean "iPhone"?)
public struct ScenarioProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// How bad a problem is.
    public enum Severity: String, Hashable, Sendable {
        /// The file is invalid: nothing of it runs.
        case error
        /// The file runs, but likely not as meant (see
        /// ``Scenario/warnings``).
        case warning
    }

    /// The file, as it was named on the command line.
    public let file: String
    /// The JSON path of the value at fault, such as `$.devices[1].kind`
    /// (`$` for the whole document).
    public let path: String
    /// Where the value starts in the file, when known.
    package let position: SourcePosition?
    /// The line (from 1) where the value starts, when known.
    public var line: Int? { position?.line }
    /// The column (from 1, in Unicode scalars) where the value starts, when known.
    public var column: Int? { position?.column }
    /// What is wrong and what was expected.
    public let message: String
    /// An error (the file is invalid) or a warning.
    public let severity: Severity

    /// A problem at `path` in `file`. Control characters in any of the
    /// three texts are escaped (see `String.escapingControlCharacters`),
    /// so a problem is always one line.
    package init(file: String, path: String, position: SourcePosition?, message: String, severity: Severity = .error) {
        self.file = file.escapingControlCharacters
        self.path = path.escapingControlCharacters
        self.position = position
        self.message = message.escapingControlCharacters
        self.severity = severity
    }

    /// The problem as compilers print one:
    /// `FILE:LINE:COLUMN: error: PATH: MESSAGE` (`warning:` for a warning).
    public var description: String {
        let location = position.map { "\(file):\($0.line):\($0.column)" } ?? file
        return "\(location): \(severity.rawValue): \(path): \(message)"
    }
}

/// The problems of one scenario file, in the order they were found.
public struct ScenarioProblems: Error, Hashable, Sendable, CustomStringConvertible {
    /// Every problem, in document order as far as it is known.
    public let problems: [ScenarioProblem]

    /// The problems given, in order.
    package init(problems: [ScenarioProblem]) {
        self.problems = problems
    }

    /// The problems, one per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// The closest of `candidates` to `word`, if it is close enough to be a
/// likely typo (edit distance at most a third of the word's length, at
/// least 1, case ignored for the distance); ties go to the earlier
/// candidate. Used for "did you mean" in scenario files and on the
/// command line.
///
/// Words longer than 64 characters get no suggestion, candidates are the
/// first 1,000, and candidates whose length differs by more than the allowed
/// distance are skipped, so a suggestion costs at most a few million steps
/// whatever the input.
package func suggestion(for word: String, among candidates: [String]) -> String? {
    let target = Array(word.lowercased().unicodeScalars)
    guard target.count <= 64 else { return nil }
    let allowed = max(1, target.count / 3)
    var best: (String, Int)?
    for candidate in candidates.prefix(1_000) {
        let scalars = Array(candidate.lowercased().unicodeScalars)
        guard abs(scalars.count - target.count) <= allowed else { continue }
        let distance = editDistance(target, scalars)
        if best == nil || distance < best!.1 { best = (candidate, distance) }
    }
    guard let (candidate, distance) = best else { return nil }
    return distance <= allowed && candidate != word ? candidate : nil
}

/// Levenshtein distance with adjacent transpositions counted as one edit.
func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previousPrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                value = min(value, previousPrevious[j - 2] + 1)
            }
            current[j] = value
        }
        (previousPrevious, previous, current) = (previous, current, previousPrevious)
    }
    return previous[b.count]
}

/// " (did you mean "x"?)" or nothing.
func didYouMean(_ word: String, among candidates: [String]) -> String {
    suggestion(for: word, among: candidates).map { " (did you mean \"\($0)\"?)" } ?? ""
}
