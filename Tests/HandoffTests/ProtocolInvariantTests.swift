import Handoff
import HandoffWorld
import SimKernel
import Testing

/// Invariants of the protocol over many randomised trials: whatever the
/// timing, Apple's ordering guarantees hold.
@Suite("Protocol invariants")
struct ProtocolInvariantTests {
    /// One randomised trial: distance, accept time, payload size, save time,
    /// and an invalidate, resign or either device's Wi-Fi switch at a random moment, all
    /// drawn from the seed.
    func randomTrial(seed: UInt64) throws -> (HandoffRun, ActivityID) {
        var generator = RandomStreamKey(seed: seed).generator("invariants")
        func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * generator.unitInterval() }
        let distance = uniform(0.5, 14)
        let setup = try monkeySetup(adjust: { $0[1].mobility = .stationary(Position(x: distance, y: 0)) })
        var content = tabActivity(Int(generator.uniform(below: 4)))
        content.payloadSize = Int(uniform(0, 90_000))
        content.needsSave = generator.unitInterval() < 0.5
        let saver = ScriptedApp(behaviour: AppBehaviour(saveTime: .milliseconds(Int64(uniform(0, 12_000)))))
        let run = try HandoffRun(setup: setup, seed: seed)
        let activity = try run.createActivity(content, on: "iphone", app: monkeyBrowserID, delegate: saver)
        try run.schedule(.becomeCurrent(activity), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: at(uniform(0.5, 8)))
        let disruption = at(uniform(0, 12))
        switch generator.uniform(below: 5) {
        case 0: try run.schedule(.invalidate(activity), at: disruption)
        case 1: try run.schedule(.resignCurrent(activity), at: disruption)
        case 2: try run.schedule(.setSettings(device: "iphone", DeviceSettings(wifiEnabled: false)), at: disruption)
        case 3: try run.schedule(.setSettings(device: "ipad", DeviceSettings(wifiEnabled: false)), at: disruption)
        default: break
        }
        run.run(until: at(120))
        return (run, activity)
    }

    @Test("over 1,000 seeds: one outcome after willContinue, wasContinued only after continue, nothing after invalidate")
    func invariantsHold() throws {
        var outcomes: [String: Int] = [:]
        for seed in UInt64(1)...1000 {
            let (run, activity) = try randomTrial(seed: seed)
            #expect(run.violations.isEmpty, "seed \(seed): \(run.violations)")
            let receiver = run.trace.filter { $0.device.name == "ipad" }.map(\.name)
            let source = run.trace.filter { $0.device.name == "iphone" }
            let willContinue = receiver.filter { $0 == .willContinueUserActivity }.count
            let finished = receiver.filter { $0 == .continueUserActivity || $0 == .didFailToContinueUserActivity }
            #expect(willContinue <= 1, "seed \(seed)")
            #expect(finished.count == willContinue, "seed \(seed): \(receiver)")
            if let start = receiver.firstIndex(of: .willContinueUserActivity), let end = receiver.firstIndex(of: finished[0]) {
                #expect(start < end, "seed \(seed)")
            }
            // wasContinued only after a continue on the receiver.
            if let was = source.first(where: { $0.name == .userActivityWasContinued }) {
                let continued = run.trace.first { $0.name == .continueUserActivity }
                #expect(continued.map { $0.time <= was.time } == true, "seed \(seed)")
            }
            // No delegate callback on the source after invalidate.
            if let invalidated = source.firstIndex(where: { $0.name == .invalidate }) {
                let later = source[(invalidated + 1)...].map(\.name)
                let callbacks: Set<TraceEvent.Name> = [
                    .userActivityWillSave, .updateUserActivityState, .userActivityWasContinued, .didReceiveInputStream,
                ]
                #expect(later.allSatisfy { !callbacks.contains($0) }, "seed \(seed): \(later)")
            }
            // The summary agrees with the trace.
            let outcome = try #require(run.summary(of: activity, on: "ipad")).outcome
            #expect((outcome == .continued) == receiver.contains(.continueUserActivity), "seed \(seed)")
            outcomes[outcome.description, default: 0] += 1
        }
        // The random trials reach success and every kind of failure.
        #expect(outcomes["continued", default: 0] > 100)
        for error in [ContinuationError.handoffFailed, .connectionUnavailable, .remoteApplicationTimedOut,
                      .handoffUserInfoTooLarge] {
            #expect(outcomes[ContinuationOutcome.failed(error).description, default: 0] > 0, "\(error): \(outcomes)")
        }
    }
}

/// Events are small values copied through the scheduler's heap: a case
/// whose payload grows past the world's packet event makes every event
/// (and every heap move) larger.
@Suite("Event size")
struct EventSizeTests {
    @Test("a Handoff event is no larger than a world event plus its tag")
    func eventStaysSmall() {
        #expect(MemoryLayout<HandoffEvent>.size <= MemoryLayout<WorldEvent>.size + 1)
        #expect(MemoryLayout<HandoffEvent>.alignment <= 4)
    }
}
