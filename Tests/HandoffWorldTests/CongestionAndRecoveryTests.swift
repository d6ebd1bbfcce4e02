@testable import HandoffWorld
import SimKernel
import Testing

// The sender's congestion control and loss detection, driven segment by
// segment, with NewReno (CUBIC, the default, has its own suite in
// CubicTests.swift): the harness plays a path of fixed RTT and a receiver that
// acknowledges every segment at once with one SACK block, and drops exactly
// the transmissions a test names.

/// One send half on a path of `roundTrip` with no serialisation: a segment
/// sent at t is acknowledged at the sender at t + roundTrip.
struct SenderHarness {
    static let segment = 1000
    var half: SendHalf
    let parameters: TransportParameters
    let roundTrip: Int64
    var actions = ReusableBuffer<ConnectionAction>()
    /// Every data transmission: segment, instant, and how many times that
    /// segment had been sent before.
    var transmissions: [(sequence: UInt32, time: Int64, copy: Int)] = []
    /// Acknowledgements on their way: arrival instant, and the segment.
    private var inTransit: [(time: Int64, sequence: UInt32)] = []
    private var received = Set<UInt32>()
    private var cumulative: UInt32 = 0
    /// Which transmissions are lost: (segment, copy).
    let drop: (UInt32, Int) -> Bool

    /// A sender with `segments` segments queued, its RTT estimator primed
    /// with one sample of `roundTrip` (the handshake's), sending at once.
    init(
        segments: Int, parameters: TransportParameters = TransportParameters(congestionControl: .newReno), roundTrip: Int64 = 10_000_000,
        drop: @escaping (UInt32, Int) -> Bool = { _, _ in false }
    ) {
        self.parameters = parameters
        self.roundTrip = roundTrip
        self.drop = drop
        half = SendHalf(parameters: parameters, segmentSize: Self.segment)
        half.estimator.sample(roundTrip)
        half.enqueue(bytes: segments * Self.segment, tag: 1, replyBytes: -1)
        half.trySend(side: .initiator, window: parameters.window, now: 0, into: &actions)
        half.setTimer(side: .initiator, parameters: parameters, now: 0, into: &actions)
        collect(at: 0)
    }

    private mutating func collect(at now: Int64) {
        for index in 0..<actions.count {
            guard case let .transmit(_, .data, sequence, _, _, _) = actions.storage[index] else { continue }
            let copy = transmissions.lazy.filter { $0.sequence == sequence }.count
            transmissions.append((sequence, now, copy))
            if !drop(sequence, copy) { inTransit.append((now + roundTrip, sequence)) }
        }
        actions.removeAll()
    }

    /// The receiver gets `sequence` and reports it: the cumulative
    /// acknowledgement and the block around the segment (a D-SACK for a
    /// duplicate).
    private mutating func report(_ sequence: UInt32) -> AcknowledgementReport {
        if received.contains(sequence) || sequence < cumulative {
            return AcknowledgementReport(cumulative: cumulative, blockTop: sequence, blockLength: 1, duplicate: true)
        }
        received.insert(sequence)
        while received.contains(cumulative) { cumulative += 1 }
        guard sequence > cumulative else {
            return AcknowledgementReport(cumulative: cumulative, blockTop: 0, blockLength: 0, duplicate: false)
        }
        var low = sequence
        while low > cumulative, received.contains(low - 1) { low -= 1 }
        var high = sequence
        while received.contains(high + 1) { high += 1 }
        return AcknowledgementReport(cumulative: cumulative, blockTop: high, blockLength: high - low + 1, duplicate: false)
    }

    /// Runs acknowledgements and the sender's timer in time order until
    /// `end` (acknowledgements before a timer due at the same instant), or
    /// until `stop` holds after an event.
    mutating func run(until end: Int64, stop: (SendHalf) -> Bool = { _ in false }) {
        while true {
            // The first acknowledgement sent arrives first among equal instants.
            let nextAcknowledgement = inTransit.indices.min { inTransit[$0].time < inTransit[$1].time }
            let timer = half.timer.deadline
            if let index = nextAcknowledgement, inTransit[index].time <= end,
               timer == nil || inTransit[index].time <= timer!
            {
                let (time, sequence) = inTransit.remove(at: index)
                let report = report(sequence)
                half.receiveAcknowledgement(
                    side: .initiator, report: report, parameters: parameters, now: time, into: &actions)
                collect(at: time)
            } else if let timer, timer <= end {
                half.timer.clear()
                _ = half.timerExpired(side: .initiator, parameters: parameters, now: timer, into: &actions)
                collect(at: timer)
            } else {
                return
            }
            if stop(half) { return }
        }
    }

