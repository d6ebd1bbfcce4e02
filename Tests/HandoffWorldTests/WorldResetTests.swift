import HandoffWorld
import SimKernel
import Testing

/// A world reset for a new trial behaves exactly as a new world.
@Suite("World reset")
struct WorldResetTests {
    /// Sends five 1,000-byte datagrams on the Wi-Fi link 1 ms apart from
    /// `world` and returns their arrival times.
    private func arrivals(of world: consuming World, link: LinkID) -> [Int64] {
        var simulation = Simulation(model: WorldSimulation(world: world))
        for tag in 0..<5 {
            advance(&simulation, to: milliseconds(Int64(tag)))
            sendDatagram(&simulation, on: link, bytes: 1000, tag: UInt32(tag))
        }
        simulation.run()
        return datagramDeliveries(in: simulation, on: link).map(\.at)
    }

    /// The world `simulation` ran, moved out of it with `placeholder` left in
    /// its place (a world is noncopyable, and a simulation from another module
    /// cannot be taken apart by consuming one of its stored properties).
    private func takeWorld(from simulation: inout Simulation<WorldSimulation>, leaving placeholder: consuming World) -> World {
        var world = placeholder
        swap(&world, &simulation.model.world)
        return world
    }

    @Test("parameters set during a trial go back to the defaults at a reset; a reset world draws as a new one")
    func resetRestoresLinkParameters() throws {
        let wifi = LinkParameters(
            latency: .milliseconds(3), jitter: .milliseconds(2), bandwidth: .megabitsPerSecond(50))
        let link = try makeWorld(wifi: wifi, seed: 21).link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        // A world is noncopyable: each use of "the world as it stood" is a
        // fresh world built the same way (same devices, configuration, seed
        // and calls), which is identical.
        let firstTrial = arrivals(of: try makeWorld(wifi: wifi, seed: 21), link: link)
        // Change the link mid-way through a trial, then start the next one.
        func changedThenReset() throws -> World {
            var simulation = Simulation(model: WorldSimulation(world: try makeWorld(wifi: wifi, seed: 21)))
            sendDatagram(&simulation, on: link, tag: 0)
            try simulation.model.world.setParameters(LinkParameters(latency: .seconds(1)), of: link)
            #expect(simulation.model.world.parameters(of: link).latency == .seconds(1))
            simulation.run()
            simulation.model.world.reset(stream: RandomStreamKey(seed: 21))
            return takeWorld(from: &simulation, leaving: try makeWorld(wifi: wifi, seed: 21))
        }
        let world = try changedThenReset()
        #expect(world.parameters(of: link).latency == .milliseconds(3))
        #expect(world.parameters(of: link).jitter == .milliseconds(2))
        let fresh = try makeWorld(wifi: wifi, seed: 21)
        let resetArrivals = arrivals(of: world, link: link)
        let freshArrivals = arrivals(of: fresh, link: link)
        #expect(resetArrivals == freshArrivals)
        let resetArrivalsAgain = arrivals(of: try changedThenReset(), link: link)
        #expect(resetArrivalsAgain == firstTrial)
        // And once more, after a trial that left the defaults alone.
        var second = Simulation(model: WorldSimulation(world: try changedThenReset()))
        sendDatagram(&second, on: link, tag: 0)
        second.run()
        second.model.world.reset(stream: RandomStreamKey(seed: 21))
        let reused = takeWorld(from: &second, leaving: try makeWorld(wifi: wifi, seed: 21))
        let reusedArrivals = arrivals(of: reused, link: link)
        #expect(reusedArrivals == firstTrial)
    }

    @Test("settings changed during a trial are back at a reset, and so are the links they switched off")
    func resetRestoresSettings() throws {
        /// Wi-Fi switched off on device 1 during a trial, then a reset.
        func switchedOffThenReset() throws -> World {
            var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(3)), seed: 22)
            world.setSettings(DeviceSettings(wifiEnabled: false), of: DeviceID(1))
            world.reset(stream: RandomStreamKey(seed: 22))
            return world
        }
        var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(3)), seed: 22)
        let link = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        let upAtFirst = world.isUp(link, at: .zero)
        #expect(upAtFirst)
        world.setSettings(DeviceSettings(wifiEnabled: false), of: DeviceID(1))
        let upWithWifiOff = world.isUp(link, at: .zero)
        #expect(!upWithWifiOff)
        #expect(!world.settings(of: DeviceID(1)).wifiEnabled)
        world.reset(stream: RandomStreamKey(seed: 22))
        #expect(world.settings(of: DeviceID(1)).wifiEnabled)
        let upAfterReset = world.isUp(link, at: .zero)
        #expect(upAfterReset)
        let fresh = try makeWorld(wifi: LinkParameters(latency: .milliseconds(3)), seed: 22)
        let resetArrivals = arrivals(of: try switchedOffThenReset(), link: link)
        let freshArrivals = arrivals(of: fresh, link: link)
        #expect(resetArrivals == freshArrivals)
        // Accounts too: a sign-out during the trial is forgotten.
        let initial = world.account(of: DeviceID(1))
        world.setAccount(nil, of: DeviceID(1), at: seconds(1))
        #expect(world.account(of: DeviceID(1)) == nil)
        world.reset(stream: RandomStreamKey(seed: 22))
        #expect(world.account(of: DeviceID(1)) == initial)
        #expect(world.accountHistory(of: DeviceID(1)).changes.count == 1)
        // A trial that changes nothing keeps the links as they are.
        world.reset(stream: RandomStreamKey(seed: 22))
        let upAfterQuietTrial = world.isUp(link, at: .zero)
        #expect(upAfterQuietTrial)
    }
}

