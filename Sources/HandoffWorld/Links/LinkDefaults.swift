import SimKernel

/// The parameters each link runs with unless set otherwise, worked out once
/// for a run: the configuration's peer links, and each device's internet
/// path impaired by the device's own internet profile.
struct LinkDefaults: Sendable {
    /// Each direction of a Wi-Fi peer-to-peer link.
    let wifiPeerToPeer: LinkParameters
    /// Each direction of a Bluetooth LE link.
    let bluetooth: LinkParameters
    /// Each direction of the local-network path.
    let localNetwork: LinkParameters
    /// Each device's uplink to Apple's servers, by device number.
    let uplinks: [LinkParameters]
    /// Each device's downlink from Apple's servers, by device number.
    let downlinks: [LinkParameters]

    /// The defaults of a world of `devices` made with `configuration`.
    init(configuration: WorldConfiguration, devices: [DeviceDescription]) {
        wifiPeerToPeer = configuration.wifiPeerToPeer
        bluetooth = configuration.bluetooth
        localNetwork = configuration.localNetwork
        uplinks = devices.map { configuration.internetPath.uplink.impaired(by: $0.internet.uplink) }
        downlinks = devices.map { configuration.internetPath.downlink.impaired(by: $0.internet.downlink) }
    }

    /// The parameters the link of `kind` runs with unless set otherwise.
    ///
    /// - Complexity: O(1).
    func parameters(of kind: LinkKind) -> LinkParameters {
        switch kind {
        case let .uplink(device): return uplinks[device.index]
        case let .downlink(device): return downlinks[device.index]
        case .wifiPeerToPeer: return wifiPeerToPeer
        case .bluetooth: return bluetooth
        case .localNetwork: return localNetwork
        }
    }
}