    /// When each copy of `sequence` was sent.
    func sendTimes(of sequence: UInt32) -> [Int64] {
        transmissions.filter { $0.sequence == sequence }.map(\.time)
    }

    /// Whether every one of `segments` segments is cumulatively acknowledged.
    func finished(_ segments: Int) -> Bool { half.cumulativeAcknowledged == UInt32(segments) }
}

private let millisecond: Int64 = 1_000_000

extension SendHalf {
    /// The NewReno state of a sender that runs NewReno.
    var newReno: NewReno {
        get {
            precondition(congestion.choice == .newReno, "not NewReno")
            return congestion.newReno
        }
        set { congestion.newReno = newValue }
    }
}

@Suite("Congestion control and loss detection (RFC 5681, 6675, 6937, 8985)")
struct CongestionAndRecoveryTests {
    @Test("slow start: 10 segments at first (RFC 6928), then two more for every one acknowledged (RFC 5681 §3.1)")
    func slowStart() {
        var harness = SenderHarness(segments: 200)
        #expect(harness.transmissions.map(\.sequence) == Array(0..<10))
        harness.run(until: 10 * millisecond)
        // Round 1 acknowledged: 20 segments fly, the window is 20 segments.
        #expect(harness.transmissions.count == 30)
        #expect(harness.half.congestion.window == 20 * SenderHarness.segment)
        harness.run(until: 20 * millisecond)
        #expect(harness.transmissions.count == 70)
        #expect(harness.half.congestion.window == 40 * SenderHarness.segment)
        // The flow-control window (64 KiB) caps it: 65 segments of 1000 B.
        harness.run(until: 30 * millisecond)
        #expect(harness.half.congestion.window == 65_536)
        #expect(harness.half.statistics.peakBytesInFlight == 65_000)
    }

    @Test("without congestion control the flow-control window is open from the start")
    func noCongestionControl() {
        let harness = SenderHarness(segments: 200, parameters: TransportParameters(congestionControl: .none))
        #expect(harness.transmissions.count == 65)
    }

    @Test("congestion avoidance: past the threshold, about one segment more per window acknowledged (RFC 5681 §3.1)")
    func congestionAvoidance() {
        var harness = SenderHarness(segments: 200)
        harness.half.newReno.slowStartThreshold = 10 * SenderHarness.segment
        harness.run(until: 10 * millisecond)
        // Ten acknowledgements of one segment each grew the window by
        // SMSS²/cwnd each: not yet 11 segments, so one segment per ACK.
        #expect(harness.half.congestion.window > 10_900 && harness.half.congestion.window < 11_000)
        #expect(harness.transmissions.count == 20)
        harness.run(until: 20 * millisecond)
        #expect(harness.half.congestion.window > 11_800 && harness.half.congestion.window < 12_000)
        #expect(harness.transmissions.count == 31)
    }

    @Test("RACK's reorder timer: one SACK above a hole marks it lost a quarter of the minimum RTT later (RFC 8985 §6.2)")
    func reorderTimer() {
        // Segment 0 lost; of the rest only segment 1's acknowledgement comes back.
        var harness = SenderHarness(segments: 2, drop: { sequence, copy in sequence == 0 && copy == 0 })
        harness.run(until: 10 * millisecond)
        #expect(harness.sendTimes(of: 0) == [0])
        #expect(harness.half.timer.deadline == 12_500_000)
        #expect(harness.half.timerPurpose == .reorder)
        harness.run(until: 13 * millisecond)
        #expect(harness.sendTimes(of: 0) == [0, 12_500_000])
        #expect(harness.half.statistics.fastRecoveries == 1)
        #expect(harness.half.statistics.timeouts == 0)
    }

