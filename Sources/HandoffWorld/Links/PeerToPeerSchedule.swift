import SimKernel

/// When a Wi-Fi peer-to-peer (AWDL) link can carry frames: the two devices
/// meet on a common channel only at times their schedules share.
///
/// AWDL devices follow a channel sequence of 16 slots of 64 TU (about
/// 1.05 s in all), made of 16-TU availability windows. A pair with nothing
/// to say meets rarely: AWDL leaves the infrastructure channel for about
/// 90 ms roughly twice a second. Once frames flow, AWDL stays on the common
/// channel for most of the sequence, so bulk throughput comes close to the
/// wire's. The model:
///
/// - **Idle** (no frame for ``idleAfter``): the link is available only in
///   windows of ``idleWindow`` every ``idleInterval``;
///   each window is missed altogether with probability ``missProbability``
///   (the peer stayed on its infrastructure channel, or the pair's clocks
///   have drifted apart), so a frame waits for the next window met. The
///   frame that wakes an idle pair is lost with probability
///   ``wakeLossProbability`` (the peer was not yet listening); the pair
///   stays idle and the sender's own retry (an mDNS query repeated after
///   1 s, a SYN after its timeout) tries again.
/// - **Active** (a frame went out less than ``idleAfter`` ago, either way):
///   available except in ``awaySlots`` slots at the end of every sequence
///   (excursions to the infrastructure channel).
///
/// A frame waits in the queue until the link is available, then goes out
/// whole. Both directions of a pair share the schedule: the sequence's
/// phase and which idle windows are missed come from the pair's own random
/// stream, and a frame either way keeps the pair active.
///
/// The slot and sequence lengths and the idle meetings are sourced (AWDL's
/// schedule as reverse-engineered by Stute et al., MobiCom 2018, and the
/// open implementation OWL; the twice-a-second, 90 ms excursions reported
/// by users); the miss probability and how long a pair stays active are
/// assumptions, fitted together with the link's latency to measured runs of
/// a fresh connection and one request/response between a Mac and an iPhone
/// (PrivateDrop evaluation data, USENIX Security 2021).
public struct PeerToPeerSchedule: Hashable, Sendable {
    /// One slot of the channel sequence (64 TU = 65.536 ms).
    public var slot: SimDuration
    /// Slots per channel sequence (16).
    public var slotsPerSequence: Int
    /// The time from one meeting of an idle pair to the next.
    public var idleInterval: SimDuration
    /// How long each idle meeting lasts.
    public var idleWindow: SimDuration
    /// The probability that an idle meeting does not happen.
    public var missProbability: Double
    /// The probability that the frame waking an idle pair is lost.
    public var wakeLossProbability: Double
    /// Slots per sequence an active pair spends apart, at the end of the
    /// sequence.
    public var awaySlots: Int
    /// How long after the last frame the pair falls back to idle.
    public var idleAfter: SimDuration

    /// A schedule; the defaults are HandoffSim's calibrated AWDL (see the
    /// defaults table).
    public init(
        slot: SimDuration = .nanoseconds(65_536_000), slotsPerSequence: Int = 16,
        idleInterval: SimDuration = .milliseconds(420),
        idleWindow: SimDuration = .milliseconds(88), missProbability: Double = 0.14, wakeLossProbability: Double = 0.05,
        awaySlots: Int = 1, idleAfter: SimDuration = .seconds(1)
    ) {
        self.slot = slot
        self.slotsPerSequence = slotsPerSequence
        self.idleInterval = idleInterval
        self.idleWindow = idleWindow
        self.missProbability = missProbability
        self.wakeLossProbability = wakeLossProbability
        self.awaySlots = awaySlots
        self.idleAfter = idleAfter
    }

    /// The length of one channel sequence.
    public var sequence: SimDuration { .nanoseconds(slot.nanoseconds * Int64(slotsPerSequence)) }

