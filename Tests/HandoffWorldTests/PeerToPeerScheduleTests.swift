@testable import HandoffWorld
import SimKernel
import Testing

// AWDL's schedule on the peer-to-peer link: the source of its latency.
// Facts (seemoo-lab/owl): 64-TU slots in 16-slot sequences (sync.c,
// channel.h); the idle sequence shares slots 0, 8, 9, 10 (channel.c
// awdl_chanseq_init_idle); multicast only in slots 0 and 10 (schedule.c);
// a master's sync frames every 110 TU (state.c); unicast to a peer not yet
// known is dropped (daemon/core.c). A slot is four availability windows
// of 16 TU whose committed and extended lengths a device announces
// (sync.c, frame.h); how much of an idle slot an Apple device commits to
// is an assumption (idlePresence, 48 TU, chosen by the fit to the
// PrivateDrop runs over AWDL).

private let millisecond: Int64 = 1_000_000
private let slot: Int64 = 65_536_000
private let sequence: Int64 = 16 * slot

@Suite("AWDL schedule (PeerToPeerSchedule)")
struct PeerToPeerScheduleTests {
    /// Warm, no excursions, present for the whole of each shared slot: the
    /// bare slot structure.
    static let schedule = PeerToPeerSchedule(
        idlePresence: .nanoseconds(slot), start: .warm, excursionDuration: .zero, awaySlots: 1, idleAfter: .seconds(1))
    /// The same with the default presence: the first 48 TU of each slot.
    static let committed = PeerToPeerSchedule(start: .warm, excursionDuration: .zero, awaySlots: 1, idleAfter: .seconds(1))
    static let presence: Int64 = 49_152_000

    static func clock(phase: Int64, seed: UInt64 = 0, senderIsLow: Bool = true) -> ScheduleClock {
        var clock = ScheduleClock()
        clock.phase = phase
        clock.seed = seed
        clock.senderIsLow = senderIsLow
        return clock
    }

    /// The start of the first slot of `slots` at or after `time`, by
    /// walking the slots one by one (the reference for the bit arithmetic).
    static func walk(to slots: Set<Int>, from time: Int64, phase: Int64) -> Int64 {
        var index = ScheduleClock.floorDivide(time - phase, slot)
        if slots.contains(Int(ScheduleClock.floorModulo(index, 16))) { return time }
        while true {
            index += 1
            if slots.contains(Int(ScheduleClock.floorModulo(index, 16))) { return phase + index * slot }
        }
    }

    @Test("idle: a unicast frame at any point of the sequence waits for the next shared slot (0, 8, 9, 10)")
    func unicastWaitsForASharedSlot() {
        let phase = 7 * millisecond
        for step in 0..<200 {
            var clock = Self.clock(phase: phase)
            let time = -sequence + Int64(step) * 10 * millisecond + 3
            let departure = clock.departure(at: time, multicast: false, schedule: Self.schedule)
            #expect(departure.start == Self.walk(to: [0, 8, 9, 10], from: time, phase: phase), "at \(time)")
            #expect(departure.fate == .heard)
        }
        // Worst case: just after slot 0 ends, the wait is slots 1–7.
        var clock = Self.clock(phase: 0)
        #expect(clock.departure(at: slot, multicast: false, schedule: Self.schedule).start == 8 * slot)
        var late = Self.clock(phase: 0)
        #expect(late.departure(at: 11 * slot, multicast: false, schedule: Self.schedule).start == sequence)
    }

    /// Where an idle pair with nothing heard yet can first meet at or after
    /// `time`: inside the first `presence` of a slot of `slots`, else at the
    /// start of the next one (the reference, walking slot by slot).
    static func walkPresence(to slots: Set<Int>, from time: Int64, phase: Int64) -> Int64 {
        let index = ScheduleClock.floorDivide(time - phase, slot)
        if slots.contains(Int(ScheduleClock.floorModulo(index, 16))), time - (phase + index * slot) < presence {
            return time
        }
        return walk(to: slots, from: phase + (index + 1) * slot, phase: phase)
    }

