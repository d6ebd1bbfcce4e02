import SimKernel

/// A segment as its sender tracks it.
struct SegmentRecord: Sendable {
    enum State: UInt8, Sendable { case unsent, inFlight, lost, acknowledged }
    var bytes: Int32
    var lastSent: Int64 = 0
    var transmissions: UInt16 = 0
    var state: State = .unsent
}

/// When a segment was sent again.
struct Retransmission: Sendable {
    let sequence: UInt32
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

/// What one side sends, and the state of its retransmission machinery.
struct SendHalf: Sendable {
    var segments: [SegmentRecord] = []
    /// The sequence number of `segments[0]`.
    var segmentBase: UInt32 = 0
    var messages: [MessageRecord] = []
    /// The message number of `messages[0]`.
    var messageBase = 0
    var nextUnsent: UInt32 = 0
    var cumulativeAcknowledged: UInt32 = 0
    var nextMessageToAcknowledge = 0
    var bytesInFlight = 0
    /// Segments in flight (empty segments count here but not in bytes).
    var segmentsInFlight = 0
    var lostCount = 0
    /// RACK's place among first transmissions: no segment below it is an
    /// in-flight first transmission (a segment never becomes one again).
    var rackCursor: UInt32 = 0
    /// Retransmissions in the order they were sent, for RACK: a segment
    /// sent again is out of sequence order, so it is checked from here.
    var retransmissions = RingBuffer<Retransmission>(filler: Retransmission(sequence: 0, sentAt: 0))
    /// The latest send time of any acknowledged segment (RACK).
    var latestDeliveredSendTime: Int64 = -1
    var estimator: RoundTripEstimator
    var timer = RetransmissionTimer()
    var consecutiveTimeouts = 0
    var statistics = TransferStatistics()

    init(parameters: TransportParameters) {
        estimator = RoundTripEstimator(parameters: parameters)
    }

    /// This half as a new one would be, keeping the storage of its records
    /// (for a connection state reused by a world that was reset).
    mutating func reset(parameters: TransportParameters) {
        segments.removeAllKeepingStorage()
        segmentBase = 0
        messages.removeAllKeepingStorage()
        messageBase = 0
        nextUnsent = 0
        cumulativeAcknowledged = 0
        nextMessageToAcknowledge = 0
        bytesInFlight = 0
        segmentsInFlight = 0
        lostCount = 0
        rackCursor = 0
        retransmissions.removeAll()
        latestDeliveredSendTime = -1
        estimator = RoundTripEstimator(parameters: parameters)
        timer = RetransmissionTimer()
        consecutiveTimeouts = 0
        statistics = TransferStatistics()
    }

    var segmentEnd: UInt32 { segmentBase &+ UInt32(segments.count) }

    func message(_ number: Int) -> MessageRecord { messages[number - messageBase] }

    var messageEnd: Int { messageBase + messages.count }

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


/// What one side has received from the other.
struct ReceiveHalf: Sendable {
    /// Every sequence number below this has arrived.
    var cumulative: UInt32 = 0
    var arrivedAhead = SequenceFlags()
    var nextMessageToDeliver = 0

