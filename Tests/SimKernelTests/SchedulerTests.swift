import Testing
@testable import SimKernel

/// A model that records which events ran and when, and can be told to
/// schedule, cancel or stop from inside a handler.
struct RecordingModel: SimulationModel {
    enum Event: Hashable {
        case mark(Int)
        case scheduleAfter(delay: Int64, mark: Int)
        case cancel(EventID)
        case stop(Int)
    }

    var log: [(time: Int64, mark: Int)] = []
    var marks: [Int] { log.map(\.mark) }

    mutating func handle(_ event: Event, scheduler: inout Scheduler<Event>) {
        switch event {
        case let .mark(mark):
            log.append((scheduler.now.nanosecondsSinceStart, mark))
        case let .scheduleAfter(delay, mark):
            log.append((scheduler.now.nanosecondsSinceStart, -1))
            scheduler.schedule(.mark(mark), after: .nanoseconds(delay))
        case let .cancel(id):
            log.append((scheduler.now.nanosecondsSinceStart, -2))
            scheduler.cancel(id)
        case let .stop(mark):
            log.append((scheduler.now.nanosecondsSinceStart, mark))
            scheduler.stop()
        }
    }
}

@Suite("Event queue and run loop")
struct SchedulerTests {
    @Test("events run in time order regardless of scheduling order")
    func ordersByTime() {
        var simulation = Simulation(model: RecordingModel())
        for (mark, time) in [(3, 30), (1, 10), (4, 40), (2, 20), (0, 0)] {
            simulation.scheduler.schedule(.mark(mark), at: SimInstant(nanosecondsSinceStart: Int64(time)))
        }
        let outcome0 = simulation.run()
        #expect(outcome0 == .idle)
        #expect(simulation.model.marks == [0, 1, 2, 3, 4])
        #expect(simulation.model.log.map(\.time) == [0, 10, 20, 30, 40])
        #expect(simulation.now == SimInstant(nanosecondsSinceStart: 40))
    }

    @Test("reset empties the queue and starts the clock and the sequence over, as a new simulation")
    func resetStartsOver() {
        var simulation = Simulation(model: RecordingModel())
        for mark in 0..<50 {
            simulation.scheduler.schedule(.mark(mark), at: SimInstant(nanosecondsSinceStart: Int64(mark % 7)))
        }
        let cancelled = simulation.scheduler.schedule(.mark(99), at: SimInstant(nanosecondsSinceStart: 3))
        simulation.scheduler.cancel(cancelled)
        simulation.run(maxEvents: 10)
        simulation.reset { $0.log.removeAll() }
        #expect(simulation.now == .zero)
        #expect(simulation.handledEventCount == 0)
        #expect(simulation.scheduler.nextEventTime() == nil)
        // The same schedule after a reset runs exactly as in a new simulation.
        var fresh = Simulation(model: RecordingModel())
        for mark in 0..<20 {
            let time = SimInstant(nanosecondsSinceStart: Int64((mark * 5) % 3))
            simulation.scheduler.schedule(.mark(mark), at: time)
            fresh.scheduler.schedule(.mark(mark), at: time)
        }
        simulation.run()
        fresh.run()
        #expect(simulation.model.marks == fresh.model.marks)
        #expect(simulation.handledEventCount == fresh.handledEventCount)
        simulation.reset(model: RecordingModel())
        #expect(simulation.model.marks.isEmpty && simulation.now == .zero)
    }

    @Test("events at the same instant run in the order they were scheduled (FIFO)")
    func breaksTiesByScheduleOrder() {
        var simulation = Simulation(model: RecordingModel())
        let instant = SimInstant(nanosecondsSinceStart: 5)
        for mark in 0..<200 {
            simulation.scheduler.schedule(.mark(mark), at: instant)
            // Interleave other times so the heap is reshuffled between ties.
            simulation.scheduler.schedule(.mark(1_000 + mark), at: SimInstant(nanosecondsSinceStart: Int64(200 - mark)))
        }
        simulation.run()
        let tied = simulation.model.log.filter { $0.time == 5 }.map(\.mark).filter { $0 < 1_000 }
        #expect(tied == Array(0..<200))
    }

