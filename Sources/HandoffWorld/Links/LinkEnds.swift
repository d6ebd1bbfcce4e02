/// A link's two ends as node indices (devices, then the cloud), its medium,
/// and for an internet link its device: plain values for the packet path.
struct LinkEnds: Hashable, Sendable {
    /// An internet link, or one of the links of a pair of devices.
    enum Medium: Hashable, Sendable {
        case internet
        case pair(LinkTable.PairLink)
    }
    let from: Int32
    let to: Int32
    let device: Int32
    let medium: Medium
}

extension LinkEnds {
    /// The ends of the link of `kind` among `deviceCount` devices (the
    /// cloud is node `deviceCount`).
    init(_ kind: LinkKind, deviceCount count: Int) {
        switch LinkTable.Slot(kind) {
        case let .uplink(device):
            self.init(from: Int32(device.index), to: Int32(count), device: Int32(device.index), medium: .internet)
        case let .downlink(device):
            self.init(from: Int32(count), to: Int32(device.index), device: Int32(device.index), medium: .internet)
        case let .pair(link, from, to):
            self.init(from: Int32(from.index), to: Int32(to.index), device: -1, medium: .pair(link))
        }
    }
}
