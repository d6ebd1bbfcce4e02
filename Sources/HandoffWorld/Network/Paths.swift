/// A way for two devices' packets to travel.
public enum PathKind: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// Directly between the devices over Wi-Fi peer-to-peer (AWDL); both
    /// need Wi-Fi on.
    case wifiPeerToPeer
    /// Through the Wi-Fi network (access point) both devices are on; both
    /// need Wi-Fi on and the same ``DeviceDescription/wifiNetwork``.
    case localNetwork
    /// Directly between the devices over a Bluetooth LE connection; both
    /// need Bluetooth on.
    case bluetooth
    /// Up the sender's internet link to the cloud relay and down the
    /// receiver's; both need internet access.
    case cloudRelay

    public var description: String { rawValue }
}

/// A place packets start or end: a device, or the cloud relay.
public enum NetworkNode: Hashable, Sendable, CustomStringConvertible {
    case device(DeviceID)
    case cloud

    public var description: String {
        switch self {
        case let .device(id): return id.description
        case .cloud: return "the cloud"
        }
    }
}

/// What a link connects, and in which direction.
public enum LinkKind: Hashable, Sendable, CustomStringConvertible {
    /// From a device to the cloud.
    case uplink(DeviceID)
    /// From the cloud to a device.
    case downlink(DeviceID)
    /// Wi-Fi peer-to-peer from one device to another.
    case wifiPeerToPeer(from: DeviceID, to: DeviceID)
    /// Bluetooth LE from one device to another.
    case bluetooth(from: DeviceID, to: DeviceID)
    /// Through the infrastructure Wi-Fi network (via its access point) from
    /// one device to another; up only while both are on the same network.
    case localNetwork(from: DeviceID, to: DeviceID)

    /// Where packets on the link come from.
    public var source: NetworkNode {
        switch LinkTable.Slot(self) {
        case let .uplink(device): return .device(device)
        case .downlink: return .cloud
        case let .pair(_, from, _): return .device(from)
        }
    }

    /// Where packets on the link go.
    public var destination: NetworkNode {
        switch LinkTable.Slot(self) {
        case .uplink: return .cloud
        case let .downlink(device): return .device(device)
        case let .pair(_, _, to): return .device(to)
        }
    }

    public var description: String {
        switch self {
        case let .uplink(device): return "uplink of \(device)"
        case let .downlink(device): return "downlink of \(device)"
        case let .wifiPeerToPeer(from, to): return "Wi-Fi peer-to-peer \(from) → \(to)"
        case let .bluetooth(from, to): return "Bluetooth \(from) → \(to)"
        case let .localNetwork(from, to): return "local network \(from) → \(to)"
        }
    }
}

extension LinkKind {
    /// The link's short name in link names: `uplink`, `downlink`, or its
    /// pair link's (`wifi`, `bluetooth`, `lan`; see
    /// ``LinkTable/PairLink/shortName``).
    package var shortName: String {
        switch LinkTable.Slot(self) {
        case .uplink: return "uplink"
        case .downlink: return "downlink"
        case let .pair(link, _, _): return link.shortName
        }
    }
}

/// One direction of a link in a world.
public struct LinkID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The index in the world's link table.
    public let index: Int

    init(_ index: Int) { self.index = index }

    public static func < (lhs: LinkID, rhs: LinkID) -> Bool { lhs.index < rhs.index }

    public var description: String { "link #\(index)" }
}