    @Test("an event scheduled for now from inside a handler runs after the events already due now")
    func sameInstantFromHandlerRunsLast() {
        var simulation = Simulation(model: RecordingModel())
        simulation.scheduler.schedule(.scheduleAfter(delay: 0, mark: 99), at: .zero)
        simulation.scheduler.schedule(.mark(1), at: .zero)
        simulation.scheduler.schedule(.mark(2), at: .zero)
        simulation.run()
        #expect(simulation.model.marks == [-1, 1, 2, 99])
    }

    @Test("the order matches a reference sort over many random events", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func matchesReferenceSort(seed: UInt64) {
        var generator = Xoshiro256StarStar(seed: seed)
        var simulation = Simulation(model: RecordingModel())
        var expected: [(time: Int64, mark: Int)] = []
        for mark in 0..<3_000 {
            // Few distinct times, so ties are common.
            let time = Int64(generator.uniform(below: 50))
            simulation.scheduler.schedule(.mark(mark), at: SimInstant(nanosecondsSinceStart: time))
            expected.append((time, mark))
        }
        // A stable sort by time gives (time, schedule order).
        expected = expected.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        simulation.run()
        #expect(simulation.model.log.map(\.mark) == expected.map(\.mark))
        #expect(simulation.model.log.map(\.time) == expected.map(\.time))
    }

    @Test("a cancelled event never runs; cancel reports whether it was pending")
    func cancellation() {
        var simulation = Simulation(model: RecordingModel())
        let keep = simulation.scheduler.schedule(.mark(1), at: SimInstant(nanosecondsSinceStart: 10))
        let drop = simulation.scheduler.schedule(.mark(2), at: SimInstant(nanosecondsSinceStart: 20))
        simulation.scheduler.schedule(.mark(3), at: SimInstant(nanosecondsSinceStart: 30))
        #expect(simulation.scheduler.pendingCount == 3)
        let outcome1 = simulation.scheduler.cancel(drop)
        #expect(outcome1)
        let outcome2 = simulation.scheduler.cancel(drop)
        #expect(!outcome2, "cancelling twice reports false")
        #expect(simulation.scheduler.pendingCount == 2)
        simulation.run()
        #expect(simulation.model.marks == [1, 3])
        #expect(simulation.handledEventCount == 2)
        let outcome3 = simulation.scheduler.cancel(keep)
        #expect(!outcome3, "an event that already ran cannot be cancelled")
        #expect(simulation.scheduler.isEmpty)
    }

    @Test("a handler can cancel an event due at the same instant")
    func cancelFromHandlerAtSameInstant() {
        var simulation = Simulation(model: RecordingModel())
        let instant = SimInstant(nanosecondsSinceStart: 7)
        // Sequence numbers start at 0, so the second event scheduled is #1.
        // The cancel event is scheduled first, so it runs first and removes it.
        let victimID = EventID(time: instant, sequence: 1)
        simulation.scheduler.schedule(.cancel(victimID), at: instant)
        let victim = simulation.scheduler.schedule(.mark(5), at: instant)
        #expect(victim == victimID)
        simulation.run()
        #expect(simulation.model.marks == [-2])
        #expect(simulation.handledEventCount == 1)
    }

    @Test("cancelling an id this scheduler never issued does nothing")
    func cancelUnknownID() {
        var scheduler = Scheduler<Int>()
        scheduler.schedule(1, at: .zero)
        let outcome4 = scheduler.cancel(EventID(time: .zero, sequence: 17))
        #expect(!outcome4)
        #expect(scheduler.pendingCount == 1)
    }

    @Test("run(until:) runs events due at or before the limit and leaves the clock at the limit")
    func runUntil() {
        var simulation = Simulation(model: RecordingModel())
        for time in [10, 20, 30, 40] as [Int64] {
            simulation.scheduler.schedule(.mark(Int(time)), at: SimInstant(nanosecondsSinceStart: time))
        }
        let outcome5 = simulation.run(until: SimInstant(nanosecondsSinceStart: 25))
        #expect(outcome5 == .reachedTime)
        #expect(simulation.model.marks == [10, 20])
        #expect(simulation.now == SimInstant(nanosecondsSinceStart: 25))
        let outcome6 = simulation.run(until: SimInstant(nanosecondsSinceStart: 30))
        #expect(outcome6 == .reachedTime)
        #expect(simulation.model.marks == [10, 20, 30], "an event exactly at the limit runs")
        let outcome7 = simulation.run(until: SimInstant(nanosecondsSinceStart: 100))
        #expect(outcome7 == .reachedTime)
        #expect(simulation.model.marks == [10, 20, 30, 40])
        #expect(simulation.now == SimInstant(nanosecondsSinceStart: 100), "the clock reads the limit")
    }

    @Test("run(maxEvents:) handles exactly that many events, and a later run carries on")
    func runMaxEvents() {
        var simulation = Simulation(model: RecordingModel())
        for mark in 0..<10 {
            simulation.scheduler.schedule(.mark(mark), at: SimInstant(nanosecondsSinceStart: Int64(mark)))
        }
        let outcome8 = simulation.run(maxEvents: 4)
        #expect(outcome8 == .reachedEventLimit)
        #expect(simulation.model.marks == [0, 1, 2, 3])
        #expect(simulation.handledEventCount == 4)
        let outcome9 = simulation.run(maxEvents: 100)
        #expect(outcome9 == .idle)
        #expect(simulation.model.marks == Array(0..<10))
        #expect(simulation.handledEventCount == 10)
    }

    @Test("cancelled events do not count against the event limit")
    func cancelledEventsDoNotCount() {
        var simulation = Simulation(model: RecordingModel())
        var ids: [EventID] = []
        for mark in 0..<6 {
            ids.append(simulation.scheduler.schedule(.mark(mark), at: SimInstant(nanosecondsSinceStart: Int64(mark))))
        }
        simulation.scheduler.cancel(ids[0])
        simulation.scheduler.cancel(ids[1])
        let outcome10 = simulation.run(maxEvents: 2)
        #expect(outcome10 == .reachedEventLimit)
        #expect(simulation.model.marks == [2, 3])
    }

    @Test("stop() from inside a handler returns after that handler; the rest stays queued")
    func stopFromHandler() {
        var simulation = Simulation(model: RecordingModel())
        simulation.scheduler.schedule(.mark(1), at: SimInstant(nanosecondsSinceStart: 1))
        simulation.scheduler.schedule(.stop(2), at: SimInstant(nanosecondsSinceStart: 2))
        simulation.scheduler.schedule(.mark(3), at: SimInstant(nanosecondsSinceStart: 2))
        simulation.scheduler.schedule(.mark(4), at: SimInstant(nanosecondsSinceStart: 3))
        let outcome11 = simulation.run()
        #expect(outcome11 == .stopped)
        #expect(simulation.model.marks == [1, 2])
        #expect(simulation.now == SimInstant(nanosecondsSinceStart: 2))
        #expect(simulation.scheduler.pendingCount == 2)
        let outcome12 = simulation.run()
        #expect(outcome12 == .idle, "the stop request is consumed; the next run carries on")
        #expect(simulation.model.marks == [1, 2, 3, 4])
    }

    @Test("stop() takes precedence over the time limit")
    func stopBeatsTimeLimit() {
        var simulation = Simulation(model: RecordingModel())
        simulation.scheduler.schedule(.stop(1), at: SimInstant(nanosecondsSinceStart: 5))
        let outcome13 = simulation.run(until: SimInstant(nanosecondsSinceStart: 50))
        #expect(outcome13 == .stopped)
        #expect(simulation.now == SimInstant(nanosecondsSinceStart: 5))
    }

    @Test("step() runs exactly one event and reports whether one was pending")
    func singleStep() {
        var simulation = Simulation(model: RecordingModel())
        simulation.scheduler.schedule(.mark(1), at: SimInstant(nanosecondsSinceStart: 3))
        simulation.scheduler.schedule(.mark(2), at: SimInstant(nanosecondsSinceStart: 9))
        let outcome14 = simulation.step()
        #expect(outcome14)
        #expect(simulation.model.marks == [1])
        #expect(simulation.now == SimInstant(nanosecondsSinceStart: 3))
        let outcome15 = simulation.step()
        #expect(outcome15)
        let outcome16 = simulation.step()
        #expect(!outcome16)
        #expect(simulation.model.marks == [1, 2])
        #expect(simulation.handledEventCount == 2)
    }

    @Test("time never moves backwards over a long random run")
    func timeIsMonotonic() {
        struct Chain: SimulationModel {
            var generator = Xoshiro256StarStar(seed: 99)
            var last: Int64 = 0
            var violations = 0
            mutating func handle(_ event: Int, scheduler: inout Scheduler<Int>) {
                let now = scheduler.now.nanosecondsSinceStart
                if now < last { violations += 1 }
                last = now
                scheduler.schedule(event, after: .nanoseconds(Int64(generator.uniform(below: 1_000))))
            }
        }
        var simulation = Simulation(model: Chain())
        for lp in 0..<64 { simulation.scheduler.schedule(lp, at: .zero) }
        simulation.run(maxEvents: 50_000)
        #expect(simulation.model.violations == 0)
        #expect(simulation.handledEventCount == 50_000)
    }

    @Test("queue memory follows pending events, not events handled")
    func queueCapacityIsBoundedByPendingEvents() {
        struct Hold: SimulationModel {
            mutating func handle(_ event: Int, scheduler: inout Scheduler<Int>) {
                scheduler.schedule(event, after: .nanoseconds(Int64(1 + event % 7)))
            }
        }
        var simulation = Simulation(model: Hold())
        for lp in 0..<100 { simulation.scheduler.schedule(lp, at: .zero) }
        simulation.run(maxEvents: 1_000)
        let capacityAfterFew = simulation.scheduler.queueCapacity
        simulation.run(maxEvents: 100_000)
        #expect(simulation.scheduler.queueCapacity == capacityAfterFew)
        #expect(simulation.scheduler.pendingCount == 100)
    }

    @Test("scheduling in the past stops the process with both times in the message")
    func schedulingInThePastIsAProgrammingError() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var simulation = Simulation(model: RecordingModel())
            simulation.scheduler.schedule(.mark(1), at: SimInstant(nanosecondsSinceStart: 1_000_000))
            simulation.run()
            simulation.scheduler.schedule(.mark(2), at: SimInstant(nanosecondsSinceStart: 500))
        }
        let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(standardError.contains("event scheduled in the past: requested time 500ns is before the current time 1ms"))
    }

    @Test("nextEventTime skips cancelled events")
    func nextEventTimeSkipsCancelled() {
        var scheduler = Scheduler<Int>()
        let first = scheduler.schedule(1, at: SimInstant(nanosecondsSinceStart: 4))
        scheduler.schedule(2, at: SimInstant(nanosecondsSinceStart: 8))
        let outcome17 = scheduler.nextEventTime()
        #expect(outcome17 == SimInstant(nanosecondsSinceStart: 4))
        scheduler.cancel(first)
        let outcome18 = scheduler.nextEventTime()
        #expect(outcome18 == SimInstant(nanosecondsSinceStart: 8))
        #expect(scheduler.pendingCount == 1)
    }
}
