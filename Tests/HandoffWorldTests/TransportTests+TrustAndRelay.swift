import HandoffWorld
import SimKernel
import Testing

// Reliable transport's connection setup and paths: key exchange, trust by account, and the cloud relay.

extension TransportTests {
    // MARK: Key exchange and trust

    @Test("the first connection of a pair exchanges keys; later ones, either way round, set up exactly the key rounds sooner",
          arguments: [1, 2, 3])
    func keyExchangeOnlyOnFirstContact(keyExchangeRounds: Int) throws {
        let rate: Int64 = 10_000_000
        let latency: Int64 = 5_000_000
        let transport = TransportParameters(keyExchangeRounds: keyExchangeRounds, keyExchangeBytes: 1024)
        let link = TransportFixture.link(latencyMilliseconds: 5, megabits: 10)
        let world = try TransportFixture.world(forward: link, transport: transport)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let trustedBeforeContact = simulation.model.world.isTrusted(Self.mac, Self.phone)
        #expect(!trustedBeforeContact)
        let first = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: seconds(1))
        let second = simulation.model.world.openConnection(
            from: Self.mac, to: Self.phone, over: .wifiPeerToPeer, at: seconds(1))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: seconds(2))
        let third = simulation.model.world.openConnection(
            from: Self.phone, to: Self.mac, over: .wifiPeerToPeer, at: seconds(2))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()

        // Handshake: a header-only request and reply. Key round: 1024 B + 40 B
        // each way.
        let handshake = 2 * (independentSerialisation(bytes: 40, bitsPerSecond: rate) + latency)
        let keyRound = 2 * (independentSerialisation(bytes: 1064, bitsPerSecond: rate) + latency)
        let log = simulation.model.log
        let firstNeededKeys = simulation.model.world.neededKeyExchange(first)
        #expect(firstNeededKeys)
        let secondNeededKeys = simulation.model.world.neededKeyExchange(second)
        #expect(!secondNeededKeys)
        let thirdNeededKeys = simulation.model.world.neededKeyExchange(third)
        #expect(!thirdNeededKeys)
        let macTrustsPhone = simulation.model.world.isTrusted(Self.mac, Self.phone)
        #expect(macTrustsPhone)
        let phoneTrustsMac = simulation.model.world.isTrusted(Self.phone, Self.mac)
        #expect(phoneTrustsMac)
        let firstSetup = instant(of: .connectionEstablished(first), in: log).map { $0 - SimInstant.zero }
        let secondSetup = instant(of: .connectionEstablished(second), in: log).map { $0 - seconds(1) }
        let thirdSetup = instant(of: .connectionEstablished(third), in: log).map { $0 - seconds(2) }
        #expect(firstSetup?.nanoseconds == handshake + Int64(keyExchangeRounds) * keyRound)
        #expect(secondSetup?.nanoseconds == handshake)
        #expect(thirdSetup?.nanoseconds == handshake)
        #expect(simulation.model.world.statistics(of: first).setupRequestsSent == 1 + keyExchangeRounds)
        #expect(simulation.model.world.statistics(of: second).setupRequestsSent == 1)
    }

    /// Opens a Mac → iPhone connection at `second` seconds and runs for
    /// half a second, long enough to set it up.
    static func connect(_ simulation: inout Simulation<WorldSimulation>, at second: Int64) -> ConnectionID {
        simulation.run(until: seconds(second))
        let id = simulation.model.world.openConnection(
            from: mac, to: phone, over: .wifiPeerToPeer, at: seconds(second))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run(until: seconds(second) + .milliseconds(500))
        return id
    }

    @Test("trust belongs to the account: another account on either device, or none, means a new key exchange")
    func trustBelongsToTheAccount() throws {
        let link = TransportFixture.link(latencyMilliseconds: 5)
        let world = try TransportFixture.world(forward: link)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let mac = Self.mac
        let phone = Self.phone

        let first = Self.connect(&simulation, at: 0)
        let firstNeededKeys = simulation.model.world.neededKeyExchange(first)
        #expect(firstNeededKeys)
        let trustedAfterFirstContact = simulation.model.world.isTrusted(mac, phone)
        #expect(trustedAfterFirstContact)

        // The iPhone signs in to "bob": the pair's keys were exchanged under
        // "alice", so they are not trusted, and a connection across accounts
        // exchanges keys without making them trusted.
        simulation.model.world.setAccount("bob", of: phone, at: seconds(1))
        let trustedWithPhoneOnBob = simulation.model.world.isTrusted(mac, phone)
        #expect(!trustedWithPhoneOnBob)
        let acrossAccounts = Self.connect(&simulation, at: 1)
        #expect(simulation.model.world.phase(of: acrossAccounts) == .established)
        let acrossAccountsNeededKeys = simulation.model.world.neededKeyExchange(acrossAccounts)
        #expect(acrossAccountsNeededKeys)
        let trustedAfterConnectionAcrossAccounts = simulation.model.world.isTrusted(mac, phone)
        #expect(!trustedAfterConnectionAcrossAccounts)

        // Back on "alice": the keys exchanged under "alice" still hold.
        simulation.model.world.setAccount("alice", of: phone, at: seconds(2))
        let trustedBackOnAlice = simulation.model.world.isTrusted(mac, phone)
        #expect(trustedBackOnAlice)
        let backOnAlice = Self.connect(&simulation, at: 2)
        let backOnAliceNeededKeys = simulation.model.world.neededKeyExchange(backOnAlice)
        #expect(!backOnAliceNeededKeys)

        // Both on "bob": first contact under "bob", so keys again, then trusted.
        simulation.model.world.setAccount("bob", of: mac, at: seconds(3))
        simulation.model.world.setAccount("bob", of: phone, at: seconds(3))
        let trustedBothOnBobBeforeContact = simulation.model.world.isTrusted(mac, phone)
        #expect(!trustedBothOnBobBeforeContact)
        let bothOnBob = Self.connect(&simulation, at: 3)
        let bothOnBobNeededKeys = simulation.model.world.neededKeyExchange(bothOnBob)
        #expect(bothOnBobNeededKeys)
        let trustedBothOnBobAfterContact = simulation.model.world.isTrusted(mac, phone)
        #expect(trustedBothOnBobAfterContact)
        let againOnBob = Self.connect(&simulation, at: 4)
        let againOnBobNeededKeys = simulation.model.world.neededKeyExchange(againOnBob)
        #expect(!againOnBobNeededKeys)

        // Signed out: no account, no trust, and a connection does not create any.
        simulation.model.world.setAccount(nil, of: phone, at: seconds(5))
        let trustedSignedOut = simulation.model.world.isTrusted(mac, phone)
        #expect(!trustedSignedOut)
        let signedOut = Self.connect(&simulation, at: 5)
        let signedOutNeededKeys = simulation.model.world.neededKeyExchange(signedOut)
        #expect(signedOutNeededKeys)
        let trustedAfterSignedOutConnection = simulation.model.world.isTrusted(mac, phone)
        #expect(!trustedAfterSignedOutConnection)
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

    @Test("loss-free transfer over the cloud relay takes setup plus two pipelined store-and-forward hops, exactly",
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
            forward: TransportFixture.link(latencyMilliseconds: 1), macInternet: macInternet,
            phoneInternet: phoneInternet)
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
        let established = roundTrip(40) + roundTrip(1024 + 40)
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
        #expect(uplink.packetsOffered == 2 + sizes.count)
    }
}
