import SimKernel

/// A pair's AWDL schedule in one trial: the phases of its slots and sync
/// frames, the seed of its excursions, and the pair's state (switched on,
/// synchronised, active), shared by both directions.
///
/// Everything but the state is a pure function of the pair's seed, so the
/// two directions (each with its own copy) agree on every slot and
/// excursion; the state is copied from one direction to the other after
/// every frame (`World.shareSchedule(fromLink:)`).
struct ScheduleClock: Sendable {
    /// Where the pair's sequences start, in [0, sequence).
    var phase: Int64 = 0
    /// Where the synchronising device's sync frames fall, in [0, sync
    /// interval).
    var syncPhase: Int64 = 0
    /// The draws the phases are taken from (modulo the sequence and the
    /// sync interval, which the link's parameters may change).
    var phaseDraw: UInt64 = 0
    var syncPhaseDraw: UInt64 = 0
    /// The seed of the pair's excursions.
    var seed: UInt64 = 0 {
        didSet { excursionSeeds = Self.excursionSeeds(of: seed) }
    }
    /// Whether this direction's sender is the pair's device with the lower
    /// index (excursions are per device: device 0 is the lower).
    var senderIsLow = true
    /// From when multicast frames may go: `Int64.min` when warm, `Int64.max`
    /// while AWDL is off.
    var syncedAt: Int64 = .min
    /// From when the peer knows the device, so unicast frames may go
    /// (before it they are dropped).
    var knownAt: Int64 = .min
    /// The pair is active from `activeFrom` until `activeUntil` (0, 0: idle).
    var activeFrom: Int64 = 0
    var activeUntil: Int64 = 0
    /// The start of the last idle slot in which a frame of the pair was
    /// heard: both devices stay on the channel for the whole of it, past
    /// their committed presence (`Int64.min`: none).
    var extendedSlot: Int64 = .min
    /// Each device's excursion seed (device 0 is the lower), derived from
    /// ``seed`` whenever it is set rather than on every frame.
    private(set) var excursionSeeds: (UInt64, UInt64) = ScheduleClock.excursionSeeds(of: 0)

    /// How a frame fares on the schedule.
    enum Fate: Sendable {
        /// It goes out and is heard (unless the link's loss model loses it).
        case heard
        /// It goes out while the peer is away from the channel: lost.
        case peerAway
        /// The peer does not know the device yet: dropped before it is sent.
        case unknownPeer
    }

    /// A clock from the pair's generator: random phases and seed; warm or
    /// off as `schedule` starts.
    init(generator: inout Xoshiro256StarStar, schedule: PeerToPeerSchedule?, senderIsLow: Bool) {
        phaseDraw = generator.next()
        syncPhaseDraw = generator.next()
        seed = generator.next()
        // Observers do not run in an initialiser.
        excursionSeeds = Self.excursionSeeds(of: seed)
        self.senderIsLow = senderIsLow
        if schedule?.start == .cold {
            syncedAt = .max
            knownAt = .max
        }
        setSchedule(schedule)
    }

    init() {}

    /// Works the phases out again for `schedule`; a warm schedule makes an
    /// AWDL that is still off synchronised.
    mutating func setSchedule(_ schedule: PeerToPeerSchedule?) {
        guard let schedule else { return }
        phase = Int64(phaseDraw % UInt64(schedule.sequence.nanoseconds))
        syncPhase = Int64(syncPhaseDraw % UInt64(schedule.syncInterval.nanoseconds))

        if schedule.start == .warm, syncedAt == .max {
            syncedAt = .min
            knownAt = .min
        }
    }

    /// Whether the pair runs its active sequence at `time`.
    @inline(__always)
    func isActive(at time: Int64) -> Bool { time >= activeFrom && time < activeUntil }

    /// Whether AWDL has been switched on (or started warm).
    var isOn: Bool { syncedAt != .max }

    // MARK: Sending

