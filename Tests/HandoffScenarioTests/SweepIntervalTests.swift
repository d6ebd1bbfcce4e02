import Handoff
@testable import HandoffAdvice
@testable import HandoffScenario
import SimKernel
import Testing

/// `sweep --overlay FIT` with a fit's bootstrap replicates: every point run
/// again under each replicate on the same trials, and a 95% interval on
/// every percentile.
@Suite("Sweep intervals from the fit's replicates")
struct SweepIntervalTests {
    /// A loss-free link where size costs time in closed form; the overlay
    /// sets its rate to 1 Mbit/s, and each replicate moves it.
    static let text = SweepTests.lossFree(rate: "1Mbit/s").replacingOccurrences(of: #""trials": 20"#, with: #""trials": 12"#)

    /// The same overlay as advise's interval tests: 1 Mbit/s, and one
    /// replicate per rate.
    static func overlay(_ rates: [String]) throws -> Overlay { try AdvisorIntervalTests.overlay(rates) }

    static func sweep(
        _ overlay: Overlay, jobs: Int = 1, shard: Shard? = nil, runsReplicates: Bool = true
    ) throws -> SweepResult {
        let prepared = try SweepTests.prepare(
            text, payloads: ["1KiB", "16KiB"],
            options: SweepRunner.Options(shard: shard, overlay: overlay, runsReplicates: runsReplicates))
        return try SweepTests.run(prepared, jobs: jobs)
    }

    @Test("each percentile's interval runs from the fastest replicate's value to the slowest's, identical for 1 and 2 threads")
    func ordering() throws {
        let overlay = try Self.overlay(["0.8Mbit/s", "1Mbit/s", "1.25Mbit/s"])
        let result = try Self.sweep(overlay)
        #expect(result.replicates == 3)
        for point in result.points {
            #expect(point.replicates.count == 3)
            for percentile in PercentileInterval.percentiles {
                let interval = try #require(point.interval(.acceptToContinue, atPercentile: percentile))
                #expect(interval.replicates == 3)
                let value = try #require(point.aggregate[.acceptToContinue].value(atPercentile: percentile))
                let low = try #require(interval.low), high = try #require(interval.high)
                // Three replicates: nearest rank takes the 1st and the 3rd.
                // The faster link is sooner, the slower later; the middle
                // replicate is the overlay's own rate, so its value is the
                // point's.
                #expect(low < value && value < high, "p\(percentile) at \(point.payloadBytes) bytes")
                let replicateValues = point.replicates.map { $0[.acceptToContinue].value(atPercentile: percentile) }
                #expect(replicateValues[1] == value)
                #expect(low == replicateValues[2] && high == replicateValues[0])
            }
        }
        #expect(try Self.sweep(overlay, jobs: 2) == result)
    }

    @Test("the trials run under replicates are bounded (their latencies are kept): over the bound a clear error naming the overlay; a shard, or no intervals, stays under it")
    func replicateTrialsBounded() throws {
        let overlay = try Self.overlay(["0.8Mbit/s", "1Mbit/s", "1.25Mbit/s"])
        // 2 points × 2,000,000 trials × 3 replicates = 12,000,000 > 10⁷.
        func prepare(shard: Shard? = nil, runsReplicates: Bool = true) throws(ScenarioError) -> PreparedSweep {
            try SweepRunner.prepare(
                Array(Self.text.utf8), file: "sweep.json", payloads: ["1KiB", "16KiB"],
                options: SweepRunner.Options(trials: 2_000_000, shard: shard, overlay: overlay, runsReplicates: runsReplicates))
        }
        switch Result(catching: { () throws(ScenarioError) in try prepare() }) {
        case .success: Issue.record("12,000,000 replicate trials were accepted")
        case let .failure(failure):
            #expect(failure.category == .invalidInput)
            #expect(failure.file == overlay.file)
            #expect(failure.message.contains("3 bootstrap replicates would run 2 points × 2000000 trials"), "\(failure.message)")
        }
        #expect(try prepare(shard: Shard(index: 0, count: 2)).replicates.count == 3)
        #expect(try prepare(runsReplicates: false).replicates.isEmpty)
    }

    @Test("no replicates, no intervals: without them in the overlay, and when they are not to be run")
    func none() throws {
        let overlay = try Self.overlay(["0.8Mbit/s", "1.25Mbit/s"])
        let skipped = try Self.sweep(overlay, runsReplicates: false)
        #expect(skipped.replicates == 0)
        #expect(skipped.points.allSatisfy { $0.interval(.acceptToContinue, atPercentile: 95) == nil })
        let plain = try Overlay(
            bytes: Array(#"{"set": [{"path": "network.wifiPeerToPeer.bandwidth", "value": "1Mbit/s"}]}"#.utf8), file: "o.json")
        let result = try Self.sweep(plain)
        #expect(result.replicates == 0)
        // The point estimate does not depend on whether replicates ran.
        #expect(result.points.map(\.aggregate) == skipped.points.map(\.aggregate))
    }

    @Test("shards with replicates merge into the unsharded result, byte for byte; JSON Lines reads back exactly")
    func shards() throws {
        let overlay = try Self.overlay(["0.8Mbit/s", "1.25Mbit/s"])
        let whole = try Self.sweep(overlay)
        let rendered = SweepJSONLines.render(whole, toolVersion: "test")
        #expect(rendered.contains(#""replicates":2"#))
        #expect(rendered.contains(#""intervals":{"#))
        let readBack = try SweepJSONLines.read(rendered, file: "whole.jsonl").result
        #expect(readBack.points.map(\.replicates) == whole.points.map(\.replicates))
        #expect(SweepJSONLines.render(readBack, toolVersion: "test") == rendered)
        let parts = try (0..<3).map { index in
            let part = try Self.sweep(overlay, shard: Shard(index: index, count: 3))
            let text = SweepJSONLines.render(part, toolVersion: "test")
            return ("part\(index).jsonl", try SweepJSONLines.read(text, file: "part\(index).jsonl"))
        }
        let merged = try SweepJSONLines.merge(parts)
        #expect(SweepJSONLines.render(merged.result, toolVersion: "test") == rendered)
        // A part run without the replicates does not merge with those run with them.
        let bare = try Self.sweep(overlay, shard: Shard(index: 2, count: 3), runsReplicates: false)
        let bareText = SweepJSONLines.render(bare, toolVersion: "test")
        let mixed = [parts[0], parts[1], ("bare.jsonl", try SweepJSONLines.read(bareText, file: "bare.jsonl"))]
        let error = try #require(throws: ScenarioError.self) { try SweepJSONLines.merge(mixed) }
        #expect(error.description.contains("bootstrap replicates"))
    }

    @Test("every replicate's histograms keep only their non-empty buckets: a few counts per trial, not the range between the fastest and slowest")
    func replicateHistogramsAreCompact() throws {
        let overlay = try Self.overlay(["0.8Mbit/s", "1.25Mbit/s"])
        let result = try Self.sweep(overlay)
        var spread = false
        for point in result.points {
            for aggregate in [point.aggregate] + point.replicates {
                for metric in LatencyMetric.allCases {
                    let histogram = aggregate[metric]
                    #expect(histogram.allocatedBucketCount <= Int(histogram.count), "\(metric)")
                    if let first = histogram.buckets.first, let last = histogram.buckets.last,
                       last.index - first.index + 1 > Int(histogram.count)
                    {
                        spread = true
                    }
                }
            }
        }
        // Some histogram's values lie further apart than it has values,
        // so a dense one would hold more buckets than values.
        #expect(spread)
    }

    @Test("a part whose replicates' histograms are written as long runs of empty buckets reads back in memory that follows its text")
    func longRunsReadCompactly() throws {
        let overlay = try Self.overlay(["0.8Mbit/s", "1.25Mbit/s"])
        let rendered = SweepJSONLines.render(try Self.sweep(overlay), toolVersion: "test")
        // Two latencies a week apart: 41,036 buckets from one to the other.
        var wide = LatencyHistogram()
        wide.record(1)
        wide.record(InputBounds.maximumDuration.nanoseconds)
        #expect(wide.encoded.contains(",z41034,"))
        let edited = try Regex(#""histogram":"h1;[^"]*""#)
        let text = rendered.replacing(edited, with: #""histogram":""# + wide.encoded + #"""#)
        let part = try SweepJSONLines.read(text, file: "runs.jsonl").result
        var histograms = 0
        for point in part.points {
            for aggregate in [point.aggregate] + point.replicates {
                for metric in LatencyMetric.allCases {
                    #expect(aggregate[metric] == wide)
                    #expect(aggregate[metric].allocatedBucketCount == 2)
                    histograms += 1
                }
            }
        }
        #expect(histograms == 2 * 3 * LatencyMetric.allCases.count)
    }

    @Test("an edited file: replicates the header does not announce, too few, or holding other trials, are refused by line")
    func editedReplicates() throws {
        let overlay = try Self.overlay(["0.8Mbit/s", "1.25Mbit/s"])
        let rendered = SweepJSONLines.render(try Self.sweep(overlay), toolVersion: "test")
        func refusal(_ text: String) throws -> String {
            let error = try #require(throws: ScenarioError.self) { try SweepJSONLines.read(text, file: "edited.jsonl") }
            return error.description
        }
        #expect(try refusal(rendered.replacingOccurrences(of: #""replicates":2"#, with: #""replicates":3"#))
            .contains("does not hold the header's 3 replicates"))
        #expect(try refusal(rendered.replacingOccurrences(of: #""replicates":2"#, with: #""replicates":0"#))
            .contains("replicates the header does not announce"))
        #expect(try refusal(rendered.replacingOccurrences(of: #""replicates":2"#, with: #""replicates":-1"#))
            .contains("replicate count"))
        // The first replicate of the first point claims one trial more.
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let marker = #""replicates":[{"trials":12"#
        #expect(lines[1].contains(marker))
        var edited = lines
        edited[1] = lines[1].replacingOccurrences(of: marker, with: #""replicates":[{"trials":13"#)
        #expect(try refusal(edited.joined(separator: "\n")).contains("edited.jsonl:2"))
    }

    @Test("the interval's ranks: 2.5th and 97.5th nearest rank; a replicate no trial reached counts above every value")
    func ranks() {
        let interval = PercentileInterval([nil, 4096, 8192, 2048])
        #expect(interval.low == 2048 && interval.high == nil)
        let all = PercentileInterval((1...40).map { Optional(Int64($0) * 100) })
        // Nearest rank: the 1st and the 39th of 40.
        #expect(all.low == 100 && all.high == 3_900)
        #expect(all.replicates == 40)
    }
}
