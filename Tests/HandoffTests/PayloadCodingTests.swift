import Handoff
import HandoffWorld
import SimKernel
import Testing

/// What a payload's size costs off the network (``PayloadCoding``): the
/// rates are assumptions (see the defaults table); the rules tested here
/// are that the source's encoding delays the send and the receiver's
/// decoding delays `continue`, each by size over its rate.
@Suite("Payload coding")
struct PayloadCodingTests {
    func first(_ event: TraceEvent.Name, on device: String, in run: HandoffRun) throws -> TraceRecord {
        try #require(run.trace.first { $0.name == event && $0.device.name == device })
    }

    /// A wire between the devices and an app that is up at once, so the
    /// only differences between two runs are the coding's.
    func setup(encode: Bandwidth, decode: Bandwidth) throws -> HandoffSetup {
        var app = try monkeyBrowserApp()
        app.coldLaunch = .fixed(.milliseconds(1))
        var setup = try monkeySetup(apps: [app])
        setup.world.wifiPeerToPeer.schedule = nil
        setup.world.wifiPeerToPeer.bandwidthSpread = 0
        setup.configuration.coding = PayloadCoding(encodeRate: encode, decodeRate: decode)
        return setup
    }

    @Test("decoding delays continue by size over the decode rate", arguments: [3 * 1024, 60 * 1024])
    func decoding(size: Int) throws {
        var content = tabActivity(0)
        content.payloadSize = size
        let fast = try runTab(setup: setup(encode: .megabitsPerSecond(10_000), decode: .megabitsPerSecond(10_000)), content: content)
        let slow = try runTab(setup: setup(encode: .megabitsPerSecond(10_000), decode: .megabitsPerSecond(8)), content: content)
        func arrivedToContinue(_ run: HandoffRun) throws -> SimDuration {
            try first(.continueUserActivity, on: "ipad", in: run).time - first(.payloadArrived, on: "ipad", in: run).time
        }
        let bytes = size + HandoffConfiguration().envelopeBytes
        let expected = PayloadCoding(decodeRate: .megabitsPerSecond(8)).decodeTime(bytes: bytes)
            - PayloadCoding(decodeRate: .megabitsPerSecond(10_000)).decodeTime(bytes: bytes)
        #expect(try arrivedToContinue(slow.run) - arrivedToContinue(fast.run) == expected)
        // 8 Mbit/s is 1 byte per microsecond.
        #expect(PayloadCoding(decodeRate: .megabitsPerSecond(8)).decodeTime(bytes: bytes) == .microseconds(Int64(bytes)))
    }

    @Test("encoding delays the source's send by size over the encode rate")
    func encoding() throws {
        var content = tabActivity(0)
        content.payloadSize = 20 * 1024
        let fast = try runTab(setup: setup(encode: .megabitsPerSecond(10_000), decode: .megabitsPerSecond(10_000)), content: content)
        let slow = try runTab(setup: setup(encode: .megabitsPerSecond(80), decode: .megabitsPerSecond(10_000)), content: content)
        func requestToSend(_ run: HandoffRun) throws -> SimDuration {
            try first(.sendPayload, on: "iphone", in: run).time - first(.payloadRequest, on: "ipad", in: run).time
        }
        let bytes = 20 * 1024 + HandoffConfiguration().envelopeBytes
        let expected = PayloadCoding(encodeRate: .megabitsPerSecond(80)).encodeTime(bytes: bytes)
            - PayloadCoding(encodeRate: .megabitsPerSecond(10_000)).encodeTime(bytes: bytes)
        #expect(try requestToSend(slow.run) - requestToSend(fast.run) == expected)
    }
}
