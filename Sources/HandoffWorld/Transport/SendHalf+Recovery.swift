import SimKernel

/// Congestion control and loss detection: the window's growth and
/// reduction (NewReno, PRR) and how losses are found (RACK or the
/// duplicate threshold).
extension SendHalf {
    /// RFC 5681: slow start below the threshold (at most one segment per
    /// ACK, RFC 3465 with L = 1), congestion avoidance above it (SMSS²/cwnd
    /// per ACK); never past the flow-control window, which already bounds
    /// what may fly (as ns-3's capped window does).
    @inline(__always)
    mutating func growWindow(acknowledged: Int, window: Int) {
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
    mutating func halvedThreshold(parameters: TransportParameters) -> Int {
        max((parameters.thresholdFromPipe ? bytesInFlight : outstandingBytes) / 2, 2 * segmentSize)
    }

    /// Enters fast recovery (RFC 6675 §5, RFC 6937).
    mutating func enterRecovery(parameters: TransportParameters) {
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
    mutating func reduceWindow(parameters: TransportParameters) {
        guard parameters.congestionControl == .newReno else { return }
        slowStartThreshold = max(congestionWindow / 2, 2 * segmentSize)
        congestionWindow = slowStartThreshold
    }

    /// PRR with the slow-start reduction bound (RFC 6937 §3): the window
    /// for this ACK is what flies plus what may be sent now.
    @inline(__always)
    mutating func proportionalRateReduction(delivered: Int, parameters: TransportParameters) {
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
    func reorderWindow() -> Int64 {
        if !reorderingSeen, state != .open || selectivelyAcknowledged >= 3 { return 0 }
        let minimum = max(estimator.minimum, 0)
        return min(reorderWindowMultiplier * minimum / 4, max(estimator.smoothed, 0))
    }

    /// Marks lost what the detection in use finds lost, and notes the
    /// reorder timeout RACK asks for.
    @inline(__always)
    mutating func detectLosses(parameters: TransportParameters, now: Int64) {
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
    mutating func rackDetectLosses(now: Int64) {
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
    mutating func thresholdDetectLosses() {
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
    mutating func markLost(slot: Int) {
        guard segments[slot].state == .inFlight else { return }
        bytesInFlight -= Int(segments[slot].bytes)
        segmentsInFlight -= 1
        segments[slot].state = .lost
        lostCount += 1
    }
}