/// A lossy transfer on a world reset after other lossy transfers goes
/// exactly as on a new world: the sender's retransmission, RACK, tail-loss
/// probe, SACK and timer state and its congestion control start over.
@Suite("World reset after lossy transfers")
struct LossyTransferResetTests {
    /// What a transfer shows: every notification, every packet, and each
    /// connection's counters.
    struct Observed: Equatable {
        var notifications: [WorldSimulation.Record]
        var packets: [PacketRecord]
        var statistics: [ConnectionStatistics]
    }

    /// Transport settings that between them take every path of the sender.
    static let transports: [TransportParameters] = [
        TransportParameters(),
        TransportParameters(congestionControl: .newReno),
        TransportParameters(congestionControl: .cubic, cubic: .rfc9438),
        TransportParameters(lossDetection: .duplicateThreshold),
        TransportParameters(congestionControl: .none),
        TransportParameters(window: 16_384, delayedAcknowledgement: .milliseconds(40)),
    ]

    static func world(_ transport: TransportParameters, seed: UInt64) throws -> World {
        // Jitter reorders segments (D-SACKs, a wider reorder window); the
        // loss gives retransmissions, probes and timeouts.
        let wifi = LinkParameters(
            latency: .milliseconds(5), jitter: .milliseconds(3), bandwidth: .megabitsPerSecond(20),
            loss: .bernoulli(0.04))
        let positions = [Position(x: 0, y: 0), Position(x: 1, y: 0)]
        let devices = positions.enumerated().map { index, position in
            DeviceDescription(
                name: "d\(index)", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                mobility: .stationary(position), internetAccess: .wifi)
        }
        return try World(
            devices: devices, configuration: WorldConfiguration(wifiPeerToPeer: wifi, transport: transport),
            stream: RandomStreamKey(seed: seed))
    }

    /// Two connections, peer-to-peer and over the relay, each carrying
    /// data both ways and a request with its response.
    static func transfer(_ simulation: inout Simulation<WorldSimulation>) -> Observed {
        let before = simulation.model.log.count
        let a = DeviceID(0)
        let b = DeviceID(1)
        var connections: [ConnectionID] = []
        for path in [PathKind.wifiPeerToPeer, .cloudRelay] {
            let connection = simulation.model.world.openConnection(from: a, to: b, over: path, at: simulation.now)
            simulation.model.world.send(bytes: 120_000, tag: 1, on: connection, from: .initiator, at: simulation.now)
            simulation.model.world.send(bytes: 30_000, tag: 2, on: connection, from: .responder, at: simulation.now)
            simulation.model.world.request(
                bytes: 500, responseBytes: 20_000, tag: 3, on: connection, from: .initiator, at: simulation.now)
            connections.append(connection)
        }
        simulation.model.collectNotifications(at: simulation.now)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: .zero + .seconds(600))
        return Observed(
            notifications: Array(simulation.model.log[before...]), packets: simulation.model.world.packetLog,
            statistics: connections.map { simulation.model.world.statistics(of: $0) })
    }

    @Test("a transfer after a world reset equals one on a new world", arguments: 0..<4)
    func lossyTransferAfterReset(transport: Int) throws {
        let parameters = Self.transports[transport]
        for seed: UInt64 in [3, 4, 5] {
            var fresh = Simulation(model: WorldSimulation(world: try Self.world(parameters, seed: seed)))
            fresh.model.world.recordsPackets = true
            let expected = Self.transfer(&fresh)
            let retransmissions = expected.statistics.map { $0.fromInitiator.retransmissions }.reduce(0, +)
            #expect(retransmissions > 0, "transport \(transport), seed \(seed): the transfer loses segments")
            // One world: other trials first, then this one.
            var reused = Simulation(model: WorldSimulation(world: try Self.world(parameters, seed: seed + 100)))
            reused.model.world.recordsPackets = true
            for other in [seed + 100, seed + 200] {
                reused.reset { $0.world.reset(stream: RandomStreamKey(seed: other)) }
                _ = Self.transfer(&reused)
            }
            reused.reset { $0.world.reset(stream: RandomStreamKey(seed: seed)) }
            let observed = Self.transfer(&reused)
            #expect(observed == expected, "transport \(transport), seed \(seed)")
        }
    }
}
