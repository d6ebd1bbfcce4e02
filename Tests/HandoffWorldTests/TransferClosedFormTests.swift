import HandoffWorld
import SimKernel
import Testing

@Suite("Reliable transfer against closed forms")
struct TransferClosedFormTests {
    static func twoDevices(link: LinkParameters, transport: TransportParameters = TransportParameters()) throws -> World {
        let devices = [
            DeviceDescription(name: "mac", kind: .mac, osVersion: OSVersion(14, 4), account: "alice"),
            DeviceDescription(
                name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                mobility: .stationary(Position(x: 2, y: 0))),
        ]
        let configuration = WorldConfiguration(wifiPeerToPeer: link, transport: transport)
        return try World(devices: devices, configuration: configuration, stream: RandomStreamKey(seed: 1))
    }

    @Test("without congestion control, loss-free transfer time is the three-way handshake + serialisation of every segment with headers + propagation, exactly",
          arguments: [0, 1, 1459, 1460, 1461, 3072, 20_000, 60_000])
    func lossFreeTransferTimeIsExact(bytes: Int) throws {
        var link = LinkParameters(latency: .milliseconds(5), bandwidth: try Bandwidth(bitsPerSecond: 7_000_000))
        link.queueLimit = 1000
        let transport = TransportParameters(congestionControl: .none)
        let world = try Self.twoDevices(link: link, transport: transport)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let mac = DeviceID(0)
        let phone = DeviceID(1)
        let connection = simulation.model.world.openConnection(from: mac, to: phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.send(bytes: bytes, tag: 9, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        // ser(b) = ⌈b · 8 · 10⁹ / rate⌉ ns per packet; every packet carries 40 B of header.
        func serialisation(_ bytes: Int) -> Int64 { independentSerialisation(bytes: bytes, bitsPerSecond: 7_000_000) }
        let latency: Int64 = 5_000_000
        let header = 40
        let payloadPerPacket = 1460
        // Handshake (RFC 9293 §3.5): SYN and SYN-ACK, each one header-only
        // packet; the final ACK rides on the first data segment.
        let handshake = 2 * (serialisation(header) + latency)
        // Data: ⌈S / 1460⌉ segments back to back (the window holds them all),
        // then one propagation delay.
        let data = pieceSizes(bytes, piece: payloadPerPacket).reduce(0) { $0 + serialisation($1 + header) }
        let expected = handshake + data + latency

        let delivered = simulation.model.log.first {
            if case .messageDelivered(_, .responder, 9, bytes) = $0.notification { return true }
            return false
        }
        #expect(delivered?.instant.nanosecondsSinceStart == expected)
        #expect(simulation.model.world.statistics(of: connection).fromInitiator.retransmissions == 0)
        // No separate final ACK: the SYN and the data segments are all the
        // initiator sent.
        let forward = simulation.model.world.statistics(
            of: simulation.model.world.link(.wifiPeerToPeer(from: mac, to: phone)))
        #expect(forward.packetsOffered == 1 + pieceSizes(bytes, piece: payloadPerPacket).count)
    }
}
