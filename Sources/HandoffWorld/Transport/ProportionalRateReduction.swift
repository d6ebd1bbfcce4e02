/// Proportional Rate Reduction (RFC 6937): during fast recovery, the
/// window for each ACK is what flies plus what may be sent now, so the
/// flight falls smoothly to the new slow-start threshold.
struct ProportionalRateReduction: Sendable {
    /// Bytes delivered since recovery began (prr_delivered).
    var delivered = 0
    /// Bytes sent since recovery began (prr_out).
    var sent = 0
    /// The flight when recovery began (RecoverFS).
    var recoverFlight = 1

    /// Recovery begins with `outstandingBytes` not cumulatively
    /// acknowledged.
    mutating func start(outstandingBytes: Int) {
        delivered = 0
        sent = 0
        recoverFlight = max(outstandingBytes, 1)
    }

    /// The window for an ACK that newly delivered `bytes`, with the
    /// slow-start reduction bound (RFC 6937 §3).
    @inline(__always)
    mutating func window(
        delivered bytes: Int, bytesInFlight: Int, slowStartThreshold: Int, segmentSize: Int
    ) -> Int {
        delivered += bytes
        var sendCount: Int
        if bytesInFlight > slowStartThreshold {
            let target = (delivered * slowStartThreshold + recoverFlight - 1) / recoverFlight
            sendCount = target - sent
        } else {
            let limit = max(delivered - sent, bytes) + segmentSize
            sendCount = min(slowStartThreshold - bytesInFlight, limit)
        }
        // The fast retransmit itself always goes out.
        if sent == 0, sendCount < segmentSize { sendCount = segmentSize }
        return bytesInFlight + max(sendCount, 0)
    }
}

/// A congestion algorithm that paces its fast recovery with PRR
/// (RFC 6937): during recovery its window is PRR's, whatever the
/// algorithm; only how it reduces and grows differs.
protocol RateReducing: CongestionAlgorithm {
    var window: Int { get set }
    var reduction: ProportionalRateReduction { get set }
    var segmentSize: Int { get }
}

extension RateReducing {
    @inline(__always)
    mutating func acknowledgedInRecovery(bytes: Int, signal: CongestionSignal) {
        window = reduction.window(
            delivered: bytes, bytesInFlight: signal.bytesInFlight, slowStartThreshold: slowStartThreshold,
            segmentSize: segmentSize)
    }

    @inline(__always)
    mutating func sentInRecovery(bytes: Int) { reduction.sent += bytes }
}
