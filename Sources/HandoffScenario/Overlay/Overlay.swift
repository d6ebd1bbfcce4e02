import Foundation
import ScenarioJSON

/// Values written over a scenario before it is decoded: what
/// `handoff-sim calibrate --output` writes, and what `run`, `sweep` and
/// `advise` take with `--overlay`, so a team's suite and guidance run on
/// its calibrated model.
///
/// ```json
/// {
///   "overlay": "fitted by handoff-sim calibrate calibration/privatedrop-awdl.json",
///   "set": [
///     {"path": "network.wifiPeerToPeer.latency", "value": "2117000ns"},
///     {"path": "network.wifiPeerToPeer.schedule.excursionDuration", "value": "305000000ns"}
///   ]
/// }
/// ```
///
/// Each value goes to its path as `sweep --vary` writes one (missing
/// objects on the way are made), in order; the scenario is then validated
/// as usual, so a value that does not fit is reported against it.
///
/// A fit with a bootstrap (`calibrate --bootstrap N --output FIT`) also
/// stores each replicate's values, as `"replicates": [{"set": [...]}, ...]`:
/// each replicate sets some of the paths `set` sets (no other, each once),
/// and `replicates` makes each of them an overlay of its own, `set` with
/// the replicate's values in place.
public struct Overlay: Sendable, Equatable {
    /// The overlay file.
    let file: String
    /// What it says it is.
    public let description: String
    /// The values, in order: a path and the value as text (a JSON number,
    /// or a string such as `"2ms"`).
    let settings: [Setting]
    /// Each bootstrap replicate's values (paths that `settings` sets), in
    /// the file's order; empty without a bootstrap.
    let replicateSettings: [[Setting]]

    /// One value to write.
    struct Setting: Sendable, Equatable {
        let path: String
        let value: String
        let parsed: ParameterPath
        /// Where the value is in the overlay file (nil for a fit's).
        var position: SourcePosition? = nil
        /// The value's JSON path in the overlay file, when it is not
        /// `$.set[i].value` (a replicate's).
        var source: String? = nil

        static func == (lhs: Setting, rhs: Setting) -> Bool { lhs.path == rhs.path && lhs.value == rhs.value }
    }

    static let keys = ["$schema", "overlay", "set", "replicates"]
    static let settingKeys = ["path", "value"]
    static let replicateKeys = ["set"]
    /// The most bootstrap replicates an overlay may hold (as many as
    /// `calibrate --bootstrap` makes).
    static let maximumReplicates = 1_000

    /// The overlays of the bootstrap replicates, in order: each this
    /// overlay with the replicate's values written in place of its own (the
    /// paths it does not set keep this overlay's values). Empty without a
    /// bootstrap.
    ///
    /// ```swift
    /// let fitted = try Overlay.load("fitted.json")
    /// for replicate in fitted.replicates { _ = try ScenarioSuite.load("scenarios/payload-3kib.json", overlay: replicate) }
    /// ```
    package var replicates: [Overlay] {
        replicateSettings.map { replicate in
            // Looked up by path; the order is the base's.
            var values: [ParameterPath: Setting] = [:]
            for setting in replicate { values[setting.parsed] = setting }
            return Overlay(file: file, description: description, settings: settings.map { values[$0.parsed] ?? $0 })
        }
    }

