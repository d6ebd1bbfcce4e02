import ScenarioJSON

extension ScenarioReader {
    /// The longest source a `measured` mark may name.
    static let maximumSourceLength = 500

    /// The `measured` list: values the file sets that rest on a team's own
    /// measurement, each `{"path": "apps[0].coldLaunch", "source":
    /// "MetricKit, 1,234 launches"}`. `--sensitivity` does not vary them,
    /// and reports show them as measured, with their source. Each path must
    /// be one the file sets a value at (or below), and each source names
    /// the dataset or document (a source is required: a value without one
    /// is an assumption).
    func readMeasuredMarks(_ node: JSONNode, _ path: JSONPath, root: JSONNode) -> [(path: String, source: String)]? {
        guard let entries = context.array(node, path, expected: "an array of {\"path\", \"source\"} objects", maximumCount: 256) else {
            return nil
        }
        var marks: [(path: String, source: String)] = []
        for (index, entry) in entries.enumerated() {
            let entryPath = path.index(index)
            guard let object = context.object(entry, entryPath, what: "a measured mark", allowed: ScenarioKeys.measuredMark) else {
                continue
            }
            let text = object.required("path", what: "the JSON path of a value this file sets, such as \"apps[0].coldLaunch\"") {
                context.nonEmptyString($0, $1)
            }
            let source = object.required("source", what: "the dataset or document the value was measured in") {
                context.nonEmptyString($0, $1, expected: "the dataset or document the value was measured in")
            }
            guard let text, let source, let pathNode = object.member("path")?.value else { continue }
            if source.count > Self.maximumSourceLength {
                context.report(entryPath.key("source"), at: object.position(of: "source"),
                               "expected a source of at most \(Self.maximumSourceLength) characters, found \(source.count)")
                continue
            }
            guard let parsed = ParameterPath(text) else {
                context.report(entryPath.key("path"), at: object.position(of: "path"),
                               "expected a JSON path such as \"apps[0].coldLaunch\", found \(context.found(pathNode))")
                continue
            }
            guard !DefaultsAttribution.values(in: root, at: parsed.components[...], prefix: []).isEmpty else {
                context.report(entryPath.key("path"), at: object.position(of: "path"),
                               "\(context.found(pathNode)) marks a value this file does not set; set the value, or leave the mark out")
                continue
            }
            marks.append((text, source))
        }
        return marks
    }
}
