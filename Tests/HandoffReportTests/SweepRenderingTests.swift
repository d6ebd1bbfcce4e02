import Handoff
@testable import HandoffReport
@testable import HandoffScenario
import SimKernel
import Testing

import Foundation

/// The renderings of sweep results: tables (text, CSV, Markdown) and the
/// SVG chart.
@Suite("Sweep rendering")
struct SweepRenderingTests {
    // MARK: CSV

    @Test("CSV: header names every column in order; rows hold exact counts, rates and nanoseconds")
    func csvExact() {
        var first = PointAggregate()
        first.trials = 1000
        first.continued = 1000
        for value in Int64(1)...1000 { first[.acceptToContinue].record(value) }
        first[.advertToOffered].record(1500)
        var second = PointAggregate()
        second.trials = 3
        second.continued = 1
        second.continuedInBrowser = 1
        second.failures = [0, 0, 1, 0]
        second[.acceptToContinue].record(7)
        second[.acceptToContinue].record(9)
        second[.acceptToRestored].record(8)
        let result = sweep(
            axes: [SweepAxis(name: "payload", values: ["1KiB", "4KiB"])],
            points: [
                SweepPoint(coordinates: ["1KiB"], payloadBytes: 1024, profile: "WiFi", aggregate: first),
                SweepPoint(coordinates: ["4KiB"], payloadBytes: 4096, profile: "WiFi", aggregate: second),
            ])
        let header = "payload,payload_bytes,trials,success_rate,failed_4608,failed_4609,failed_4610,failed_4611,not_offered,"
            + "accept_to_continue_p50_ns,accept_to_continue_p90_ns,accept_to_continue_p95_ns,accept_to_continue_p99_ns,"
            + "accept_to_continue_p99_9_ns,accept_to_continue_max_ns,"
            + "accept_to_restored_p50_ns,accept_to_restored_p90_ns,accept_to_restored_p95_ns,accept_to_restored_p99_ns,"
            + "accept_to_restored_p99_9_ns,accept_to_restored_max_ns,"
            + "advert_to_offered_p50_ns,advert_to_offered_p90_ns,advert_to_offered_p95_ns,advert_to_offered_p99_ns,"
            + "advert_to_offered_p99_9_ns,advert_to_offered_max_ns,"
            + "fetch_p50_ns,fetch_p90_ns,fetch_p95_ns,fetch_p99_ns,fetch_p99_9_ns,fetch_max_ns,"
        let shares: [String] = LatencyBudget.Phase.allCases.map { String($0.csvName.dropLast(3)) + "_p95_share" }
        let means: [String] = LatencyBudget.Phase.allCases.map { String($0.csvName.dropLast(3)) + "_mean_ns" }
        let budgetHeader: String = (shares + means).joined(separator: ",")
        // No budgets recorded here: their 26 columns are empty.
        let noBudget = String(repeating: ",", count: 26)
        let expected = header + budgetHeader + "\n"
            + "1KiB,1024,1000,1,0,0,0,0,0,500,900,950,990,999,1000,,,,,,,1500,1500,1500,1500,1500,1500,,,,,," + noBudget + "\n"
            + "4KiB,4096,3,0.666667,0,0,1,0,0,7,9,9,9,9,9,8,8,8,8,8,8,,,,,,,,,,,," + noBudget + "\n"
        #expect(SweepTable.csv(result) == expected)
    }

