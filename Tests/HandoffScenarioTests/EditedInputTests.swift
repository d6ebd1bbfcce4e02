import Foundation
import HandoffBaseline
@testable import HandoffScenario
import SimKernel
import Testing

/// Files the tool wrote and a person (or a fuzzer) edited: shard parts for
/// `merge` and baselines for `baseline check`. Each edit that once crashed
/// the tool is now a clear error.
@Suite("Edited shard parts and baselines")
struct EditedInputTests {
    /// A shard part of a small sweep, as `sweep --shard 0/2` writes it.
    static func part() throws -> String {
        let text = scenarioText(#""trials": 6"#)
        let prepared = try SweepTests.prepare(
            text, payloads: ["1KiB"], options: SweepRunner.Options(shard: Shard(index: 0, count: 2)))
        return SweepJSONLines.render(try SweepTests.run(prepared), toolVersion: "0.1.0")
    }

    static func reason(_ text: String) -> String? {
        do {
            _ = try SweepJSONLines.read(text, file: "part.jsonl")
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a shard count of 10^15 or an index past it is refused, never allocated")
    func hugeShardCount() throws {
        #expect(Shard(index: 0, count: 1_000_000_000_000_000) == nil)
        #expect(Shard(index: 999_999_999_999_999_999, count: 1_000_000) == nil)
        #expect(Shard(index: 999_999, count: 1_000_000)?.trials(of: 10_000_000) == 9_999_990..<10_000_000)
        let edited = try Self.part().replacingOccurrences(of: #""count":2"#, with: #""count":1000000000000000"#)
        #expect(Self.reason(edited) == "part.jsonl:1: not a readable sweep result: the shard is not i/n with 0 ≤ i < n ≤ 1000000")
    }

    @Test("a point's trial count of -1, or counts that do not add up, are refused")
    func badCounts() throws {
        let part = try Self.part()
        #expect(part.contains(#""trials":3,"#))
        let negative = part.replacingOccurrences(of: #""trials":3,"#, with: #""trials":-1,"#)
        #expect(Self.reason(negative) == "part.jsonl:2: not a readable sweep result: the point has -1 trials; this part holds 3")
        let inflated = part.replacingOccurrences(of: #""notOffered":0"#, with: #""notOffered":9223372036854775807"#)
        #expect(Self.reason(inflated) == "part.jsonl:2: not a readable sweep result: the point's outcome counts do not add up to its 3 trials")
    }

    @Test("a histogram whose run of zeros would overflow is refused")
    func histogramRunOverflow() {
        #expect(throws: SimKernelError.self) { try LatencyHistogram(encoded: "h1;2;5;9;0;14;5;1,z9223372036854775807,1") }
    }

    @Test("a baseline figure of 1e300 or a rate of 1e-300 outside its range is refused by name")
    func baselineFiguresAreBounded() throws {
        func baseline(_ metrics: String) -> String {
            #"{"kind":"handoff-sim baseline","format":1,"toolVersion":"0.1.0","scenarios":[{"file":"a.json","name":"a","digest":"d","seed":1,"trials":10,"entries":[{"key":"x on y","metrics":{\#(metrics)}}]}]}"#
        }
        #expect(throws: ScenarioError.self) { try BaselineFile.read(baseline(#""acceptToContinue.p50":1e300"#), file: "b.json") }
        do {
            _ = try BaselineFile.read(baseline(#""successRate":1e300"#), file: "b.json")
            Issue.record("read a success rate of 1e300")
        } catch {
            #expect(error.description == "b.json: not a usable baseline: a.json, x on y: successRate is 1e300, outside 0...1")
        }
        let tiny = try BaselineFile.read(baseline(#""successRate":1e-300"#), file: "b.json")
        #expect(tiny.scenarios[0].entries[0].metrics[0].value == 1e-300)
    }
}