    @Test("fast recovery: three SACKs mark the hole lost at once; ssthresh is half the flight, PRR paces the rest, cwnd = ssthresh after (RFC 6675, 6937)")
    func fastRecovery() {
        let parameters = TransportParameters(initialWindow: 20, congestionControl: .newReno)
        var harness = SenderHarness(segments: 60, parameters: parameters, drop: { sequence, copy in
            sequence == 0 && copy == 0
        })
        // Acknowledgements of segments 1 and 2 (10 ms) open room for two
        // more segments (the pipe shrinks by what is SACKed); the third
        // SACK marks segment 0 lost (reorder window 0 past three SACKed
        // segments): 20 + 2 segments sent before the fast retransmit.
        harness.run(until: 10 * millisecond, stop: { $0.state == .recovery })
        #expect(harness.transmissions.count == 23)
        #expect(harness.sendTimes(of: 0) == [0, 10 * millisecond])
        #expect(harness.half.statistics.fastRecoveries == 1)
        // FlightSize at entry: 22 segments sent, none cumulatively acknowledged.
        #expect(harness.half.congestion.slowStartThreshold == 11 * SenderHarness.segment)
        // PRR while the pipe is above ssthresh: ssthresh / RecoverFS = 1/2
        // segment sent per segment delivered.
        harness.run(until: 10 * millisecond, stop: { $0.newReno.reduction.delivered >= 9 * SenderHarness.segment })
        #expect(harness.half.newReno.reduction.recoverFlight == 22_000)
        #expect(harness.half.bytesInFlight > 11_000)
        // 9 segments delivered allow ⌈9000 · 11000 / 22000⌉ = 4500 B: four
        // whole segments, the fast retransmit among them.
        #expect(harness.half.newReno.reduction.sent == 4 * SenderHarness.segment)
        // Recovery ends when the retransmission's ACK covers everything
        // sent before it (20 ms), with the window at ssthresh, which PRR
        // (with the slow-start reduction bound) never overshot.
        harness.run(until: 20 * millisecond, stop: { $0.state == .open })
        #expect(harness.half.state == .open)
        #expect(harness.half.cumulativeAcknowledged == 22)
        #expect(harness.half.congestion.window == 11 * SenderHarness.segment)
        #expect(harness.half.bytesInFlight <= 11 * SenderHarness.segment)
        #expect(harness.half.newReno.reduction.sent >= (harness.half.newReno.reduction.delivered * 11_000 + 21_999) / 22_000)
        #expect(harness.half.statistics.timeouts == 0)
        harness.run(until: 1_000 * millisecond)
        #expect(harness.finished(60))
        #expect(harness.half.statistics.retransmissions == 1)
    }

    @Test("a lost retransmission: RACK sends it again within a round trip; the duplicate threshold waits for the timeout (ns-3 3.37's behaviour)",
          arguments: LossDetection.allCases)
    func lostRetransmission(detection: LossDetection) {
        let parameters = TransportParameters(initialWindow: 20, congestionControl: .newReno, lossDetection: detection)
        var harness = SenderHarness(segments: 60, parameters: parameters, drop: { sequence, copy in
            sequence == 0 && copy < 2
        })
        harness.run(until: 2_000 * millisecond)
        #expect(harness.finished(60))
        let times = harness.sendTimes(of: 0)
        #expect(times.count == 3)
        switch detection {
        case .rackTailLossProbe:
            // The retransmission at 10 ms is found lost when a segment sent
            // after it is acknowledged, 10 ms later (reorder window 0 in recovery).
            #expect(times.last == 20 * millisecond)
            #expect(harness.half.statistics.lostRetransmissionsDetected == 1)
            #expect(harness.half.statistics.timeouts == 0)
        case .duplicateThreshold:
            // The timeout runs from the first send (0 ms): nothing was
            // cumulatively acknowledged since. RTO = max(SRTT + 4·RTTVAR, 200 ms).
            #expect(times.last == 200 * millisecond)
            #expect(harness.half.statistics.lostRetransmissionsDetected == 0)
            #expect(harness.half.statistics.timeouts == 1)
        }
    }

    @Test("tail-loss probe: the last two segments lost, the highest is probed 2·SRTT + 2 ms after the last ACK and the other repaired by RACK (RFC 8985 §7)")
    func tailLossProbe() {
        var harness = SenderHarness(segments: 10, drop: { sequence, copy in sequence >= 8 && copy == 0 })
        harness.run(until: 10 * millisecond)
        #expect(harness.half.timerPurpose == .probe)
        harness.run(until: 1_000 * millisecond)
        #expect(harness.finished(10))
        // SRTT is 10 ms: the probe at 10 + 20 + 2 ms retransmits segment 9
        // (nothing new to send); its SACK at 42 ms shows segment 8 lost.
        #expect(harness.sendTimes(of: 9) == [0, 32 * millisecond])
        #expect(harness.sendTimes(of: 8) == [0, 42 * millisecond])
        #expect(harness.half.statistics.probes == 1)
        #expect(harness.half.statistics.timeouts == 0)
        #expect(harness.half.statistics.fastRecoveries == 1)
    }

