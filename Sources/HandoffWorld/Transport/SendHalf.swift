import SimKernel

/// A segment as its sender tracks it.
struct SegmentRecord: Sendable {
    enum State: UInt8, Sendable { case unsent, inFlight, lost, acknowledged }
    var bytes: Int32
    var lastSent: Int64 = 0
    var transmissions: UInt16 = 0
    var state: State = .unsent
    /// The sender's transmission count when it was last sent: the order
    /// of transmissions, which RACK compares (RFC 8985 §6.2 orders by send
    /// time, then sequence; a simulated burst leaves at one instant).
    var order: UInt32 = 0
}

/// When a segment was sent again.
struct Retransmission: Sendable {
    let sequence: UInt32
    /// The sender's transmission count when it was sent.
    let order: UInt32
    let sentAt: Int64
}

/// A message as its sender tracks it: the segments it occupies.
struct MessageRecord: Sendable {
    var tag: UInt64
    var bytes: Int
    var firstSequence: UInt32
    var lastSequence: UInt32
    /// The size of the reply the receiver sends back at once, or −1.
    var replyBytes: Int
}

/// What an acknowledgement reports: the cumulative acknowledgement, and
/// either one SACK block (RFC 2018) of consecutive segments received above
/// it, or one duplicate segment (D-SACK, RFC 2883).
struct AcknowledgementReport: Sendable {
    /// Every sequence number below this has arrived.
    var cumulative: UInt32
    /// The highest segment of the block.
    var blockTop: UInt32
    /// The block's length in segments (0: no block).
    var blockLength: UInt32
    /// Whether the block reports a duplicate arrival.
    var duplicate: Bool
}

/// Where a sender is in its congestion-control cycle.
enum RecoveryState: UInt8, Sendable {
    /// No loss outstanding.
    case open
    /// Fast recovery after a loss found by RACK or the duplicate threshold.
    case recovery
    /// After a retransmission timeout, until everything sent before it is
    /// acknowledged.
    case loss
}

/// What the one timer of a send half is waiting for (RFC 8985 shares the
/// retransmission timer between the three, as Linux does).
enum TimerPurpose: UInt8, Sendable {
    /// The retransmission timeout (RFC 6298), or the handshake's.
    case retransmission
    /// RACK's reorder timer (RFC 8985 §6.2 step 5).
    case reorder
    /// The tail-loss probe timeout (RFC 8985 §7.2).
    case probe
}

/// What one side sends, and the state of its retransmission and
/// congestion-control machinery.
struct SendHalf: Sendable {
    var segments: [SegmentRecord] = []
    /// The sequence number of `segments[0]`.
    var segmentBase: UInt32 = 0
    var messages: [MessageRecord] = []
    /// The message number of `messages[0]`.
    var messageBase = 0
    /// SND.NXT: the first segment never sent.
    var nextUnsent: UInt32 = 0
    /// SND.UNA: every segment below it is acknowledged cumulatively.
    var cumulativeAcknowledged: UInt32 = 0
    var nextMessageToAcknowledge = 0
    /// RFC 6675's pipe: bytes sent and neither acknowledged nor deemed lost.
    var bytesInFlight = 0
    /// Segments in flight (empty segments count here but not in bytes).
    var segmentsInFlight = 0
    /// RFC 5681's FlightSize: bytes sent and not cumulatively acknowledged
    /// (selectively acknowledged ones included).
    var outstandingBytes = 0
    var lostCount = 0
    /// Segments above SND.UNA selectively acknowledged.
    var selectivelyAcknowledged = 0
    /// The maximum segment size (the connection's segment size).
    var segmentSize = 1

    // Congestion control.
    var congestionWindow = 0
    var slowStartThreshold = Int.max
    var state = RecoveryState.open
    /// The segment past which the current recovery ends (RFC 6582's
    /// "recover").
    var recoveryPoint: UInt32 = 0
    /// PRR (RFC 6937): bytes delivered and sent since recovery began, and
    /// the flight when it began.
    var prrDelivered = 0
    var prrOut = 0
    var recoverFlight = 1