    // Assumption (idlePresence): an idle device is on the channel for the
    // first 48 TU of a shared slot, and for the rest of it only once a frame
    // of the pair is heard in it.
    @Test("idle presence: past the first 48 TU of a shared slot with no traffic, a frame waits for the next shared slot")
    func committedPresence() {
        let phase = 11 * millisecond
        var late = 0
        for step in 0..<420 {
            let time = Int64(step) * 2_500_000 + 7
            var clock = Self.clock(phase: phase)
            let unicast = clock.departure(at: time, multicast: false, schedule: Self.committed)
            #expect(unicast.start == Self.walkPresence(to: [0, 8, 9, 10], from: time, phase: phase), "at \(time)")
            if unicast.start != Self.walk(to: [0, 8, 9, 10], from: time, phase: phase) { late += 1 }
            var query = Self.clock(phase: phase)
            let multicast = query.departure(at: time, multicast: true, schedule: Self.committed)
            #expect(multicast.start == Self.walkPresence(to: [0, 10], from: time, phase: phase), "at \(time)")
        }
        // The check can fail: some offers fall in the uncommitted 16 TU of a
        // shared slot (4 × 16.4 ms of the 1,049 ms sweep: about 26 of 420).
        #expect(late > 15)
    }

    @Test("idle presence: a heard frame keeps the pair on the channel for the rest of that slot, and only that slot")
    func trafficExtendsTheSlot() {
        var clock = Self.clock(phase: 0)
        // The next sync frame (which starts the active sequence) falls after
        // slot 8, so the pair is still idle for the rest of it.
        clock.syncPhase = 70 * millisecond
        let first = clock.departure(at: 8 * slot + 5 * millisecond, multicast: false, schedule: Self.committed)
        #expect(first.start == 8 * slot + 5 * millisecond)
        #expect(clock.activeFrom > 9 * slot)
        #expect(clock.extendedSlot == 8 * slot)
        var extended = clock
        let later = 8 * slot + 60 * millisecond
        #expect(extended.departure(at: later, multicast: false, schedule: Self.committed).start == later)
        // Without the first frame the same offer waits for slot 9.
        var fresh = Self.clock(phase: 0)
        fresh.syncPhase = 70 * millisecond
        #expect(fresh.departure(at: later, multicast: false, schedule: Self.committed).start == 9 * slot)
    }

    @Test("multicast frames (mDNS) wait for slot 0 or 10, active or not, and do not make the pair active")
    func multicastWaitsForItsSlots() {
        let phase = 21 * millisecond
        for step in 0..<110 {
            let time = Int64(step) * 10 * millisecond
            var clock = Self.clock(phase: phase)
            let departure = clock.departure(at: time, multicast: true, schedule: Self.schedule)
            #expect(departure.start == Self.walk(to: [0, 10], from: time, phase: phase), "at \(time)")
            #expect(clock.activeUntil == 0)
            var active = Self.clock(phase: phase)
            active.activeFrom = 0
            active.activeUntil = 10 * sequence
            #expect(active.departure(at: time, multicast: true, schedule: Self.schedule).start == departure.start)
        }
    }

    @Test("a heard unicast frame makes the pair active from the next sync frame: then at once but in the away slot")
    func activeFromTheNextSyncFrame() {
        var clock = Self.clock(phase: 0)
        clock.syncPhase = 30 * millisecond
        // Slot 0 at time 0: goes at once; the sync frames fall at 30 ms, 142.64 ms, …
        let first = clock.departure(at: 0, multicast: false, schedule: Self.schedule)
        #expect(first.start == 0)
        #expect(clock.activeFrom == 30 * millisecond)
        #expect(clock.activeUntil == 1_000 * millisecond)
        // In slot 3 (not shared) the pair is active now: at once.
        #expect(clock.departure(at: 3 * slot, multicast: false, schedule: Self.schedule).start == 3 * slot)
        // The away slot (15) waits for the next sequence.
        #expect(clock.departure(at: 15 * slot + 1, multicast: false, schedule: Self.schedule).start == sequence)
        // Before the sync frame, still the idle sequence: a frame just
        // after slot 0 (not shared) waits for the sync frame that starts
        // the active sequence, not for slot 8.
        var pending = Self.clock(phase: 0)
        pending.syncPhase = 100 * millisecond
        #expect(pending.departure(at: 60 * millisecond, multicast: false, schedule: Self.schedule).start == 60 * millisecond)
        #expect(pending.activeFrom == 100 * millisecond)
        #expect(pending.departure(at: 70 * millisecond, multicast: false, schedule: Self.schedule).start == 100 * millisecond)
    }