    @Test("CSV: fields with a comma or quote are quoted with inner quotes doubled; control characters are escaped, so a row is one line")
    func csvQuoting() {
        #expect(Escape.csvField("plain value") == "plain value")
        #expect(Escape.csvField("a,b") == "\"a,b\"")
        #expect(Escape.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(Escape.csvField("two\nlines") == "two\\nlines")
        #expect(Escape.csvField("a,\r\u{1B}") == "\"a,\\r\\u{1B}\"")
        let result = sweep(
            axes: [SweepAxis(name: "odd,\"axis\"", values: ["x, y"]), SweepAxis(name: "payload", values: ["1KiB"])],
            points: [SweepPoint(coordinates: ["x, y", "1KiB"], payloadBytes: 1024, profile: "WiFi", aggregate: PointAggregate())])
        let lines = SweepTable.csv(result).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)  // header, one row, and the empty text after the final LF
        #expect(lines[0].hasPrefix("\"odd,\"\"axis\"\"\",payload,payload_bytes,"))
        // No trials: the rate and every latency are empty, the counts 0.
        #expect(lines[1] == "\"x, y\",1KiB,1024,0,,0,0,0,0,0" + String(repeating: ",", count: 24 + 26))
    }

    @Test("success rates round half up to six decimals (CSV) and two decimals of a percent (text)")
    func successRates() {
        var aggregate = PointAggregate()
        aggregate.trials = 800
        aggregate.continued = 789
        aggregate.continuedInBrowser = 1
        #expect(SweepTable.successRate(aggregate, scale: 1_000_000) == 987_500)
        #expect(Format.decimalText(987_500, scale: 1_000_000) == "0.9875")
        let point = SweepPoint(coordinates: [], payloadBytes: 1, profile: "WiFi", aggregate: aggregate)
        #expect(SweepTable.displayFields(point, axisCount: 0)[2] == "98.75%")
        aggregate.trials = 3
        aggregate.continued = 2
        aggregate.continuedInBrowser = 0
        #expect(SweepTable.successRate(aggregate, scale: 1_000_000) == 666_667)
        #expect(SweepTable.successRate(aggregate, scale: 10_000) == 6_667)
        #expect(Format.decimalText(1_000_000, scale: 1_000_000) == "1")
        #expect(Format.decimalText(50_000, scale: 1_000_000) == "0.05")
        #expect(Format.decimalText(0, scale: 100) == "0")
    }

    // MARK: Durations

    @Test("latencies print as durations to three significant digits, — when nothing was recorded")
    func durations() {
        #expect(Format.duration(nanoseconds: 430_251_040) == "430ms")
        #expect(Format.duration(nanoseconds: 1_234_500_000) == "1.23s")
        #expect(Format.duration(nanoseconds: 1_235_000_000) == "1.24s")
        #expect(Format.duration(nanoseconds: 12_500) == "12.5us")
        #expect(Format.duration(nanoseconds: 999_600) == "1ms")
        #expect(Format.duration(nanoseconds: 17) == "17ns")
        #expect(Format.duration(nanoseconds: 0) == "0s")
        #expect(Format.duration(nanoseconds: nil) == "—")
        #expect(SimDuration(nanoseconds: .max).rounded(toSignificantDigits: 3).nanoseconds == 9_220_000_000_000_000_000)  // no overflow
        #expect(SimDuration(nanoseconds: -1_235_000).rounded(toSignificantDigits: 3).nanoseconds == -1_240_000)
    }

    // MARK: Text and Markdown

    @Test("text table: every column lines up under its header, one row per point")
    func textAligned() throws {
        let result = twoProfilesFourPayloads()
        let lines = SweepTable.text(result, columns: .full).split(separator: "\n").map(String.init)
        #expect(lines.count == 2 + result.points.count)
        let rule = Array(lines[1])
        // The rule is runs of dashes separated by two spaces, one per column.
        let runs = String(rule).split(separator: " ", omittingEmptySubsequences: true)
        #expect(runs.count == SweepTable.displayHeader(result).count)
        #expect(runs.allSatisfy { $0.allSatisfy { $0 == "-" } })
        for line in lines {
            let characters = Array(line)
            #expect(characters.count == rule.count, "\(line)")
            for (index, mark) in rule.enumerated() where mark == " " && index < characters.count {
                #expect(characters[index] == " ", "column gap at \(index) in \(line)")
            }
        }
        #expect(lines[0].hasPrefix("profile           payload  bytes  trials  success"))
        #expect(lines[0].contains("a→c p50"))
        #expect(lines[0].hasSuffix("fetch max  p95 trials' time"))
        #expect(lines[2].hasPrefix("WiFi              256B       256     100"))
        #expect(lines[2].contains(" 40ms "))
        #expect(lines[2].hasSuffix("—"))  // advert → offered was never recorded

        // A line break in a value stays within its row.
        let broken = sweep(points: [point(profile: "WiFi", bytes: 1024, milliseconds: [5], coordinates: ["1\nKiB"])])
        let brokenLines = SweepTable.text(broken, columns: .full).split(separator: "\n")
        #expect(brokenLines.count == 3)
        #expect(brokenLines[2].hasPrefix("1 KiB"))
    }

    @Test("the default text table is compact: under 120 columns with the longest profile name and a payload axis")
    func compactTextFits() throws {
        let result = twoProfilesFourPayloads()
        #expect(result.points.contains { $0.coordinates.first == "Very Bad Network" })
        let lines = SweepTable.text(result).split(separator: "\n").map(String.init)
        #expect(lines.count == 2 + result.points.count)
        #expect(lines.allSatisfy { $0.count < 120 }, "\(lines.map(\.count))")
        #expect(lines[0] == "profile           payload  trials  success  failed  not offered  a→c p50  a→c p90  a→c p95  a→c p99  a→c max")
        #expect(lines[2].hasPrefix("WiFi              256B"))
        #expect(SweepTable.text(result, columns: .full).split(separator: "\n").first?.contains("err 4608") == true)
    }

    @Test("Markdown: a heading with scenario, seed and trials, then one table row per point")
    func markdown() {
        let result = twoProfilesFourPayloads()
        let lines = SweepTable.markdown(result).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "## Sweep: Payload sweep (seed 42, 100 trials per point)")
        let tableRows = lines.filter { $0.hasPrefix("|") }
        #expect(tableRows.count == 2 + result.points.count)
        let columns = SweepTable.displayHeader(result).count
        for row in tableRows {
            #expect(row.filter { $0 == "|" }.count == columns + 1, "\(row)")
        }
        #expect(tableRows[1].hasPrefix("|---|---|---:|"))
        #expect(tableRows[2].hasPrefix("| WiFi | 256B | 256 | 100 | 100% |"))
        #expect(lines.last == "")
    }

    // MARK: Determinism

    @Test("every rendering is byte-identical for equal results, however their histograms were filled")
    func deterministic() {
        let forward = twoProfilesFourPayloads()
        let backward = twoProfilesFourPayloads(reversedRecording: true)
        #expect(forward == backward)
        #expect(SweepTable.text(forward) == SweepTable.text(backward))
        #expect(SweepTable.csv(forward) == SweepTable.csv(backward))
        #expect(SweepTable.markdown(forward) == SweepTable.markdown(backward))
        #expect(SweepChart.svg(forward) == SweepChart.svg(backward))
        #expect(SweepChart.svg(forward, metric: .acceptToRestored) == SweepChart.svg(backward, metric: .acceptToRestored))
    }

    // MARK: Fixtures

    /// A sweep result with the given axes and points.
    func sweep(
        name: String = "Payload sweep", axes: [SweepAxis] = [SweepAxis(name: "payload", values: [])], points: [SweepPoint]
    ) -> SweepResult {
        SweepResult(
            file: "scenarios/sweep.json", name: name, digest: "00", seed: 42, trials: 100, activity: "note",
            device: "mac", axes: axes, points: points, shard: nil)
    }

    /// A point whose trials all continued, one per latency in `milliseconds`.
    func point(profile: String, bytes: Int, milliseconds: [Int64], coordinates: [String]? = nil) -> SweepPoint {
        var aggregate = PointAggregate()
        aggregate.trials = UInt64(milliseconds.count)
        aggregate.continued = UInt64(milliseconds.count)
        for value in milliseconds { aggregate[.acceptToContinue].record(SimDuration.milliseconds(value)) }
        return SweepPoint(coordinates: coordinates ?? ["\(bytes)B"], payloadBytes: bytes, profile: profile, aggregate: aggregate)
    }

    /// Two profiles × four payloads, 100 trials each. WiFi always continues
    /// in 20–40 ms plus 1 ms per KiB; Very Bad Network loses 4608 in a
    /// tenth of the trials and takes eight times as long. Restores take a
    /// millisecond longer; no advertisement timing is recorded.
    func twoProfilesFourPayloads(reversedRecording: Bool = false) -> SweepResult {
        let payloads = [("256B", 256), ("1KiB", 1024), ("4KiB", 4096), ("16KiB", 16384)]
        let profiles = ["WiFi", "Very Bad Network"]
        var points: [SweepPoint] = []
        for (index, profile) in profiles.enumerated() {
            for (text, bytes) in payloads {
                var aggregate = PointAggregate()
                aggregate.trials = 100
                let continued: UInt64 = index == 0 ? 100 : 90
                aggregate.continued = continued
                aggregate.failures = [100 - continued, 0, 0, 0]
                var values = (0..<continued).map { trial in
                    (20 + Int64(trial % 21) + Int64(bytes / 1024)) * (index == 0 ? 1 : 8) * 1_000_000
                }
                if reversedRecording { values.reverse() }
                for value in values {
                    aggregate[.acceptToContinue].record(value)
                    aggregate[.acceptToRestored].record(value + 1_000_000)
                }
                points.append(SweepPoint(coordinates: [profile, text], payloadBytes: bytes, profile: profile, aggregate: aggregate))
            }
        }
        return sweep(
            axes: [SweepAxis(name: "profile", values: profiles), SweepAxis(name: "payload", values: payloads.map(\.0))],
            points: points)
    }
}
