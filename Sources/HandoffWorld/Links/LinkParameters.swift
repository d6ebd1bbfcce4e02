import SimKernel

/// A link rate in bits per second.
public struct Bandwidth: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Bits per second; always positive.
    public let bitsPerSecond: Int64

    /// A rate of `bitsPerSecond`.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)`` unless
    ///   the rate is positive.
    public init(bitsPerSecond: Int64) throws(WorldError) {
        guard bitsPerSecond > 0 else {
            throw .invalidParameter(name: "bandwidth", value: "\(bitsPerSecond) bit/s", expected: "a rate > 0")
        }
        self.bitsPerSecond = bitsPerSecond
    }

    private init(unchecked bitsPerSecond: Int64) { self.bitsPerSecond = bitsPerSecond }

    /// `value` kilobits (1,000 bits) per second; `value` must be positive.
    public static func kilobitsPerSecond(_ value: Int64) -> Bandwidth {
        precondition(value > 0, "a bandwidth must be positive")
        return Bandwidth(unchecked: value * 1_000)
    }

    /// `value` megabits (1,000,000 bits) per second; `value` must be positive.
    public static func megabitsPerSecond(_ value: Int64) -> Bandwidth {
        precondition(value > 0, "a bandwidth must be positive")
        return Bandwidth(unchecked: value * 1_000_000)
    }

    /// The time to put `bytes` bytes on the wire, in nanoseconds, rounded up
    /// to a whole nanosecond: ⌈bytes · 8 · 10⁹ / rate⌉.
    ///
    /// Exact for any byte count (a product too large for 64 bits is formed
    /// in 128).
    @inlinable
    public func serialisationNanoseconds(bytes: Int) -> Int64 {
        let bits = UInt64(bytes) &* 8
        let rate = UInt64(bitsPerSecond)
        if bits < 1 << 33 {
            // bits · 10⁹ < 2⁶³: one 64-bit division (a packet always fits).
            let product = bits &* 1_000_000_000
            let quotient = product / rate
            return Int64(quotient) + (product == quotient &* rate ? 0 : 1)
        }
        let product = bits.multipliedFullWidth(by: 1_000_000_000)
        let (quotient, remainder) = rate.dividingFullWidth(product)
        return Int64(quotient) + (remainder == 0 ? 0 : 1)
    }

    public static func < (lhs: Bandwidth, rhs: Bandwidth) -> Bool { lhs.bitsPerSecond < rhs.bitsPerSecond }

    public var description: String {
        if bitsPerSecond % 1_000_000 == 0 { return "\(bitsPerSecond / 1_000_000) Mbit/s" }
        if bitsPerSecond % 1_000 == 0 { return "\(bitsPerSecond / 1_000) kbit/s" }
        return "\(bitsPerSecond) bit/s"
    }
}

/// ``Bandwidth/serialisationNanoseconds(bytes:)`` for one bandwidth, with
/// the 64-bit division done by an ``ExactDivisor``: the same exact result,
/// for the per-packet path.
struct SerialisationTimes: Sendable {
    let bandwidth: Bandwidth
    let rate: ExactDivisor

    init(_ bandwidth: Bandwidth) {
        self.bandwidth = bandwidth
        rate = ExactDivisor(UInt64(bandwidth.bitsPerSecond))
    }

    /// ⌈bytes · 8 · 10⁹ / rate⌉ nanoseconds, exactly.
    @inline(__always)
    func nanoseconds(bytes: Int) -> Int64 {
        let bits = UInt64(bytes) &* 8
        // Beyond 2³³ bits the product needs 128 bits: no packet is that big.
        guard bits < 1 << 33 else { return bandwidth.serialisationNanoseconds(bytes: bytes) }
        let (quotient, remainder) = rate.divide(bits &* 1_000_000_000)
        return Int64(quotient) + (remainder == 0 ? 0 : 1)
    }
}

/// The Gilbert-Elliott burst-loss model: a two-state Markov chain stepped
/// once per packet, with its own loss probability in each state.
///
/// From the good state the chain moves to bad with probability p, and from
/// bad back to good with probability r. In the long run it spends
/// π_B = p / (p + r) of packets in the bad state, each stay there lasts 1/r
/// packets on average, and the loss rate is π_G · lossInGood + π_B · lossInBad.
public struct GilbertElliott: Hashable, Sendable {
    /// p: the probability of moving from good to bad after a packet.
    public var goodToBad: Double
    /// r: the probability of moving from bad to good after a packet.
    public var badToGood: Double
    /// The loss probability of a packet sent in the good state.
    public var lossInGood: Double
    /// The loss probability of a packet sent in the bad state.
    public var lossInBad: Double