    @Test("tail-loss probe with one segment in flight waits for the delayed ACK, but never past the timeout (RFC 8985 §7.2)")
    func tailLossProbeOneSegment() {
        var harness = SenderHarness(segments: 10, drop: { sequence, copy in sequence == 9 && copy == 0 })
        harness.run(until: 1_000 * millisecond)
        #expect(harness.finished(10))
        // The last ACK at 10 ms; 2·SRTT + 200 ms = 230 ms > the timeout at
        // 10 + 200 ms, so the probe goes at 210 ms, and repairs the loss.
        #expect(harness.sendTimes(of: 9) == [0, 210 * millisecond])
        #expect(harness.half.statistics.probes == 1)
        #expect(harness.half.statistics.timeouts == 0)
        // A probe that repaired a loss halves the window (§7.4.2): it had
        // grown to 19 segments in slow start.
        #expect(harness.half.congestion.window == 9_500)

        // The same loss without probes: the timeout, and one segment of window.
        let parameters = TransportParameters(congestionControl: .newReno, lossDetection: .duplicateThreshold)
        var threshold = SenderHarness(segments: 10, parameters: parameters, drop: { sequence, copy in
            sequence == 9 && copy == 0
        })
        threshold.run(until: 1_000 * millisecond)
        #expect(threshold.sendTimes(of: 9) == [0, 210 * millisecond])
        #expect(threshold.half.statistics.timeouts == 1)
        #expect(threshold.half.statistics.probes == 0)
    }

    @Test("a D-SACK for a spurious retransmission widens RACK's reorder window (RFC 8985 §6.2 step 4)")
    func duplicateReportWidensReorderWindow() {
        // The receiver reports segment 3 twice: the sender sent it again
        // for nothing, so reordering is wider than the window allowed.
        var harness = SenderHarness(segments: 30, parameters: TransportParameters(initialWindow: 20, congestionControl: .newReno))
        let report = AcknowledgementReport(cumulative: 5, blockTop: 3, blockLength: 1, duplicate: true)
        var actions = ReusableBuffer<ConnectionAction>()
        harness.half.receiveAcknowledgement(
            side: .initiator, report: report, parameters: harness.parameters, now: 10 * millisecond, into: &actions)
        #expect(harness.half.statistics.duplicateReports == 1)
        #expect(harness.half.reorderWindowMultiplier == 2)
        #expect(harness.half.reorderWindowPersist == 16)
    }
}

@Suite("Delayed acknowledgements (RFC 5681 §4.2)")
struct DelayedAcknowledgementTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let bytes: Int
        let delay: Int64?
        /// When the sender learns the message arrived, in ms.
        let acknowledgedAt: Int64
        /// Packets on the iPhone → Mac link: the SYN-ACK and the ACKs.
        let reversePackets: Int
        var testDescription: String { "\(bytes) B, delayed ACK \(delay.map { "\($0) ms" } ?? "off")" }
    }

    @Test("every second in-order segment is acknowledged at once; a lone one when the timer expires",
          arguments: [
              // 5 ms each way, no serialisation: established at 10 ms, data there at 15 ms.
              Case(bytes: 1000, delay: nil, acknowledgedAt: 20, reversePackets: 2),
              Case(bytes: 1000, delay: 40, acknowledgedAt: 60, reversePackets: 2),
              Case(bytes: 2000, delay: nil, acknowledgedAt: 20, reversePackets: 3),
              Case(bytes: 2000, delay: 40, acknowledgedAt: 20, reversePackets: 2),
              Case(bytes: 3000, delay: 40, acknowledgedAt: 60, reversePackets: 3),
          ])
    func delayedAcknowledgement(_ test: Case) throws {
        let transport = TransportParameters(congestionControl: .newReno, delayedAcknowledgement: test.delay.map { .milliseconds($0) })
        let world = try TransportFixture.world(forward: TransportFixture.link(latencyMilliseconds: 5), transport: transport)
        var simulation = Simulation(model: WorldSimulation(world: world))
        let connection = simulation.model.world.openConnection(
            from: TransportFixture.mac, to: TransportFixture.phone, over: .wifiPeerToPeer, at: .zero)
        simulation.model.world.send(bytes: test.bytes, tag: 3, on: connection, from: .initiator, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()
        let acknowledged = instant(of: .messageAcknowledged(connection, by: .responder, tag: 3), in: simulation.model.log)
        #expect(acknowledged == .zero + .milliseconds(test.acknowledgedAt))
        let reverse = simulation.model.world.statistics(
            of: simulation.model.world.link(.wifiPeerToPeer(from: TransportFixture.phone, to: TransportFixture.mac)))
        #expect(reverse.packetsOffered == test.reversePackets)
    }
}
