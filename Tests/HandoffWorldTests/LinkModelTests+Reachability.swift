import HandoffWorld
import SimKernel
import Testing

// When a link is down: outage windows, partitions, and radios or internet access switched off.

extension LinkModelTests {
    // MARK: Outages and partitions

    @Test("Outage window: datagrams sent inside it, or arriving inside it, are lost; the others arrive")
    func outageWindowLosesDatagrams() throws {
        let window = try TimeWindow(from: milliseconds(10), until: milliseconds(20))
        let link = LinkParameters(latency: .milliseconds(5), outages: [window])
        var simulation = Simulation(model: WorldSimulation(world: try makeWorld(wifi: link, seed: 18)))
        let id = simulation.model.world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        // Send instants (ns) and whether each datagram should arrive.
        let plan: [(send: Int64, arrives: Bool)] = [
            (2_000_000, true),  // arrives at 7 ms, before the window
            (8_000_000, false),  // sent before, arrives at 13 ms, inside
            (10_000_000, false),  // sent at the window's first instant
            (15_000_000, false),  // sent inside
            (19_999_999, false),  // sent at the window's last nanosecond
            (20_000_000, true),  // sent at the first instant after it
            (30_000_000, true),
        ]
        for (tag, step) in plan.enumerated() {
            advance(&simulation, to: SimInstant(nanosecondsSinceStart: step.send))
            sendDatagram(&simulation, on: id, tag: UInt32(tag))
        }
        simulation.run()

        let expectedTags = plan.enumerated().filter(\.element.arrives).map { UInt32($0.offset) }
        #expect(datagramDeliveries(in: simulation, on: id).map(\.tag) == expectedTags)
        let statistics = simulation.model.world.statistics(of: id)
        #expect(statistics.packetsDelivered == 3)
        #expect(statistics.packetsLostToOutage == 4)
        let upBeforeWindow = simulation.model.world.isUp(id, at: SimInstant(nanosecondsSinceStart: 9_999_999))
        #expect(upBeforeWindow)
        let upAtWindowStart = simulation.model.world.isUp(id, at: milliseconds(10))
        #expect(!upAtWindowStart)
        let upAtWindowEnd = simulation.model.world.isUp(id, at: SimInstant(nanosecondsSinceStart: 19_999_999))
        #expect(!upAtWindowEnd)
        let upAfterWindow = simulation.model.world.isUp(id, at: milliseconds(20))
        #expect(upAfterWindow)
    }

    @Test("Every datagram handed to a link counts as offered, including those the link is down for")
    func datagramsToADownLinkCountAsOffered() throws {
        let window = try TimeWindow(from: milliseconds(10), until: milliseconds(20))
        var simulation = Simulation(model: WorldSimulation(
            world: try makeWorld(wifi: LinkParameters(latency: .milliseconds(5), outages: [window]), seed: 19)))
        let id = simulation.model.world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        for (tag, time) in [Int64(0), 15, 30].enumerated() {
            advance(&simulation, to: milliseconds(time))
            sendDatagram(&simulation, on: id, tag: UInt32(tag))
        }
        simulation.run()
        let statistics = simulation.model.world.statistics(of: id)
        #expect(statistics.packetsDelivered == 2)
        #expect(statistics.packetsLostToOutage == 1)
        // Every packet handed over ends in exactly one of: delivered, lost on the
        // wire, dropped by the queue, lost to an outage.
        #expect(statistics.packetsOffered == 3)
    }

