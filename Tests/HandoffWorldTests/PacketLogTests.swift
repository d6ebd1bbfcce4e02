import HandoffWorld
import SimKernel
import Testing

/// `World.packetLog`: every packet put on a link and what became of it.
@Suite("The packet log")
struct PacketLogTests {
    @Test("off by default; on, one record per packet sent, with its arrival, in time order")
    func records() throws {
        let link = TransportFixture.link(latencyMilliseconds: 5, megabits: 10)
        var world = try TransportFixture.world(forward: link)
        let logged1 = world.packetLog
        #expect(logged1.isEmpty)
        world.recordsPackets = true
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: TransportFixture.mac, to: TransportFixture.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.send(bytes: 3000, tag: 1, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()
        let log = simulation.model.world.packetLog
        // SYN, SYN-ACK, three data segments (the first carries the final
        // ACK), three ACKs.
        #expect(log.map(\.kind) == [.syn, .synAcknowledgement, .data, .data, .data, .acknowledgement, .acknowledgement, .acknowledgement])
        #expect(log.filter { $0.kind == .data }.map(\.sequence) == [0, 1, 2])
        #expect(log.filter { $0.kind == .data }.map(\.payloadBytes) == [1460, 1460, 80])
        #expect(log.allSatisfy { $0.connection == connection })
        #expect(zip(log, log.dropFirst()).allSatisfy { $0.time <= $1.time })
        for record in log {
            guard case let .arrives(instant) = record.fate else {
                Issue.record("nothing is lost on an ideal link")
                continue
            }
            #expect(instant > record.time)
        }
        let offered = [TransportFixture.mac, TransportFixture.phone].map { from in
            simulation.model.world.statistics(
                of: simulation.model.world.link(.wifiPeerToPeer(from: from, to: from == TransportFixture.mac ? TransportFixture.phone : TransportFixture.mac))
            ).packetsOffered
        }.reduce(0, +)
        #expect(log.count == offered)
    }

    @Test("a loss says why: the queue, the loss model, the link down, an AWDL peer away or not yet known")
    func lossReasons() throws {
        // Queue: no waiting room on a slow link, two packets at once.
        var slow = TransportFixture.link(latencyMilliseconds: 1, megabits: 1)
        slow.queueLimit = 0
        var world = try TransportFixture.world(forward: slow)
        world.recordsPackets = true
        let forward = world.link(.wifiPeerToPeer(from: TransportFixture.mac, to: TransportFixture.phone))
        world.sendDatagram(on: forward, bytes: 1000, tag: 1, at: .zero)
        world.sendDatagram(on: forward, bytes: 1000, tag: 2, at: .zero)
        let logged2 = world.packetLog
        #expect(logged2.map(\.fate).last == .lost(.queue))

        // The loss model.
        world = try TransportFixture.world(forward: TransportFixture.link(latencyMilliseconds: 1, loss: .bernoulli(1)))
        world.recordsPackets = true
        world.sendDatagram(on: forward, bytes: 100, tag: 3, at: .zero)
        let logged3 = world.packetLog
        #expect(logged3.map(\.fate) == [.lost(.lossModel)])

        // The link down: an outage.
        var down = TransportFixture.link(latencyMilliseconds: 1)
        down.outages = [try TimeWindow(from: .zero, until: .zero + .seconds(1))]
        world = try TransportFixture.world(forward: down)
        world.recordsPackets = true
        world.sendDatagram(on: forward, bytes: 100, tag: 4, at: .zero)
        let logged4 = world.packetLog
        #expect(logged4.map(\.fate) == [.lost(.linkDown)])
        let logged5 = world.packetLog
        #expect(logged5.first?.kind == .datagram)
        let logged6 = world.packetLog
        #expect(logged6.first?.connection == nil)

        // AWDL: a unicast frame before the peer knows the device (cold), and
        // one sent while the peer is away (excursions 60% of the time).
        var cold = TransportFixture.link(latencyMilliseconds: 1)
        cold.schedule = PeerToPeerSchedule(start: .cold)
        world = try TransportFixture.world(forward: cold)
        world.recordsPackets = true
        world.sendDatagram(on: forward, bytes: 100, tag: 5, at: .zero)
        #expect(world.packetLog.map(\.fate) == [.lost(.unknownPeer)])
        var away = TransportFixture.link(latencyMilliseconds: 1)
        away.schedule = PeerToPeerSchedule(
            start: .warm, excursionInterval: .seconds(1), excursionDuration: .milliseconds(600))
        var lostAway = 0
        for seed in UInt64(1)...20 {
            world = try TransportFixture.world(forward: away, seed: seed)
            world.recordsPackets = true
            world.sendDatagram(on: forward, bytes: 100, tag: 6, at: .zero)
            if world.packetLog.map(\.fate) == [.lost(.peerAway)] { lostAway += 1 }
        }
        #expect(lostAway >= 1 && lostAway < 20)
    }

    @Test("a reset empties the log and keeps it recording")
    func reset() throws {
        var world = try TransportFixture.world(forward: TransportFixture.link(latencyMilliseconds: 1))
        world.recordsPackets = true
        let forward = world.link(.wifiPeerToPeer(from: TransportFixture.mac, to: TransportFixture.phone))
        world.sendDatagram(on: forward, bytes: 100, tag: 1, at: .zero)
        let logged7 = world.packetLog
        #expect(logged7.count == 1)
        world.reset(stream: RandomStreamKey(seed: 2))
        let logged8 = world.packetLog
        #expect(logged8.isEmpty)
        let recording = world.recordsPackets
        #expect(recording)
    }
}
