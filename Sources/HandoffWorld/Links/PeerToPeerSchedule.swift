import SimKernel

/// When a Wi-Fi peer-to-peer (AWDL) link can carry frames: the two devices
/// meet on a common channel only in the slots their channel sequences
/// share.
///
/// AWDL divides time into slots of 64 TU (extended availability windows
/// of four 16-TU windows) and repeats a sequence of 16 slots (about
/// 1.05 s). A device with nothing to send follows its idle sequence: on
/// channel 149 in slots 0, 9 and 10 and on channel 6 in slot 8, and on its
/// infrastructure channel in the others. Multicast frames (mDNS included)
/// go out only in slots 0 and 10. Sync frames go out every 110 TU (a
/// master; a slave every 440 TU), and a device sends unicast frames only to
/// peers it has heard (seemoo-lab/owl `channel.c` awdl_chanseq_init_idle,
/// `schedule.c`, `state.c`, `core.c`). The model:
///
/// - **Idle** (no unicast frame for ``idleAfter``): a unicast frame waits
///   for the next slot of ``sharedSlots``, a multicast frame for the next
///   of ``multicastSlots``. A slot is four availability windows of 16 TU;
///   an idle device commits to the first ones (``idlePresence``) and stays
///   on the channel for the rest of the slot only when the pair has traffic
///   in it, so a frame offered later in a slot that has carried none waits
///   for the next slot. Each device of the pair also leaves the channel
///   now and then for longer than a slot (a background scan, the
///   infrastructure network's traffic): one excursion in every
///   ``excursionInterval``, at a random point of it, lasting from half to
///   one and a half times ``excursionDuration``. A device does not send
///   while it is away, so its frame waits for a shared slot after it is
///   back; a frame sent while the *peer* is away is lost (the sender cannot
///   know; 802.11's retries end long before the excursion), and the
///   sender's own retry (an mDNS query after 1 s, a SYN after its timeout)
///   tries again. Which is where the ping spikes of 200–800 ms every 1–5 s
///   reported over `awdl0` come from.
/// - **Active**: a unicast frame that is heard makes the pair switch to a
///   sequence with AWDL in every slot but ``awaySlots`` at the end of each
///   sequence; the new sequence travels in the next sync frame, so it holds
///   from the next multiple of ``syncInterval`` until ``idleAfter`` after
///   the last unicast frame. Excursions wait while the pair is active.
///   Multicast frames still wait for a multicast slot.
/// - **Cold start** (``start`` is ``Start/cold``): AWDL is off until the
///   first frame is offered or ``World/enablePeerToPeer(between:and:at:)``
///   switches it on (a peer-to-peer Bonjour browse). It is up after
///   ``activation``, then hears the peer's first sync frame sent in a
///   shared slot (every ``syncInterval``) and synchronises; the peer hears
///   the device in the middle of the next shared slot, or earlier if it
///   hears one of its multicast frames. Multicast frames wait for the
///   synchronisation; unicast frames offered before the peer has heard the
///   device are dropped.
///
/// - **The Wi-Fi network while AWDL is up**: one radio serves both, so
///   while AWDL is on (from the pair's synchronisation) each device is off
///   its infrastructure channel for ``infrastructureAbsences`` slots of
///   each sequence, spread evenly from slot 0 (the pair's sequences are
///   synchronised, so both are away in the same slots). A frame between
///   the two over their Wi-Fi network waits while the pair is away; one
///   that reaches the access point meanwhile is held there until the
///   receiver is back (802.11 power save).
///
/// A frame goes out whole once it may start. Both directions of a pair
/// share the schedule: the phases and the excursions are pure functions of
/// the pair's seed, and the pair's state (synchronised, active) is the same
/// both ways.
///
/// ```swift
/// var awdl = PeerToPeerSchedule(start: .warm)   // up, as when AirDrop browses
/// awdl.excursionDuration = .zero                // no excursions
/// ```
public struct PeerToPeerSchedule: Hashable, Sendable {
    /// Whether AWDL is already up and synchronised when a trial starts.
    public enum Start: String, Hashable, Sendable, CaseIterable {
        /// Up and synchronised with the peer from the start (AirDrop or
        /// another peer-to-peer service is browsing).
        case warm
        /// Off until a peer-to-peer browse (or the first frame) switches it
        /// on.
        case cold
    }