    @Test("A link's configured outage windows show in isUp and isPathAvailable before it has carried anything")
    func configuredOutagesShowBeforeFirstUse() throws {
        let window = try TimeWindow(from: milliseconds(10), until: milliseconds(20))
        let world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(5), outages: [window]), seed: 20)
        let id = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        let upBeforeWindow = world.isUp(id, at: milliseconds(5))
        #expect(upBeforeWindow)
        let upInsideWindow = world.isUp(id, at: milliseconds(15))
        #expect(!upInsideWindow)
        let pathInsideWindow = world.isPathAvailable(.wifiPeerToPeer, between: DeviceID(0), and: DeviceID(1), at: milliseconds(15))
        #expect(!pathInsideWindow)
    }

    @Test("A partition cuts both directions between its groups during its window only, and no other link")
    func partitionCutsBothWaysDuringWindow() throws {
        var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(5)), deviceCount: 3, seed: 21)
        let (a, b, c) = (DeviceID(0), DeviceID(1), DeviceID(2))
        world.partition([.device(a)], from: [.device(b)], during: try TimeWindow(from: milliseconds(10), until: milliseconds(20)))
        let cut: [LinkKind] = [
            .wifiPeerToPeer(from: a, to: b), .wifiPeerToPeer(from: b, to: a), .bluetooth(from: a, to: b), .bluetooth(from: b, to: a),
        ]
        let untouched: [LinkKind] = [
            .wifiPeerToPeer(from: a, to: c), .wifiPeerToPeer(from: c, to: a), .wifiPeerToPeer(from: b, to: c),
            .wifiPeerToPeer(from: c, to: b), .bluetooth(from: c, to: b), .uplink(a), .downlink(a), .uplink(b), .downlink(b),
        ]
        for (time, inside) in [(Int64(5), false), (10, true), (15, true), (20, false), (25, false)] {
            for kind in cut {
                #expect(world.isUp(world.link(kind), at: milliseconds(time)) == !inside, "\(kind) at \(time) ms")
            }
            for kind in untouched {
                let up = world.isUp(world.link(kind), at: milliseconds(time))
                #expect(up, "\(kind) at \(time) ms")
            }
            #expect(world.isPathAvailable(.wifiPeerToPeer, between: a, and: b, at: milliseconds(time)) == !inside)
            let relayAvailable = world.isPathAvailable(.cloudRelay, between: a, and: b, at: milliseconds(time))
            #expect(relayAvailable)
        }

        // Datagrams: a → b is lost inside the window, a → c is not.
        let ab = world.link(.wifiPeerToPeer(from: a, to: b))
        let ac = world.link(.wifiPeerToPeer(from: a, to: c))
        var simulation = Simulation(model: WorldSimulation(world: world))
        advance(&simulation, to: milliseconds(12))
        sendDatagram(&simulation, on: ab, tag: 1)
        sendDatagram(&simulation, on: ac, tag: 2)
        advance(&simulation, to: milliseconds(25))
        sendDatagram(&simulation, on: ab, tag: 3)
        simulation.run()
        #expect(datagramDeliveries(in: simulation, on: ab).map(\.tag) == [3])
        #expect(datagramDeliveries(in: simulation, on: ac).map(\.tag) == [2])
        #expect(simulation.model.world.statistics(of: ab).packetsLostToOutage == 1)
    }

    @Test("Partitioning a device from the cloud cuts its uplink and downlink, and the cloud relay path through it")
    func partitionFromCloudCutsInternetLinks() throws {
        var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(5)), deviceCount: 3, seed: 22)
        let (a, b, c) = (DeviceID(0), DeviceID(1), DeviceID(2))
        world.partition([.device(a)], from: [.cloud], during: try TimeWindow(from: milliseconds(10), until: milliseconds(20)))
        for (time, inside) in [(Int64(5), false), (10, true), (19, true), (20, false)] {
            let instant = milliseconds(time)
            #expect(world.isUp(world.link(.uplink(a)), at: instant) == !inside)
            #expect(world.isUp(world.link(.downlink(a)), at: instant) == !inside)
            let uplinkOfB = world.isUp(world.link(.uplink(b)), at: instant)
            #expect(uplinkOfB)
            let downlinkOfC = world.isUp(world.link(.downlink(c)), at: instant)
            #expect(downlinkOfC)
            #expect(world.isPathAvailable(.cloudRelay, between: a, and: b, at: instant) == !inside)
            #expect(world.isPathAvailable(.cloudRelay, between: c, and: a, at: instant) == !inside)
            let relayBetweenBAndC = world.isPathAvailable(.cloudRelay, between: b, and: c, at: instant)
            #expect(relayBetweenBAndC)
            let peerBetweenAAndB = world.isPathAvailable(.wifiPeerToPeer, between: a, and: b, at: instant)
            #expect(peerBetweenAAndB)
        }
        let uplink = world.link(.uplink(a))
        var simulation = Simulation(model: WorldSimulation(world: world))
        advance(&simulation, to: milliseconds(15))
        sendDatagram(&simulation, on: uplink, tag: 1)
        advance(&simulation, to: milliseconds(30))
        sendDatagram(&simulation, on: uplink, tag: 2)
        simulation.run()
        #expect(datagramDeliveries(in: simulation, on: uplink).map(\.tag) == [2])
    }

    // MARK: Radios switched off

    enum Radio: String, CaseIterable, Sendable { case wifi, bluetooth }

    @Test("A radio switched off at either end takes its peer links down both ways, losing packets in flight, until it is back on",
          arguments: Radio.allCases, [0, 1])
    func radioOffTakesPeerLinkDown(radio: Radio, deviceIndex: Int) throws {
        var simulation = Simulation(model: WorldSimulation(world: try makeWorld(
            wifi: LinkParameters(latency: .milliseconds(5)), bluetooth: LinkParameters(latency: .milliseconds(5)), seed: 23)))
        let (a, b) = (DeviceID(0), DeviceID(1))
        let device = DeviceID(deviceIndex)
        func links(_ radio: Radio) -> [LinkID] {
            switch radio {
            case .wifi: return [simulation.model.world.link(.wifiPeerToPeer(from: a, to: b)), simulation.model.world.link(.wifiPeerToPeer(from: b, to: a))]
            case .bluetooth: return [simulation.model.world.link(.bluetooth(from: a, to: b)), simulation.model.world.link(.bluetooth(from: b, to: a))]
            }
        }
        func setRadio(_ on: Bool) {
            var settings = simulation.model.world.settings(of: device)
            switch radio {
            case .wifi: settings.wifiEnabled = on
            case .bluetooth: settings.bluetoothEnabled = on
            }
            simulation.model.world.setSettings(settings, of: device)
        }
        let affected = links(radio)
        let other = links(radio == .wifi ? .bluetooth : .wifi)
        let forward = affected[0]

        sendDatagram(&simulation, on: forward, tag: 0)  // delivered at 5 ms
        advance(&simulation, to: milliseconds(10))
        setRadio(false)
        let now = simulation.now
        #expect(affected.allSatisfy { !simulation.model.world.isUp($0, at: now) })
        #expect(other.allSatisfy { simulation.model.world.isUp($0, at: now) }, "the other radio's links stay up")
        sendDatagram(&simulation, on: forward, tag: 1)  // not sent
        advance(&simulation, to: milliseconds(20))
        setRadio(true)
        let later = simulation.now
        #expect(affected.allSatisfy { simulation.model.world.isUp($0, at: later) })
        sendDatagram(&simulation, on: forward, tag: 2)  // delivered at 25 ms
        advance(&simulation, to: milliseconds(30))
        sendDatagram(&simulation, on: forward, tag: 3)  // on its way when the radio goes off
        advance(&simulation, to: milliseconds(32))
        setRadio(false)
        advance(&simulation, to: milliseconds(40))
        setRadio(true)
        simulation.run()

        #expect(datagramDeliveries(in: simulation, on: forward).map(\.tag) == [0, 2])
        #expect(simulation.model.world.statistics(of: forward).packetsLostToOutage == 2)
    }

    @Test("Internet access over Wi-Fi loses the internet link with Wi-Fi off; cellular and wired keep it; none never has it",
          arguments: InternetAccess.allCases, [true, false])
    func internetAccessDecidesInternetLink(access: InternetAccess, wifiOn: Bool) throws {
        var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(5)), internetAccess: access, seed: 24)
        let device = DeviceID(0)
        world.setSettings(DeviceSettings(wifiEnabled: wifiOn), of: device)
        let expected: Bool
        switch access {
        case .wifi: expected = wifiOn
        case .cellular, .wired: expected = true
        case .none: expected = false
        }
        let instant = milliseconds(1)
        #expect(world.isUp(world.link(.uplink(device)), at: instant) == expected)
        #expect(world.isUp(world.link(.downlink(device)), at: instant) == expected)
        #expect(world.isPathAvailable(.cloudRelay, between: device, and: DeviceID(1), at: instant) == expected)

        let uplink = world.link(.uplink(device))
        var simulation = Simulation(model: WorldSimulation(world: world))
        sendDatagram(&simulation, on: uplink, tag: 7)
        simulation.run()
        #expect(datagramDeliveries(in: simulation, on: uplink).map(\.tag) == (expected ? [7] : []))
    }
}
