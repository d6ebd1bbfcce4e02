import Testing
import SimKernel

/// The examples in docs/library.md and in the doc comments, run as written.
@Suite("Documentation examples")
struct DocumentationExampleTests {
    struct PingPong: SimulationModel {
        var volleys = 0
        mutating func handle(_ side: Int, scheduler: inout Scheduler<Int>) {
            volleys += 1
            scheduler.schedule(1 - side, after: .milliseconds(5))
        }
    }

    @Test("the library guide's ping-pong runs 201 volleys in one simulated second")
    func pingPong() {
        var simulation = Simulation(model: PingPong())
        simulation.scheduler.schedule(0, at: .zero)
        simulation.run(until: .zero + .seconds(1))
        #expect(simulation.model.volleys == 201)
        #expect(simulation.now == .zero + .seconds(1))
    }

    @Test("the SimDuration example prints 1.46s")
    func durationExample() throws {
        let rtt: SimDuration = .milliseconds(40)
        let budget = try SimDuration(parsing: "1.5s")
        #expect((budget - rtt).description == "1.46s")
    }

    @Test("the LatencyHistogram example reports 610 ms at p95")
    func histogramExample() {
        var latency = LatencyHistogram()
        latency.record(SimDuration.milliseconds(420))
        latency.record(SimDuration.milliseconds(610))
        #expect(latency.value(atPercentile: 95) == 610_000_000)
    }
}