    // RACK (RFC 8985 §6).
    /// RACK's place among first transmissions: no segment below it is an
    /// in-flight first transmission (a segment never becomes one again).
    var rackCursor: UInt32 = 0
    /// Retransmissions in the order they were sent: a segment sent again is
    /// out of sequence order, so it is checked from here.
    var retransmissions = RingBuffer<Retransmission>(filler: Retransmission(sequence: 0, order: 0, sentAt: 0))
    /// RACK.xmit_ts, RACK.end_seq and RACK.rtt: the most recently sent
    /// segment known delivered, and its RTT.
    var latestDeliveredSendTime: Int64 = -1
    var latestDeliveredOrder: UInt32 = 0
    /// Transmissions so far (wrapping): the order of the latest one.
    var transmissionCount: UInt32 = 0
    var latestDeliveredRoundTrip: Int64 = 0
    /// RACK.fack: one past the highest segment selectively acknowledged.
    var forwardAcknowledged: UInt32 = 0
    var reorderingSeen = false
    var reorderWindowMultiplier: Int64 = 1
    var reorderWindowPersist = 0
    /// SND.NXT when the last D-SACK round began, or nil.
    var duplicateRound: UInt32?
    /// The three highest segments selectively acknowledged above SND.UNA
    /// (the duplicate threshold's test), highest first.
    var highestSelective: (UInt32, UInt32, UInt32) = (0, 0, 0)
    var highestSelectiveCount = 0

    // TLP (RFC 8985 §7).
    /// TLP.end_seq: SND.NXT when the probe went out, or nil.
    var probeEnd: UInt32?
    var probeWasRetransmission = false
    var probeSequence: UInt32 = 0

    // Timers.
    var estimator: RoundTripEstimator
    var timer = RetransmissionTimer()
    var timerPurpose = TimerPurpose.retransmission
    /// When the retransmission timeout expires, or −1 when not running.
    var retransmissionDeadline: Int64 = -1
    /// When RACK's reorder timer should expire, as of the latest check
    /// (−1: no timer).
    var reorderDeadline: Int64 = -1
    var consecutiveTimeouts = 0
    var statistics = TransferStatistics()

    init(parameters: TransportParameters, segmentSize: Int) {
        estimator = RoundTripEstimator(parameters: parameters)
        resetCongestion(parameters: parameters, segmentSize: segmentSize)
    }

    private mutating func resetCongestion(parameters: TransportParameters, segmentSize: Int) {
        self.segmentSize = max(segmentSize, 1)
        switch parameters.congestionControl {
        case .newReno:
            // RFC 6928; a window above the flow-control window buys nothing.
            congestionWindow = min(parameters.initialWindow * self.segmentSize, max(parameters.window, self.segmentSize))
            slowStartThreshold = Int.max
        case .none:
            congestionWindow = parameters.window
            slowStartThreshold = parameters.window
        }
    }

    /// This half as a new one would be, keeping the storage of its records
    /// (for a connection state reused by a world that was reset).
    mutating func reset(parameters: TransportParameters, segmentSize: Int) {
        segments.removeAllKeepingStorage()
        segmentBase = 0
        messages.removeAllKeepingStorage()
        messageBase = 0
        nextUnsent = 0
        cumulativeAcknowledged = 0
        nextMessageToAcknowledge = 0
        bytesInFlight = 0
        segmentsInFlight = 0
        outstandingBytes = 0
        lostCount = 0
        selectivelyAcknowledged = 0
        resetCongestion(parameters: parameters, segmentSize: segmentSize)
        state = .open
        recoveryPoint = 0
        prrDelivered = 0
        prrOut = 0
        recoverFlight = 1
        rackCursor = 0
        retransmissions.removeAll()
        latestDeliveredSendTime = -1
        latestDeliveredOrder = 0
        transmissionCount = 0
        latestDeliveredRoundTrip = 0
        forwardAcknowledged = 0
        reorderingSeen = false
        reorderWindowMultiplier = 1
        reorderWindowPersist = 0
        duplicateRound = nil
        highestSelective = (0, 0, 0)
        highestSelectiveCount = 0
        probeEnd = nil
        probeWasRetransmission = false
        probeSequence = 0
        estimator = RoundTripEstimator(parameters: parameters)
        timer = RetransmissionTimer()
        timerPurpose = .retransmission
        retransmissionDeadline = -1
        reorderDeadline = -1
        consecutiveTimeouts = 0
        statistics = TransferStatistics()
    }

    var segmentEnd: UInt32 { segmentBase &+ UInt32(segments.count) }

    func message(_ number: Int) -> MessageRecord { messages[number - messageBase] }

    var messageEnd: Int { messageBase + messages.count }

    /// Whether `a` comes before `b` in sequence space.
    @inline(__always)
    static func precedes(_ a: UInt32, _ b: UInt32) -> Bool { a &- b >= 1 << 31 }

