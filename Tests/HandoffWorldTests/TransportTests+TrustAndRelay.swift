import HandoffWorld
import SimKernel
import Testing

// Pair trust by account, and the reliable transport over the cloud relay.

extension TransportTests {
    // MARK: Trust

    @Test("trust belongs to the account: another account on either device, or none, means no trust until keys are exchanged again")
    func trustBelongsToTheAccount() throws {
        let link = TransportFixture.link(latencyMilliseconds: 5)
        var world = try TransportFixture.world(forward: link)
        let mac = Self.mac
        let phone = Self.phone
        let trusted1 = world.isTrusted(mac, phone)
        #expect(!trusted1)
        world.recordTrust(mac, phone)
        let trusted2 = world.isTrusted(mac, phone)
        #expect(trusted2)
        let trusted3 = world.isTrusted(phone, mac)
        #expect(trusted3)

        // The iPhone signs in to "bob": the pair's keys were exchanged under
        // "alice", so they are not trusted, and recording across accounts
        // makes nothing trusted.
        world.setAccount("bob", of: phone, at: seconds(1))
        let trusted4 = world.isTrusted(mac, phone)
        #expect(!trusted4)
        world.recordTrust(mac, phone)
        let trusted5 = world.isTrusted(mac, phone)
        #expect(!trusted5)

        // Back on "alice": the keys exchanged under "alice" still hold.
        world.setAccount("alice", of: phone, at: seconds(2))
        let trusted6 = world.isTrusted(mac, phone)
        #expect(trusted6)

        // Both on "bob": first contact under "bob", then trusted, either way round.
        world.setAccount("bob", of: mac, at: seconds(3))
        world.setAccount("bob", of: phone, at: seconds(3))
        let trusted7 = world.isTrusted(mac, phone)
        #expect(!trusted7)
        world.recordTrust(phone, mac)
        let trusted8 = world.isTrusted(mac, phone)
        #expect(trusted8)

        // Signed out: no account, no trust, and recording creates none.
        world.setAccount(nil, of: phone, at: seconds(5))
        let trusted9 = world.isTrusted(mac, phone)
        #expect(!trusted9)
        world.recordTrust(mac, phone)
        let trusted10 = world.isTrusted(mac, phone)
        #expect(!trusted10)
    }

    // MARK: Cloud relay

    struct RelayCase: Sendable, CustomTestStringConvertible {
        let bytes: Int
        /// The Mac's uplink rate (hop 1 of the data path).
        let uplinkBitsPerSecond: Int64
        /// The iPhone's downlink rate (hop 2 of the data path).
        let downlinkBitsPerSecond: Int64
        var testDescription: String {
            "\(bytes) B, uplink \(uplinkBitsPerSecond) bit/s, downlink \(downlinkBitsPerSecond) bit/s"
        }
    }