    /// Creates a Gilbert-Elliott model.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)`` unless
    ///   every value is a probability and p + r > 0.
    public init(goodToBad: Double, badToGood: Double, lossInGood: Double = 0, lossInBad: Double = 1) throws(WorldError) {
        for (name, value) in [("goodToBad", goodToBad), ("badToGood", badToGood), ("lossInGood", lossInGood), ("lossInBad", lossInBad)] {
            guard value.isFinite, (0...1).contains(value) else {
                throw .invalidParameter(name: "gilbertElliott.\(name)", value: "\(value)", expected: "a probability from 0 to 1")
            }
        }
        guard goodToBad + badToGood > 0 else {
            throw .invalidParameter(
                name: "gilbertElliott", value: "goodToBad = badToGood = 0",
                expected: "at least one transition probability > 0")
        }
        self.goodToBad = goodToBad
        self.badToGood = badToGood
        self.lossInGood = lossInGood
        self.lossInBad = lossInBad
    }

    /// π_B = p / (p + r): the long-run fraction of packets sent in the bad
    /// state.
    public var stationaryBadProbability: Double { goodToBad / (goodToBad + badToGood) }

    /// π_G · lossInGood + π_B · lossInBad: the long-run loss rate.
    public var meanLossRate: Double {
        let bad = stationaryBadProbability
        return (1 - bad) * lossInGood + bad * lossInBad
    }
}

/// How a link loses packets.
public enum LossModel: Hashable, Sendable {
    /// No packet is lost.
    case none
    /// Each packet is lost independently with this probability.
    case bernoulli(Double)
    /// Bursts of loss by a two-state Markov chain.
    case gilbertElliott(GilbertElliott)
    /// Each packet is received with the probability the radio model gives
    /// for the distance between the link's two devices when it is sent.
    case distance(RadioPropagation)

    /// Checks a Bernoulli probability (the other cases check themselves when
    /// they are made).
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)``.
    public func validated() throws(WorldError) -> LossModel {
        if case let .bernoulli(probability) = self, !(probability.isFinite && (0...1).contains(probability)) {
            throw .invalidParameter(name: "loss", value: "\(probability)", expected: "a probability from 0 to 1")
        }
        return self
    }
}

/// A window of simulated time, [start, end), during which something holds
/// (a link is down, two groups of devices are partitioned).
public struct TimeWindow: Hashable, Sendable, CustomStringConvertible {
    /// The first instant inside the window.
    public let start: SimInstant
    /// The first instant after the window.
    public let end: SimInstant

    /// The window [start, end).
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)`` unless
    ///   start < end.
    public init(from start: SimInstant, until end: SimInstant) throws(WorldError) {
        guard start < end else {
            throw .invalidParameter(name: "window", value: "from \(start) until \(end)", expected: "a start before the end")
        }
        self.start = start
        self.end = end
    }

    /// Whether `instant` lies inside the window.
    @inlinable
    public func contains(_ instant: SimInstant) -> Bool { start <= instant && instant < end }

    public var description: String { "[\(start), \(end))" }
}