    /// When a frame offered at `time` may start and how it fares; a heard
    /// unicast frame makes the pair active, and a frame on a pair whose
    /// AWDL is off switches it on.
    ///
    /// - Complexity: O(1) when active; otherwise a few steps per slot or
    ///   excursion skipped (at most 256, after which the frame goes).
    mutating func departure(
        at time: Int64, multicast: Bool, schedule: PeerToPeerSchedule
    ) -> (start: Int64, fate: Fate) {
        if syncedAt == .max { switchOn(at: time, schedule: schedule) }
        var start = time
        if multicast {
            start = max(start, syncedAt)
            for _ in 0..<256 {
                start = isActive(at: start)
                    ? Self.nextSlot(in: schedule.multicastSlots, at: start, phase: phase, schedule: schedule)
                    : nextPresence(in: schedule.multicastSlots, at: start, schedule: schedule)
                if !isActive(at: start), let back = excursionEnd(of: senderIsLow ? 0 : 1, at: start, schedule: schedule) {
                    start = back
                    continue
                }
                break
            }
            let away = !isActive(at: start) && excursionEnd(of: senderIsLow ? 1 : 0, at: start, schedule: schedule) != nil
            // A peer that hears a frame of the device knows it.
            if !away {
                knownAt = min(knownAt, start)
                if !isActive(at: start) { extend(at: start, schedule: schedule) }
            }
            return (start, away ? .peerAway : .heard)
        }
        if start < knownAt { return (start, .unknownPeer) }
        let slot = schedule.slot.nanoseconds
        let sequence = slot * Int64(schedule.slotsPerSequence)
        let together = sequence - slot * Int64(schedule.awaySlots)
        for _ in 0..<256 {
            if isActive(at: start) {
                let sinceStart = Self.floorModulo(start - phase, sequence)
                if sinceStart < together { break }
                start += sequence - sinceStart
                continue
            }
            let slotStart = nextPresence(in: schedule.sharedSlots, at: start, schedule: schedule)
            // The active sequence may begin before that slot.
            if activeFrom > start, activeFrom < slotStart, activeFrom < activeUntil {
                start = activeFrom
                continue
            }
            start = slotStart
            if let back = excursionEnd(of: senderIsLow ? 0 : 1, at: start, schedule: schedule) {
                start = back
                continue
            }
            break
        }
        if !isActive(at: start), excursionEnd(of: senderIsLow ? 1 : 0, at: start, schedule: schedule) != nil {
            return (start, .peerAway)
        }
        if !isActive(at: start) { extend(at: start, schedule: schedule) }
        let until = start + schedule.idleAfter.nanoseconds
        if start < activeUntil {
            activeUntil = max(activeUntil, until)
        } else {
            // The new sequence travels in the next sync frame.
            activeFrom = nextSyncFrame(atOrAfter: start, schedule: schedule)
            activeUntil = until
        }
        return (start, .heard)
    }

    // MARK: Cold start

    /// Switches AWDL on at `time` (nothing if it is on): up after the
    /// activation, synchronised at the first sync frame the peer sends in
    /// the committed presence of a shared slot, known to the peer from the
    /// middle of the next shared slot's presence (where the device's own
    /// frames reach it).
    mutating func switchOn(at time: Int64, schedule: PeerToPeerSchedule) {
        guard syncedAt == .max else { return }
        let up = time + schedule.activation.nanoseconds
        let slot = schedule.slot.nanoseconds
        let frame = nextHeardSyncFrame(atOrAfter: up, schedule: schedule)
        syncedAt = frame
        let present = schedule.idlePresence.nanoseconds
        let slotStart = phase + Self.floorDivide(frame - phase, slot) * slot
        if slotStart + present / 2 >= frame {
            knownAt = slotStart + present / 2
        } else {
            knownAt = Self.nextSlot(in: schedule.sharedSlots, at: slotStart + slot, phase: phase, schedule: schedule)
                + present / 2
        }
    }

    // MARK: The schedule's pieces

    /// The first sync frame at or after `time`.
    @inline(__always)
    func nextSyncFrame(atOrAfter time: Int64, schedule: PeerToPeerSchedule) -> Int64 {
        let interval = schedule.syncInterval.nanoseconds
        let since = Self.floorModulo(time - syncPhase, interval)
        return since == 0 ? time : time + (interval - since)
    }

    /// The first sync frame at or after `time` sent in the committed
    /// presence of a shared slot (the only ones a device that has just come
    /// up hears).
    ///
    /// - Complexity: O(k) for k sync frames skipped (at most 1,024).
    func nextHeardSyncFrame(atOrAfter time: Int64, schedule: PeerToPeerSchedule) -> Int64 {
        let slot = schedule.slot.nanoseconds
        var frame = nextSyncFrame(atOrAfter: time, schedule: schedule)
        for _ in 0..<1_024 {
            let index = Self.floorDivide(frame - phase, slot)
            let position = Int(Self.floorModulo(index, Int64(schedule.slotsPerSequence)))
            if schedule.sharedSlots.contains(position),
                frame - (phase + index * slot) < schedule.idlePresence.nanoseconds
            {
                break
            }
            frame += schedule.syncInterval.nanoseconds
        }
        return frame
    }