    /// A set of slot numbers within a sequence, as a bit mask.
    public struct Slots: Hashable, Sendable {
        /// Bit `n` set: slot `n` is in the set.
        public var mask: UInt64

        /// The set of `slots` (each from 0 to 63; others are left out).
        public init(_ slots: [Int]) {
            mask = 0
            for slot in slots where (0..<64).contains(slot) { mask |= 1 << UInt64(slot) }
        }

        /// The slots, in increasing order.
        public var slots: [Int] { (0..<64).filter { mask & (1 << UInt64($0)) != 0 } }

        /// Whether `slot` is in the set.
        @inline(__always)
        public func contains(_ slot: Int) -> Bool { slot >= 0 && slot < 64 && mask & (1 << UInt64(slot)) != 0 }
    }

    /// One slot of the channel sequence (64 TU = 65.536 ms).
    public var slot: SimDuration
    /// Slots per channel sequence (16).
    public var slotsPerSequence: Int
    /// The slots in which both devices of an idle pair are on the same
    /// AWDL channel (0, 8, 9, 10).
    public var sharedSlots: Slots
    /// The slots in which multicast frames go out (0 and 10); a subset of
    /// ``sharedSlots``.
    public var multicastSlots: Slots
    /// How long from the start of each shared slot an idle device is sure
    /// to be on the AWDL channel (its committed availability windows of
    /// 16 TU each; 48 TU); it stays for the rest of the slot only once a
    /// frame of the pair has been heard in it. The whole ``slot`` is no
    /// restriction.
    public var idlePresence: SimDuration
    /// The interval of the synchronising device's sync frames (110 TU).
    public var syncInterval: SimDuration
    /// Whether AWDL starts warm or cold.
    public var start: Start
    /// How long AWDL takes to come up once switched on.
    public var activation: SimDuration
    /// The mean time between one device's excursions from the channel (each
    /// device has one excursion in every interval).
    public var excursionInterval: SimDuration
    /// The mean length of an excursion (each is drawn uniformly from half
    /// to one and a half times this); zero for none.
    public var excursionDuration: SimDuration
    /// Slots per sequence an active pair spends apart, at the end of the
    /// sequence.
    public var awaySlots: Int
    /// How long after the last unicast frame the pair falls back to idle.
    public var idleAfter: SimDuration
    /// How many slots of each sequence a device with AWDL up spends off its
    /// infrastructure (Wi-Fi network) channel, spread evenly from slot 0
    /// (2: slots 0 and 8); 0 for none.
    public var infrastructureAbsences: Int

    /// A schedule; the defaults are HandoffSim's AWDL (see the defaults
    /// table for which are sourced, fitted and assumed).
    public init(
        slot: SimDuration = .nanoseconds(65_536_000), slotsPerSequence: Int = 16,
        sharedSlots: Slots = Slots([0, 8, 9, 10]), multicastSlots: Slots = Slots([0, 10]),
        idlePresence: SimDuration = .nanoseconds(49_152_000),
        syncInterval: SimDuration = .nanoseconds(112_640_000), start: Start = .cold,
        activation: SimDuration = .milliseconds(50), excursionInterval: SimDuration = .milliseconds(1_300),
        excursionDuration: SimDuration = .milliseconds(81), awaySlots: Int = 0, idleAfter: SimDuration = .seconds(1),
        infrastructureAbsences: Int = 2
    ) {
        self.infrastructureAbsences = infrastructureAbsences
        self.slot = slot
        self.slotsPerSequence = slotsPerSequence
        self.sharedSlots = sharedSlots
        self.multicastSlots = multicastSlots
        self.idlePresence = idlePresence
        self.syncInterval = syncInterval
        self.start = start
        self.activation = activation
        self.excursionInterval = excursionInterval
        self.excursionDuration = excursionDuration
        self.awaySlots = awaySlots
        self.idleAfter = idleAfter
    }

