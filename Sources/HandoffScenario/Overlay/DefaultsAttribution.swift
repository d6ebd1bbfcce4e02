import Foundation
import Handoff
import HandoffWorld
import ScenarioJSON

/// A value a scenario file or an overlay writes over a default, and where
/// it comes from: what `handoff-sim defaults --scenario FILE --overlay FIT`
/// shows beside each row.
package struct DefaultOverride: Sendable, Equatable {
    /// Who wrote the value.
    package enum Origin: Sendable, Equatable {
        /// The scenario file itself.
        case scenario(file: String)
        /// An overlay: its file (the scenario's own `"overlay"` or one given),
        /// its description, and the experiment a fit names (`"fitted by
        /// handoff-sim calibrate FILE"`): its file, and its name when the file
        /// can be read.
        case overlay(file: String, description: String, experiment: (file: String, name: String?)?)

        package static func == (lhs: Origin, rhs: Origin) -> Bool {
            switch (lhs, rhs) {
            case let (.scenario(a), .scenario(b)): a == b
            case let (.overlay(a, b, c), .overlay(d, e, f)):
                a == d && b == e && c?.file == f?.file && c?.name == f?.name
            case (.scenario, _), (.overlay, _): false
            }
        }
    }

    /// Where the value is (a scenario's array index as the file has it).
    package let path: String
    /// The value as written: a string's text, or compact JSON.
    package let value: String
    /// Who wrote it.
    package let origin: Origin
    /// For a value the scenario marks measured (its `"measured"` list),
    /// the source it names; nil otherwise.
    package var measuredSource: String? = nil

    /// A value written at `path` by `origin`.
    package init(path: String, value: String, origin: Origin, measuredSource: String? = nil) {
        self.path = path
        self.value = value
        self.origin = origin
        self.measuredSource = measuredSource
    }

    /// `"measured"` for a fit's value, `"scenario"` or `"overlay"` otherwise.
    package var evidence: String {
        switch origin {
        case .scenario: measuredSource == nil ? "scenario" : "measured"
        case let .overlay(_, _, experiment): experiment == nil ? "overlay" : "measured"
        }
    }

    /// How the table says it: `set by the scenario (FILE)`, `measured
    /// (overlay FIT, fitted to EXPERIMENT: "NAME")` or `set by overlay FIT`.
    package var wording: String {
        switch origin {
        case let .scenario(file):
            guard let measuredSource else { return "set by the scenario (\(file))" }
            return "measured (set by the scenario (\(file)): \(measuredSource))"
        case let .overlay(file, description, experiment):
            guard let experiment else {
                return "set by overlay \(file)" + (description.isEmpty ? "" : " (\"\(description)\")")
            }
            let name = experiment.name.map { ": \"\($0)\"" } ?? ""
            return "measured (overlay \(file), fitted to \(experiment.file)\(name))"
        }
    }
}