    /// Drops records of acknowledged segments and messages once they make up
    /// most of the arrays, so a long-lived stream does not grow without end.
    @inline(__always)
    mutating func compact() {
        let acknowledgedSegments = Int(cumulativeAcknowledged &- segmentBase)
        if acknowledgedSegments >= 1024, acknowledgedSegments * 2 >= segments.count {
            segments.removeFirst(acknowledgedSegments)
            segmentBase = cumulativeAcknowledged
        }
        let acknowledgedMessages = nextMessageToAcknowledge - messageBase
        if acknowledgedMessages >= 256, acknowledgedMessages * 2 >= messages.count {
            messages.removeFirst(acknowledgedMessages)
            messageBase = nextMessageToAcknowledge
        }
    }
}

/// What one side has received from the other, and its acknowledgement
/// policy.
struct ReceiveHalf: Sendable {
    /// Every sequence number below this has arrived.
    var cumulative: UInt32 = 0
    var arrivedAhead = SequenceFlags()
    var nextMessageToDeliver = 0
    /// The latest block of consecutive segments received above
    /// `cumulative`, [start, end), kept so that reporting it costs nothing
    /// while a run grows.
    var blockStart: UInt32 = 0
    var blockEnd: UInt32 = 0
    /// An in-order segment waits for its delayed acknowledgement.
    var acknowledgementPending = false
    var acknowledgementTimerGeneration: UInt32 = 0

    /// This half as a new one would be, keeping its storage.
    mutating func reset() {
        cumulative = 0
        arrivedAhead.removeAll()
        nextMessageToDeliver = 0
        blockStart = 0
        blockEnd = 0
        acknowledgementPending = false
        acknowledgementTimerGeneration = 0
    }

    /// The acknowledgement to send now: the cumulative acknowledgement and
    /// the block holding `sequence` (none when it is below the cumulative
    /// acknowledgement).
    func report(for sequence: UInt32, duplicate: Bool) -> AcknowledgementReport {
        if duplicate {
            return AcknowledgementReport(cumulative: cumulative, blockTop: sequence, blockLength: 1, duplicate: true)
        }
        guard SendHalf.precedes(sequence, cumulative) == false, sequence != cumulative,
              !SendHalf.precedes(sequence, blockStart), SendHalf.precedes(sequence, blockEnd)
        else {
            return AcknowledgementReport(cumulative: cumulative, blockTop: 0, blockLength: 0, duplicate: false)
        }
        return AcknowledgementReport(
            cumulative: cumulative, blockTop: blockEnd &- 1, blockLength: min(blockEnd &- blockStart, 255),
            duplicate: false)
    }
}

extension SendHalf {
    /// Appends a message of `bytes` split into segments of `segmentSize`
    /// (an empty message still takes one empty segment).
    mutating func enqueue(bytes: Int, tag: UInt64, replyBytes: Int, segmentSize: Int) {
        let first = segmentEnd
        var remaining = bytes
        // Grow once for a large message, still geometrically.
        let needed = segments.count + max(1, (bytes + segmentSize - 1) / segmentSize)
        if needed > segments.capacity { segments.reserveCapacity(max(needed, 2 * segments.capacity)) }
        repeat {
            let size = min(remaining, segmentSize)
            segments.append(SegmentRecord(bytes: Int32(size)))
            statistics.segmentsCreated += 1
            remaining -= size
        } while remaining > 0
        messages.append(MessageRecord(
            tag: tag, bytes: bytes, firstSequence: first, lastSequence: segmentEnd &- 1, replyBytes: replyBytes))
    }

    /// The most bytes the congestion and flow-control windows allow in
    /// flight.
    @inline(__always)
    func sendLimit(window: Int) -> Int { min(congestionWindow, window) }

    /// Sends lost segments first, then new ones, while the windows allow
    /// (RFC 6675's NextSeg rules 1 and 2).
    ///
    /// - Returns: whether anything was sent.
    @discardableResult
    mutating func trySend(
        side: ConnectionSide, window: Int, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) -> Bool {
        let limit = sendLimit(window: window)
        var sent = false
        while true {
            var sequence: UInt32
            if lostCount > 0 {
                sequence = cumulativeAcknowledged
                while segments[Int(sequence &- segmentBase)].state != .lost { sequence &+= 1 }
            } else if nextUnsent != segmentEnd {
                sequence = nextUnsent
            } else {
                break
            }
            let bytes = Int(segments[Int(sequence &- segmentBase)].bytes)
            if bytesInFlight > 0, bytesInFlight + bytes > limit { break }
            transmit(sequence, side: side, now: now, into: &actions)
            sent = true
        }
        if sent, retransmissionDeadline < 0 { retransmissionDeadline = now + estimator.timeout }
        return sent
    }

