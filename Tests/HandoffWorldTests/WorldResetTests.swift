import HandoffWorld
import SimKernel
import Testing

/// A world reset for a new trial behaves exactly as a new world.
@Suite("World reset")
struct WorldResetTests {
    /// Sends five 1,000-byte datagrams on the Wi-Fi link 1 ms apart from
    /// `world` and returns their arrival times.
    private func arrivals(of world: World, link: LinkID) -> [Int64] {
        var simulation = Simulation(model: WorldSimulation(world: world))
        for tag in 0..<5 {
            advance(&simulation, to: milliseconds(Int64(tag)))
            sendDatagram(&simulation, on: link, bytes: 1000, tag: UInt32(tag))
        }
        simulation.run()
        return datagramDeliveries(in: simulation, on: link).map(\.at)
    }

    @Test("parameters set during a trial go back to the defaults at a reset; a reset world draws as a new one")
    func resetRestoresLinkParameters() throws {
        let wifi = LinkParameters(
            latency: .milliseconds(3), jitter: .milliseconds(2), bandwidth: .megabitsPerSecond(50))
        var world = try makeWorld(wifi: wifi, seed: 21)
        let link = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        let firstTrial = arrivals(of: world, link: link)
        // Change the link mid-way through a trial, then start the next one.
        var simulation = Simulation(model: WorldSimulation(world: world))
        sendDatagram(&simulation, on: link, tag: 0)
        try simulation.model.world.setParameters(LinkParameters(latency: .seconds(1)), of: link)
        #expect(simulation.model.world.parameters(of: link).latency == .seconds(1))
        simulation.run()
        world = simulation.model.world
        world.reset(stream: RandomStreamKey(seed: 21))
        #expect(world.parameters(of: link).latency == .milliseconds(3))
        #expect(world.parameters(of: link).jitter == .milliseconds(2))
        let fresh = try makeWorld(wifi: wifi, seed: 21)
        #expect(arrivals(of: world, link: link) == arrivals(of: fresh, link: link))
        #expect(arrivals(of: world, link: link) == firstTrial)
        // And once more, after a trial that left the defaults alone.
        var reused = world
        var second = Simulation(model: WorldSimulation(world: reused))
        sendDatagram(&second, on: link, tag: 0)
        second.run()
        reused = second.model.world
        reused.reset(stream: RandomStreamKey(seed: 21))
        #expect(arrivals(of: reused, link: link) == firstTrial)
    }

    @Test("settings changed during a trial are back at a reset, and so are the links they switched off")
    func resetRestoresSettings() throws {
        var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(3)), seed: 22)
        let link = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        #expect(world.isUp(link, at: .zero))
        world.setSettings(DeviceSettings(wifiEnabled: false), of: DeviceID(1))
        #expect(!world.isUp(link, at: .zero))
        #expect(!world.settings(of: DeviceID(1)).wifiEnabled)
        world.reset(stream: RandomStreamKey(seed: 22))
        #expect(world.settings(of: DeviceID(1)).wifiEnabled)
        #expect(world.isUp(link, at: .zero))
        let fresh = try makeWorld(wifi: LinkParameters(latency: .milliseconds(3)), seed: 22)
        #expect(arrivals(of: world, link: link) == arrivals(of: fresh, link: link))
        // Accounts too: a sign-out during the trial is forgotten.
        let initial = world.account(of: DeviceID(1))
        world.setAccount(nil, of: DeviceID(1), at: seconds(1))
        #expect(world.account(of: DeviceID(1)) == nil)
        world.reset(stream: RandomStreamKey(seed: 22))
        #expect(world.account(of: DeviceID(1)) == initial)
        #expect(world.accountHistory(of: DeviceID(1)).changes.count == 1)
        // A trial that changes nothing keeps the links as they are.
        world.reset(stream: RandomStreamKey(seed: 22))
        #expect(world.isUp(link, at: .zero))
    }
}
