@testable import HandoffWorld
import SimKernel
import Testing

// AWDL's schedule on the peer-to-peer link: the source of its latency.
// Schedule facts: 64-TU slots in a 16-slot sequence (Stute et al., MobiCom
// 2018; seemoo-lab/owl); an idle pair meets about twice a second.

private let millisecond: Int64 = 1_000_000

@Suite("AWDL schedule (PeerToPeerSchedule)")
struct PeerToPeerScheduleTests {
    static let schedule = PeerToPeerSchedule(
        idleInterval: .milliseconds(400), idleWindow: .milliseconds(80), missProbability: 0, wakeLossProbability: 0,
        awaySlots: 1, idleAfter: .seconds(1))

    static func clock(phase: Int64, seed: UInt64 = 0) -> ScheduleClock {
        var clock = ScheduleClock()
        clock.phase = phase
        clock.seed = seed
        return clock
    }

    @Test("idle: a frame inside a meeting goes at once; between meetings it waits for the next one")
    func idleWaitsForTheNextMeeting() {
        // Meetings of 80 ms every 400 ms from 30 ms (and before it: −370 ms, …).
        let clock = Self.clock(phase: 30 * millisecond)
        #expect(clock.availableStart(at: 30 * millisecond, schedule: Self.schedule) == 30 * millisecond)
        #expect(clock.availableStart(at: 109 * millisecond, schedule: Self.schedule) == 109 * millisecond)
        #expect(clock.availableStart(at: 110 * millisecond, schedule: Self.schedule) == 430 * millisecond)
        #expect(clock.availableStart(at: 0, schedule: Self.schedule) == 30 * millisecond)
        #expect(clock.availableStart(at: 429 * millisecond, schedule: Self.schedule) == 430 * millisecond)
        #expect(clock.availableStart(at: 500 * millisecond, schedule: Self.schedule) == 500 * millisecond)
    }

    @Test("a missed meeting sends the frame to the next one met; both directions agree which are missed")
    func missedMeetings() {
        var schedule = Self.schedule
        schedule.missProbability = 0.5
        let clock = Self.clock(phase: 0, seed: 42)
        let missed = (0..<64).map { clock.isMissed(Int64($0), schedule: schedule) }
        #expect(missed.contains(true) && missed.contains(false))
        let fraction = Double(missed.filter { $0 }.count) / 64
        #expect(fraction > 0.25 && fraction < 0.75)
        for meeting in 0..<63 {
            let time = Int64(meeting) * 400 * millisecond + 200 * millisecond  // between meetings
            let next = (meeting + 1..<200).first { !missed.indices.contains($0) || !missed[$0] }!
            #expect(clock.availableStart(at: time, schedule: schedule) == Int64(next) * 400 * millisecond)
        }
        // The same seed gives the same meetings: what the reverse link uses.
        let reverse = Self.clock(phase: 0, seed: 42)
        #expect((0..<64).map { reverse.isMissed(Int64($0), schedule: schedule) } == missed)
    }

    @Test("active: at once, except in the away slot at the end of every sequence")
    func activeAwaySlot() {
        var clock = Self.clock(phase: 10 * millisecond)
        clock.activeUntil = 5_000 * millisecond
        let slot: Int64 = 65_536_000
        let sequence = 16 * slot
        let away = 10 * millisecond + 15 * slot
        #expect(clock.availableStart(at: away - 1, schedule: Self.schedule) == away - 1)
        #expect(clock.availableStart(at: away, schedule: Self.schedule) == 10 * millisecond + sequence)
        #expect(clock.availableStart(at: away + slot / 2, schedule: Self.schedule) == 10 * millisecond + sequence)
        #expect(clock.availableStart(at: 10 * millisecond + sequence, schedule: Self.schedule) == 10 * millisecond + sequence)
    }

    @Test("on a world's link: the first frame waits for the pair's meeting, the reply goes at once, and both directions share the phase")
    func worldLink() throws {
        var link = LinkParameters(latency: .milliseconds(2), schedule: Self.schedule)
        link.queueLimit = 100
        var world = try makeWorld(wifi: link)
        let forward = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        let backward = world.link(.wifiPeerToPeer(from: DeviceID(1), to: DeviceID(0)))
        world.ensureLink(forward.index)
        world.ensureLink(backward.index)
        let phase = world.links[forward.index].state.clock.phase
        #expect(world.links[backward.index].state.clock.phase == phase)
        #expect(phase >= 0 && phase < 16 * 65_536_000)
        // A frame sent just after a meeting has ended waits for the next.
        let sent = phase + 100 * millisecond
        var simulation = Simulation(model: WorldSimulation(world: world))
        simulation.model.world.sendDatagram(on: forward, bytes: 100, tag: 1, at: SimInstant(nanosecondsSinceStart: sent))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()
        let first = try #require(simulation.model.log.first?.instant.nanosecondsSinceStart)
        #expect(first == phase + 400 * millisecond + 2 * millisecond)
        // The pair is now active both ways: a reply leaves at once.
        let reply = first + 50 * millisecond
        simulation.model.world.sendDatagram(on: backward, bytes: 100, tag: 2, at: SimInstant(nanosecondsSinceStart: reply))
        simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
        simulation.run()
        #expect(simulation.model.log.last?.instant.nanosecondsSinceStart == reply + 2 * millisecond)
    }

    @Test("the waking frame is lost with the wake-loss probability, and the pair stays idle")
    func wakeLoss() throws {
        var schedule = Self.schedule
        schedule.wakeLossProbability = 0.3
        var lost = 0
        let worlds = 400
        for seed in 1...UInt64(worlds) {
            var world = try makeWorld(wifi: LinkParameters(latency: .milliseconds(2), schedule: schedule), seed: seed)
            let forward = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
            world.sendDatagram(on: forward, bytes: 100, tag: 1, at: .zero)
            if world.statistics(of: forward).fragmentsLost == 1 {
                lost += 1
                #expect(world.links[forward.index].state.clock.activeUntil == 0)
            }
        }
        // 400 draws at p = 0.3: mean 120, standard deviation 9.2.
        #expect(abs(lost - 120) < 40)
    }

    @Test("a schedule's values are bounded", arguments: [
        PeerToPeerSchedule(slot: .microseconds(10)),
        PeerToPeerSchedule(slotsPerSequence: 0),
        PeerToPeerSchedule(idleInterval: .seconds(11)),
        PeerToPeerSchedule(idleInterval: .milliseconds(50), idleWindow: .milliseconds(80)),
        PeerToPeerSchedule(missProbability: 0.95),
        PeerToPeerSchedule(wakeLossProbability: -0.1),
        PeerToPeerSchedule(awaySlots: 16),
        PeerToPeerSchedule(idleAfter: .seconds(61)),
    ])
    func bounds(_ schedule: PeerToPeerSchedule) {
        #expect(throws: WorldError.self) { try schedule.validate() }
        #expect(throws: (any Error).self) { try LinkParameters(latency: .zero, schedule: schedule).validate() }
    }

    @Test("the default peer-to-peer link runs AWDL's schedule; a wire has none")
    func defaults() throws {
        let schedule = try #require(LinkParameters.wifiPeerToPeer.schedule)
        #expect(schedule.sequence == .nanoseconds(16 * 65_536_000))
        try schedule.validate()
        #expect(LinkParameters(latency: .zero).schedule == nil)
    }
}
