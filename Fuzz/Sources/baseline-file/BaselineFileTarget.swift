// libFuzzer target: a baseline file, as `handoff-sim baseline check` reads
// it. A baseline that reads is written back and compared with itself and
// with an empty measurement, and the comparison rendered as check renders
// it. Any crash, trap or sanitizer report is a finding.
//
// The same calls are replayed on every committed crash input by
// Tests/HandoffScenarioTests/FuzzRegressionTests.swift.
import HandoffBaseline
import HandoffReport
import HandoffScenario

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBaselineFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    let baseline: Baseline
    do {
        baseline = try BaselineFile.read(String(decoding: bytes, as: UTF8.self), file: "fuzz-baseline.json")
    } catch {
        _ = error.description
        return 0
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
    return 0
}
