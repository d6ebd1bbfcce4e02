/// NewReno (RFC 5681, RFC 6582) with SACK-based recovery (RFC 6675) and
/// Proportional Rate Reduction (RFC 6937): ``CongestionControl/newReno``.
struct NewReno: RateReducing {
    /// The maximum segment size (SMSS).
    let segmentSize: Int
    /// The flow-control window, which already bounds what may fly: a
    /// window above it buys nothing.
    let flowControlWindow: Int
    /// Whether a loss halves the pipe rather than the flight
    /// (``TransportParameters/thresholdFromPipe``).
    let thresholdFromPipe: Bool
    /// cwnd.
    var window: Int
    /// ssthresh.
    var slowStartThreshold = Int.max
    /// The reduction during fast recovery.
    var reduction = ProportionalRateReduction()

    /// A connection's start: the initial window (RFC 6928), no threshold.
    init(parameters: TransportParameters, segmentSize: Int) {
        self.segmentSize = max(segmentSize, 1)
        flowControlWindow = parameters.window
        thresholdFromPipe = parameters.thresholdFromPipe
        window = min(parameters.initialWindow * self.segmentSize, max(parameters.window, self.segmentSize))
    }

    /// RFC 5681: slow start below the threshold (at most one segment per
    /// ACK, RFC 3465 with L = 1), congestion avoidance above it (SMSS²/cwnd
    /// per ACK); never past the flow-control window, which already bounds
    /// what may fly (as ns-3's capped window does).
    @inline(__always)
    mutating func acknowledged(bytes: Int, signal: CongestionSignal) {
        if window < slowStartThreshold {
            window += min(bytes, segmentSize)
        } else {
            window += max(1, segmentSize * segmentSize / max(window, 1))
        }
        if window > flowControlWindow { window = max(flowControlWindow, segmentSize) }
    }

    /// RFC 5681 (4) with RFC 6675: half the flight (FlightSize, everything
    /// sent and not cumulatively acknowledged), at least two segments. With
    /// ``thresholdFromPipe``, half the pipe instead (what is in flight less
    /// what is SACKed or deemed lost), as ns-3 does.
    func halvedThreshold(_ signal: CongestionSignal) -> Int {
        max((thresholdFromPipe ? signal.bytesInFlight : signal.outstandingBytes) / 2, 2 * segmentSize)
    }

    mutating func recoveryStarted(signal: CongestionSignal) {
        reduction.start(outstandingBytes: signal.outstandingBytes)
        slowStartThreshold = halvedThreshold(signal)
    }

    /// The window is the threshold once recovery ends (RFC 6675 §5).
    mutating func recoveryEnded(signal: CongestionSignal) {
        window = max(slowStartThreshold, segmentSize)
    }

    /// RFC 5681 §3.1: the threshold halved once per timeout episode, the
    /// window one segment.
    mutating func timedOut(firstInEpisode: Bool, signal: CongestionSignal) {
        if firstInEpisode { slowStartThreshold = halvedThreshold(signal) }
        window = segmentSize
    }

    /// Half the window, as a loss episode would have (RFC 8985 §7.4.2).
    mutating func probeRepairedLoss(signal: CongestionSignal) {
        slowStartThreshold = max(window / 2, 2 * segmentSize)
        window = slowStartThreshold
    }
}
