// libFuzzer target: the JSON Lines parts that `handoff-sim merge` reads.
// The input is one part, or two parts separated by the first NUL byte (so the
// fuzzer can also make pairs that merge); each part that reads is merged
// alone, with itself, and with the other, and every merged result rendered
// as merge renders it (tables, JSON Lines, and the chart and HTML page with a
// p95 target). Any crash, trap or sanitizer report is a finding.
//
// The same calls are replayed on every committed crash input by
// Tests/HandoffScenarioTests/FuzzRegressionTests.swift.
import HandoffReport
import HandoffScenario

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSweepJSONLines(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let pieces = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    var parts: [(file: String, part: SweepJSONLines.Part)] = []
    for (index, piece) in pieces.enumerated() {
        let file = "part\(index).jsonl"
        do {
            parts.append((file, try SweepJSONLines.read(String(decoding: piece, as: UTF8.self), file: file)))
        } catch {
            _ = error.description
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
        } catch {
            _ = error.description
        }
    }
    return 0
}
