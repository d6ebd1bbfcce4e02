import SimKernel

/// PHOLD, the classic sequential discrete-event benchmark, on the kernel's
/// public API (the same path every model uses).
///
/// N logical processes; each starts with one event at Exp(mean 1 s) + 1 ns.
/// Handling an event at any process schedules one new event at a uniformly
/// chosen process, Exp(mean 1 s) + 1 ns later. The checksum is the wrapping
/// sum of the process indices of the handled events, so two runs with the
/// same seed must print the same checksum.
struct PHOLDModel: SimulationModel {
    typealias Event = UInt32

    let processCount: UInt64
    let delay: ExponentialDistribution
    var generator: Xoshiro256StarStar
    var checksum: UInt64 = 0

    mutating func handle(_ process: UInt32, scheduler: inout Scheduler<UInt32>) {
        checksum &+= UInt64(process)
        let target = UInt32(truncatingIfNeeded: generator.uniform(below: processCount))
        scheduler.schedule(target, after: Self.delay(delay, &generator))
    }

    /// Exp(mean 1 s) truncated to whole nanoseconds, plus 1 ns (as in the
    /// ns-3 reference), so no event is due at the instant it was scheduled.
    @inline(__always)
    static func delay(_ distribution: ExponentialDistribution, _ generator: inout Xoshiro256StarStar) -> SimDuration {
        .nanoseconds(Int64(distribution.sample(using: &generator)) + 1)
    }
}

/// The result of one PHOLD run.
struct PHOLDResult {
    let processes: Int
    let events: UInt64
    let seconds: Double
    let checksum: UInt64
    let queueCapacity: Int
    var eventsPerSecond: Double { Double(events) / seconds }
}

enum PHOLD {
    /// Builds the initial events, then times the run loop alone.
    static func run(processes: Int, events: UInt64, seed: UInt64) throws -> PHOLDResult {
        let streams = RandomStreamKey(seed: seed).child("phold")
        let delay = try ExponentialDistribution(mean: 1e9)
        var simulation = Simulation(
            model: PHOLDModel(
                processCount: UInt64(processes), delay: delay, generator: streams.generator("events")),
            expectedPendingEvents: processes + 1)
        var initial = streams.generator("initial")
        for process in 0..<processes {
            simulation.scheduler.schedule(
                UInt32(process), after: PHOLDModel.delay(delay, &initial))
        }
        let clock = ContinuousClock()
        let start = clock.now
        simulation.run(maxEvents: events)
        let elapsed = start.duration(to: clock.now)
        let components = elapsed.components
        let seconds = Double(components.seconds) + Double(components.attoseconds) * 1e-18
        return PHOLDResult(
            processes: processes, events: simulation.handledEventCount, seconds: seconds,
            checksum: simulation.model.checksum, queueCapacity: simulation.scheduler.queueCapacity)
    }
}
