/// The constants of CUBIC congestion control (RFC 9438), as
/// ``TransportParameters/cubic`` sets them for ``CongestionControl/cubic``.
///
/// Two presets: ``xnu``, what Apple's kernel runs by default
/// (apple-oss-distributions/xnu `bsd/netinet/tcp_cubic.c` with the
/// defaults of `bsd/netinet/tcp_sysctls.c`), and ``rfc9438``, the RFC's
/// recommendations. Both have β = 0.7 and C = 0.4; they differ in the RTT
/// the window's target looks ahead by and in what the reduction on a loss
/// multiplies.
///
/// ```swift
/// var transport = TransportParameters()          // CUBIC, XNU's constants
/// transport.cubic = .rfc9438                    // or the RFC's
/// transport.cubic.fastConvergence = false
/// ```
public struct CubicParameters: Hashable, Sendable {
    /// Which round-trip time the window's target looks ahead by: the
    /// target is W_cubic(t + RTT).
    public enum RoundTrip: String, Hashable, Sendable, CaseIterable {
        /// The smoothed RTT (RFC 9438 §4.2).
        case smoothed
        /// The smallest RTT seen (XNU's `get_base_rtt`, the route's
        /// minimum RTT, in `tcp_cubic_congestion_avd`).
        case minimum
    }

    /// What the multiplicative decrease multiplies on a loss.
    public enum ReductionBase: String, Hashable, Sendable, CaseIterable {
        /// The flight (everything sent and not cumulatively acknowledged):
        /// ssthresh = flight·β (RFC 9438 §4.6).
        case flight
        /// The congestion window, the result rounded to whole segments:
        /// ssthresh = round(cwnd·β) (XNU's `tcp_cubic_pre_fr`).
        case window
    }

    /// C, in segments per second cubed: how fast the window grows away
    /// from W_max (RFC 9438 §4.2; XNU's `tcp_cubic_coeff`).
    public var constant: Double
    /// β_cubic: the share of the window kept on a loss (RFC 9438 §4.6;
    /// XNU keeps 1 − `tcp_cubic_backoff`).
    public var beta: Double
    /// Whether a loss below the previous W_max lowers W_max further, to
    /// W_max·(1 + β)/2, so that a flow that lost its share gives way
    /// sooner (RFC 9438 §4.7).
    public var fastConvergence: Bool
    /// Whether the window follows the Reno-friendly estimate W_est where
    /// that grows faster than the cubic function (short RTTs and small
    /// windows; RFC 9438 §4.3).
    public var renoFriendly: Bool
    /// The RTT of the target W_cubic(t + RTT).
    public var roundTrip: RoundTrip
    /// What β multiplies on a loss.
    public var reductionBase: ReductionBase

    /// Creates CUBIC constants; the defaults are XNU's.
    public init(
        constant: Double = 0.4, beta: Double = 0.7, fastConvergence: Bool = true, renoFriendly: Bool = true,
        roundTrip: RoundTrip = .minimum, reductionBase: ReductionBase = .window
    ) {
        self.constant = constant
        self.beta = beta
        self.fastConvergence = fastConvergence
        self.renoFriendly = renoFriendly
        self.roundTrip = roundTrip
        self.reductionBase = reductionBase
    }

    /// XNU's CUBIC as it runs by default: `net.inet.tcp.cubic_rfc_compliant`
    /// and `cubic_minor_fixes` are 1 (`tcp_sysctls.c`), so `tcp_cubic_init`
    /// sets the backoff to 0.3 (β = 0.7), C is 0.4, fast convergence
    /// lowers W_max by 0.85 = (1 + β)/2, and the TCP-friendly window grows
    /// by 3(1 − β)/(1 + β) segments per window below W_max, one above it
    /// (`tcp_cubic_tcpwin`); the target looks ahead by the minimum RTT and
    /// the reduction multiplies the window.
    public static let xnu = CubicParameters()

    /// RFC 9438's recommendations: C = 0.4, β = 0.7, fast convergence and
    /// the Reno-friendly region on, the target ahead by the smoothed RTT,
    /// the reduction from the flight.
    public static let rfc9438 = CubicParameters(roundTrip: .smoothed, reductionBase: .flight)

    /// Checks every value.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)``.
    public func validate() throws(WorldError) {
        guard constant.isFinite, constant >= 0.01, constant <= 100 else {
            throw .invalidParameter(name: "cubic.constant", value: "\(constant)", expected: "a number from 0.01 to 100")
        }
        guard beta.isFinite, beta >= 0.1, beta <= 0.95 else {
            throw .invalidParameter(name: "cubic.beta", value: "\(beta)", expected: "a number from 0.1 to 0.95")
        }
    }
}