    /// This half as a new one would be, keeping its storage.
    mutating func reset() {
        cumulative = 0
        arrivedAhead.removeAll()
        nextMessageToDeliver = 0
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

    /// Sends lost segments first, then new ones, while the window allows.
    mutating func trySend(
        side: ConnectionSide, window: Int, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        while true {
            var sequence: UInt32
            if lostCount > 0 {
                sequence = cumulativeAcknowledged
                while segments[Int(sequence &- segmentBase)].state != .lost { sequence &+= 1 }
            } else if nextUnsent != segmentEnd {
                sequence = nextUnsent
            } else {
                return
            }
            let slot = Int(sequence &- segmentBase)
            let record = segments[slot]
            let bytes = Int(record.bytes)
            if bytesInFlight > 0, bytesInFlight + bytes > window { return }
            if record.state == .lost {
                lostCount -= 1
                retransmissions.append(Retransmission(sequence: sequence, sentAt: now))
                statistics.retransmissions += 1
            } else {
                nextUnsent &+= 1
            }
            segments[slot] = SegmentRecord(
                bytes: record.bytes, lastSent: now, transmissions: record.transmissions &+ 1, state: .inFlight)
            bytesInFlight += bytes
            segmentsInFlight += 1
            if bytesInFlight > statistics.peakBytesInFlight { statistics.peakBytesInFlight = bytesInFlight }
            statistics.segmentTransmissions += 1
            actions.append(.transmit(side: side, kind: .data, sequence: sequence, word: UInt32(bytes), payloadBytes: bytes))
            if timer.deadline == nil { timer.set(now + estimator.timeout, side: side, into: &actions) }
        }
    }

    /// Handles an acknowledgement of segment `sequence` carrying the
    /// receiver's cumulative acknowledgement, then sends what the window
    /// now allows.
    mutating func receiveAcknowledgement(
        side: ConnectionSide, sequence: UInt32, cumulative: UInt32, window: Int, now: Int64,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        var progress = false
        // The segment this acknowledgement names.
        if sequence &- cumulativeAcknowledged < 1 << 31, sequence &- segmentEnd >= 1 << 31 {
            let slot = Int(sequence &- segmentBase)
            if segments[slot].state != .acknowledged {
                if segments[slot].transmissions == 1 { estimator.sample(now - segments[slot].lastSent) }
                if segments[slot].lastSent > latestDeliveredSendTime { latestDeliveredSendTime = segments[slot].lastSent }
                acknowledge(slot: slot)
                progress = true
            }
        }
        // Everything below the cumulative acknowledgement.
        while cumulativeAcknowledged &- cumulative >= 1 << 31, cumulativeAcknowledged != segmentEnd {
            let slot = Int(cumulativeAcknowledged &- segmentBase)
            if segments[slot].state != .acknowledged { acknowledge(slot: slot) }
            cumulativeAcknowledged &+= 1
            progress = true
        }
        // Segments acknowledged out of order earlier.
        while cumulativeAcknowledged != nextUnsent, segments[Int(cumulativeAcknowledged &- segmentBase)].state == .acknowledged {
            cumulativeAcknowledged &+= 1
        }
        guard progress else { return }
        detectLosses()
        consecutiveTimeouts = 0
        while nextMessageToAcknowledge < messageEnd {
            let message = message(nextMessageToAcknowledge)
            guard message.lastSequence &- cumulativeAcknowledged >= 1 << 31 else { break }
            nextMessageToAcknowledge += 1
            actions.append(.acknowledged(by: side.peer, tag: message.tag))
        }
        trySend(side: side, window: window, now: now, into: &actions)
        if segmentsInFlight == 0 {
            timer.clear()
        } else {
            timer.set(now + estimator.timeout, side: side, into: &actions)
        }
        compact()
    }

    /// Handles an expired retransmission timer of an established side:
    /// backs off and retransmits the oldest segment in flight (RFC 6298
    /// §5.4); its acknowledgement lets RACK find any others.
    ///
    /// - Returns: `false` when the retry limit is exceeded.
    mutating func timeOut(
        side: ConnectionSide, retryLimit: Int, window: Int, now: Int64,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) -> Bool {
        statistics.timeouts += 1
        consecutiveTimeouts += 1
        if consecutiveTimeouts > retryLimit { return false }
        estimator.backOff()
        var sequence = cumulativeAcknowledged
        while sequence != nextUnsent {
            let slot = Int(sequence &- segmentBase)
            if segments[slot].state == .inFlight {
                markLost(slot: slot)
                break
            }
            sequence &+= 1
        }
        trySend(side: side, window: window, now: now, into: &actions)
        if segmentsInFlight > 0 || lostCount > 0 { timer.set(now + estimator.timeout, side: side, into: &actions) }
        return true
    }

    @inline(__always)
    private mutating func acknowledge(slot: Int) {
        switch segments[slot].state {
        case .inFlight:
            bytesInFlight -= Int(segments[slot].bytes)
            segmentsInFlight -= 1
        case .lost:
            lostCount -= 1
        case .unsent, .acknowledged:
            break
        }
        segments[slot].state = .acknowledged
    }

    /// RACK: marks lost every in-flight segment sent more than the reorder
    /// window before the latest-sent segment known to have arrived.
    ///
    /// First transmissions go out in sequence order, so they are checked
    /// from the oldest until one is recent enough; retransmissions are
    /// checked in the order they were sent. Amortised O(1) per
    /// acknowledgement when nothing is lost.
    @inline(__always)
    private mutating func detectLosses() {
        guard latestDeliveredSendTime >= 0 else { return }
        let threshold = latestDeliveredSendTime - estimator.reorderWindow
        var sequence = rackCursor &- cumulativeAcknowledged < 1 << 31 ? rackCursor : cumulativeAcknowledged
        while sequence != nextUnsent {
            let slot = Int(sequence &- segmentBase)
            if segments[slot].state == .inFlight, segments[slot].transmissions == 1 {
                guard segments[slot].lastSent < threshold else { break }
                markLost(slot: slot)
            }
            sequence &+= 1
        }
        rackCursor = sequence
        while let oldest = retransmissions.first {
            // Entries for segments since acknowledged, or sent yet again, are stale.
            if oldest.sequence &- cumulativeAcknowledged >= 1 << 31 {
                retransmissions.removeFirst()
                continue
            }
            let slot = Int(oldest.sequence &- segmentBase)
            if segments[slot].state != .inFlight || segments[slot].lastSent != oldest.sentAt {
                retransmissions.removeFirst()
                continue
            }
            guard oldest.sentAt < threshold else { return }
            markLost(slot: slot)
            retransmissions.removeFirst()
        }
    }

    @inline(__always)
    private mutating func markLost(slot: Int) {
        guard segments[slot].state == .inFlight else { return }
        bytesInFlight -= Int(segments[slot].bytes)
        segmentsInFlight -= 1
        segments[slot].state = .lost
        lostCount += 1
    }
}

extension ReceiveHalf {
    /// Records the arrival of data segment `sequence` from `sender` and
    /// hands every message now complete to the layer above. The caller
    /// acknowledges the segment (after sending any reply, so that a
    /// response does not wait behind the acknowledgement on the wire).
    ///
    /// - Returns: messages delivered that ask for an automatic reply are
    ///   queued on `replier` (this side's own send half); `true` if any was.
    mutating func receive(
        side: ConnectionSide, sequence: UInt32, from sender: inout SendHalf, replier: inout SendHalf,
        segmentSize: Int, into actions: inout ReusableBuffer<ConnectionAction>
    ) -> Bool {
        var queuedReply = false
        if sequence &- cumulative >= 1 << 31 || arrivedAhead.contains(sequence, base: cumulative) {
            sender.statistics.duplicatesDiscarded += 1
        } else {
            arrivedAhead.insert(sequence, base: cumulative)
            while arrivedAhead.contains(cumulative, base: cumulative) {
                arrivedAhead.clear(cumulative)
                cumulative &+= 1
            }
            while nextMessageToDeliver < sender.messageEnd {
                let message = sender.message(nextMessageToDeliver)
                guard message.lastSequence &- cumulative >= 1 << 31 else { break }
                nextMessageToDeliver += 1
                sender.statistics.bytesDelivered += message.bytes
                actions.append(.delivered(to: side, tag: message.tag, bytes: message.bytes))
                if message.replyBytes >= 0 {
                    replier.enqueue(bytes: message.replyBytes, tag: message.tag, replyBytes: -1, segmentSize: segmentSize)
                    queuedReply = true
                }
            }
        }
        return queuedReply
    }
}