    /// Reads an overlay file, or every problem in it.
    static func decode(_ bytes: [UInt8], file: String) -> Result<Overlay, ScenarioProblems> {
        let root: JSONNode
        switch ScenarioDecoder.parse(bytes, file: file) {
        case let .success(node): root = node
        case let .failure(problems): return .failure(problems)
        }
        let context = DecodingContext(file: file)
        let path = JSONPath()
        var settings: [Setting] = []
        var description = ""
        var replicates: [[Setting]] = []
        if let object = context.object(root, path, what: "an overlay object", allowed: keys) {
            description = object.optional("overlay") { context.string($0, $1) } ?? ""
            let list = object.required("set", what: "the values to write") {
                context.array($0, $1, expected: "an array of {\"path\", \"value\"} objects")
            } ?? []
            settings = Self.settings(list, at: path.key("set"), context: context).map(\.setting)
            let listed = object.optional("replicates") {
                context.array(
                    $0, $1, expected: "an array of bootstrap replicates ({\"set\": [...]} objects)",
                    maximumCount: maximumReplicates)
            } ?? []
            // Membership only (no order reaches the output): a replicate's
            // paths are checked in time linear in its size.
            let fitted = Set(settings.map(\.parsed))
            for (index, element) in listed.enumerated() {
                let replicatePath = path.key("replicates").index(index)
                guard let replicate = context.object(
                    element, replicatePath, what: "a bootstrap replicate", allowed: replicateKeys),
                    let list = replicate.required("set", what: "the replicate's values", {
                        context.array($0, $1, expected: "an array of {\"path\", \"value\"} objects")
                    })
                else { continue }
                let setPath = replicatePath.key("set")
                var values: [Setting] = []
                var seen = Set<ParameterPath>()
                for (offset, setting) in Self.settings(list, at: setPath, context: context) {
                    let elementPath = setPath.index(offset)
                    if !fitted.contains(setting.parsed) {
                        context.report(elementPath.key("path"), at: setting.position,
                                       "expected a path the overlay's \"set\" sets (a replicate gives other values to the fitted paths), found \"\(setting.path)\"")
                    } else if !seen.insert(setting.parsed).inserted {
                        context.report(elementPath.key("path"), at: setting.position,
                                       "expected each path once in a replicate, found \"\(setting.path)\" again")
                    } else {
                        var sourced = setting
                        sourced.source = elementPath.key("value").description
                        values.append(sourced)
                    }
                }
                replicates.append(values)
            }
        }
        guard context.problems.isEmpty else { return .failure(ScenarioProblems(problems: context.sortedProblems)) }
        return .success(Overlay(file: file, description: description, settings: settings, replicates: replicates))
    }

    /// The values of a `set` array at `path`, each with its element's
    /// index (an invalid element is reported and left out).
    private static func settings(
        _ list: [JSONNode], at path: JSONPath, context: DecodingContext
    ) -> [(index: Int, setting: Setting)] {
        var settings: [(index: Int, setting: Setting)] = []
        for (index, element) in list.enumerated() {
            let elementPath = path.index(index)
            guard let setting = context.object(element, elementPath, what: "a value to write", allowed: settingKeys),
                  let text = setting.required("path", what: "where the value goes", { context.nonEmptyString($0, $1) })
            else { continue }
            guard let parsed = ParameterPath(text) else {
                context.report(elementPath.key("path"), at: setting.position(of: "path"),
                               ParameterPath.expected(text, example: "network.wifiPeerToPeer.latency") ?? "")
                continue
            }
            // The scenario's overlay is read before any overlay is
            // written over it: setting it would do nothing.
            if parsed.components.first == .key("overlay") {
                context.report(elementPath.key("path"), at: setting.position(of: "path"),
                               "expected a scenario value to write, found \"\(text)\": an overlay cannot name another overlay (put its values in this one)")
                continue
            }
            let value = setting.required("value", what: "the value (a number or a string)") { node, valuePath -> String? in
                switch node.value {
                case let .number(number):
                    // A number past a double's range has no value to write.
                    guard number.doubleValue.isFinite else {
                        context.report(valuePath, at: node.position,
                                       "expected a number a double can hold (at most about 1.8e308), found \(number.text)")
                        return nil
                    }
                    return number.text
                case let .string(string): return string
                case .null, .bool, .array, .object:
                    context.mismatch(node, valuePath, expected: "a number or a string such as \"2ms\"")
                    return nil
                }
            }
            if let value {
                settings.append((index, Setting(path: text, value: value, parsed: parsed, position: setting.position(of: "value"))))
            }
        }
        return settings
    }

    /// The overlay a scenario's `"overlay"` key names (relative to the
    /// scenario file), or nil without one; its problems when it cannot be
    /// read or is invalid.
    static func named(in root: JSONNode, file: String) -> Result<Overlay?, ScenarioProblems> {
        guard case let .object(members) = root.value,
              let member = members.first(where: { $0.key == "overlay" }),
              case let .string(name) = member.value.value, !name.isEmpty
        else { return .success(nil) }
        let path = name.hasPrefix("/") ? name : ScenarioDecoder.folder(of: file) + name
        guard FileManager.default.fileExists(atPath: path) else {
            return .failure(ScenarioProblems(problems: [ScenarioProblem(
                file: file, path: "$.overlay", position: member.value.position,
                message: "expected an overlay file that can be read, found \"\(name)\" (\(path))")]))
        }
        return loadResult(path).map { $0 }
    }