    @Test("without congestion control, loss-free transfer over the cloud relay takes the handshake plus two pipelined store-and-forward hops, exactly",
          arguments: [
              RelayCase(bytes: 500, uplinkBitsPerSecond: 2_000_000, downlinkBitsPerSecond: 5_000_000),
              RelayCase(bytes: 20_000, uplinkBitsPerSecond: 2_000_000, downlinkBitsPerSecond: 5_000_000),
              RelayCase(bytes: 20_000, uplinkBitsPerSecond: 5_000_000, downlinkBitsPerSecond: 1_000_000),
              RelayCase(bytes: 20_000, uplinkBitsPerSecond: 3_000_000, downlinkBitsPerSecond: 3_000_000),
              RelayCase(bytes: 0, uplinkBitsPerSecond: 3_000_000, downlinkBitsPerSecond: 1_500_000),
          ])
    func cloudRelayTransferTime(_ relay: RelayCase) throws {
        // Data path: the Mac's uplink (hop 1) then the iPhone's downlink (hop 2);
        // acknowledgements and replies: the iPhone's uplink, the Mac's downlink.
        let macUplinkLatency: Int64 = 30_000_000
        let macDownlinkLatency: Int64 = 25_000_000
        let phoneUplinkLatency: Int64 = 15_000_000
        let phoneDownlinkLatency: Int64 = 20_000_000
        let macDownlinkRate: Int64 = 8_000_000
        let phoneUplinkRate: Int64 = 10_000_000
        func parameters(_ latency: Int64, _ rate: Int64) throws -> LinkParameters {
            LinkParameters(latency: .nanoseconds(latency), bandwidth: try Bandwidth(bitsPerSecond: rate), queueLimit: 200)
        }
        let macInternet = NetworkProfile(
            name: "mac line", downlink: try parameters(macDownlinkLatency, macDownlinkRate),
            uplink: try parameters(macUplinkLatency, relay.uplinkBitsPerSecond))
        let phoneInternet = NetworkProfile(
            name: "phone line", downlink: try parameters(phoneDownlinkLatency, relay.downlinkBitsPerSecond),
            uplink: try parameters(phoneUplinkLatency, phoneUplinkRate))
        let world = try TransportFixture.world(
            forward: TransportFixture.link(latencyMilliseconds: 1), transport: TransportParameters(congestionControl: .none),
            macInternet: macInternet, phoneInternet: phoneInternet)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .cloudRelay, at: .zero)
        simulation.model.world.send(bytes: relay.bytes, tag: 5, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        func up(_ bytes: Int) -> Int64 { independentSerialisation(bytes: bytes, bitsPerSecond: relay.uplinkBitsPerSecond) }
        func down(_ bytes: Int) -> Int64 { independentSerialisation(bytes: bytes, bitsPerSecond: relay.downlinkBitsPerSecond) }
        // One packet of `bytes` (header included) there and back over idle
        // links, stored and forwarded whole at the cloud.
        func roundTrip(_ bytes: Int) -> Int64 {
            up(bytes) + macUplinkLatency + down(bytes) + phoneDownlinkLatency
                + independentSerialisation(bytes: bytes, bitsPerSecond: phoneUplinkRate) + phoneUplinkLatency
                + independentSerialisation(bytes: bytes, bitsPerSecond: macDownlinkRate) + macDownlinkLatency
        }
        // SYN and SYN-ACK; the final ACK rides on the first data segment.
        let established = roundTrip(40)
        // Data: all segments leave at `established` back to back on hop 1
        // (segment k done at U_k = Σ_{j≤k} u_j), reach the cloud one latency
        // later, and queue FIFO on hop 2. The last one finishes hop 2 at
        // L1 + max_k (U_k + Σ_{j≥k} d_j) (the segment k after which hop 2
        // never idles), then arrives L2 later.
        let sizes = pieceSizes(relay.bytes, piece: 1460).map { $0 + 40 }
        var best: Int64 = 0
        for k in sizes.indices {
            let hop1 = sizes[...k].reduce(0) { $0 + up($1) }
            let hop2 = sizes[k...].reduce(0) { $0 + down($1) }
            best = max(best, hop1 + hop2)
        }
        let expected = established + macUplinkLatency + best + phoneDownlinkLatency

        #expect(simulation.model.world.segmentSize(of: connection) == 1460)
        #expect(instant(of: .connectionEstablished(connection), in: simulation.model.log)?.nanosecondsSinceStart
            == established)
        let delivered = deliveries(in: simulation.model.log, on: connection, to: .responder)
        #expect(delivered.map(\.bytes) == [relay.bytes])
        #expect(delivered.first?.instant.nanosecondsSinceStart == expected)
        #expect(simulation.model.world.statistics(of: connection).fromInitiator.retransmissions == 0)
        // The peer-to-peer links were never used.
        let wifi = simulation.model.world.statistics(
            of: simulation.model.world.link(.wifiPeerToPeer(from: Self.mac, to: Self.phone)))
        #expect(wifi.packetsOffered == 0)
        let uplink = simulation.model.world.statistics(of: simulation.model.world.link(.uplink(Self.mac)))
        #expect(uplink.packetsOffered == 1 + sizes.count)
    }
}
