import SimKernel

/// How far a link's rate falls short of its ``LinkParameters/bandwidth``
/// from trial to trial.
///
/// The bandwidth is the ceiling (the rate the radio's modulation allows):
/// contention and retries only slow a transfer, so each trial, for each
/// direction, the link runs at a rate below it, drawn when the link starts
/// or its parameters are replaced. The shape of the draw decides how the
/// runs crowd against the ceiling:
///
/// ```swift
/// var awdl = LinkParameters.wifiPeerToPeer
/// awdl.bandwidthSpread = 0.1                                  // bandwidth · e^(−0.1·|Z|)
/// awdl.bandwidthSpread = .logNormal(median: 0.12, sigma: 0.5) // bandwidth / (1 + 0.12·e^(0.5·Z))
/// ```
public enum RateSpread: Hashable, Sendable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    /// The rate is `bandwidth · e^(−σ·|Z|)`, Z standard normal: the runs
    /// crowd at the ceiling (the density is highest there), and half of
    /// them are within e^(−0.674σ) of it. σ 0, the default, keeps the
    /// bandwidth as given.
    case halfNormal(Double)
    /// The rate is `bandwidth / (1 + Y)`: a transfer takes `1 + Y` times
    /// as long as at the ceiling, the extra time `Y = median·e^(σ·Z)`
    /// log-normal. Every run is slowed a little, most by about the
    /// median, so the fastest runs lie above a floor as measured transfers
    /// do, with a tail of slow ones set by σ.
    case logNormal(median: Double, sigma: Double)

    /// A half-normal spread of σ `value`.
    public init(floatLiteral value: Double) { self = .halfNormal(value) }

    /// A half-normal spread of σ `value`.
    public init(integerLiteral value: Int) { self = .halfNormal(Double(value)) }

    /// No spread: every trial runs at the bandwidth.
    public static let none = RateSpread.halfNormal(0)

    /// Whether every trial runs at the bandwidth (no draw is made).
    public var isNone: Bool {
        switch self {
        case let .halfNormal(sigma): sigma == 0
        case let .logNormal(median, _): median == 0
        }
    }

    /// The factor the bandwidth is multiplied by for a standard normal
    /// draw `z`.
    func factor(z: Double) -> Double {
        switch self {
        case let .halfNormal(sigma): PortableMath.exp(-sigma * abs(z))
        case let .logNormal(median, sigma): 1 / (1 + median * PortableMath.exp(sigma * z))
        }
    }

    /// Checks the values: a half-normal σ, a log-normal median or σ,
    /// each from 0 to 1.
    func validate() throws(WorldError) {
        switch self {
        case let .halfNormal(sigma):
            guard sigma >= 0, sigma <= 1 else {
                throw .invalidParameter(name: "bandwidthSpread", value: "\(sigma)", expected: "a σ from 0 to 1")
            }
        case let .logNormal(median, sigma):
            guard median >= 0, median <= 1 else {
                throw .invalidParameter(name: "bandwidthSpread.logNormal.median", value: "\(median)",
                                        expected: "a median extra time from 0 to 1")
            }
            guard sigma >= 0, sigma <= 1 else {
                throw .invalidParameter(name: "bandwidthSpread.logNormal.sigma", value: "\(sigma)",
                                        expected: "a σ from 0 to 1")
            }
        }
    }
}

extension RateSpread: CustomStringConvertible {
    /// How the slowdown is drawn, for the defaults table: "e^(−σ|Z|), σ 0.1"
    /// or "1/(1 + Y), Y log-normal with median 0.12 and σ 0.5".
    public var description: String {
        switch self {
        case let .halfNormal(sigma): "e^(−σ|Z|), σ \(sigma)"
        case let .logNormal(median, sigma): "1/(1 + Y), the extra time Y log-normal with median \(median) and σ \(sigma)"
        }
    }
}
