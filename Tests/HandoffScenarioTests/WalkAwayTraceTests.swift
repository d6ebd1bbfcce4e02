import Foundation
import Handoff
import SimKernel
import Testing
@testable import HandoffScenario

/// The shipped walk-away scenario's trace explains its own timing: the
/// receiver stops scanning for the lost iPhone `scanStopAfterLoss` after
/// the last advertisement of it that the trace names.
@Suite("Walk-away trace")
struct WalkAwayTraceTests {
    /// The trial of scenarios/walk-away-offer-ends.json (seed 11) at `trial`.
    func replay(trial: Int) throws -> [TraceRecord] {
        let path = packageRoot() + "/scenarios/walk-away-offer-ends.json"
        let scenario = try validScenario(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self))
        let replay = try ScenarioRunner.replay(scenario, seed: scenario.seed, trial: trial)
        #expect(replay.failure == nil)
        return replay.trace.filter { $0.device.name == "mac" }
    }

    /// The last advertisement of the iPhone the trace names: the latest
    /// `lost device heard`, or else the `device lost` record's.
    func lastTracedAdvertisement(in trace: [TraceRecord]) -> SimInstant? {
        var last: SimInstant?
        for record in trace {
            if case let .system(.deviceLost(device, lastHeard, _)) = record.event, device.name == "iphone" {
                last = lastHeard
            }
            if case let .system(.lostDeviceHeard(device, heard, _)) = record.event, device.name == "iphone" {
                last = heard
            }
        }
        return last
    }

    // Trial 0 is the case of issue 39: last heard at 12.04 s in the
    // device-lost record, the scan stopped at 30.58 s (18.5 s later),
    // because the Mac heard the iPhone at 20.58 s, outside its scan
    // windows, after losing it; the trace showed no such advertisement.
    @Test("trial 0: the scan stop, 18.5 s after the device-lost record's advertisement, is 10 s after a traced one")
    func movedStopIsTraced() throws {
        let trace = try replay(trial: 0)
        let stopped = try #require(trace.first { $0.event.name == .scanStopped })
        let lost = try #require(trace.first { $0.event.name == .deviceLost })
        guard case let .system(.deviceLost(_, lostHeard, _)) = lost.event else {
            Issue.record("not a device-lost record: \(lost.event)")
            return
        }
        #expect(stopped.time > lostHeard + .seconds(18))
        let moves = trace.filter { $0.event.name == .lostDeviceHeard }
        #expect(moves.count == 1)
        #expect(moves.first?.time == lostHeard + .seconds(10))
        #expect(lastTracedAdvertisement(in: trace).map { $0 + .seconds(10) } == stopped.time)
    }

    @Test("every trial that stops the scan stops it 10 s after the last advertisement its trace names",
          arguments: 0..<12)
    func stopFollowsLastTracedAdvertisement(trial: Int) throws {
        let trace = try replay(trial: trial)
        guard let stopped = trace.first(where: { $0.event.name == .scanStopped }) else { return }
        let last = try #require(lastTracedAdvertisement(in: trace))
        #expect(last + .seconds(10) == stopped.time)
    }
}
