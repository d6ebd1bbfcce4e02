import SimKernel

/// CUBIC (RFC 9438) with SACK-based recovery (RFC 6675) and Proportional
/// Rate Reduction (RFC 6937): ``CongestionControl/cubic``, the congestion
/// control XNU gives every TCP connection unless `net.inet.tcp.use_newreno`
/// is set (apple-oss-distributions/xnu `bsd/netinet/tcp_subr.c`,
/// `tcp_newtcpcb`).
///
/// Past a loss the window follows W_cubic(t) = C·(t − K)³ + W_max, in
/// segments, t seconds after congestion avoidance began, with
/// K = ∛((W_max − cwnd_epoch)/C): concave up to the window of the last
/// loss, convex beyond it. Each ACK moves the window towards the target
/// W_cubic(t + RTT), bounded to [cwnd, 1.5·cwnd] (RFC 9438 §4.2), by
/// (target − cwnd)/cwnd per segment acknowledged; where the Reno-friendly
/// estimate W_est is larger, the window is W_est (§4.3). A loss keeps β of
/// the window (§4.6), with fast convergence (§4.7); a timeout sets the
/// threshold as a loss would and the window to one segment (§4.8).
///
/// The arithmetic is `Double` with `+ − × ÷` and
/// ``PortableMath/cbrt(_:)``, all exactly defined by IEEE 754, so the
/// window is the same on every platform; the window itself is whole bytes.
///
/// Not modelled: HyStart++, window validation for an application-limited
/// sender (the window grows on every ACK, as ``NewReno``'s does), XNU's
/// stretch-ACK detection and its undo of spurious retransmissions.
struct Cubic: RateReducing {
    /// The maximum segment size (SMSS).
    let segmentSize: Int
    /// The flow-control window, which already bounds what may fly: a
    /// window above it buys nothing.
    let flowControlWindow: Int
    /// The most one ACK grows the window by in slow start: the initial
    /// window (XNU's `tcp_cubic_ack_rcvd` with `cubic_minor_fixes`).
    let slowStartLimit: Int
    /// C, β and the switches.
    let constants: CubicParameters
    /// cwnd.
    var window: Int
    /// ssthresh.
    var slowStartThreshold = Int.max
    /// The reduction during fast recovery.
    var reduction = ProportionalRateReduction()
    /// W_max in bytes: the window the cubic function plateaus at, set on
    /// each reduction (0 before the first).
    var maximumWindow = 0.0
    /// cwnd_prior: the window just before the last reduction.
    var priorWindow = 0.0
    /// When the current congestion-avoidance epoch began, in nanoseconds;
    /// −1 when none has (after a reduction, until the next ACK in
    /// congestion avoidance).
    var epochStart: Int64 = -1
    /// K, in seconds.
    var period = 0.0
    /// The window W_cubic levels off at in this epoch, in bytes: W_max, or
    /// the window at the epoch's start if that is larger.
    var origin = 0.0
    /// W_est, in bytes (RFC 9438 §4.3).
    var renoEstimate = 0.0
    /// The part of the next byte of growth already earned, in
    /// bytes × cwnd.
    var growthRemainder = 0
    /// Whether a fast recovery is under way (its reduction already made).
    var inRecovery = false

    /// A connection's start: the initial window (RFC 6928), no threshold.
    init(parameters: TransportParameters, segmentSize: Int) {
        self.segmentSize = max(segmentSize, 1)
        flowControlWindow = parameters.window
        constants = parameters.cubic
        slowStartLimit = parameters.initialWindow * self.segmentSize
        window = min(parameters.initialWindow * self.segmentSize, max(parameters.window, self.segmentSize))
    }

    // MARK: The window function

    /// K = ∛((W_max − W_epoch)/C) in seconds, for windows in bytes; 0 when
    /// the epoch starts at or above W_max (RFC 9438 §4.2, eq. 2).
    static func period(maximumWindow: Double, epochWindow: Double, constant: Double, segmentSize: Int) -> Double {
        guard epochWindow < maximumWindow else { return 0 }
        return PortableMath.cbrt((maximumWindow - epochWindow) / (constant * Double(segmentSize)))
    }

    /// W_cubic(t) = C·(t − K)³ + W_max, in bytes, `elapsed` seconds into
    /// the epoch (RFC 9438 §4.2, eq. 1, with W_max in bytes and C per
    /// segment).
    static func cubicWindow(
        elapsed: Double, period: Double, origin: Double, constant: Double, segmentSize: Int
    ) -> Double {
        let offset = elapsed - period
        return origin + constant * Double(segmentSize) * offset * offset * offset
    }

    /// α_cubic: the Reno-friendly estimate's growth in segments per window
    /// acknowledged, 3(1 − β)/(1 + β) until it reaches the window before
    /// the last reduction, 1 from there (RFC 9438 §4.3).
    var renoIncrease: Double {
        renoEstimate >= priorWindow ? 1 : 3 * (1 - constants.beta) / (1 + constants.beta)
    }