    @Test("excursions: a frame waits while its sender is away, and is lost while the peer is; both directions agree")
    func excursions() {
        var schedule = Self.schedule
        schedule.excursionInterval = .seconds(2)
        schedule.excursionDuration = .milliseconds(600)
        let forward = Self.clock(phase: 0, seed: 99, senderIsLow: true)
        let backward = Self.clock(phase: 0, seed: 99, senderIsLow: false)
        var awayA = 0
        var awayB = 0
        let samples = 20_000
        for step in 0..<samples {
            let time = Int64(step) * 10 * millisecond
            let a = forward.excursionEnd(of: 0, at: time, schedule: schedule)
            let b = forward.excursionEnd(of: 1, at: time, schedule: schedule)
            // The reverse direction sees the same excursions.
            #expect(backward.excursionEnd(of: 0, at: time, schedule: schedule) == a)
            #expect(backward.excursionEnd(of: 1, at: time, schedule: schedule) == b)
            if let a { awayA += 1; #expect(a > time && a <= time + 900 * millisecond) }
            if b != nil { awayB += 1 }
            var sending = forward
            let departure = sending.departure(at: time, multicast: false, schedule: schedule)
            // Never starts while the sender is away, and is lost exactly
            // when the peer is away then.
            #expect(forward.excursionEnd(of: 0, at: departure.start, schedule: schedule) == nil)
            let peerAway = forward.excursionEnd(of: 1, at: departure.start, schedule: schedule) != nil
            #expect((departure.fate == .peerAway) == peerAway)
            if a != nil { #expect(departure.start >= a!) }
        }
        // Each device is away 600/2000 = 30% of the time; 200 s of samples
        // hold about 100 excursions each, so the share is 0.30 ± 0.05 (about
        // three standard deviations of 100 lengths uniform in 300–900 ms).
        #expect(abs(Double(awayA) / Double(samples) - 0.3) < 0.05)
        #expect(abs(Double(awayB) / Double(samples) - 0.3) < 0.05)
        #expect(awayA != awayB)
    }

    @Test("cold: switched on, up after the activation, synchronised at a sync frame in a shared slot, known mid-slot")
    func coldStart() {
        var schedule = Self.schedule
        schedule.start = .cold
        for step in 0..<64 {
            var clock = Self.clock(phase: 13 * millisecond)
            clock.syncPhase = Int64(step) * 1_700_000
            clock.syncedAt = .max
            clock.knownAt = .max
            let switched = Int64(step) * 37 * millisecond
            clock.switchOn(at: switched, schedule: schedule)
            let up = switched + schedule.activation.nanoseconds
            // The first sync frame after coming up that falls in a shared slot.
            var frame = clock.nextSyncFrame(atOrAfter: up, schedule: schedule)
            while Self.walk(to: [0, 8, 9, 10], from: frame, phase: 13 * millisecond) != frame {
                frame += schedule.syncInterval.nanoseconds
            }
            #expect(clock.syncedAt == frame)
            #expect(clock.knownAt >= clock.syncedAt)
            #expect(clock.knownAt - clock.syncedAt <= 9 * slot)
            #expect(ScheduleClock.floorModulo(clock.knownAt - 13 * millisecond, slot) == slot / 2)
            // A unicast frame before the peer knows the device is dropped;
            // one after it goes; a multicast frame waits for the sync.
            var early = clock
            #expect(early.departure(at: clock.knownAt - 1, multicast: false, schedule: schedule).fate == .unknownPeer)
            var later = clock
            #expect(later.departure(at: clock.knownAt, multicast: false, schedule: schedule).fate == .heard)
            var query = clock
            let multicast = query.departure(at: switched, multicast: true, schedule: schedule)
            #expect(multicast.start == Self.walk(to: [0, 10], from: clock.syncedAt, phase: 13 * millisecond))
        }
    }

    @Test("cold with the committed presence: the sync frame heard falls in it, and the peer knows the device mid-way")
    func coldStartWithPresence() {
        var schedule = Self.committed
        schedule.start = .cold
        for step in 0..<64 {
            var clock = Self.clock(phase: 13 * millisecond)
            clock.syncPhase = Int64(step) * 1_700_000
            clock.syncedAt = .max
            clock.knownAt = .max
            clock.switchOn(at: Int64(step) * 37 * millisecond, schedule: schedule)
            let offset = ScheduleClock.floorModulo(clock.syncedAt - 13 * millisecond, slot)
            #expect(offset < Self.presence)
            #expect(Self.walk(to: [0, 8, 9, 10], from: clock.syncedAt, phase: 13 * millisecond) == clock.syncedAt)
            #expect(ScheduleClock.floorModulo(clock.knownAt - 13 * millisecond, slot) == Self.presence / 2)
        }
    }

    @Test("on a world's link: cold, the first unicast frame is dropped; warm, it waits only for a shared slot; the state is the pair's")
    func warmAndCold() throws {
        let cold = LinkParameters(latency: .milliseconds(2), schedule: PeerToPeerSchedule(start: .cold, excursionDuration: .zero))
        var world = try makeWorld(wifi: cold)
        let forward = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        let backward = world.link(.wifiPeerToPeer(from: DeviceID(1), to: DeviceID(0)))
        let onBefore = world.isPeerToPeerOn(between: DeviceID(0), and: DeviceID(1))
        #expect(!onBefore)
        world.sendDatagram(on: forward, bytes: 100, tag: 1, at: .zero)
        #expect(world.statistics(of: forward).fragmentsDroppedUnknownPeer == 1)
        // The frame switched AWDL on for the pair, both ways.
        let onAfter = world.isPeerToPeerOn(between: DeviceID(1), and: DeviceID(0))
        #expect(onAfter)
        let known = world.links.table[forward.index].state.clock.knownAt
        #expect(world.links.table[backward.index].state.clock.knownAt == known)
        #expect(known >= 50 * millisecond)

        let warm = LinkParameters(
            latency: .milliseconds(2),
            schedule: PeerToPeerSchedule(idlePresence: .nanoseconds(slot), start: .warm, excursionDuration: .zero))
        var warmWorld = try makeWorld(wifi: warm)
        warmWorld.enablePeerToPeer(between: DeviceID(0), and: DeviceID(1), at: .zero)
        var simulation = Simulation(model: WorldSimulation(world: warmWorld))
        simulation.model.world.sendDatagram(on: forward, bytes: 100, tag: 1, at: .zero)
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()
        let arrival = try #require(simulation.model.log.first?.instant.nanosecondsSinceStart)
        let phase = simulation.model.world.links.table[forward.index].state.clock.phase
        #expect(arrival == Self.walk(to: [0, 8, 9, 10], from: 0, phase: phase) + 2 * millisecond)
        #expect(simulation.model.world.links.table[backward.index].state.clock.phase == phase)
        // The slot the frame was heard in stays open both ways.
        let extended = simulation.model.world.links.table[forward.index].state.clock.extendedSlot
        #expect(extended == phase + ScheduleClock.floorDivide(arrival - 2 * millisecond - phase, slot) * slot)
        #expect(simulation.model.world.links.table[backward.index].state.clock.extendedSlot == extended)
    }

    @Test("a schedule's values are bounded", arguments: [
        PeerToPeerSchedule(slot: .microseconds(10)),
        PeerToPeerSchedule(slotsPerSequence: 0),
        PeerToPeerSchedule(sharedSlots: .init([])),
        PeerToPeerSchedule(sharedSlots: .init([0, 16])),
        PeerToPeerSchedule(multicastSlots: .init([1])),
        PeerToPeerSchedule(idlePresence: .zero),
        PeerToPeerSchedule(idlePresence: .milliseconds(70)),
        PeerToPeerSchedule(syncInterval: .seconds(11)),
        PeerToPeerSchedule(activation: .seconds(11)),
        PeerToPeerSchedule(excursionInterval: .milliseconds(50)),
        PeerToPeerSchedule(excursionInterval: .seconds(1), excursionDuration: .milliseconds(700)),
        PeerToPeerSchedule(awaySlots: 16),
        PeerToPeerSchedule(idleAfter: .seconds(61)),
    ])
    func bounds(_ schedule: PeerToPeerSchedule) {
        #expect(throws: WorldError.self) { try schedule.validate() }
        #expect(throws: (any Error).self) { try LinkParameters(latency: .zero, schedule: schedule).validate() }
    }

    @Test("the default peer-to-peer link runs AWDL's idle sequence, cold; a wire has none")
    func defaults() throws {
        let schedule = try #require(LinkParameters.wifiPeerToPeer.schedule)
        #expect(schedule.sequence == .nanoseconds(16 * 65_536_000))
        #expect(schedule.sharedSlots.slots == [0, 8, 9, 10])
        #expect(schedule.multicastSlots.slots == [0, 10])
        #expect(schedule.syncInterval == .nanoseconds(112_640_000))
        #expect(schedule.idlePresence == .nanoseconds(Self.presence))
        #expect(schedule.start == .cold)
        try schedule.validate()
        #expect(LinkParameters(latency: .zero).schedule == nil)
    }
}
