@testable import HandoffWorld
import SimKernel
import Testing

/// The world's link table: numbering, and the invariant checks that run
/// after every change in debug builds (`HANDOFFWORLD_INVARIANTS`).
@Suite("Link table")
struct LinkTableTests {
    private static func table(devices: Int) -> LinkTable {
        LinkTable(deviceCount: devices) { _ in LinkParameters(latency: .milliseconds(5)) }
    }

    @Test("every link number names its kind and back, for 1 to 4 devices", arguments: 1...4)
    func numberingRoundTrips(devices: Int) throws {
        let table = Self.table(devices: devices)
        let perPair = LinkTable.linksPerPair
        #expect(perPair == LinkTable.PairLink.allCases.count)
        #expect(table.count == 2 * devices + perPair * devices * devices)
        for index in table.indices {
            #expect(table.index(of: table.kind(of: index)) == index)
        }
        #expect(table.index(of: .uplink(DeviceID(devices - 1))) == 2 * devices - 2)
        #expect(table.index(of: .downlink(DeviceID(devices - 1))) == 2 * devices - 1)
        // Each pair link at 2·devices + perPair·(from·devices + to) + its
        // raw value: the first, the last and each slot of the last pair.
        let first = DeviceID(0), last = DeviceID(devices - 1)
        for link in LinkTable.PairLink.allCases {
            #expect(table.index(of: link.kind(from: first, to: first)) == 2 * devices + link.rawValue)
            #expect(table.index(of: link.kind(from: last, to: last)) == table.count - perPair + link.rawValue)
            if devices > 1 {
                #expect(table.index(of: link.kind(from: first, to: DeviceID(1))) == 2 * devices + perPair + link.rawValue)
                #expect(table.index(of: link.kind(from: DeviceID(1), to: first)) == 2 * devices + perPair * devices + link.rawValue)
            }
        }
        let lastSlot = try #require(LinkTable.PairLink.allCases.last)
        #expect(table.index(of: lastSlot.kind(from: last, to: last)) == table.count - 1)
    }

    @Test("a link of a device the table does not have stops the process")
    func indexOfAnUnknownDeviceIsAProgrammingError() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let table = LinkTable(deviceCount: 2) { _ in LinkParameters(latency: .zero) }
            _ = table.index(of: .wifiPeerToPeer(from: DeviceID(0), to: DeviceID(2)))
        }
        let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(standardError.contains("no link from device #0 to device #2 among 2 devices"))
    }

    #if HANDOFFWORLD_INVARIANTS
    @Test("changing a link's outage windows without its flags stops the process in debug builds")
    func inconsistentRowIsCaught() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var table = LinkTable(deviceCount: 2) { _ in LinkParameters(latency: .zero) }
            table[3].outages = [try TimeWindow(from: .zero, until: SimInstant(nanosecondsSinceStart: 1_000))]
        }
        let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(standardError.contains("link 3's outage flag disagrees with its windows"))
    }

    @Test("a link in use whose outages differ from its parameters' stops the process in debug builds")
    func rowInUseAgreesWithItsParameters() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var table = LinkTable(deviceCount: 2) { _ in LinkParameters(latency: .zero) }
            table[4].start(
                defaults: LinkParameters(latency: .zero), lossGenerator: Xoshiro256StarStar(seed: 1),
                jitterGenerator: Xoshiro256StarStar(seed: 2))
            let window = try TimeWindow(from: .zero, until: SimInstant(nanosecondsSinceStart: 1_000))
            table[4].state.parameters.outages = [window]
        }
        let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(standardError.contains("link 4's outages are not its parameters'"))
    }
    #endif

    @Test("parameters set during a trial keep the table consistent, and a reset brings back the defaults")
    func setParametersAndReset() throws {
        let wifi = LinkParameters(latency: .milliseconds(3))
        var world = try makeWorld(wifi: wifi, deviceCount: 3)
        let link = world.link(.wifiPeerToPeer(from: DeviceID(2), to: DeviceID(0)))
        let window = try TimeWindow(from: .zero, until: SimInstant(nanosecondsSinceStart: 1_000_000))
        var changed = wifi
        changed.outages = [window]
        changed.loss = .distance(try RadioPropagation(
            referencePower: -40, pathLossExponent: 2, shadowingStandardDeviation: 0, receptionThreshold: -90))
        try world.setParameters(changed, of: link)
        let flags = world.links.table[link.index].flags
        #expect(flags.hasOutages && flags.usesDistance && !flags.stateHoldsDefaults)
        let down = world.isUp(link, at: .zero)
        #expect(!down)
        world.reset(stream: RandomStreamKey(seed: 1))
        let after = world.links.table[link.index]
        #expect(!after.inUse && !after.flags.hasOutages && !after.flags.usesDistance && after.outages.isEmpty)
        let latency = world.parameters(of: link).latency
        #expect(latency == .milliseconds(3))
        world.links.table.checkInvariants()
    }
}
