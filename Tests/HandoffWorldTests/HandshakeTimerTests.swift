import HandoffWorld
import SimKernel
import Testing

/// XNU's connection set-up, by OS version (apple-oss-distributions/xnu).
@Suite("Handshake: XNU's SYN backoff and AWDL's initial timeout")
struct HandshakeTimerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let macOS: OSVersion
        let connectTimeoutSeconds: Int64
        /// Every SYN sent, in milliseconds from the first.
        let synTimes: [Int64]
        /// When set-up gives up.
        let failedAtMilliseconds: Int64

        var testDescription: String { "macOS \(macOS), connect timeout \(connectTimeoutSeconds) s" }
    }

    // bsd/netinet/tcp_timer.c tcp_syn_backoff {1,1,1,1,1,2,4,8,16,32,64,64,64}
    // (the same from xnu-6153.141.1 to xnu-11417.101.15); tcp_timer.h
    // TCP_MAXRXTSHIFT 12, TCPTV_KEEP_INIT 75 s, no slop before ESTABLISHED;
    // tcp_subr.c tcp_getrt_rtt: on IFEF_AWDL, tcp_awdl_rtobase 100 ms, from
    // xnu-10002.41.9 (macOS 14.1).
    @Test("with every SYN lost over AWDL: the SYN times and the give-up follow XNU, by the sender's OS version", arguments: [
        // macOS 14.4: 100 ms base; 12 retransmissions, dropped at the 13th expiry (25.9 s).
        Case(macOS: OSVersion(14, 4), connectTimeoutSeconds: 75,
             synTimes: [0, 100, 200, 300, 400, 500, 700, 1100, 1900, 3500, 6700, 13_100, 19_500], failedAtMilliseconds: 25_900),
        // macOS 14.1, the first release with tcp_awdl_rtobase.
        Case(macOS: OSVersion(14, 1), connectTimeoutSeconds: 75,
             synTimes: [0, 100, 200, 300, 400, 500, 700, 1100, 1900, 3500, 6700, 13_100, 19_500], failedAtMilliseconds: 25_900),
        // macOS 14.0 (xnu-10002.1.13) and 10.15.7: 1 s base; the 75 s keepinit comes first.
        Case(macOS: OSVersion(14, 0), connectTimeoutSeconds: 75,
             synTimes: [0, 1000, 2000, 3000, 4000, 5000, 7000, 11_000, 19_000, 35_000, 67_000], failedAtMilliseconds: 75_000),
        Case(macOS: OSVersion(10, 15, 7), connectTimeoutSeconds: 75,
             synTimes: [0, 1000, 2000, 3000, 4000, 5000, 7000, 11_000, 19_000, 35_000, 67_000], failedAtMilliseconds: 75_000),
        // An app's own connect timeout (TCP_CONNECTIONTIMEOUT) of 7 s.
        Case(macOS: OSVersion(14, 4), connectTimeoutSeconds: 7,
             synTimes: [0, 100, 200, 300, 400, 500, 700, 1100, 1900, 3500, 6700], failedAtMilliseconds: 7000),
    ])
    func synSchedule(_ expected: Case) throws {
        let transport = TransportParameters(connectTimeout: .seconds(expected.connectTimeoutSeconds))
        let forward = TransportFixture.link(latencyMilliseconds: 1, megabits: 100, loss: .bernoulli(1))
        let world = try TransportFixture.world(forward: forward, backward: TransportFixture.link(latencyMilliseconds: 1),
                                               transport: transport, macOS: expected.macOS)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: TransportFixture.mac, to: TransportFixture.phone, over: .wifiPeerToPeer, at: .zero)
        // Each SYN is lost on the link at the instant it is sent: the link's
        // loss count after each instant gives the send times.
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        let link = simulation.model.world.link(.wifiPeerToPeer(from: TransportFixture.mac, to: TransportFixture.phone))
        var lost = simulation.model.world.statistics(of: link).fragmentsLost
        var sends = [Int64](repeating: 0, count: lost)
        while simulation.step() {
            let next = simulation.now
            let now = simulation.model.world.statistics(of: link).fragmentsLost
            if now > lost {
                sends.append(contentsOf: Array(repeating: next.nanosecondsSinceStart / 1_000_000, count: now - lost))
                lost = now
            }
        }
        #expect(sends == expected.synTimes)
        let failed = instant(of: .connectionFailed(connection, .setupTimedOut), in: simulation.model.log)
        #expect(failed?.nanosecondsSinceStart == expected.failedAtMilliseconds * 1_000_000)
    }
}