/// Everything that shapes one direction of a link.
///
/// A packet handed to a link is split into fragments of at most
/// `mtu − headerBytes` payload bytes, each carrying `headerBytes` of
/// header. Fragments wait in a FIFO queue of at most `queueLimit` packets
/// (not counting the one on the wire; a fragment that finds the queue full
/// is dropped), are serialised one after another at `bandwidth`, and arrive
/// `latency` plus a jitter drawn uniformly from 0 to `jitter` after their
/// last bit left. A packet arrives when all of its fragments have, and is
/// lost if any of them is.
///
/// ```swift
/// var edgeDown = LinkParameters(latency: .milliseconds(400))
/// edgeDown.bandwidth = .kilobitsPerSecond(240)
/// edgeDown.loss = .bernoulli(0.01)
/// ```
public struct LinkParameters: Hashable, Sendable {
    /// One-way propagation delay.
    public var latency: SimDuration
    /// The largest extra delay per packet, drawn uniformly from 0 to this;
    /// packets may overtake each other when it is not zero.
    public var jitter: SimDuration
    /// The rate at which bits go on the wire; `nil` serialises instantly.
    public var bandwidth: Bandwidth?
    /// How much the rate falls short of ``bandwidth`` from trial to trial
    /// (``RateSpread``): the bandwidth is the ceiling, and each trial each
    /// direction runs at ``bandwidth`` · e^(−X) for a slowdown X drawn
    /// when the link starts or its parameters are replaced. The default,
    /// ``RateSpread/none``, keeps the bandwidth as given.
    public var bandwidthSpread: RateSpread
    /// How packets are lost.
    public var loss: LossModel
    /// The most packets that may wait behind the one being sent.
    public var queueLimit: Int
    /// The largest packet, header included, in bytes.
    public var mtu: Int
    /// The header bytes every packet carries.
    public var headerBytes: Int
    /// Windows of time when the link is down: nothing is sent, and packets
    /// that would arrive inside one are lost.
    public var outages: [TimeWindow]
    /// When the link can carry frames (AWDL's channel schedule); `nil`:
    /// always, as a wire.
    public var schedule: PeerToPeerSchedule?

    /// Creates link parameters; unset values are an ideal link with an
    /// Ethernet-sized MTU and IPv4 + TCP headers.
    public init(
        latency: SimDuration, jitter: SimDuration = .zero, bandwidth: Bandwidth? = nil, loss: LossModel = .none,
        queueLimit: Int = 50, mtu: Int = 1500, headerBytes: Int = 40, outages: [TimeWindow] = [],
        schedule: PeerToPeerSchedule? = nil, bandwidthSpread: RateSpread = .none
    ) {
        self.latency = latency
        self.jitter = jitter
        self.bandwidth = bandwidth
        self.bandwidthSpread = bandwidthSpread
        self.loss = loss
        self.queueLimit = queueLimit
        self.mtu = mtu
        self.headerBytes = headerBytes
        self.outages = outages
        self.schedule = schedule
    }

    /// The payload bytes one packet can carry: `mtu − headerBytes`.
    public var payloadPerPacket: Int { mtu - headerBytes }

    /// Checks every value.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)`` for a
    ///   negative latency or jitter, a queue limit below 0, an MTU not larger
    ///   than the header, a negative header, a bandwidth spread out of its
    ///   bounds (``RateSpread``), or an invalid loss probability.
    public func validate() throws(WorldError) {
        guard latency >= .zero else {
            throw .invalidParameter(name: "latency", value: "\(latency)", expected: "a duration ≥ 0")
        }
        guard jitter >= .zero else {
            throw .invalidParameter(name: "jitter", value: "\(jitter)", expected: "a duration ≥ 0")
        }
        try bandwidthSpread.validate()
        guard queueLimit >= 0 else {
            throw .invalidParameter(name: "queueLimit", value: "\(queueLimit) packets", expected: "a count ≥ 0")
        }
        guard headerBytes >= 0 else {
            throw .invalidParameter(name: "headerBytes", value: "\(headerBytes) B", expected: "a size ≥ 0")
        }
        guard mtu > headerBytes, mtu <= 1 << 24 else {
            throw .invalidParameter(
                name: "mtu", value: "\(mtu) B", expected: "more than the header (\(headerBytes) B) and at most 16 MiB")
        }
        _ = try loss.validated()
        try schedule?.validate()
    }

    /// The number of packets `bytes` payload bytes need: at least one (an
    /// empty packet still carries its header).
    @inlinable
    public func fragmentCount(payloadBytes bytes: Int) -> Int {
        let perPacket = mtu - headerBytes
        return bytes <= 0 ? 1 : (bytes + perPacket - 1) / perPacket
    }

    /// The time to serialise `bytes` payload bytes with every fragment's
    /// header, each fragment rounded up to a whole nanosecond; zero without a
    /// bandwidth limit.
    public func serialisationNanoseconds(payloadBytes bytes: Int) -> Int64 {
        guard let bandwidth else { return 0 }
        let perPacket = mtu - headerBytes
        let fragments = fragmentCount(payloadBytes: bytes)
        let lastPayload = bytes - (fragments - 1) * perPacket
        return Int64(fragments - 1) * bandwidth.serialisationNanoseconds(bytes: perPacket + headerBytes)
            + bandwidth.serialisationNanoseconds(bytes: max(lastPayload, 0) + headerBytes)
    }
}
