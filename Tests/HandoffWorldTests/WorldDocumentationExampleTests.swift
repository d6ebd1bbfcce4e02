import HandoffWorld
import SimKernel
import Testing

/// The world example in docs/library.md, as written there.
@Suite("The library guide's world example")
struct WorldDocumentationExampleTests {
    @Test("the library guide's example delivers 3 KiB over the cloud relay and reports it in order")
    func readmeExampleRuns() throws {
        let devices = [
            DeviceDescription(name: "mac", kind: .mac, osVersion: OSVersion(14, 4), account: "alice"),
            DeviceDescription(
                name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                mobility: .stationary(Position(x: 3, y: 0)), internet: .lte, internetAccess: .cellular),
        ]
        let world = try World(devices: devices, stream: RandomStreamKey(seed: 42).child("trial", 0))
        var simulation = Simulation(model: WorldSimulation(world: world))
        let mac = DeviceID(0)
        let phone = DeviceID(1)
        let connection = simulation.model.world.openConnection(from: mac, to: phone, over: .cloudRelay, at: .zero)
        simulation.model.world.send(bytes: 3 * 1024, tag: 1, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()
        let notifications = simulation.model.log.map(\.notification)
        #expect(notifications == [
            .connectionEstablished(connection),
            .messageDelivered(connection, to: .responder, tag: 1, bytes: 3072),
            .messageAcknowledged(connection, by: .responder, tag: 1),
        ])
    }
}
