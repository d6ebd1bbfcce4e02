import Handoff
import HandoffWorld
import ScenarioJSON

// What a sweep's network profiles reach: the axis refused over a device
// with its own internet, the warning when the fetch does not use the
// internet, and the path a fetch takes, in words.

extension SweepRunner {
    /// Refuses a profile axis when the activity's source or the measured
    /// device sets its own `internet`: `network.profile` does not reach
    /// that device, so the axis would label one series with profiles its
    /// link never had.
    static func checkProfileAxis(root: JSONNode, devices: [String], file: String) throws(ScenarioError) {
        guard case let .array(list)? = root.member("devices")?.value.value else { return }
        for (index, node) in list.enumerated() {
            guard case let .string(name)? = node.member("name")?.value.value, devices.contains(name),
                  let internet = node.member("internet")?.value
            else { continue }
            let own: String
            if case let .string(profile) = internet.value { own = " (\(profile))" } else { own = "" }
            throw ScenarioError(
                .badValue,
                "the profile axis sets network.profile, but device \"\(name)\" sets its own internet\(own) at $.devices[\(index)].internet, which the axis does not reach: its rows would be labelled with profiles its link never had; vary that device's link instead (sweep --vary devices[\(index)].internet=WiFi,LTE, or set it in the file), or remove its internet",
                file: file, argument: .profiles)
        }
    }

    /// A warning when network profiles are varied but the scenario does not
    /// fetch over the internet: the profiles shape each device's internet
    /// link, which only the cloud relay path uses, so every point would
    /// measure the same fetch.
    package static func profileWarning(for scenario: Scenario, profiles: Bool) -> String? {
        guard profiles, scenario.setup.configuration.fetchPath != .cloudRelay else { return nil }
        return "the network profiles shape each device's internet link, but \(scenario.file) fetches over \(scenario.setup.configuration.fetchPath.rawValue), which does not use it; the profiles change nothing here (set network.fetchPath to cloudRelay to measure them)"
    }
}

extension Scenario {
    /// The path the fetch of `activity` (its index) takes to `device`, in
    /// words, and whether internet profiles shape it.
    package func fetchPath(activity: Int, device: String) -> (words: String, profileApplies: Bool) {
        let configuration = setup.configuration
        switch configuration.fetchPath {
        case .cloudRelay: return ("the cloud relay", true)
        case .bluetooth: return ("Bluetooth LE", false)
        case .localNetwork: return ("the same Wi-Fi network", false)
        case .wifiPeerToPeer:
            let devices = setup.devices
            let source = activities.indices.contains(activity) ? activities[activity].device : ""
            let sourceNetwork = devices.first { $0.name == source }?.wifiNetwork
            let receiverNetwork = devices.first { $0.name == device }?.wifiNetwork
            if let sourceNetwork, sourceNetwork == receiverNetwork {
                return ("the same Wi-Fi network (or AWDL, whichever answers first)", false)
            }
            return ("peer-to-peer Wi-Fi (AWDL)", false)
        }
    }
}
