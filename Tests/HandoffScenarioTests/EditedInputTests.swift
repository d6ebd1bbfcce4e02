import Foundation
import Handoff
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

    /// `part` with its first point's budget tally replaced by `tally`.
    static func replacingTally(_ part: String, with tally: String) throws -> String {
        let start = try #require(part.range(of: #""tally":""#))
        let end = try #require(part[start.upperBound...].firstIndex(of: "\""))
        return part.replacingCharacters(in: start.upperBound..<end, with: tally)
    }

    /// A tally of `trials` over the bands from 419 with `counts`, whose
    /// launch sum is `launch` and every other sum zero.
    static func tally(trials: String, counts: [String], launch: String = "0") -> String {
        let phases = LatencyBudget.Phase.allCases.count
        let sums = ["0", launch] + Array(repeating: "0", count: 2 * phases * (1 + counts.count) - 2)
        return ([trials, "419", String(counts.count)] + counts + sums).joined(separator: " ")
    }

    @Test("a budget whose band counts add up to its trials only with wrap-around is refused (issue 38)")
    func budgetBandCountsWrap() throws {
        let max = String(Int.max)
        let wrapped = Self.tally(trials: "2", counts: [max, max, "4"])
        #expect(BudgetTally(encoded: wrapped) == nil)
        #expect(BudgetTally(encoded: Self.tally(trials: "2", counts: ["1", "0", "1"])) != nil)
        let edited = try Self.replacingTally(Self.part(), with: wrapped)
        #expect(Self.reason(edited) == "part.jsonl:2: not a readable sweep result: the budget has no valid tally")
    }

    @Test("a budget of other trials than the point's continued ones is refused")
    func budgetTrialsAreTheContinued() throws {
        let part = try Self.part()
        // The part's 3 trials all continue; a consistent tally of 2 is not theirs.
        let two = Self.tally(trials: "2", counts: ["2"])
        #expect(BudgetTally(encoded: two) != nil)
        #expect(Self.reason(try Self.replacingTally(part, with: two))
            == "part.jsonl:2: not a readable sweep result: the budget has 2 trials for the point's 3 continued")
        #expect(Self.reason(part) == nil)
    }

    @Test("a budget's phase sum near 2^64, or past its trials' longest, is refused (issue 38)")
    func budgetPhaseSums() throws {
        let part = try Self.part()
        // The launch sum alone edited: no longer the total of its bands.
        let phaseSum = Self.tally(trials: "1", counts: ["1"], launch: String(UInt64.max))
        #expect(Self.reason(try Self.replacingTally(part, with: phaseSum))
            == "part.jsonl:2: not a readable sweep result: the budget's launch sum is not the total of its bands")
        // The band's sum edited with it: more than one trial can take.
        var fields = phaseSum.split(separator: " ").map(String.init)
        fields[4 + 2 * LatencyBudget.Phase.allCases.count + 1] = String(UInt64.max)
        #expect(Self.reason(try Self.replacingTally(part, with: fields.joined(separator: " ")))
            == "part.jsonl:2: not a readable sweep result: the budget's launch time in band 419 is more than 1 trial "
                + "of at most 604800000000000 ns can take")
        // The mean of a sum near 2^64 rounds half up without overflow.
        #expect(WideSum(high: 0, low: .max).mean(over: 2) == .max)
        #expect(WideSum(high: 0, low: 11).mean(over: 2) == 6)
        #expect(WideSum(high: 0, low: 10).mean(over: 3) == 3)
        #expect(WideSum(high: 0, low: 11).mean(over: 3) == 4)
    }

    @Test("a histogram holding a latency past 7 days is refused (issue 38)")
    func histogramLatencyBound() throws {
        let part = try Self.part()
        let metric = try #require(part.range(of: #""acceptToContinue":{"#))
        let start = try #require(part[metric.upperBound...].range(of: #""histogram":""#))
        let end = try #require(part[start.upperBound...].firstIndex(of: "\""))
        func edited(_ value: Int64) -> String {
            var histogram = LatencyHistogram()
            histogram.record(value)
            return part.replacingCharacters(in: start.upperBound..<end, with: histogram.encoded)
        }
        #expect(Self.reason(edited(Int64.max - 807))
            == "part.jsonl:2: not a readable sweep result: the acceptToContinue histogram holds a latency of "
                + "9223372036854775000 ns, outside 0...604800000000000")
        #expect(Self.reason(edited(InputBounds.maximumDuration.nanoseconds)) == nil)
        // A sum no values between the histogram's least and greatest make.
        let sum = part.replacingCharacters(in: start.upperBound..<end, with: "h1;1;5;5;0;6;5;1")
        #expect(Self.reason(sum) == "part.jsonl:2: not a readable sweep result: the acceptToContinue histogram's sum "
            + "cannot come from 1 values from 5 to 5 ns")
    }

    @Test("a point's payload past 1 GiB is refused (issue 38)")
    func payloadBound() throws {
        let part = try Self.part()
        #expect(part.contains(#""payloadBytes":1024,"#))
        func edited(_ bytes: String) -> String? {
            Self.reason(part.replacingOccurrences(of: #""payloadBytes":1024,"#, with: #""payloadBytes":\#(bytes),"#))
        }
        #expect(edited("9223372036854775807")
            == "part.jsonl:2: not a readable sweep result: the point's payload of 9223372036854775807 bytes is outside 0...1073741824")
        #expect(edited("1073741825") != nil)
        #expect(edited("1073741824") == nil)
        #expect(edited("-1") == "part.jsonl:2: not a readable sweep result: the point's payload of -1 bytes is outside 0...1073741824")
    }

    @Test("a histogram whose run of zeros would overflow is refused")
    func histogramRunOverflow() {
        #expect(throws: SimKernelError.self) { try LatencyHistogram(encoded: "h1;2;5;9;0;14;5;1,z9223372036854775807,1") }
    }

    @Test("names from a baseline file are escaped in every message: a newline cannot forge a workflow command")
    func baselineNamesAreEscaped() {
        // A file path, an entry key and a metric name, each carrying a line
        // break, a workflow command, a NUL, a C1 control and U+2028.
        let hostile = #"x\n::error::forged\u0000\u0085\u2028"#
        let cases = [
            #"{"kind":"handoff-sim baseline","format":1,"toolVersion":"0.1.0","scenarios":[{"file":"\#(hostile)","name":"a","digest":"d","seed":1,"trials":10,"entries":[{"key":"k","metrics":{"bogus":1}}]}]}"#,
            #"{"kind":"handoff-sim baseline","format":1,"toolVersion":"0.1.0","scenarios":[{"file":"a.json","name":"a","digest":"d","seed":1,"trials":10,"entries":[{"key":"\#(hostile)","metrics":{"trials":"ten"}}]}]}"#,
            #"{"kind":"handoff-sim baseline","format":1,"toolVersion":"0.1.0","scenarios":[{"file":"a.json","name":"a","digest":"d","seed":1,"trials":10,"entries":[{"key":"k","metrics":{"\#(hostile)":1}}]}]}"#,
            #"{"kind":"handoff-sim baseline","format":1,"toolVersion":"0.1.0","scenarios":[{"file":"a.json","name":"a","digest":"d","seed":1,"trials":10,"entries":[{"metrics":{}}]},{"file":"\#(hostile)","name":"b","digest":"d","seed":1,"trials":10,"entries":[{"metrics":{}}]}]}"#,
        ]
        for text in cases {
            do {
                _ = try BaselineFile.read(text, file: "b.json")
                Issue.record("read a baseline with a hostile name")
            } catch {
                let message = error.description
                #expect(!message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 },
                        "\(message.debugDescription)")
                #expect(message.contains(#"x\n::error::forged"#) || message.contains("lacks its key"), "\(message)")
            }
        }
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
