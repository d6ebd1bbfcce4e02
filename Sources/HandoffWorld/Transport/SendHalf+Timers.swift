import SimKernel

/// The one timer of a send half: reorder timeout, tail-loss probe or
/// retransmission timeout (RFC 8985, RFC 6298).
extension SendHalf {
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
            if state == .open, lostCount > lostBefore { enterRecovery(now: now) }
            if state == .recovery {
                congestion.handle(.acknowledgedInRecovery(bytes: 0), signal: congestionSignal(now: now))
            }
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
    mutating func sendProbe(
        side: ConnectionSide, window: Int, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        var sequence: UInt32?
        if nextUnsent != queuedEnd { materializeNextUnsent() }
        if nextUnsent != queuedEnd,
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
        congestion.handle(.timedOut(firstInEpisode: state != .loss), signal: congestionSignal(now: now))
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