    /// Puts segment `sequence` (unsent, lost, or in flight for a probe) on
    /// the path.
    @inline(__always)
    private mutating func transmit(
        _ sequence: UInt32, side: ConnectionSide, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        let slot = Int(sequence &- segmentBase)
        let record = segments[slot]
        let bytes = Int(record.bytes)
        switch record.state {
        case .lost:
            lostCount -= 1
            retransmissions.append(Retransmission(sequence: sequence, order: transmissionCount &+ 1, sentAt: now))
            statistics.retransmissions += 1
            bytesInFlight += bytes
            segmentsInFlight += 1
        case .inFlight:
            // A probe sent again while the first copy may still fly.
            retransmissions.append(Retransmission(sequence: sequence, order: transmissionCount &+ 1, sentAt: now))
            statistics.retransmissions += 1
        case .unsent:
            nextUnsent &+= 1
            outstandingBytes += bytes
            bytesInFlight += bytes
            segmentsInFlight += 1
        case .acknowledged:
            return
        }
        if state == .recovery { prrOut += bytes }
        transmissionCount &+= 1
        segments[slot] = SegmentRecord(
            bytes: record.bytes, lastSent: now, transmissions: record.transmissions &+ 1, state: .inFlight,
            order: transmissionCount)
        if bytesInFlight > statistics.peakBytesInFlight { statistics.peakBytesInFlight = bytesInFlight }
        statistics.segmentTransmissions += 1
        actions.append(.transmit(side: side, kind: .data, sequence: sequence, word: UInt32(bytes), payloadBytes: record.bytes))
    }

    /// Handles an acknowledgement, then sends what the windows now allow
    /// and sets the timer.
    mutating func receiveAcknowledgement(
        side: ConnectionSide, report: AcknowledgementReport, parameters: TransportParameters, now: Int64,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        var delivered = 0
        var sampleSendTime: Int64 = -1
        var cumulativeProgress = 0
        if report.duplicate {
            statistics.duplicateReports += 1
            // RFC 8985 §6.2 step 4: a D-SACK widens the reorder window.
            if duplicateRound == nil {
                duplicateRound = nextUnsent
                reorderWindowMultiplier += 1
                reorderWindowPersist = 16
            }
            if probeEnd != nil, probeWasRetransmission, report.blockTop == probeSequence {
                // RFC 8985 §7.4.2: both copies arrived; the probe repaired nothing.
                probeEnd = nil
            }
        } else if report.blockLength > 0 {
            var sequence = report.blockTop &- (report.blockLength &- 1)
            if Self.precedes(sequence, cumulativeAcknowledged) { sequence = cumulativeAcknowledged }
            let end = report.blockTop &+ 1
            while Self.precedes(sequence, end), Self.precedes(sequence, nextUnsent) {
                let slot = Int(sequence &- segmentBase)
                if segments[slot].state != .acknowledged {
                    delivered += newlyAcknowledged(slot: slot, sequence: sequence, now: now, sampleSendTime: &sampleSendTime)
                    selectivelyAcknowledged += 1
                    noteSelective(sequence)
                }
                sequence &+= 1
            }
        }
        // Everything below the cumulative acknowledgement.
        while Self.precedes(cumulativeAcknowledged, report.cumulative), cumulativeAcknowledged != nextUnsent {
            let slot = Int(cumulativeAcknowledged &- segmentBase)
            if segments[slot].state != .acknowledged {
                delivered += newlyAcknowledged(
                    slot: slot, sequence: cumulativeAcknowledged, now: now, sampleSendTime: &sampleSendTime)
            } else {
                selectivelyAcknowledged -= 1
            }
            let bytes = Int(segments[slot].bytes)
            outstandingBytes -= bytes
            cumulativeProgress += max(bytes, 1)
            cumulativeAcknowledged &+= 1
        }
        guard delivered > 0 || cumulativeProgress > 0 || report.duplicate else { return }
        if sampleSendTime >= 0 { estimator.sample(now - sampleSendTime) }
        if cumulativeProgress > 0 {
            consecutiveTimeouts = 0
            // RFC 6298 (5.3): new data acknowledged restarts the timer.
            retransmissionDeadline = now + estimator.timeout
            if let round = duplicateRound, !Self.precedes(cumulativeAcknowledged, round) { duplicateRound = nil }
        }
        // RFC 8985 §7.4.2: an ACK past a retransmitted probe that no
        // D-SACK called spurious means one segment was lost and repaired.
        // The window is not grown on an ACK that reduced it or ended a recovery.
        var holdWindow = false
        if let probeEnd, !Self.precedes(cumulativeAcknowledged, probeEnd) {
            if probeWasRetransmission, state == .open {
                reduceWindow(parameters: parameters)
                holdWindow = true
            }
            self.probeEnd = nil
        }
        let lostBefore = lostCount
        detectLosses(parameters: parameters, now: now)
        // Leave recovery once everything sent before it is acknowledged.
        if state != .open, !Self.precedes(cumulativeAcknowledged, recoveryPoint) {
            if state == .recovery, parameters.congestionControl == .newReno {
                congestionWindow = max(slowStartThreshold, segmentSize)
                holdWindow = true
            }
            state = .open
            if reorderWindowPersist > 0 {
                reorderWindowPersist -= 1
                if reorderWindowPersist == 0 { reorderWindowMultiplier = 1 }
            }
        }
        if state == .open, lostCount > lostBefore {
            enterRecovery(parameters: parameters)
        }
        if state == .recovery {
            proportionalRateReduction(delivered: delivered, parameters: parameters)
        } else if cumulativeProgress > 0, !holdWindow, parameters.congestionControl == .newReno {
            growWindow(acknowledged: cumulativeProgress, window: parameters.window)
        }
        while nextMessageToAcknowledge < messageEnd {
            let message = message(nextMessageToAcknowledge)
            guard Self.precedes(message.lastSequence, cumulativeAcknowledged) else { break }
            nextMessageToAcknowledge += 1
            actions.append(.acknowledged(by: side.peer, tag: message.tag))
        }
        trySend(side: side, window: parameters.window, now: now, into: &actions)
        setTimer(side: side, parameters: parameters, now: now, into: &actions)
        compact()
    }

