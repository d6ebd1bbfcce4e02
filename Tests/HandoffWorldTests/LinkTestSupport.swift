import HandoffWorld
import SimKernel
import Testing

// Shared fixtures of the LinkModelTests suite: a world of devices in a row,
// a datagram source, and helpers to send datagrams and read their deliveries.

/// Devices named d0, d1, … signed in to one account, placed at `positions`.
private func devices(
    at positions: [Position], internetAccess: InternetAccess = .wifi
) -> [DeviceDescription] {
    positions.enumerated().map { index, position in
        DeviceDescription(
            name: "d\(index)", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
            mobility: .stationary(position), internetAccess: internetAccess)
    }
}

/// A world of `count` devices one metre apart whose Wi-Fi peer links (and
/// Bluetooth links) use the given parameters.
func makeWorld(
    wifi: LinkParameters, bluetooth: LinkParameters = LinkParameters(latency: .milliseconds(15)),
    deviceCount: Int = 2, internetAccess: InternetAccess = .wifi, seed: UInt64 = 1
) throws -> World {
    let positions = (0..<deviceCount).map { Position(x: Double($0), y: 0) }
    let configuration = WorldConfiguration(wifiPeerToPeer: wifi, bluetooth: bluetooth)
    return try World(
        devices: devices(at: positions, internetAccess: internetAccess), configuration: configuration,
        stream: RandomStreamKey(seed: seed))
}

/// A model that sends datagrams onto one link from its own `.send` events,
/// either at a fixed spacing or as a Poisson process, and counts their
/// deliveries.
///
/// Keeping only the next send and the datagrams in flight pending keeps the
/// event queue small, which matters in debug builds, where the kernel checks
/// the whole heap after every mutation.
struct DatagramSource: SimulationModel, ~Copyable {
    enum Event: WorldEventRepresentable {
        case world(WorldEvent)
        case send
    }

    enum Spacing {
        /// A send every so many nanoseconds.
        case fixed(Int64)
        /// Exponential gaps (nanoseconds) drawn from the test's own stream.
        case poisson(ExponentialDistribution, Xoshiro256StarStar)
    }

    var world: World
    let link: LinkID
    let bytes: Int
    let count: Int
    /// Datagrams sent back to back at each send event.
    let batch: Int
    var spacing: Spacing
    private(set) var sent = 0
    private(set) var delivered = 0

    init(world: consuming World, link: LinkID, bytes: Int, count: Int, batch: Int, spacing: Spacing) {
        self.world = world
        self.link = link
        self.bytes = bytes
        self.count = count
        self.batch = batch
        self.spacing = spacing
    }

    mutating func handle(_ event: Event, scheduler: inout Scheduler<Event>) {
        switch event {
        case let .world(worldEvent):
            world.handle(worldEvent, scheduler: &scheduler)
            for notification in world.notifications {
                guard case let .datagramDelivered(id, _, _) = notification, id == link else { continue }
                delivered += 1
            }
            world.removeAllNotifications()
        case .send:
            for _ in 0..<min(batch, count - sent) {
                world.sendDatagram(on: link, bytes: bytes, tag: UInt32(sent), at: scheduler.now)
                sent += 1
            }
            world.schedulePendingEvents(into: &scheduler)
            guard sent < count else { return }
            scheduler.schedule(.send, after: .nanoseconds(nextGap()))
        }
    }

    private mutating func nextGap() -> Int64 {
        switch spacing {
        case let .fixed(gap):
            return gap
        case .poisson(let distribution, var generator):
            let gap = distribution.sample(using: &generator)
            spacing = .poisson(distribution, generator)
            return Int64(gap.rounded())
        }
    }

    /// What a finished run counted: the model stays inside its (noncopyable)
    /// simulation, so the figures the tests read are copied out.
    struct Outcome {
        /// Datagrams sent.
        let sent: Int
        /// Datagrams delivered.
        let delivered: Int
        /// The world's statistics of the link the datagrams were sent on.
        let linkStatistics: LinkStatistics
    }

    /// Runs `count` sends, `batch` at a time, from time zero until every datagram has arrived
    /// or been lost.
    static func run(
        world: consuming World, link: LinkID, bytes: Int, count: Int, batch: Int = 1, spacing: Spacing
    ) -> Outcome {
        let source = DatagramSource(world: world, link: link, bytes: bytes, count: count, batch: batch, spacing: spacing)
        var simulation = Simulation(model: source)
        simulation.scheduler.schedule(.send, at: .zero)
        simulation.run()
        return Outcome(
            sent: simulation.model.sent, delivered: simulation.model.delivered,
            linkStatistics: simulation.model.world.statistics(of: link))
    }
}

/// Runs a world simulation up to `instant` (inclusive).
func advance(_ simulation: inout Simulation<WorldSimulation>, to instant: SimInstant) {
    simulation.run(until: instant)
}

/// Sends one datagram at the simulation's current instant and schedules it.
func sendDatagram(
    _ simulation: inout Simulation<WorldSimulation>, on link: LinkID, bytes: Int = 100, tag: UInt32
) {
    simulation.model.world.sendDatagram(on: link, bytes: bytes, tag: tag, at: simulation.now)
    simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
}

/// The tags of datagrams delivered on `link`, in order of arrival, with
/// their arrival instants.
func datagramDeliveries(in simulation: borrowing Simulation<WorldSimulation>, on link: LinkID) -> [(tag: UInt32, at: Int64)] {
    simulation.model.log.compactMap { record in
        guard case let .datagramDelivered(id, tag, _) = record.notification, id == link else { return nil }
        return (tag, record.instant.nanosecondsSinceStart)
    }
}
