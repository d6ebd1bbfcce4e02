import HandoffWorld
import SimKernel

/// The result of one `transfer` run.
struct TransferResult {
    let bytes: Int
    let loss: Double
    let seconds: Double
    let events: UInt64
    let simulatedTime: SimInstant
    let retransmissions: Int
    let timeouts: Int
    let probes: Int
    let fastRecoveries: Int
    let lostRetransmissionsDetected: Int
    /// Packets put on the link and delivered, both directions, data and
    /// acknowledgements and handshake alike.
    let packetsSent: Int
    let packetsDelivered: Int
    /// When the handshake completed at the initiator.
    let connected: SimInstant
    var eventsPerSecond: Double { Double(events) / seconds }
}

/// One reliable transfer of `bytes` between two devices over a plain link
/// of 100 Mbit/s, 5 ms each way, MTU 1500 with 40 B headers and a queue of
/// 50 packets, with Bernoulli loss `loss` in both directions: the world's
/// whole transport path (queueing, serialisation, loss, TCP's handshake,
/// congestion control, acknowledgements, RACK-TLP, timeouts) with no
/// Handoff logic on top. The link is spelled out rather than taken from
/// the peer-to-peer default, and the congestion control is NewReno unless
/// the caller picks another, so that the figures stay comparable with the
/// ns-3 reference program whatever the defaults become.
enum TransferBenchmark {
    static func run(bytes: Int, loss: Double, seed: UInt64, transport base: TransportParameters = TransportParameters(congestionControl: .newReno)) throws -> TransferResult {
        var link = LinkParameters(
            latency: .milliseconds(5), bandwidth: .megabitsPerSecond(100), queueLimit: 50, mtu: 1500, headerBytes: 40)
        link.loss = loss > 0 ? .bernoulli(loss) : .none
        var transport = base
        // Heavy loss must slow the transfer down, not end it.
        transport.retryLimit = 40
        let devices = [
            DeviceDescription(name: "mac", kind: .mac, osVersion: OSVersion(14, 4), account: "bench"),
            DeviceDescription(
                name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "bench",
                mobility: .stationary(Position(x: 2, y: 0))),
        ]
        let world = try World(
            devices: devices, configuration: WorldConfiguration(wifiPeerToPeer: link, transport: transport),
            stream: RandomStreamKey(seed: seed).child("transfer"))
        var simulation = Simulation(model: WorldSimulation(world: world), expectedPendingEvents: 256)
        let connection = simulation.model.world.openConnection(
            from: DeviceID(0), to: DeviceID(1), over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.send(bytes: bytes, tag: 1, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)

        let clock = ContinuousClock()
        let start = clock.now
        simulation.run()
        let elapsed = start.duration(to: clock.now).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18

        let statistics = simulation.model.world.statistics(of: connection).fromInitiator
        guard statistics.bytesDelivered == bytes else {
            throw UsageError(
                description: "the transfer did not complete (\(simulation.model.world.phase(of: connection))); "
                    + "try a lower --loss")
        }
        // The log holds only the connection's few notifications.
        let delivered = simulation.model.log.first {
            if case .messageDelivered = $0.notification { return true }
            return false
        }
        let established = simulation.model.log.first {
            if case .connectionEstablished = $0.notification { return true }
            return false
        }
        var sent = 0
        var arrived = 0
        for kind in [LinkKind.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)), .wifiPeerToPeer(from: DeviceID(1), to: DeviceID(0))] {
            let link = simulation.model.world.statistics(of: simulation.model.world.link(kind))
            sent += link.packetsOffered
            arrived += link.packetsDelivered
        }
        return TransferResult(
            bytes: bytes, loss: loss, seconds: seconds, events: simulation.handledEventCount,
            simulatedTime: delivered?.instant ?? simulation.now, retransmissions: statistics.retransmissions,
            timeouts: statistics.timeouts, probes: statistics.probes, fastRecoveries: statistics.fastRecoveries,
            lostRetransmissionsDetected: statistics.lostRetransmissionsDetected, packetsSent: sent,
            packetsDelivered: arrived, connected: established?.instant ?? .zero)
    }
}
