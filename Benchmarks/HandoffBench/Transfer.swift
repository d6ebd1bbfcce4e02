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
    var eventsPerSecond: Double { Double(events) / seconds }
}

/// One reliable transfer of `bytes` between two devices over a Wi-Fi
/// peer-to-peer link (the default 100 Mbit/s, 5 ms link) with Bernoulli
/// loss `loss` in both directions: the world's whole transport path
/// (queueing, serialisation, loss, acknowledgements, RACK, timeouts) with
/// no Handoff logic on top.
enum TransferBenchmark {
    static func run(bytes: Int, loss: Double, seed: UInt64) throws -> TransferResult {
        var link = LinkParameters.wifiPeerToPeer
        link.loss = loss > 0 ? .bernoulli(loss) : .none
        var transport = TransportParameters()
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
        return TransferResult(
            bytes: bytes, loss: loss, seconds: seconds, events: simulation.handledEventCount,
            simulatedTime: delivered?.instant ?? simulation.now, retransmissions: statistics.retransmissions)
    }
}
