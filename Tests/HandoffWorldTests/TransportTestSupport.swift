import HandoffWorld
import SimKernel
import Testing

// Shared fixtures of the TransportTests suite: the two-device world, and
// readers of message deliveries and notification instants from a log.

/// Two devices on account "alice", a Mac (`DeviceID(0)`) and an iPhone
/// (`DeviceID(1)`), 2 m apart, with the Wi-Fi peer-to-peer link set per
/// direction.
struct TransportFixture {
    static let mac = DeviceID(0)
    static let phone = DeviceID(1)

    /// A world whose Mac → iPhone Wi-Fi link runs with `forward` and whose
    /// iPhone → Mac link runs with `backward` (the same as `forward` when
    /// omitted).
    static func world(
        forward: LinkParameters, backward: LinkParameters? = nil,
        transport: TransportParameters = TransportParameters(), seed: UInt64 = 1,
        macInternet: NetworkProfile = .wifi, phoneInternet: NetworkProfile = .wifi,
        macOS: OSVersion = OSVersion(14, 4), iOS: OSVersion = OSVersion(17, 4)
    ) throws -> World {
        let devices = [
            DeviceDescription(
                name: "mac", kind: .mac, osVersion: macOS, account: "alice", internet: macInternet),
            DeviceDescription(
                name: "iphone", kind: .iPhone, osVersion: iOS, account: "alice",
                mobility: .stationary(Position(x: 2, y: 0)), internet: phoneInternet),
        ]
        // An ideal path to the servers, so each device's profile is its
        // whole internet link and the closed forms stay exact.
        let ideal = NetworkProfile(name: "ideal", downlink: LinkParameters(latency: .zero), uplink: LinkParameters(latency: .zero))
        let configuration = WorldConfiguration(wifiPeerToPeer: forward, internetPath: ideal, transport: transport)
        var world = try World(devices: devices, configuration: configuration, stream: RandomStreamKey(seed: seed))
        if let backward {
            try world.setParameters(backward, of: world.link(.wifiPeerToPeer(from: phone, to: mac)))
        }
        return world
    }

    /// An ideal link of `latency` at `megabits` Mbit/s (no loss, no jitter),
    /// with a queue long enough for every test here.
    static func link(latencyMilliseconds: Int64, megabits: Int64? = nil, loss: LossModel = .none) -> LinkParameters {
        var link = LinkParameters(latency: .milliseconds(latencyMilliseconds), loss: loss)
        if let megabits { link.bandwidth = .megabitsPerSecond(megabits) }
        link.queueLimit = 1000
        return link
    }
}

/// A message delivery read from a notification log.
struct Delivery: Equatable {
    let instant: SimInstant
    let tag: UInt64
    let bytes: Int
}

func deliveries(
    in log: [WorldSimulation.Record], on connection: ConnectionID, to side: ConnectionSide
) -> [Delivery] {
    log.compactMap { record in
        guard case let .messageDelivered(id, to, tag, bytes) = record.notification, id == connection, to == side
        else { return nil }
        return Delivery(instant: record.instant, tag: tag, bytes: bytes)
    }
}

func instant(of wanted: WorldNotification, in log: [WorldSimulation.Record]) -> SimInstant? {
    log.first { $0.notification == wanted }?.instant
}