    /// Marks the segment in `slot` acknowledged (cumulatively or
    /// selectively) and updates RACK with it.
    ///
    /// - Returns: its bytes (at least 1 for an empty segment, so that an
    ///   acknowledgement of one counts as progress).
    @inline(__always)
    private mutating func newlyAcknowledged(
        slot: Int, sequence: UInt32, now: Int64, sampleSendTime: inout Int64
    ) -> Int {
        let record = segments[slot]
        switch record.state {
        case .inFlight:
            bytesInFlight -= Int(record.bytes)
            segmentsInFlight -= 1
        case .lost:
            lostCount -= 1
        case .unsent, .acknowledged:
            break
        }
        segments[slot].state = .acknowledged
        let roundTrip = now - record.lastSent
        if record.transmissions == 1, record.lastSent > sampleSendTime { sampleSendTime = record.lastSent }
        // RFC 8985 §6.2 step 2: an ACK of a retransmission sooner than the
        // minimum RTT is for the original; it says nothing about timing.
        if record.transmissions > 1, estimator.minimum >= 0, roundTrip < estimator.minimum {
        } else if latestDeliveredSendTime < 0 || Self.precedes(latestDeliveredOrder, record.order) {
            latestDeliveredSendTime = record.lastSent
            latestDeliveredOrder = record.order
            latestDeliveredRoundTrip = roundTrip
        }
        // Step 3: a first transmission delivered below the highest
        // selectively acknowledged segment arrived out of order.
        if Self.precedes(sequence, forwardAcknowledged) {
            if record.transmissions == 1 { reorderingSeen = true }
        } else {
            forwardAcknowledged = sequence &+ 1
        }
        return max(Int(record.bytes), 1)
    }

    /// Keeps the three highest selectively acknowledged segments.
    @inline(__always)
    private mutating func noteSelective(_ sequence: UInt32) {
        if highestSelectiveCount == 0 || Self.precedes(highestSelective.0, sequence) {
            highestSelective = (sequence, highestSelective.0, highestSelective.1)
        } else if highestSelectiveCount < 2 || Self.precedes(highestSelective.1, sequence) {
            highestSelective = (highestSelective.0, sequence, highestSelective.1)
        } else if highestSelectiveCount < 3 || Self.precedes(highestSelective.2, sequence) {
            highestSelective.2 = sequence
        }
        highestSelectiveCount = min(highestSelectiveCount + 1, 3)
    }

    /// RFC 5681: slow start below the threshold (at most one segment per
    /// ACK, RFC 3465 with L = 1), congestion avoidance above it (SMSS²/cwnd
    /// per ACK); never past the flow-control window, which already bounds
    /// what may fly (as ns-3's capped window does).
    @inline(__always)
    private mutating func growWindow(acknowledged: Int, window: Int) {
        if congestionWindow < slowStartThreshold {
            congestionWindow += min(acknowledged, segmentSize)
        } else {
            congestionWindow += max(1, segmentSize * segmentSize / max(congestionWindow, 1))
        }
        if congestionWindow > window { congestionWindow = max(window, segmentSize) }
    }

    /// RFC 5681 (4) with RFC 6675: half the flight (FlightSize, everything
    /// sent and not cumulatively acknowledged), at least two segments. With
    /// ``TransportParameters/thresholdFromPipe``, half the pipe instead (what
    /// is in flight less what is SACKed or deemed lost), as ns-3 does.
    private mutating func halvedThreshold(parameters: TransportParameters) -> Int {
        max((parameters.thresholdFromPipe ? bytesInFlight : outstandingBytes) / 2, 2 * segmentSize)
    }

