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

/// A message as its sender tracks it: the segments it occupies (their
/// records are made only as the sender reaches them, see
/// ``SendHalf/segments``).
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
    /// The records of the segments from `segmentBase` to ``segmentEnd``:
    /// every segment sent and not yet dropped by ``compact()``, and at most
    /// one more about to be. The segments of queued messages beyond them
    /// (up to ``queuedEnd``) are all unsent and follow from the messages'
    /// sizes, so their records are made only as the sender reaches them
    /// (``materializeNextUnsent()``): memory follows the window, never the
    /// size of a message (a 1 GiB message is about 740,000 segments).
    var segments: [SegmentRecord] = []
    /// The sequence number of `segments[0]`.
    var segmentBase: UInt32 = 0
    /// One past the last segment of every message queued.
    var queuedEnd: UInt32 = 0
    /// The message holding segment ``segmentEnd`` (when it is below
    /// ``queuedEnd``): where the next record is made from.
    var nextMessageToMaterialize = 0
    /// The most payload bytes in a segment.
    let segmentSize: Int
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
    // Congestion control.
    /// The algorithm and its window.
    var congestion: CongestionController
    var state = RecoveryState.open
    /// The segment past which the current recovery ends (RFC 6582's
    /// "recover").
    var recoveryPoint: UInt32 = 0

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

    /// A new half of a connection with these parameters and segment size.
    init(parameters: TransportParameters, segmentSize: Int) {
        estimator = RoundTripEstimator(parameters: parameters)
        congestion = CongestionController(parameters.congestionControl, parameters: parameters, segmentSize: segmentSize)
        self.segmentSize = segmentSize
    }

    /// Takes over `old`'s record buffers, emptied (`old` is left with this
    /// half's): how a rebuilt half allocates nothing once they have grown.
    mutating func adoptBuffers(of old: inout SendHalf) {
        segments.takeStorage(of: &old.segments)
        messages.takeStorage(of: &old.messages)
        retransmissions = .reusing(&old.retransmissions)
    }

    /// The records a half makes room for when it first needs one: the
    /// flow-control window of 64 KiB in 1,448-byte segments, and a few more.
    static let initialRecordCapacity = 64

    /// One past the last segment with a record.
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

extension SendHalf {
    /// Appends a message of `bytes` split into segments of ``segmentSize``
    /// (an empty message still takes one empty segment).
    ///
    /// Only the message is recorded: its segments' records are made as
    /// they are sent (``materializeNextUnsent()``).
    mutating func enqueue(bytes: Int, tag: UInt64, replyBytes: Int) {
        let first = queuedEnd
        let segmentCount = max(1, (bytes + segmentSize - 1) / segmentSize)
        queuedEnd &+= UInt32(segmentCount)
        statistics.segmentsCreated += segmentCount
        messages.append(MessageRecord(
            tag: tag, bytes: bytes, firstSequence: first, lastSequence: queuedEnd &- 1, replyBytes: replyBytes))
    }

    /// Makes the record of segment ``nextUnsent`` if it has none yet: an
    /// unsent segment of its message's next ``segmentSize`` bytes (the
    /// rest for its last segment, none for an empty message's).
    ///
    /// - Precondition: ``nextUnsent`` is below ``queuedEnd``.
    @inline(__always)
    mutating func materializeNextUnsent() {
        guard nextUnsent == segmentEnd else { return }
        // The message holding an unsent segment is not acknowledged, so
        // ``compact()`` has not dropped it (it may have dropped the one
        // the cursor was left on).
        nextMessageToMaterialize = max(nextMessageToMaterialize, messageBase)
        var message = self.message(nextMessageToMaterialize)
        while Self.precedes(message.lastSequence, nextUnsent) {
            nextMessageToMaterialize += 1
            message = self.message(nextMessageToMaterialize)
        }
        let offset = Int(nextUnsent &- message.firstSequence) * segmentSize
        // Room for a window's worth at once, then geometric growth, so a
        // reused half stops allocating after its first trials.
        if segments.count == segments.capacity {
            segments.reserveCapacity(max(Self.initialRecordCapacity, 2 * segments.capacity))
        }
        segments.append(SegmentRecord(bytes: Int32(min(segmentSize, message.bytes - offset))))
    }

    /// The most bytes the congestion and flow-control windows allow in
    /// flight.
    @inline(__always)
    func sendLimit(window: Int) -> Int { min(congestion.window, window) }

    /// What congestion control is told with an event at `now`.
    @inline(__always)
    func congestionSignal(now: Int64) -> CongestionSignal {
        CongestionSignal(
            now: now, bytesInFlight: bytesInFlight, outstandingBytes: outstandingBytes,
            smoothedRoundTrip: estimator.smoothed, minimumRoundTrip: estimator.minimum)
    }

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
            } else if nextUnsent != queuedEnd {
                materializeNextUnsent()
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
    mutating func transmit(
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
        if state == .recovery { congestion.handle(.sentInRecovery(bytes: bytes), signal: congestionSignal(now: now)) }
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
                congestion.handle(.probeRepairedLoss, signal: congestionSignal(now: now))
                holdWindow = true
            }
            self.probeEnd = nil
        }
        let lostBefore = lostCount
        detectLosses(parameters: parameters, now: now)
        // Leave recovery once everything sent before it is acknowledged.
        if state != .open, !Self.precedes(cumulativeAcknowledged, recoveryPoint) {
            if state == .recovery {
                congestion.handle(.recoveryEnded, signal: congestionSignal(now: now))
                holdWindow = true
            }
            state = .open
            if reorderWindowPersist > 0 {
                reorderWindowPersist -= 1
                if reorderWindowPersist == 0 { reorderWindowMultiplier = 1 }
            }
        }
        if state == .open, lostCount > lostBefore {
            enterRecovery(now: now)
        }
        if state == .recovery {
            congestion.handle(.acknowledgedInRecovery(bytes: delivered), signal: congestionSignal(now: now))
        } else if cumulativeProgress > 0, !holdWindow {
            congestion.handle(.acknowledged(bytes: cumulativeProgress), signal: congestionSignal(now: now))
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
}