    // MARK: Events

    /// Slow start below the threshold (at most ``slowStartLimit`` per
    /// ACK), the cubic window above it; never past the flow-control window.
    @inline(__always)
    mutating func acknowledged(bytes: Int, signal: CongestionSignal) {
        if window < slowStartThreshold {
            window += min(bytes, slowStartLimit)
        } else {
            congestionAvoidance(bytes: bytes, signal: signal)
        }
        if window > flowControlWindow { window = max(flowControlWindow, segmentSize) }
    }

    /// RFC 9438 §4.2–4.5 for one ACK of `bytes` in congestion avoidance.
    mutating func congestionAvoidance(bytes: Int, signal: CongestionSignal) {
        if epochStart < 0 { startEpoch(at: signal.now) }
        let current = Double(window)
        let elapsed = Double(signal.now - epochStart) / 1e9
        if constants.renoFriendly {
            renoEstimate += renoIncrease * Double(segmentSize) * Double(bytes) / current
            let cubicNow = Self.cubicWindow(
                elapsed: elapsed, period: period, origin: origin, constant: constants.constant,
                segmentSize: segmentSize)
            if cubicNow < renoEstimate {
                // The Reno-friendly region: cwnd = W_est.
                window = max(window, Int(renoEstimate))
                return
            }
        }
        let roundTrip = constants.roundTrip == .minimum ? signal.minimumRoundTrip : signal.smoothedRoundTrip
        let ahead = Double(max(roundTrip, 0)) / 1e9
        let cubicAhead = Self.cubicWindow(
            elapsed: elapsed + ahead, period: period, origin: origin, constant: constants.constant,
            segmentSize: segmentSize)
        let target = Int(min(max(cubicAhead, current), 1.5 * current))
        // cwnd += (target − cwnd)/cwnd per segment, in bytes, the remainder kept.
        growthRemainder += (target - window) * bytes
        let growth = growthRemainder / window
        growthRemainder -= growth * window
        window += growth
    }

    /// A congestion-avoidance epoch begins with this ACK (RFC 9438 §4.2:
    /// K from W_max and the window now; W_est from the window now, §4.3).
    mutating func startEpoch(at now: Int64) {
        epochStart = now
        growthRemainder = 0
        let current = Double(window)
        if maximumWindow == 0 { maximumWindow = current }
        if current < maximumWindow {
            period = Self.period(
                maximumWindow: maximumWindow, epochWindow: current, constant: constants.constant,
                segmentSize: segmentSize)
            origin = maximumWindow
        } else {
            period = 0
            origin = current
        }
        renoEstimate = current
    }

    /// The multiplicative decrease (RFC 9438 §4.6, §4.7): W_max from the
    /// window (lowered by (1 + β)/2 under fast convergence when the window
    /// fell short of the last W_max), ssthresh = β × the flight or the
    /// window (XNU rounds it to whole segments), at least two segments; a
    /// new epoch starts with the next ACK in congestion avoidance.
    mutating func reduce(signal: CongestionSignal) {
        let current = Double(window)
        priorWindow = current
        if constants.fastConvergence, current < maximumWindow {
            maximumWindow = current * (1 + constants.beta) / 2
        } else {
            maximumWindow = current
        }
        var threshold: Int
        switch constants.reductionBase {
        case .flight:
            threshold = Int(Double(signal.outstandingBytes) * constants.beta)
        case .window:
            threshold = Int(current * constants.beta)
            threshold = (threshold + segmentSize / 2) / segmentSize * segmentSize
        }
        slowStartThreshold = max(threshold, 2 * segmentSize)
        epochStart = -1
    }

    mutating func recoveryStarted(signal: CongestionSignal) {
        reduction.start(outstandingBytes: signal.outstandingBytes)
        reduce(signal: signal)
        inRecovery = true
    }

    /// The window is the threshold once recovery ends (RFC 6675 §5).
    mutating func recoveryEnded(signal: CongestionSignal) {
        window = max(slowStartThreshold, segmentSize)
        inRecovery = false
    }

    /// RFC 9438 §4.8 as XNU's `tcp_cubic_after_timeout` has it: outside a
    /// fast recovery (which already reduced), the first timeout of an
    /// episode forgets W_max and reduces afresh (so without fast
    /// convergence); every timeout sets the window to one segment.
    mutating func timedOut(firstInEpisode: Bool, signal: CongestionSignal) {
        if firstInEpisode, !inRecovery {
            maximumWindow = 0
            reduce(signal: signal)
        }
        window = segmentSize
        epochStart = -1
        inRecovery = false
    }

    /// A reduction as for a loss episode (RFC 8985 §7.4.2), the window
    /// the new threshold.
    mutating func probeRepairedLoss(signal: CongestionSignal) {
        reduce(signal: signal)
        window = slowStartThreshold
    }
}
