import Handoff
import HandoffWorld
import SimKernel
import Testing

/// The resolve's mDNS queries on mDNSResponder's schedule
/// (apple-oss-distributions/mDNSResponder, mDNSResponder-2600.100.147; the
/// same in 1096.100.3 and 1310.140.1).
@Suite("Resolve: mDNSResponder's query schedule")
struct ResolveScheduleTests {
    // mDNSCore/uDNS.h: InitialQuestionInterval = (1000 + 3 − 1) / 3 = 334 ms,
    // QuestionIntervalStep = 3, MaxQuestionInterval = 3600 s. mDNS.c
    // SendQueries: a question sent at least halfway to its next time has its
    // interval tripled at the send, so the gap after the first query is
    // 334 × 3 = 1.002 s, and each next gap three times the last.
    @Test("the gaps between queries: 1.002 s, then ×3 each time (mDNSCore/uDNS.h, mDNS.c SendQueries), at most 1 h")
    func gaps() {
        let rapport = RapportParameters()
        let gaps = (0..<6).map { rapport.resolveWait(after: $0) }
        #expect(gaps == [1002, 3006, 9018, 27_054, 81_162, 243_486].map { SimDuration.milliseconds($0) })
        // The queries go out 0, 1.002, 4.008, 13.026, 40.08 s after the
        // hold-back: mDNS.c's own "0, 1, and 4 seconds".
        var at = SimDuration.zero
        var times: [SimDuration] = [at]
        for gap in gaps.prefix(4) {
            at += gap
            times.append(at)
        }
        #expect(times == [0, 1002, 4008, 13_026, 40_080].map { SimDuration.milliseconds($0) })
        #expect(rapport.resolveWait(after: 40) == RapportParameters.longestResolveRetry)
        var doubling = rapport
        doubling.resolveRetryFactor = 2
        #expect(doubling.resolveWait(after: 3) == .milliseconds(8016))
    }

    /// A setup whose peer-to-peer link loses everything: the resolve is
    /// never answered, so every query the schedule sends is in the trace
    /// until Rapport gives up (5 s).
    func unanswered(seed: UInt64) throws -> (fetch: SimInstant, queries: [SimInstant]) {
        var setup = try monkeySetup()
        setup.world.wifiPeerToPeer.loss = .bernoulli(1)
        let (run, _) = try runTab(setup: setup, seed: seed)
        let fetch = try #require(run.trace.first { $0.name == .fetch && $0.device.name == "ipad" })
        return (fetch.time, run.trace.compactMap { record in
            guard case .message(.resolveQuery) = record.event, record.device.name == "ipad" else { return nil }
            return record.time
        })
    }

    // mDNS.c AnswerNewQuestion: a new multicast question with nothing
    // unique in the cache is sent after RandomQueryDelay =
    // (1000 + mDNSRandom(5000) − 1) / 50 + 1 ms, 20–120 ms; mDNS_Execute
    // clears it after each pass, so each new question draws its own.
    @Test("an unanswered resolve: the first query 20–120 ms after the fetch starts, then 1.002 s and 3.006 s later", arguments: UInt64(1)...6)
    func unansweredSchedule(seed: UInt64) throws {
        let (fetch, queries) = try unanswered(seed: seed)
        #expect(queries.count == 3, "queries at H, H + 1.002 s, H + 4.008 s before Rapport gives up at 5 s")
        let holdBack = try #require(queries.first) - fetch
        #expect(holdBack >= .milliseconds(20) && holdBack <= .milliseconds(120))
        #expect(zip(queries, queries.dropFirst()).map { $1 - $0 } == [.milliseconds(1002), .milliseconds(3006)])
    }

    @Test("the hold-back is drawn anew for each fetch: seeds give different ones, spread over 20–120 ms")
    func holdBackDraws() throws {
        var holdBacks: [SimDuration] = []
        for seed in UInt64(1)...12 {
            let (fetch, queries) = try unanswered(seed: seed)
            holdBacks.append(try #require(queries.first) - fetch)
        }
        #expect(Set(holdBacks).count == holdBacks.count)
        #expect(holdBacks.allSatisfy { $0 >= .milliseconds(20) && $0 <= .milliseconds(120) })
        // Twelve uniform draws all inside one half of the range: 2 · 2⁻¹² (a
        // check that fails by chance once in 2,048 seed sets).
        #expect(holdBacks.contains { $0 < .milliseconds(70) } && holdBacks.contains { $0 > .milliseconds(70) })
    }
}