    /// `root` with the overlay the scenario names and then `given` written
    /// over it, and the edits that make the same tree again from the file.
    package static func apply(
        to root: JSONNode, file: String, given: Overlay?
    ) -> Result<(tree: JSONNode, edits: [(path: ParameterPath, value: String)], overlays: [Overlay]), ScenarioError> {
        var tree = root
        var edits: [(path: ParameterPath, value: String)] = []
        let named: Overlay?
        switch Overlay.named(in: root, file: file) {
        case let .success(value): named = value
        case let .failure(problems): return .failure(.invalid(problems))
        }
        let overlays = [named, given].compactMap { $0 }
        for overlay in overlays {
            switch overlay.applied(to: tree) {
            case let .success(next): tree = next
            case let .failure(error): return .failure(error)
            }
            edits += overlay.edits
        }
        return .success((tree, edits, overlays))
    }

    /// `problems` of the scenario `root` (the file `file` as written)
    /// decoded with `overlays` written over it, each problem an overlay's
    /// value causes reported against the overlay file: the value's JSON
    /// path there (`$.set[i].value`, or a replicate's
    /// `$.replicates[i].set[j].value`), line and column, naming the scenario
    /// and the path the problem is at.
    ///
    /// A value causes a problem at its own path or below it (a value from
    /// an overlay has no line in the scenario file), and one at a path
    /// above it that the scenario as written does not have: a rule across
    /// fields (a minimum above a maximum, an excursion longer than its
    /// interval allows) is reported at the object holding them, and the
    /// value an overlay wrote there broke it. Of several values written
    /// there, the last one is named.
    static func attributing(
        _ problems: ScenarioProblems, to overlays: [Overlay], scenario root: JSONNode, file: String
    ) -> ScenarioProblems {
        guard !overlays.isEmpty else { return problems }
        // The paths of the problems the scenario has without any overlay,
        // decoded only when a problem above an overlay's value asks.
        var ownProblemPaths: Set<String>?
        func scenarioHasProblem(at path: String) -> Bool {
            let paths = ownProblemPaths ?? {
                switch ScenarioDecoder.decode(root: root, file: file, digest: "") {
                case .success: return []
                case let .failure(own): return Set(own.problems.map(\.path))
                }
            }()
            ownProblemPaths = paths
            return paths.contains(path)
        }
        return ScenarioProblems(problems: problems.problems.map { problem in
            let hasNoLine = problem.position.map { $0.line == 0 } ?? true
            // The last value written at the problem's path (or above it) wins.
            for overlay in overlays.reversed() {
                for (index, setting) in overlay.settings.enumerated().reversed() {
                    let path = "$." + setting.parsed.description
                    let atOrBelow = problem.path == path || problem.path.hasPrefix(path + ".") || problem.path.hasPrefix(path + "[")
                    let above = path.hasPrefix(problem.path + ".") || path.hasPrefix(problem.path + "[")
                    guard (atOrBelow && hasNoLine) || ((atOrBelow || above) && !scenarioHasProblem(at: problem.path))
                    else { continue }
                    return ScenarioProblem(
                        file: overlay.file.isEmpty ? problem.file : overlay.file,
                        path: setting.source ?? "$.set[\(index)].value", position: setting.position,
                        message: "the value of \(setting.path) does not fit \(problem.file) (\(problem.path)): \(problem.message)")
                }
            }
            return problem
        })
    }

    /// The digest reports record of a scenario file's `bytes` run with
    /// overlay `edits`: the file's SHA-256 without any, so that a figure
    /// changed by an overlay's values shows as a changed input.
    static func digest(of bytes: [UInt8], edits: [(path: ParameterPath, value: String)]) -> String {
        guard !edits.isEmpty else { return SHA256.hexDigest(of: bytes) }
        var input = bytes
        input += Array("\u{0}overlay".utf8)
        for edit in edits { input += Array("\u{0}\(edit.path)=\(edit.value)".utf8) }
        return SHA256.hexDigest(of: input)
    }