    /// Enters fast recovery (RFC 6675 §5, RFC 6937).
    private mutating func enterRecovery(parameters: TransportParameters) {
        state = .recovery
        recoveryPoint = nextUnsent
        statistics.fastRecoveries += 1
        probeEnd = nil
        prrDelivered = 0
        prrOut = 0
        recoverFlight = max(outstandingBytes, 1)
        if parameters.congestionControl == .newReno { slowStartThreshold = halvedThreshold(parameters: parameters) }
    }

    /// A loss repaired by a tail-loss probe: the window reduction of a
    /// loss episode, without one (RFC 8985 §7.4.2).
    private mutating func reduceWindow(parameters: TransportParameters) {
        guard parameters.congestionControl == .newReno else { return }
        slowStartThreshold = max(congestionWindow / 2, 2 * segmentSize)
        congestionWindow = slowStartThreshold
    }

    /// PRR with the slow-start reduction bound (RFC 6937 §3): the window
    /// for this ACK is what flies plus what may be sent now.
    @inline(__always)
    private mutating func proportionalRateReduction(delivered: Int, parameters: TransportParameters) {
        guard parameters.congestionControl == .newReno else { return }
        prrDelivered += delivered
        var sendCount: Int
        if bytesInFlight > slowStartThreshold {
            let target = (prrDelivered * slowStartThreshold + recoverFlight - 1) / recoverFlight
            sendCount = target - prrOut
        } else {
            let limit = max(prrDelivered - prrOut, delivered) + segmentSize
            sendCount = min(slowStartThreshold - bytesInFlight, limit)
        }
        // The fast retransmit itself always goes out.
        if prrOut == 0, sendCount < segmentSize { sendCount = segmentSize }
        congestionWindow = bytesInFlight + max(sendCount, 0)
    }

    /// The reorder window (RFC 8985 §6.2 step 4).
    @inline(__always)
    private func reorderWindow() -> Int64 {
        if !reorderingSeen, state != .open || selectivelyAcknowledged >= 3 { return 0 }
        let minimum = max(estimator.minimum, 0)
        return min(reorderWindowMultiplier * minimum / 4, max(estimator.smoothed, 0))
    }

    /// Marks lost what the detection in use finds lost, and notes the
    /// reorder timeout RACK asks for.
    @inline(__always)
    private mutating func detectLosses(parameters: TransportParameters, now: Int64) {
        reorderDeadline = -1
        switch parameters.lossDetection {
        case .rackTailLossProbe: rackDetectLosses(now: now)
        case .duplicateThreshold: thresholdDetectLosses()
        }
    }

    /// RACK (RFC 8985 §6.2 step 5): every segment sent before the latest
    /// delivered one is lost once RACK.rtt + the reorder window has passed
    /// since it was sent; for the youngest of the rest, a reorder timer.
    ///
    /// First transmissions go out in sequence order, so they are checked
    /// from the oldest until one is recent enough; retransmissions are
    /// checked in the order they were sent. Amortised O(1) per
    /// acknowledgement when nothing is lost.
    @inline(__always)
    private mutating func rackDetectLosses(now: Int64) {
        guard latestDeliveredSendTime >= 0 else { return }
        let window = reorderWindow()
        let deadline = latestDeliveredRoundTrip + window - now
        var sequence = Self.precedes(rackCursor, cumulativeAcknowledged) ? cumulativeAcknowledged : rackCursor
        while sequence != nextUnsent {
            let slot = Int(sequence &- segmentBase)
            let record = segments[slot]
            if record.state == .inFlight, record.transmissions == 1 {
                guard Self.precedes(record.order, latestDeliveredOrder) else { break }
                let remaining = record.lastSent + deadline
                if remaining > 0 {
                    reorderDeadline = max(reorderDeadline, now + remaining)
                    break
                }
                markLost(slot: slot)
            }
            sequence &+= 1
        }
        rackCursor = sequence
        while let oldest = retransmissions.first {
            // Entries for segments since acknowledged, or sent yet again, are stale.
            if Self.precedes(oldest.sequence, cumulativeAcknowledged) {
                retransmissions.removeFirst()
                continue
            }
            let slot = Int(oldest.sequence &- segmentBase)
            if segments[slot].state != .inFlight || segments[slot].order != oldest.order {
                retransmissions.removeFirst()
                continue
            }
            guard Self.precedes(oldest.order, latestDeliveredOrder) else { return }
            let remaining = oldest.sentAt + deadline
            if remaining > 0 {
                reorderDeadline = max(reorderDeadline, now + remaining)
                return
            }
            markLost(slot: slot)
            statistics.lostRetransmissionsDetected += 1
            retransmissions.removeFirst()
        }
    }