    /// Checks every value.
    ///
    /// - Throws: ``WorldError/invalidParameter(name:value:expected:)``.
    public func validate() throws(WorldError) {
        guard slot >= .microseconds(100), slot <= .seconds(1) else {
            throw .invalidParameter(name: "schedule.slot", value: "\(slot)", expected: "a duration from 100us to 1s")
        }
        guard (1...64).contains(slotsPerSequence) else {
            throw .invalidParameter(
                name: "schedule.slotsPerSequence", value: "\(slotsPerSequence)", expected: "a count from 1 to 64")
        }
        guard idleInterval >= .milliseconds(1), idleInterval <= .seconds(10) else {
            throw .invalidParameter(
                name: "schedule.idleInterval", value: "\(idleInterval)", expected: "a duration from 1ms to 10s")
        }
        guard idleWindow > .zero, idleWindow <= idleInterval else {
            throw .invalidParameter(
                name: "schedule.idleWindow", value: "\(idleWindow)",
                expected: "a duration > 0 and at most the idle interval (\(idleInterval))")
        }
        guard missProbability.isFinite, (0...0.9).contains(missProbability) else {
            throw .invalidParameter(
                name: "schedule.missProbability", value: "\(missProbability)", expected: "a probability from 0 to 0.9")
        }
        guard wakeLossProbability.isFinite, (0...0.9).contains(wakeLossProbability) else {
            throw .invalidParameter(
                name: "schedule.wakeLossProbability", value: "\(wakeLossProbability)",
                expected: "a probability from 0 to 0.9")
        }
        guard (0..<slotsPerSequence).contains(awaySlots) else {
            throw .invalidParameter(
                name: "schedule.awaySlots", value: "\(awaySlots)",
                expected: "a count from 0 to \(slotsPerSequence - 1) (fewer than the slots per sequence)")
        }
        guard idleAfter >= .zero, idleAfter <= .seconds(60) else {
            throw .invalidParameter(name: "schedule.idleAfter", value: "\(idleAfter)", expected: "a duration from 0 to 1m")
        }
    }
}

/// A pair's schedule in one trial: the sequence's phase and the seed that
/// decides which idle meetings are missed, shared by both directions.
struct ScheduleClock: Sendable {
    /// Where the pair's sequences start, in [0, sequence).
    var phase: Int64 = 0
    /// The draw the phase is taken from (modulo the sequence, which the
    /// link's parameters may change).
    var phaseDraw: UInt64 = 0
    var seed: UInt64 = 0
    /// The instant until which the pair is active (0: idle from the start).
    var activeUntil: Int64 = 0

    /// A clock from the pair's generator: a random phase and seed, idle.
    init(generator: inout Xoshiro256StarStar, schedule: PeerToPeerSchedule?) {
        phaseDraw = generator.next()
        seed = generator.next()
        setSchedule(schedule)
    }

    init() {}

    /// Works the phase out again for `schedule`'s sequence.
    mutating func setSchedule(_ schedule: PeerToPeerSchedule?) {
        guard let schedule else { return }
        phase = Int64(phaseDraw % UInt64(schedule.sequence.nanoseconds))
    }

    /// The first instant at or after `time` at which a frame may start.
    ///
    /// - Complexity: O(1) when active; O(k) for k idle meetings missed in a
    ///   row (k is geometric; bounded by 10,000, after which the link is
    ///   taken as met).
    func availableStart(at time: Int64, schedule: PeerToPeerSchedule) -> Int64 {
        let slot = schedule.slot.nanoseconds
        let sequence = slot * Int64(schedule.slotsPerSequence)
        if time < activeUntil {
            let sinceStart = Self.floorModulo(time - phase, sequence)
            let away = sequence - slot * Int64(schedule.awaySlots)
            return sinceStart < away ? time : time + (sequence - sinceStart)
        }
        let period = schedule.idleInterval.nanoseconds
        let window = schedule.idleWindow.nanoseconds
        var meeting = Self.floorDivide(time - phase, period)
        var start = phase + meeting * period
        if time < start + window, !isMissed(meeting, schedule: schedule) { return time }
        for _ in 0..<10_000 {
            meeting += 1
            start += period
            if !isMissed(meeting, schedule: schedule) { return start }
        }
        return start
    }

    /// Whether idle meeting `meeting` (counted from the phase) is missed: a
    /// pure function of the pair's seed, so both directions agree.
    @inline(__always)
    func isMissed(_ meeting: Int64, schedule: PeerToPeerSchedule) -> Bool {
        guard schedule.missProbability > 0 else { return false }
        var mixed = seed &+ UInt64(bitPattern: meeting) &* 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        return Double(mixed >> 11) * 0x1.0p-53 < schedule.missProbability
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        let remainder = a % b
        return remainder < 0 ? remainder + b : remainder
    }
}
