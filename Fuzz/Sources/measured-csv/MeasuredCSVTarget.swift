// libFuzzer target: a measured CSV file, as `handoff-sim calibrate` reads
// it: named by two datasets of one experiment (read once), one plain
// and one grouped by a column written into the scenario with an outcome
// column, the other in durations; then checked against the scenario.
// Any crash, trap or sanitizer report is a finding; every input must end
// in an experiment or in problems.
import HandoffCalibration
import HandoffReport
import HandoffScenario

let scenario = Array(#"""
    {"name": "fuzz", "seed": 3, "trials": 2, "apps": [{"bundleID": "com.example.notes", "teamID": "ABCDE12345", "activityTypes": ["com.example.notes.editing"]}], "devices": [{"name": "mac", "kind": "mac", "apps": ["com.example.notes"]}, {"name": "iphone", "kind": "iPhone", "apps": ["com.example.notes"], "position": [1.5, 0], "acceptance": {"after": "1s"}}], "activity": {"device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "payloadSize": "3KiB"}, "timeline": [{"at": "0s", "action": "becomeCurrent"}]}
    """#.utf8)
let experiment = Array(#"""
    {"name": "fuzz", "scenario": "s.json", "trials": 1,
     "data": [{"file": "d.csv", "column": "ms", "metric": "fetch",
               "groupBy": {"column": "size", "path": "activity.payloadSize"}, "outcome": {"column": "ok", "success": ["1", "yes"]}},
              {"file": "d.csv", "column": "time", "unit": "duration", "metric": "acceptToContinue"}]}
    """#.utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMeasuredCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    do {
        _ = try Experiment.decode(experiment, file: "fuzz/experiment.json") { path in
            switch path {
            case "fuzz/s.json": return scenario
            case "fuzz/d.csv": return bytes
            default: return nil
            }
        }
    } catch {
        _ = error.description
        if let problems = error.problems { _ = RunReport.annotations(for: problems) }
    }
    return 0
}
