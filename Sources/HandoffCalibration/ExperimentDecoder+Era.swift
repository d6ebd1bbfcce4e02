import Handoff
import HandoffScenario
import HandoffWorld
import ScenarioJSON

/// An experiment's era: the OS versions its data were measured on
/// (`measuredOn`), and the edits that run its scenarios' devices on them.
extension ExperimentReader {
    /// `measuredOn`: the OS version each platform's devices ran when the
    /// data were measured, `{"macOS": "10.15.7", "iOS": "14.0"}`.
    func readEra(_ node: JSONNode, _ path: JSONPath) -> [MeasuredEra]? {
        let platforms = Platform.allCases.map(\.rawValue)
        guard let object = context.object(node, path, what: "the OS versions the data were measured on", allowed: platforms)
        else { return nil }
        var era: [MeasuredEra] = []
        for platform in Platform.allCases {
            guard let version = object.optional(platform.rawValue, { node, versionPath -> OSVersion? in
                guard let text = context.nonEmptyString(node, versionPath) else { return nil }
                switch Result(catching: { () throws(WorldError) in try OSVersion(parsing: text) }) {
                case let .success(version): return version
                case .failure:
                    context.report(versionPath, at: node.position,
                                   "expected an OS version such as \"14.0\" or \"10.15.7\", found \"\(text)\"")
                    return nil
                }
            }) else { continue }
            era.append(MeasuredEra(platform: platform, version: version))
        }
        if era.isEmpty { context.report(path, at: node.position, "expected at least one platform's OS version") }
        return era
    }

    /// The edits that run `file`'s devices on the era's OS versions
    /// (`devices[i].os`); a device of a platform the era does not state is
    /// a problem at `measuredOn`.
    func eraEditsOf(
        _ file: String, era: [MeasuredEra], at path: JSONPath, position: SourcePosition?
    ) -> [(path: String, values: [String])] {
        // An unreadable or invalid scenario is reported where it is named.
        guard let bytes = read(file), case let .success(root) = ScenarioDecoder.parse(bytes, file: file),
              case let .array(list)? = root.member("devices")?.value.value
        else { return [] }
        var edits: [(path: String, values: [String])] = []
        for (index, device) in list.enumerated() {
            guard case let .string(kindName)? = device.member("kind")?.value.value,
                  let kind = DeviceKind(rawValue: kindName)
            else { continue }
            guard let stated = era.first(where: { $0.platform == kind.platform }) else {
                context.report(path, at: position,
                               "expected the OS version of \(kind.platform) (the scenario \(file) has a device "
                                   + "of kind \(kindName) at devices[\(index)]), found none")
                continue
            }
            edits.append(("devices[\(index)].os", ["\"\(stated.version)\""]))
        }
        return edits
    }
}
