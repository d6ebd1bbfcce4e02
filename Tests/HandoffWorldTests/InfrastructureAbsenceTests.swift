import HandoffWorld
import SimKernel
import Testing

/// The Wi-Fi network while AWDL is up: one radio serves both, so frames
/// between a pair over their network wait while the pair is on AWDL
/// channels (the measured effect: moonlight-qt PR 1974, the router's round
/// trip with AirDrop discoverable 10.6 ms mean, 89.1 ms max, σ 20.1 ms,
/// against 2.06 / 8.48 / 0.65 ms with it off).
@Suite("The local network while AWDL is up")
struct InfrastructureAbsenceTests {
    static let slot: Int64 = 65_536_000
    static let sequence = slot * 16

    /// The delay beyond the link's 1 ms of a 100 B datagram sent from d0
    /// to d1 over their Wi-Fi network every millisecond for 2.2 s, with
    /// AWDL started as `start` and `absences` slots away per sequence.
    static func delays(absences: Int, start: PeerToPeerSchedule.Start, seed: UInt64) throws -> [(sent: Int64, delay: Int64)] {
        var wifi = LinkParameters.wifiPeerToPeer
        wifi.schedule?.start = start
        wifi.schedule?.infrastructureAbsences = absences
        let devices = (0..<2).map { index in
            DeviceDescription(
                name: "d\(index)", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                mobility: .stationary(Position(x: Double(index), y: 0)), wifiNetwork: "home")
        }
        var lan = LinkParameters(latency: .milliseconds(1))
        lan.queueLimit = 1000  // an absence queues about 65 of them
        let configuration = WorldConfiguration(wifiPeerToPeer: wifi, localNetwork: lan)
        let world = try World(devices: devices, configuration: configuration, stream: RandomStreamKey(seed: seed))
        var simulation = Simulation(model: WorldSimulation(world: world))
        let link = simulation.model.world.link(.localNetwork(from: DeviceID(0), to: DeviceID(1)))
        var sent: [Int64] = []
        for millisecond in 0..<2200 {
            advance(&simulation, to: SimInstant(nanosecondsSinceStart: Int64(millisecond) * 1_000_000))
            sent.append(simulation.now.nanosecondsSinceStart)
            sendDatagram(&simulation, on: link, tag: UInt32(millisecond))
        }
        simulation.run()
        let deliveries = datagramDeliveries(in: simulation, on: link)
        #expect(deliveries.count == sent.count)
        return deliveries.map { (sent[Int($0.tag)], $0.at - sent[Int($0.tag)] - 1_000_000) }
    }

    @Test("with AWDL up, frames over the network wait out two one-slot absences a sequence, 8 slots apart; the receiver's are held until it is back", arguments: UInt64(1)...3)
    func twoAbsences(seed: UInt64) throws {
        let delays = try Self.delays(absences: 2, start: .warm, seed: seed)
        let delayed = delays.filter { $0.delay > 0 }
        // Two slots in 16: an eighth of the sends, to within the edges of
        // the windows the 2.2 s cut through (each send is 1 ms apart).
        let expected = Double(delays.count) / 8
        #expect(abs(Double(delayed.count) - expected) <= 2 * 65 + 6, "\(delayed.count) delayed of \(delays.count)")
        #expect(delayed.count > 200)
        // No wait longer than a slot (plus the link's own millisecond, for a
        // frame that reaches the receiver just inside its absence).
        #expect(delayed.allSatisfy { $0.delay <= Self.slot + 1_000_000 })
        // A frame sent in an absence leaves at its end: the arrivals of the
        // delayed frames fall on at most two instants per absence (its end,
        // and its end plus the link's millisecond), and the absences are 8
        // slots apart.
        let arrivals = Set(delayed.map { ($0.sent + $0.delay + 1_000_000) % (Self.sequence / 2) })
        #expect(arrivals.count <= 2, "\(arrivals.sorted())")
    }

    @Test("no wait without AWDL: a cold AWDL never switched on, or no absences")
    func noWait() throws {
        #expect(try Self.delays(absences: 2, start: .cold, seed: 1).allSatisfy { $0.delay == 0 })
        #expect(try Self.delays(absences: 0, start: .warm, seed: 1).allSatisfy { $0.delay == 0 })
    }

    @Test("the absent slots spread evenly from slot 0; a count past the sequence is refused")
    func slots() throws {
        var schedule = PeerToPeerSchedule()
        #expect(schedule.infrastructureAbsentSlots.slots == [0, 8])
        schedule.infrastructureAbsences = 4
        #expect(schedule.infrastructureAbsentSlots.slots == [0, 4, 8, 12])
        schedule.infrastructureAbsences = 3
        #expect(schedule.infrastructureAbsentSlots.slots == [0, 5, 10])
        schedule.infrastructureAbsences = 16
        #expect(throws: WorldError.self) { try schedule.validate() }
    }
}