/// Which values a scenario and its overlays write over the defaults table.
package enum DefaultsAttribution {
    /// What a fit's overlay says before the experiment's file.
    static let fitPrefix = "fitted by handoff-sim calibrate "

    /// For each row of `table`, the values the scenario at `file` (when
    /// given) and then its own overlay and `overlay` write at the row's
    /// paths, in that order, a value overwritten by a later one left out;
    /// and the overlays' values that no row's path names.
    ///
    /// The scenario is validated with its overlays first, so a table is
    /// never shown for a scenario that does not run.
    ///
    /// `experimentName` gives the name of the experiment file at a path, or
    /// nil when it cannot be read (HandoffCalibration reads experiments:
    /// its `overrides(of:scenario:overlay:)` passes its reader).
    package static func overrides(
        of table: [CalibratedDefault], scenario file: String?, overlay: Overlay?,
        experimentName: (String) -> String?
    ) -> Result<(rows: [[DefaultOverride]], unmatched: [DefaultOverride]), ScenarioError> {
        if let file {
            // Read once: the file may be a pipe.
            guard let bytes = InputFile.contents(atPath: file) else {
                return .failure(ScenarioError(.invalidInput, "\(file): cannot read the file"))
            }
            if case let .failure(problems) = ScenarioSuite.loadResult(bytes: bytes, file: file, overlay: overlay) {
                return .failure(.invalid(problems))
            }
            return overrides(of: table, bytes: bytes, file: file, overlay: overlay, experimentName: experimentName)
        }
        return overrides(of: table, tree: nil, file: nil, overlay: overlay, experimentName: experimentName)
    }

    /// As ``overrides(of:scenario:overlay:experimentName:)``, for the
    /// scenario file `bytes` (named `file`), already validated; without
    /// `experimentName`, a fit's experiment is named by its file only (what
    /// `advise` needs: where values are written, not who fitted them).
    package static func overrides(
        of table: [CalibratedDefault], bytes: [UInt8], file: String, overlay: Overlay?,
        experimentName: (String) -> String? = { _ in nil }
    ) -> Result<(rows: [[DefaultOverride]], unmatched: [DefaultOverride]), ScenarioError> {
        let root: JSONNode
        switch ScenarioDecoder.parse(bytes, file: file) {
        case let .success(parsed): root = parsed
        case let .failure(problems): return .failure(.invalid(problems))
        }
        return overrides(of: table, tree: root, file: file, overlay: overlay, experimentName: experimentName)
    }

    /// The attribution of the parsed scenario `tree` (when given) and its
    /// overlays.
    static func overrides(
        of table: [CalibratedDefault], tree root: JSONNode?, file: String?, overlay: Overlay?,
        experimentName: (String) -> String?
    ) -> Result<(rows: [[DefaultOverride]], unmatched: [DefaultOverride]), ScenarioError> {
        var tree: JSONNode?
        var overlays: [Overlay] = []
        if let root, let file {
            tree = root
            switch Overlay.named(in: root, file: file) {
            case let .success(named): overlays += [named].compactMap { $0 }
            case let .failure(problems): return .failure(.invalid(problems))
            }
        }
        overlays += [overlay].compactMap { $0 }
        let marks = tree.map(measuredMarks) ?? []
        let settings: [(setting: Overlay.Setting, origin: DefaultOverride.Origin)] = overlays.flatMap { overlay in
            let origin = Self.origin(of: overlay, experimentName: experimentName)
            return overlay.settings.map { ($0, origin) }
        }
        var rows: [[DefaultOverride]] = []
        var matched = Array(repeating: false, count: settings.count)
        for row in table {
            var found: [(components: [ParameterPath.Component], value: DefaultOverride)] = []
            for text in row.paths {
                guard let path = ParameterPath(text) else { continue }
                if let tree, let file {
                    for (components, node) in values(in: tree, at: path.components[...], prefix: []) {
                        let source = marks.last { isPrefix($0.components, of: components) }?.source
                        found.append((components, DefaultOverride(
                            path: ParameterPath.written(components), value: rendered(node), origin: .scenario(file: file),
                            measuredSource: source)))
                    }
                }
                for (index, entry) in settings.enumerated()
                where overlaps(entry.setting.parsed.components, path.components) {
                    matched[index] = true
                    found.append((entry.setting.parsed.components, DefaultOverride(
                        path: entry.setting.path, value: entry.setting.value, origin: entry.origin)))
                }
            }
            // A later value at the same place, or above it, overwrites an
            // earlier one; a row with several paths finds an overlay's value
            // once.
            var kept: [DefaultOverride] = []
            for (index, entry) in found.enumerated() {
                let later = found[(index + 1)...]
                let overwritten = later.contains { isPrefix($0.components, of: entry.components) }
                if !overwritten, !kept.contains(entry.value) { kept.append(entry.value) }
            }
            rows.append(kept)
        }
        let unmatched = settings.indices.filter { !matched[$0] }.map { index in
            DefaultOverride(path: settings[index].setting.path, value: settings[index].setting.value,
                            origin: settings[index].origin)
        }
        return .success((rows, unmatched))
    }

    /// The values a scenario marks measured: its `"measured"` list, each
    /// entry's path and source (the decoder has checked their form).
    static func measuredMarks(_ root: JSONNode) -> [(components: [ParameterPath.Component], source: String)] {
        guard case let .array(entries)? = root.member("measured")?.value.value else { return [] }
        return entries.compactMap { entry in
            guard case let .string(text)? = entry.member("path")?.value.value, let path = ParameterPath(text),
                  case let .string(source)? = entry.member("source")?.value.value
            else { return nil }
            return (path.components, source)
        }
    }

    /// Who wrote `overlay`'s values, with the experiment a fit names (its
    /// name by `experimentName`).
    static func origin(of overlay: Overlay, experimentName: (String) -> String?) -> DefaultOverride.Origin {
        guard overlay.description.hasPrefix(fitPrefix) else {
            return .overlay(file: overlay.file, description: overlay.description, experiment: nil)
        }
        let experiment = String(overlay.description.dropFirst(fitPrefix.count))
        // The file as calibrate was given it: from where it ran, or beside
        // the overlay.
        let candidates = [experiment, ScenarioDecoder.folder(of: overlay.file) + experiment]
        let name = candidates.lazy.compactMap(experimentName).first
        return .overlay(file: overlay.file, description: overlay.description, experiment: (experiment, name))
    }

    /// The values in `node` at `path` (an index in `path` stands for every
    /// element), with where each is; a value that is not an object or an
    /// array where the path goes on (a `null` schedule) sets everything
    /// below it, and is found there.
    static func values(
        in node: JSONNode, at path: ArraySlice<ParameterPath.Component>, prefix: [ParameterPath.Component]
    ) -> [([ParameterPath.Component], JSONNode)] {
        guard let step = path.first else { return [(prefix, node)] }
        switch (step, node.value) {
        case let (.key(key), .object):
            guard let member = node.member(key) else { return [] }
            return values(in: member.value, at: path.dropFirst(), prefix: prefix + [.key(key)])
        case (.index, .array(let elements)):
            return elements.indices.flatMap { values(in: elements[$0], at: path.dropFirst(), prefix: prefix + [.index($0)]) }
        case (_, .object), (_, .array):
            return []
        case (.key, .null), (.key, .bool), (.key, .number), (.key, .string),
            (.index, .null), (.index, .bool), (.index, .number), (.index, .string):
            return prefix.isEmpty ? [] : [(prefix, node)]
        }
    }

    /// Whether a value written at `written` touches the row path `row`: one
    /// is above the other (an index in `row` stands for every element).
    static func overlaps(_ written: [ParameterPath.Component], _ row: [ParameterPath.Component]) -> Bool {
        zip(written, row).allSatisfy { pair in
            switch pair {
            case let (.key(a), .key(b)): a == b
            case (.index, .index): true
            case (.key, .index), (.index, .key): false
            }
        }
    }

    /// Whether `prefix` is `path` or above it.
    static func isPrefix(_ prefix: [ParameterPath.Component], of path: [ParameterPath.Component]) -> Bool {
        prefix.count <= path.count && Array(path.prefix(prefix.count)) == prefix
    }

    /// A value as the table shows it: a string's text, anything else as
    /// compact JSON.
    static func rendered(_ node: JSONNode) -> String {
        switch node.value {
        case let .string(text): return text
        case .null, .bool, .number, .array, .object: return compact(node)
        }
    }

    static func compact(_ node: JSONNode) -> String {
        switch node.value {
        case .null: return "null"
        case let .bool(value): return value ? "true" : "false"
        case let .number(number): return number.text
        case let .string(text): return JSONOutput.string(text).render(pretty: false)
        case let .array(elements): return "[" + elements.map(compact).joined(separator: ", ") + "]"
        case let .object(members):
            return "{" + members.map { JSONOutput.string($0.key).render(pretty: false) + ": " + compact($0.value) }
                .joined(separator: ", ") + "}"
        }
    }
}