    /// Reads the overlay file at `file`.
    ///
    /// ```swift
    /// let fitted = try Overlay.load("calibration/fitted.json")
    /// let scenario = try ScenarioSuite.load("scenarios/payload-3kib.json", overlay: fitted)
    /// ```
    ///
    /// - Throws: ``ScenarioError`` in category
    ///   ``ScenarioError/Category/invalidInput``, with every problem found in
    ///   ``ScenarioError/problems`` (a file that cannot be read is one
    ///   problem at `$`).
    public static func load(_ file: String) throws(ScenarioError) -> Overlay {
        try loadResult(file).mapError(ScenarioError.invalid).get()
    }

    /// Reads an overlay from the bytes of a file, naming it `file` in
    /// problems: an overlay a test or a tool makes in memory.
    ///
    /// ```swift
    /// let overlay = try Overlay(bytes: Array(#"{"set": [{"path": "network.wifiPeerToPeer.loss", "value": 0.1}]}"#.utf8),
    ///                           file: "loss.json")
    /// ```
    ///
    /// - Throws: ``ScenarioError`` in category
    ///   ``ScenarioError/Category/invalidInput``, with every problem found in
    ///   ``ScenarioError/problems``.
    public init(bytes: [UInt8], file: String) throws(ScenarioError) {
        self = try Self.decode(bytes, file: file).mapError(ScenarioError.invalid).get()
    }

    /// ``load(_:)``, its problems as a result.
    package static func loadResult(_ file: String) -> Result<Overlay, ScenarioProblems> {
        guard let bytes = InputFile.contents(atPath: file) else {
            return .failure(ScenarioProblems(problems: [
                ScenarioProblem(file: file, path: "$", position: nil, message: "cannot read the file"),
            ]))
        }
        return decode(bytes, file: file)
    }

    /// An overlay made in memory, with no file: `values` written in order,
    /// and each bootstrap replicate's values (paths among `values`'). Every
    /// path must be one `sweep --vary` takes (a fit's are).
    package init(description: String, values: [(path: String, value: String)], replicates: [[(path: String, value: String)]]) {
        func settings(_ values: [(path: String, value: String)]) -> [Setting] {
            values.map { Setting(path: $0.path, value: $0.value, parsed: ParameterPath($0.path)!) }
        }
        self.init(file: "", description: description, settings: settings(values), replicates: replicates.map(settings))
    }

    init(file: String, description: String, settings: [Setting], replicates: [[Setting]] = []) {
        self.file = file
        self.description = description
        self.settings = settings
        self.replicateSettings = replicates
    }

    /// `root` with every value written, or the path that has no place in it.
    func applied(to root: JSONNode) -> Result<JSONNode, ScenarioError> {
        var tree = root
        for setting in settings {
            guard let edited = tree.setting(setting.parsed.components[...], to: JSONNode.parameterValue(setting.value)) else {
                return .failure(ScenarioError(
                    .invalidInput, "\(file): the overlay's \(setting.path) has no place in the scenario"))
            }
            tree = edited
        }
        return .success(tree)
    }

    /// The edits a sweep point replays: every value, in order.
    var edits: [(path: ParameterPath, value: String)] { settings.map { ($0.parsed, $0.value) } }

    /// The overlay file's text: JSON, every value in order.
    public var json: String {
        func list(_ settings: [Setting]) -> JSONOutput {
            .array(settings.map { setting in
                let value: JSONOutput
                if let number = JSONNumber(setting.value), number.int64Value != nil || number.doubleValue.isFinite {
                    value = number.int64Value.map(JSONOutput.int) ?? .double(number.doubleValue)
                } else {
                    value = .string(setting.value)
                }
                return .object([("path", .string(setting.path)), ("value", value)])
            })
        }
        var members: [(String, JSONOutput)] = [("overlay", .string(description)), ("set", list(settings))]
        if !replicateSettings.isEmpty {
            members.append(("replicates", .array(replicateSettings.map { .object([("set", list($0))]) })))
        }
        return JSONOutput.object(members).render(pretty: true)
    }
}