    /// RFC 6675's IsLost: a first transmission is lost once three segments
    /// above it are selectively acknowledged. A retransmission is never
    /// found lost this way.
    @inline(__always)
    private mutating func thresholdDetectLosses() {
        guard highestSelectiveCount >= 3 else { return }
        let bound = highestSelective.2
        var sequence = Self.precedes(rackCursor, cumulativeAcknowledged) ? cumulativeAcknowledged : rackCursor
        while Self.precedes(sequence, bound) {
            let slot = Int(sequence &- segmentBase)
            if segments[slot].state == .inFlight, segments[slot].transmissions == 1 { markLost(slot: slot) }
            sequence &+= 1
        }
        rackCursor = sequence
    }

    @inline(__always)
    private mutating func markLost(slot: Int) {
        guard segments[slot].state == .inFlight else { return }
        bytesInFlight -= Int(segments[slot].bytes)
        segmentsInFlight -= 1
        segments[slot].state = .lost
        lostCount += 1
    }

    /// Sets the one timer: off when nothing flies; otherwise RACK's reorder
    /// timer, else a tail-loss probe, else the retransmission timeout,
    /// whichever the state calls for, never past the timeout.
    @inline(__always)
    mutating func setTimer(
        side: ConnectionSide, parameters: TransportParameters, now: Int64,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        guard segmentsInFlight > 0 || lostCount > 0 else {
            timer.clear()
            retransmissionDeadline = -1
            return
        }
        if retransmissionDeadline < 0 { retransmissionDeadline = now + estimator.timeout }
        var deadline = retransmissionDeadline
        var purpose = TimerPurpose.retransmission
        if reorderDeadline > now, reorderDeadline < deadline {
            deadline = reorderDeadline
            purpose = .reorder
        } else if parameters.lossDetection == .rackTailLossProbe, state == .open, probeEnd == nil,
                  estimator.smoothed >= 0
        {
            // RFC 8985 §7.2; the 2 ms otherwise is Linux's TCP_TIMEOUT_MIN.
            // A probe due after the timeout goes at the timeout instead:
            // the timeout then comes one RTO after the probe (§7.3).
            let extra = segmentsInFlight == 1 ? parameters.worstCaseDelayedAcknowledgement.nanoseconds : 2_000_000
            deadline = min(now + 2 * estimator.smoothed + extra, deadline)
            purpose = .probe
        }
        timerPurpose = purpose
        timer.set(deadline, side: side, into: &actions)
    }

    /// Handles the expiry of the one timer of an established side.
    ///
    /// - Returns: `false` when the retry limit is exceeded.
    mutating func timerExpired(
        side: ConnectionSide, parameters: TransportParameters, now: Int64,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) -> Bool {
        switch timerPurpose {
        case .reorder:
            let lostBefore = lostCount
            detectLosses(parameters: parameters, now: now)
            if state == .open, lostCount > lostBefore { enterRecovery(parameters: parameters) }
            if state == .recovery { proportionalRateReduction(delivered: 0, parameters: parameters) }
            trySend(side: side, window: parameters.window, now: now, into: &actions)
        case .probe:
            sendProbe(side: side, window: parameters.window, now: now, into: &actions)
            if probeEnd == nil {
                // Nothing to probe with: the timeout it stood in for.
                guard timeOut(side: side, parameters: parameters, now: now, into: &actions) else { return false }
            } else {
                // RFC 8985 §7.3: after a probe, the timeout, not another probe.
                reorderDeadline = -1
                retransmissionDeadline = now + estimator.timeout
            }
        case .retransmission:
            guard timeOut(side: side, parameters: parameters, now: now, into: &actions) else { return false }
        }
        setTimer(side: side, parameters: parameters, now: now, into: &actions)
        return true
    }

    /// Sends a tail-loss probe (RFC 8985 §7.3): a new segment if the
    /// flow-control window allows one, else the highest segment sent again.
    private mutating func sendProbe(
        side: ConnectionSide, window: Int, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        var sequence: UInt32?
        if nextUnsent != segmentEnd,
           bytesInFlight == 0 || bytesInFlight + Int(segments[Int(nextUnsent &- segmentBase)].bytes) <= window
        {
            sequence = nextUnsent
            probeWasRetransmission = false
        } else if nextUnsent != cumulativeAcknowledged {
            var candidate = nextUnsent &- 1
            while candidate != cumulativeAcknowledged, segments[Int(candidate &- segmentBase)].state == .acknowledged {
                candidate &-= 1
            }
            if segments[Int(candidate &- segmentBase)].state != .acknowledged {
                sequence = candidate
                probeWasRetransmission = true
            }
        }
        guard let sequence else { return }
        statistics.probes += 1
        probeSequence = sequence
        transmit(sequence, side: side, now: now, into: &actions)
        probeEnd = nextUnsent
    }