    /// The slots of each sequence a device with AWDL up is off its
    /// infrastructure channel: ``infrastructureAbsences`` of them, slot
    /// ⌊i · slotsPerSequence / n⌋ for i from 0 to n − 1.
    public var infrastructureAbsentSlots: Slots {
        // Built bit by bit: a frame over the Wi-Fi network asks for it, so
        // it allocates nothing.
        var slots = Slots([])
        let count = infrastructureAbsences
        guard count > 0, count < slotsPerSequence else { return slots }
        for index in 0..<count { slots.mask |= 1 << UInt64(index * slotsPerSequence / count) }
        return slots
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
        let all: UInt64 = slotsPerSequence == 64 ? ~0 : (1 << UInt64(slotsPerSequence)) - 1
        guard sharedSlots.mask != 0, sharedSlots.mask & ~all == 0 else {
            throw .invalidParameter(
                name: "schedule.sharedSlots", value: "\(sharedSlots.slots)",
                expected: "at least one slot number, each from 0 to \(slotsPerSequence - 1)")
        }
        guard multicastSlots.mask != 0, multicastSlots.mask & ~sharedSlots.mask == 0 else {
            throw .invalidParameter(
                name: "schedule.multicastSlots", value: "\(multicastSlots.slots)",
                expected: "at least one slot number, each one of the shared slots \(sharedSlots.slots)")
        }
        guard idlePresence > .zero, idlePresence <= slot else {
            throw .invalidParameter(
                name: "schedule.idlePresence", value: "\(idlePresence)",
                expected: "a duration above 0 and at most the slot (\(slot))")
        }
        guard syncInterval >= .milliseconds(1), syncInterval <= .seconds(10) else {
            throw .invalidParameter(
                name: "schedule.syncInterval", value: "\(syncInterval)", expected: "a duration from 1ms to 10s")
        }
        guard activation >= .zero, activation <= .seconds(10) else {
            throw .invalidParameter(
                name: "schedule.activation", value: "\(activation)", expected: "a duration from 0 to 10s")
        }
        guard excursionInterval >= .milliseconds(100), excursionInterval <= .seconds(60) else {
            throw .invalidParameter(
                name: "schedule.excursionInterval", value: "\(excursionInterval)",
                expected: "a duration from 100ms to 1m")
        }
        guard excursionDuration >= .zero,
            excursionDuration.nanoseconds <= excursionInterval.nanoseconds / 3 * 2
        else {
            throw .invalidParameter(
                name: "schedule.excursionDuration", value: "\(excursionDuration)",
                expected: "a duration from 0 to two thirds of the excursion interval (\(excursionInterval))")
        }
        guard (0..<slotsPerSequence).contains(awaySlots) else {
            throw .invalidParameter(
                name: "schedule.awaySlots", value: "\(awaySlots)",
                expected: "a count from 0 to \(slotsPerSequence - 1) (fewer than the slots per sequence)")
        }
        guard (0..<slotsPerSequence).contains(infrastructureAbsences) else {
            throw .invalidParameter(
                name: "schedule.infrastructureAbsences", value: "\(infrastructureAbsences)",
                expected: "a count from 0 to \(slotsPerSequence - 1) (fewer than the slots per sequence)")
        }
        guard idleAfter >= .zero, idleAfter <= .seconds(60) else {
            throw .invalidParameter(name: "schedule.idleAfter", value: "\(idleAfter)", expected: "a duration from 0 to 1m")
        }
    }
}
