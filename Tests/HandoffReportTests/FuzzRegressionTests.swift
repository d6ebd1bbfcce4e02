import Foundation
import HandoffBaseline
import HandoffReport
@testable import HandoffScenario
import Testing

/// Every input that ever crashed one of the libFuzzer targets in Fuzz/ (or
/// crashed the tool before them, in the same shape), kept under
/// Tests/Fixtures/fuzz-regressions/TARGET/ and replayed here through the
/// same calls the target makes, so `swift test` catches a regression without
/// a fuzzer. Each must end in the clear error listed in ``expected`` (or,
/// where the value is valid, be read and rendered without a crash).
///
/// The calls are repeated from Fuzz/Sources/TARGET/*.swift rather than
/// shared, so the libraries need no entry point for fuzzing: keep the two in
/// step. A new crash input is added by copying the minimised input into the
/// folder and its message into ``expected`` (the test below fails for an
/// input without one).
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz-regressions").path

    static let targets = ["scenario-decoder", "sweep-jsonlines", "baseline-file", "overlay-apply"]

    /// For each target, each kept input and what replaying it must give.
    /// The first inputs kept are the shapes of the crashes fixed before the
    /// fuzz targets existed (bounded inputs, commit ce75e55; edited shard
    /// parts and baselines, commit 5cfb0d7).
    static let expected: [String: [String: String]] = [
        "scenario-decoder": [
            "duration-int64-max.json":
                #"fuzz.json:3:15: error: $.duration: expected a duration of at most 168h (7 days), found "2562047h47m16s854775807ns""#,
            "envelope-bytes-4294967295gib.json":
                #"fuzz.json:3:34: error: $.protocol.envelopeBytes: expected a size of at most 1 GiB, found "4294967295GiB""#,
            "trials-minus-1.json":
                #"fuzz.json:3:13: error: $.trials: expected a whole number from 1 to 10000000, found -1"#,
            "userinfo-data-64gib.json":
                #"fuzz.json:10:132: error: $.activity.userInfo.blob.$data: expected a size of at most 16 MiB (give larger payloads as payloadSize), found "64GiB""#,
        ],
        "sweep-jsonlines": [
            // Edited parts that trapped in merge (issue 38): each figure a
            // part carries is bounded on read to what a sweep can produce.
            "budget-band-counts-wrap.jsonl":
                "part0.jsonl:2: not a readable sweep result: the budget has no valid tally",
            "budget-phase-sum-uint64-max.jsonl":
                "part0.jsonl:2: not a readable sweep result: the budget's launch sum is not the total of its bands",
            "histogram-latency-int64-max.jsonl":
                "part0.jsonl:2: not a readable sweep result: the acceptToContinue histogram holds a latency of 9223372036854775000 ns, outside 0...604800000000000",
            "payload-bytes-int64-max.jsonl":
                "part0.jsonl:2: not a readable sweep result: the point's payload of 9223372036854775807 bytes is outside 0...1073741824",
            "histogram-zero-run-overflow.jsonl":
                #"part0.jsonl:2: not a readable sweep result: not an encoded histogram: "h1;2;160317115;1890564703;0;2050881818;18631;1,z922337203685…""#,
            "outcome-count-int64-max.jsonl":
                "part0.jsonl:2: not a readable sweep result: the point's outcome counts do not add up to its 2 trials",
            "point-trials-minus-1.jsonl":
                "part0.jsonl:2: not a readable sweep result: the point has -1 trials; this part holds 2",
            "shard-count-1e15.jsonl":
                "part0.jsonl:1: not a readable sweep result: the shard is not i/n with 0 ≤ i < n ≤ 1000000",
        ],
        "baseline-file": [
            "latency-1e300.json":
                "fuzz-baseline.json: not a usable baseline: a.json, x on y: acceptToContinue.p50 is 1e300, outside 0...604800000000000 ns",
            "success-rate-1e300.json":
                "fuzz-baseline.json: not a usable baseline: a.json, x on y: successRate is 1e300, outside 0...1",
            // A success rate of 1e-300 is a valid figure (within 0...1): it
            // reads, and comparing and printing it must not trap.
            "success-rate-1e-300.json": "read 1 scenarios",
        ],
        "overlay-apply": [
            // Found by the overlay-apply target: 1e+380 read as a number,
            // then written back as one a double cannot hold.
            "value-1e380.json":
                "fuzz-overlay.json:9:13: error: $.set[1].value: expected a number a double can hold (at most about 1.8e308), found 1e+380",
        ],
    ]

    /// The names of the inputs kept for `target`, sorted.
    static func inputs(_ target: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + target)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
    }

    static func bytes(_ target: String, _ name: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: folder + "/" + target + "/" + name)))
    }

    // MARK: The targets' calls, returning what they ended in

    /// Fuzz/Sources/scenario-decoder: decode; for a file that decodes,
    /// prepare its sweep.
    static func scenarioDecoder(_ bytes: [UInt8]) -> String {
        let file = "fuzz.json"
        do {
            _ = try ScenarioSuite.decode(bytes, file: file)
        } catch {
            guard let problems = error.problems else { return error.description }
            _ = RunReport.annotations(for: problems)
            return problems.description
        }
        do {
            let prepared = try SweepRunner.prepare(bytes, file: file, options: SweepRunner.Options())
            return "decoded; sweep of \(prepared.points.count) points"
        } catch {
            return "decoded; sweep: " + error.description
        }
    }

    /// Fuzz/Sources/sweep-jsonlines: read one part, or two split at the
    /// first NUL byte; merge each alone, with itself and with the other,
    /// rendering what merges (tables, JSON Lines, and the chart and HTML
    /// page with a p95 target).
    static func sweepJSONLines(_ bytes: [UInt8]) -> String {
        let pieces = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        var outcomes: [String] = []
        var parts: [(file: String, part: SweepJSONLines.Part)] = []
        for (index, piece) in pieces.enumerated() {
            let file = "part\(index).jsonl"
            do {
                parts.append((file, try SweepJSONLines.read(String(decoding: piece, as: UTF8.self), file: file)))
            } catch {
                outcomes.append(error.description)
            }
        }
        var attempts = parts.map { [$0] } + parts.map { [$0, $0] }
        if parts.count == 2 { attempts.append(parts) }
        for attempt in attempts {
            do {
                let merged = try SweepJSONLines.merge(attempt)
                _ = SweepJSONLines.render(merged.result, toolVersion: merged.toolVersion)
                _ = SweepTable.text(merged.result)
                _ = SweepTable.text(merged.result, columns: .full)
                _ = SweepTable.csv(merged.result)
                _ = SweepTable.markdown(merged.result)
            // The chart and the page, with a p95 target (each panel's answer).
            let target = SweepChart.Target(latency: .seconds(1), percentile: 95)
            _ = SweepChart.svg(merged.result, target: target)
            _ = HTMLReport.sweep(
                merged.result, context: HTMLReport.Context(toolVersion: merged.toolVersion, arguments: ["merge"]), target: target)
                outcomes.append("merged \(merged.result.points.count) points")
            } catch {
                outcomes.append(error.description)
            }
        }
        return outcomes.joined(separator: "\n")
    }

    /// Fuzz/Sources/baseline-file: read; for a baseline that reads, write it
    /// back and compare it with itself and with an empty one.
    static func baselineFile(_ bytes: [UInt8]) -> String {
        let baseline: Baseline
        do {
            baseline = try BaselineFile.read(String(decoding: bytes, as: UTF8.self), file: "fuzz-baseline.json")
        } catch {
            return error.description
        }
        _ = BaselineFile.render(baseline)
        let empty = Baseline(toolVersion: baseline.toolVersion, scenarios: [])
        for comparison in [
            BaselineComparison(baseline: baseline, now: baseline),
            BaselineComparison(baseline: baseline, now: empty),
            BaselineComparison(baseline: empty, now: baseline),
        ] {
            _ = BaselineReport.text(comparison)
            _ = BaselineReport.markdown(comparison)
            _ = BaselineReport.annotations(comparison)
        }
        return "read \(baseline.scenarios.count) scenarios"
    }

    /// Fuzz/Sources/overlay-apply: read; for an overlay that reads, write
    /// it back and read it again, then write it over a scenario.
    static func overlayApply(_ bytes: [UInt8]) -> String {
        let overlay: Overlay
        do {
            overlay = try Overlay(bytes: bytes, file: "fuzz-overlay.json")
        } catch {
            return error.description
        }
        guard (try? Overlay(bytes: Array(overlay.json.utf8), file: "rewritten.json")) != nil else {
            return "its text does not read back"
        }
        return "read \(overlay.description)"
    }

    // MARK: Tests

    @Test("every kept input has its expected outcome listed, and every listed one is kept", arguments: targets)
    func everyInputIsListed(target: String) {
        #expect(!Self.inputs(target).isEmpty)
        #expect(Set(Self.inputs(target)) == Set((Self.expected[target] ?? [:]).keys))
    }

    @Test("scenario decoder: each kept input is a clear error", arguments: inputs("scenario-decoder"))
    func scenarioDecoder(name: String) throws {
        let outcome = Self.scenarioDecoder(try Self.bytes("scenario-decoder", name))
        #expect(outcome == Self.expected["scenario-decoder"]?[name], "\(name)")
    }

    @Test("merge's JSON Lines reader: each kept input is a clear error", arguments: inputs("sweep-jsonlines"))
    func sweepJSONLines(name: String) throws {
        let outcome = Self.sweepJSONLines(try Self.bytes("sweep-jsonlines", name))
        #expect(outcome == Self.expected["sweep-jsonlines"]?[name], "\(name)")
    }

    @Test("baseline reader: each kept input is a clear error or a valid figure", arguments: inputs("baseline-file"))
    func baselineFile(name: String) throws {
        let outcome = Self.baselineFile(try Self.bytes("baseline-file", name))
        #expect(outcome == Self.expected["baseline-file"]?[name], "\(name)")
    }

    @Test("overlay reader: each kept input is a clear error", arguments: inputs("overlay-apply"))
    func overlayApply(name: String) throws {
        let outcome = Self.overlayApply(try Self.bytes("overlay-apply", name))
        #expect(outcome == Self.expected["overlay-apply"]?[name], "\(name)")
    }
}