    /// The retransmission timeout (RFC 6298 §5.4–5.7, RFC 5681 §3.1):
    /// backs off, shrinks the window to one segment, and marks lost the
    /// oldest segment and every other one sent longer ago than RACK's RTT
    /// and reorder window (RFC 8985 §6.3; with the duplicate threshold,
    /// everything in flight, RFC 6675 §5.1).
    ///
    /// - Returns: `false` when the retry limit is exceeded.
    mutating func timeOut(
        side: ConnectionSide, parameters: TransportParameters, now: Int64,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) -> Bool {
        statistics.timeouts += 1
        consecutiveTimeouts += 1
        if consecutiveTimeouts > parameters.retryLimit { return false }
        estimator.backOff()
        if parameters.congestionControl == .newReno {
            if state != .loss { slowStartThreshold = halvedThreshold(parameters: parameters) }
            congestionWindow = segmentSize
        }
        state = .loss
        recoveryPoint = nextUnsent
        probeEnd = nil
        reorderDeadline = -1
        let window = reorderWindow()
        var first = true
        var sequence = cumulativeAcknowledged
        while sequence != nextUnsent {
            let slot = Int(sequence &- segmentBase)
            if segments[slot].state == .inFlight {
                let expired = parameters.lossDetection == .duplicateThreshold
                    || segments[slot].lastSent + latestDeliveredRoundTrip + window <= now
                if first || expired { markLost(slot: slot) }
                first = false
            }
            sequence &+= 1
        }
        trySend(side: side, window: parameters.window, now: now, into: &actions)
        retransmissionDeadline = now + estimator.timeout
        return true
    }
}

extension ReceiveHalf {
    /// Records the arrival of data segment `sequence` from `sender` and
    /// hands every message now complete to the layer above. The caller
    /// acknowledges the segment (after sending any reply, so that a
    /// response does not wait behind the acknowledgement on the wire).
    ///
    /// - Returns: whether it was a duplicate, whether it arrived in order
    ///   with nothing missing above it (an acknowledgement may wait), and
    ///   whether a message delivered asks for an automatic reply (queued on
    ///   `replier`, this side's own send half).
    mutating func receive(
        side: ConnectionSide, sequence: UInt32, from sender: inout SendHalf, replier: inout SendHalf,
        segmentSize: Int, into actions: inout ReusableBuffer<ConnectionAction>
    ) -> (duplicate: Bool, inOrder: Bool, queuedReply: Bool) {
        if SendHalf.precedes(sequence, cumulative) || arrivedAhead.contains(sequence, base: cumulative) {
            sender.statistics.duplicatesDiscarded += 1
            return (true, false, false)
        }
        var queuedReply = false
        let inOrder = sequence == cumulative && blockEnd == blockStart
        arrivedAhead.insert(sequence, base: cumulative)
        // The block holding the new segment.
        if sequence == blockEnd, blockEnd != blockStart {
            blockEnd &+= 1
        } else {
            blockStart = sequence
            blockEnd = sequence &+ 1
            while blockStart != cumulative, arrivedAhead.contains(blockStart &- 1, base: cumulative) { blockStart &-= 1 }
        }
        while arrivedAhead.contains(blockEnd, base: cumulative) { blockEnd &+= 1 }
        while arrivedAhead.contains(cumulative, base: cumulative) {
            arrivedAhead.clear(cumulative)
            cumulative &+= 1
        }
        if !SendHalf.precedes(cumulative, blockEnd) { blockStart = cumulative; blockEnd = cumulative }
        else if SendHalf.precedes(blockStart, cumulative) { blockStart = cumulative }
        while nextMessageToDeliver < sender.messageEnd {
            let message = sender.message(nextMessageToDeliver)
            guard SendHalf.precedes(message.lastSequence, cumulative) else { break }
            nextMessageToDeliver += 1
            sender.statistics.bytesDelivered += message.bytes
            actions.append(.delivered(to: side, tag: message.tag, bytes: message.bytes))
            if message.replyBytes >= 0 {
                replier.enqueue(bytes: message.replyBytes, tag: message.tag, replyBytes: -1, segmentSize: segmentSize)
                queuedReply = true
            }
        }
        return (false, inOrder, queuedReply)
    }
}