    /// The first instant at or after `time` at which an idle pair is on the
    /// channel in a slot of `slots`: inside the slot's committed presence,
    /// or anywhere in a slot extended by a heard frame; otherwise the start
    /// of the next slot of `slots`.
    @inline(__always)
    func nextPresence(in slots: PeerToPeerSchedule.Slots, at time: Int64, schedule: PeerToPeerSchedule) -> Int64 {
        let start = Self.nextSlot(in: slots, at: time, phase: phase, schedule: schedule)
        guard start == time else { return start }
        let slot = schedule.slot.nanoseconds
        let slotStart = phase + Self.floorDivide(time - phase, slot) * slot
        if time - slotStart < schedule.idlePresence.nanoseconds || slotStart == extendedSlot { return time }
        return Self.nextSlot(in: slots, at: slotStart + slot, phase: phase, schedule: schedule)
    }

    /// A frame was heard at `time` while idle: the pair stays on the
    /// channel for the rest of that slot.
    @inline(__always)
    mutating func extend(at time: Int64, schedule: PeerToPeerSchedule) {
        let slot = schedule.slot.nanoseconds
        extendedSlot = phase + Self.floorDivide(time - phase, slot) * slot
    }

    /// The first instant at or after `time` at which the pair is on its
    /// infrastructure channel: `time` itself unless AWDL is synchronised
    /// by then and the slot is one of `schedule`'s infrastructure absences.
    @inline(__always)
    func infrastructurePresence(at time: Int64, schedule: PeerToPeerSchedule) -> Int64 {
        guard time >= syncedAt, schedule.infrastructureAbsences > 0 else { return time }
        let absent = schedule.infrastructureAbsentSlots
        let slot = schedule.slot.nanoseconds
        let count = Int64(schedule.slotsPerSequence)
        var index = Self.floorDivide(time - phase, slot)
        guard absent.contains(Int(Self.floorModulo(index, count))) else { return time }
        // Fewer absences than slots (validated): a present slot comes
        // within one sequence.
        repeat { index += 1 } while absent.contains(Int(Self.floorModulo(index, count)))
        return phase + index * slot
    }

    /// The first instant at or after `time` inside a slot of `slots`.
    @inline(__always)
    static func nextSlot(
        in slots: PeerToPeerSchedule.Slots, at time: Int64, phase: Int64, schedule: PeerToPeerSchedule
    ) -> Int64 {
        let slot = schedule.slot.nanoseconds
        let count = schedule.slotsPerSequence
        let index = floorDivide(time - phase, slot)
        let position = Int(floorModulo(index, Int64(count)))
        if slots.contains(position) { return time }
        let higher = position + 1 < 64 ? slots.mask >> UInt64(position + 1) : 0
        let ahead = higher != 0
            ? higher.trailingZeroBitCount + 1 : count - position + slots.mask.trailingZeroBitCount
        return phase + (index + Int64(ahead)) * slot
    }

    /// If device `device` of the pair (0: the lower index) is away on an
    /// excursion at `time`, the instant it is back.
    ///
    /// Each device has one excursion in every interval of its own phase,
    /// starting at a uniform point of it and lasting a uniform half to one
    /// and a half times the mean: a pure function of the pair's seed.
    func excursionEnd(of device: Int, at time: Int64, schedule: PeerToPeerSchedule) -> Int64? {
        let mean = schedule.excursionDuration.nanoseconds
        guard mean > 0 else { return nil }
        let interval = schedule.excursionInterval.nanoseconds
        let deviceSeed = device == 0 ? excursionSeeds.0 : excursionSeeds.1
        let devicePhase = Int64(deviceSeed % UInt64(interval))
        let current = Self.floorDivide(time - devicePhase, interval)
        var back: Int64?
        for step in 0..<2 {
            let epoch = current - 1 + Int64(step)
            let draw = Self.mix(deviceSeed &+ UInt64(bitPattern: epoch) &* 0x9E37_79B9_7F4A_7C15)
            let offset = Int64(UInt64(interval).multipliedFullWidth(by: draw).high)
            let length = mean / 2 + Int64(UInt64(mean).multipliedFullWidth(by: Self.mix(draw)).high)
            let start = devicePhase + epoch * interval + offset
            if time >= start, time < start + length { back = max(back ?? .min, start + length) }
        }
        return back
    }

    /// The two devices' excursion seeds of a pair whose seed is `seed`.
    static func excursionSeeds(of seed: UInt64) -> (UInt64, UInt64) {
        (mix(seed &+ 1 &* 0xD1B5_4A32_D192_ED03), mix(seed &+ 2 &* 0xD1B5_4A32_D192_ED03))
    }

    /// SplitMix64's finaliser.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
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
