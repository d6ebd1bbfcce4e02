import SimKernel

/// ``ScanParameters/isScanning(at:phase:)`` with the interval's division
/// done by an ``ExactDivisor``: the same answer, for the advertising path.
struct ScanSchedule: Sendable {
    let window: Int64
    let interval: ExactDivisor

    init(_ parameters: ScanParameters) {
        window = parameters.window.nanoseconds
        interval = ExactDivisor(UInt64(parameters.interval.nanoseconds))
    }

    /// Whether a receiver whose schedule starts at `phase` nanoseconds is
    /// listening at `time`.
    @inline(__always)
    func isScanning(at time: Int64, phase: Int64) -> Bool {
        let sinceStart = time &- phase
        let offset: UInt64
        if sinceStart >= 0 {
            offset = interval.divide(UInt64(sinceStart)).remainder
        } else {
            // Before the phase: count back from the next multiple.
            let back = interval.divide(sinceStart.magnitude).remainder
            offset = back == 0 ? 0 : interval.divisor - back
        }
        return offset < UInt64(window)
    }
}
