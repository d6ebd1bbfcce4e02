import HandoffScenario
import ScenarioJSON

/// Baselines as JSON: written in a fixed order so the same figures always
/// give the same file (and a readable diff in review).
public enum BaselineFile {
    /// The format version.
    static let formatVersion: Int64 = 1

    /// The file's text.
    public static func render(_ baseline: Baseline) -> String {
        let root: JSONOutput = .object([
            ("kind", .string("handoff-sim baseline")),
            ("format", .int(formatVersion)),
            ("toolVersion", .string(baseline.toolVersion)),
            ("scenarios", .array(baseline.scenarios.map { scenario in
                .object([
                    ("file", .string(scenario.file)),
                    ("name", .string(scenario.name)),
                    ("digest", .string(scenario.digest)),
                    ("seed", .int(Int64(scenario.seed))),
                    ("trials", .int(Int64(scenario.trials))),
                    ("entries", .array(scenario.entries.map { entry in
                        .object([
                            ("key", .string(entry.key)),
                            ("metrics", .object(entry.metrics.map(member))),
                        ])
                    })),
                ])
            })),
        ])
        return root.render(pretty: true)
    }

    /// One figure as a member of an entry's `metrics`: counts and
    /// latencies are whole numbers, written exactly.
    static func member(_ figure: (metric: BaselineMetric, value: Double)) -> (String, JSONOutput) {
        let value = figure.value
        let whole = value == value.rounded() && abs(value) < 9e15
        return (figure.metric.name, whole ? .int(Int64(value)) : .double(value))
    }

    /// Why the baseline `file` cannot be used: an invalid input,
    /// "FILE: not a usable baseline: REASON".
    static func unusable(_ file: String, _ reason: String) -> ScenarioError {
        ScenarioError(.invalidInput, message: "\(file.escapingControlCharacters): not a usable baseline: \(reason)", file: file)
    }

    /// Reads a baseline written by ``render(_:)``.
    ///
    /// - Throws: `ScenarioError` (`ScenarioError.Category.invalidInput`)
    ///   saying why the text is not a usable baseline.
    public static func read(_ text: String, file: String) throws(ScenarioError) -> Baseline {
        let root: JSONNode
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw unusable(file, "\(error)")
        }
        guard root.string("kind") == "handoff-sim baseline" else {
            throw unusable(file, "it is not a handoff-sim baseline")
        }
        guard root.integer("format") == formatVersion else {
            throw unusable(file, "it is format \(root.integer("format").map(String.init) ?? "?"); this tool reads format \(formatVersion)")
        }
        guard let toolVersion = root.string("toolVersion"), case let .array(nodes)? = root.member("scenarios")?.value.value else {
            throw unusable(file, "the tool version or the scenarios are missing")
        }
        var scenarios: [Baseline.Scenario] = []
        for node in nodes {
            guard let path = node.string("file"), let name = node.string("name"), let digest = node.string("digest"),
                let seed = node.integer("seed"), seed >= 0, let trials = node.integer("trials"),
                (1...Int64(ScenarioDecoder.maximumTrials)).contains(trials),
                case let .array(entryNodes)? = node.member("entries")?.value.value
            else { throw unusable(file, "a scenario lacks a field") }
            // Names from the file, as messages quote them: escaped, so that
            // none can start a line of its own (a workflow command) or
            // carry a control character.
            let shownPath = path.escapingControlCharacters
            var entries: [Baseline.Entry] = []
            for entryNode in entryNodes {
                guard let key = entryNode.string("key"), case let .object(members)? = entryNode.member("metrics")?.value.value else {
                    throw unusable(file, "an entry of \(shownPath) lacks its key or metrics")
                }
                let shownEntry = shownPath + ", " + key.escapingControlCharacters
                var metrics: [(metric: BaselineMetric, value: Double)] = []
                for member in members {
                    let shownMetric = member.key.escapingControlCharacters
                    guard let metric = BaselineMetric(name: member.key) else {
                        throw unusable(
                            file, "\(shownEntry): unknown metric \(shownMetric); expected one of trials, successRate, "
                                + "failed4608…failed4611, notOffered, otherOutcomes, METRIC.p50|p90|p95|p99|max")
                    }
                    guard case let .number(number) = member.value.value else {
                        throw unusable(file, "\(shownEntry): \(shownMetric) is not a number")
                    }
                    let value = number.int64Value.map(Double.init) ?? number.doubleValue
                    guard value.isFinite, metric.range.contains(value) else {
                        throw unusable(
                            file, "\(shownEntry): \(shownMetric) is \(number.text), outside \(Self.describe(metric))")
                    }
                    guard !metrics.contains(where: { $0.metric == metric }) else {
                        throw unusable(file, "\(shownEntry): \(shownMetric) is given twice")
                    }
                    metrics.append((metric, value))
                }
                entries.append(Baseline.Entry(key: key, metrics: metrics))
            }
            scenarios.append(Baseline.Scenario(
                file: path, name: name, digest: digest, seed: UInt64(seed), trials: Int(trials), entries: entries))
        }
        return Baseline(toolVersion: toolVersion, scenarios: scenarios)
    }

    /// A metric's range as the reader of a baseline file writes it.
    private static func describe(_ metric: BaselineMetric) -> String {
        switch metric {
        case .trials: "0...\(ScenarioDecoder.maximumTrials)"
        case .latency: "0...\(InputBounds.maximumDuration.nanoseconds) ns"
        case .successRate, .failed, .notOffered, .otherOutcomes: "0...1"
        }
    }
}
