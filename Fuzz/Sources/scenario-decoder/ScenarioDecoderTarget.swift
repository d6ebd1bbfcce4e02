// libFuzzer target: a scenario file's bytes, as `handoff-sim validate`, `run`
// and `sweep` read them. Any crash, trap or sanitizer report is a finding;
// every input must end in a scenario or in problems.
//
// The same calls are replayed on every committed crash input by
// Tests/HandoffScenarioTests/FuzzRegressionTests.swift.
import HandoffReport
import HandoffScenario

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenarioDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let file = "fuzz.json"
    do {
        _ = try ScenarioSuite.decode(bytes, file: file)
    } catch {
        // What validate prints, plain and as GitHub annotations.
        _ = error.description
        if let problems = error.problems { _ = RunReport.annotations(for: problems) }
        return 0
    }
    // What sweep does next with a file that decodes: the file's own sweep
    // block, every point decoded (a file without one is a usage error,
    // which is fine).
    do {
        let prepared = try SweepRunner.prepare(bytes, file: file, options: SweepRunner.Options())
        _ = prepared.axes.count
    } catch {
        _ = error.description
    }
    return 0
}
