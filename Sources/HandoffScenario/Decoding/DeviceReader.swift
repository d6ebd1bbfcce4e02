import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads devices and their positions from a scenario file, reporting every problem to
/// its context.
struct DeviceReader {
    let context: DecodingContext

    func readDevice(
        _ node: JSONNode, _ path: JSONPath, bundleIDs: [String], internet: NetworkProfile,
        configuration: inout HandoffConfiguration
    ) -> DeviceDescription? {
        guard let object = context.object(node, path, what: "a device object", allowed: ScenarioKeys.device) else {
            return nil
        }
        let name = object.required("name", what: "the device's name", { context.nonEmptyString($0, $1) })
        let kind = object.required("kind", what: "the device kind", { node, kindPath -> DeviceKind? in
            context.choice(node, kindPath, what: "device kind", among: DeviceKind.allCases.map(\.rawValue))
                .flatMap(DeviceKind.init(rawValue:))
        })
        let os = object.optional("os") { node, osPath -> OSVersion? in
            guard let text = context.string(node, osPath, expected: "an OS version such as \"17.4\"") else { return nil }
            do {
                return try OSVersion(parsing: text)
            } catch {
                context.report(osPath, at: node.position, "expected an OS version such as \"17.4\", found \"\(text)\"")
                return nil
            }
        }
        var account: AccountID? = AccountID(ScenarioDecoder.defaultAccount)
        if let member = object.member("account") {
            if case .null = member.value.value {
                account = nil
            } else if let text = context.nonEmptyString(member.value, path.key("account"),
                                                        expected: "an iCloud account name, or null for signed out") {
                account = AccountID(text)
            }
        }
        let installed = object.optional("apps") { node, listPath -> [String]? in
            guard let list = context.array(node, listPath, expected: "an array of bundle IDs") else { return nil }
            var result: [String] = []
            for (index, element) in list.enumerated() {
                guard let bundleID = context.string(element, listPath.index(index)) else { continue }
                if bundleIDs.contains(bundleID) {
                    result.append(bundleID)
                } else {
                    context.report(listPath.index(index), at: element.position,
                                   "unknown app \"\(bundleID)\"; apps are declared under \"apps\""
                                       + context.didYouMean(bundleID, among: bundleIDs))
                }
            }
            return result
        } ?? []
        let position = object.optional("position") { readPosition($0, $1) } ?? .origin
        var settings = DeviceSettings()
        if let value = object.optional("handoff", { context.bool($0, $1) }) { settings.handoffEnabled = value }
        if let value = object.optional("bluetooth", { context.bool($0, $1) }) { settings.bluetoothEnabled = value }
        // "wifi" is the switch; a network's name goes in "wifiNetwork".
        let wifiHint = { (network: String) in
            "\"wifi\" is the Wi-Fi switch; the network a device is joined to is \"wifiNetwork\" (did you mean \"wifiNetwork\": \(network)?)"
        }
        if let value = object.optional("wifi", { context.bool($0, $1, stringHint: wifiHint) }) { settings.wifiEnabled = value }
        if let value = object.optional("screen", { node, screenPath in
            context.choice(node, screenPath, what: "screen state", among: ScreenState.allCases.map(\.rawValue))
                .flatMap(ScreenState.init(rawValue:))
        }) {
            settings.screen = value
        }
        if let value = object.optional("lowPowerMode", { context.bool($0, $1) }) { settings.lowPowerMode = value }
        if let value = object.optional("idle", { context.bool($0, $1) }) { settings.idle = value }
        let profile = object.optional("internet") { NetworkReader(context: context).readProfile($0, $1) } ?? internet
        let access = object.optional("internetAccess") { node, accessPath -> InternetAccess? in
            context.choice(node, accessPath, what: "internet access", among: InternetAccess.allCases.map(\.rawValue))
                .flatMap(InternetAccess.init(rawValue:))
        } ?? .wifi
        let wifiNetwork = object.optional("wifiNetwork") { node, networkPath -> String? in
            guard let network = context.string(node, networkPath) else { return nil }
            guard !network.isEmpty, network.utf8.count <= 256 else {
                context.mismatch(node, networkPath, expected: "a Wi-Fi network name of 1 to 256 bytes")
                return nil
            }
            return network
        }
        let acceptance = object.optional("acceptance") { ProtocolReader(context: context).readAcceptance($0, $1) }
        let inUse = object.optional("inUse", { context.bool($0, $1) }) ?? false
        guard let name, let kind else { return nil }
        if let acceptance { configuration.acceptance[name] = acceptance }
        if inUse { configuration.devicesInUse.insert(name) }
        return DeviceDescription(
            name: name, kind: kind, osVersion: os ?? Self.defaultOS(kind), account: account, settings: settings,
            installedApps: installed, mobility: .stationary(position), internet: profile, internetAccess: access,
            wifiNetwork: wifiNetwork)
    }

    /// The OS a device of `kind` runs when its `os` is not given.
    static func defaultOS(_ kind: DeviceKind) -> OSVersion { kind.defaultOSVersion }

    /// `[x, y]` in metres.
    func readPosition(_ node: JSONNode, _ path: JSONPath) -> Position? {
        let expected = "a position [x, y] in metres"
        guard case let .array(elements) = node.value, elements.count == 2,
            case let .number(x) = elements[0].value, case let .number(y) = elements[1].value,
            x.doubleValue.isFinite, y.doubleValue.isFinite
        else {
            context.mismatch(node, path, expected: expected)
            return nil
        }
        let bound = InputBounds.maximumCoordinate
        guard abs(x.doubleValue) <= bound, abs(y.doubleValue) <= bound else {
            context.mismatch(node, path, expected: "a position [x, y] in metres, each within ±1000000 (1,000 km)")
            return nil
        }
        return Position(x: x.doubleValue, y: y.doubleValue)
    }
}
