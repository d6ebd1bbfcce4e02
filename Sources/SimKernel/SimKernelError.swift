/// Errors the kernel reports.
///
/// Input errors (a malformed duration) are thrown; programming errors
/// (scheduling an event in the past) stop the process with the same
/// description, because no input can cause them.
public enum SimKernelError: Error, Hashable, Sendable {
    /// A duration string could not be read.
    ///
    /// `input` is the text as given, `problem` says what is wrong with it in
    /// words a scenario author understands.
    case malformedDuration(input: String, problem: String)

    /// A duration string is well formed but does not fit in `Int64`
    /// nanoseconds (about 292 years).
    case durationOverflow(input: String)

    /// An event was scheduled before the current simulated time.
    case scheduledInThePast(now: SimInstant, requested: SimInstant)

    /// A discrete distribution was given no outcomes, a negative weight, a
    /// non-finite weight, or weights that sum to zero.
    case invalidWeights(problem: String)

    /// A distribution parameter is out of its domain (for example a negative
    /// mean or a probability above 1).
    case invalidParameter(distribution: String, parameter: String, value: Double, expected: String)

    /// A histogram was configured with bounds it cannot honour.
    case invalidHistogramConfiguration(problem: String)

    /// Text that is not an encoded histogram (see
    /// `LatencyHistogram.encoded`).
    case malformedHistogram(String)
}

extension SimKernelError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .malformedDuration(input, problem):
            return "invalid duration \"\(input)\": \(problem)"
        case let .durationOverflow(input):
            return "invalid duration \"\(input)\": too large; the longest duration is \(SimDuration.max) (about 292 years)"
        case let .scheduledInThePast(now, requested):
            return "event scheduled in the past: requested time \(requested) is before the current time \(now)"
        case let .invalidWeights(problem):
            return "invalid discrete distribution: \(problem)"
        case let .invalidParameter(distribution, parameter, value, expected):
            return "invalid \(distribution) distribution: \(parameter) = \(value), expected \(expected)"
        case let .invalidHistogramConfiguration(problem):
            return "invalid histogram configuration: \(problem)"
        case let .malformedHistogram(text):
            return "not an encoded histogram: \"\(text.count > 60 ? String(text.prefix(60)) + "…" : text)\""
        }
    }
}
