import SimKernel

/// The parameters each link runs with unless set otherwise, worked out once
/// for a run: the configuration's peer links, and each device's internet
/// path impaired by the device's own internet profile.
struct LinkDefaults: Sendable {
    /// Each direction of each link of a pair of devices, by
    /// ``LinkTable/PairLink`` raw value.
    let pairLinks: [LinkParameters]
    /// Each device's uplink to Apple's servers, by device number.
    let uplinks: [LinkParameters]
    /// Each device's downlink from Apple's servers, by device number.
    let downlinks: [LinkParameters]

    /// The defaults of a world of `devices` made with `configuration`.
    init(configuration: WorldConfiguration, devices: [DeviceDescription]) {
        pairLinks = LinkTable.PairLink.allCases.map { configuration.parameters(of: $0) }
        uplinks = devices.map { configuration.internetPath.uplink.impaired(by: $0.internet.uplink) }
        downlinks = devices.map { configuration.internetPath.downlink.impaired(by: $0.internet.downlink) }
    }

    /// The parameters the link of `kind` runs with unless set otherwise.
    ///
    /// - Complexity: O(1).
    func parameters(of kind: LinkKind) -> LinkParameters {
        switch LinkTable.Slot(kind) {
        case let .uplink(device): return uplinks[device.index]
        case let .downlink(device): return downlinks[device.index]
        case let .pair(link, _, _): return pairLinks[link.rawValue]
        }
    }
}
