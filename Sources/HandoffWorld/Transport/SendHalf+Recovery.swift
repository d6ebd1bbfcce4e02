import SimKernel

/// Recovery and loss detection: entering fast recovery, and how losses
/// are found (RACK or the duplicate threshold). The window itself is the
/// congestion control's (``CongestionController``).
extension SendHalf {
    /// Enters fast recovery (RFC 6675 §5, RFC 6937).
    mutating func enterRecovery(now: Int64) {
        state = .recovery
        recoveryPoint = nextUnsent
        statistics.fastRecoveries += 1
        probeEnd = nil
        congestion.handle(.recoveryStarted, signal: congestionSignal(now: now))
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
