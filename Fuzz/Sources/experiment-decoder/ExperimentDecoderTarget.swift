// libFuzzer target: a calibration experiment file, as `handoff-sim
// calibrate` reads it: decoded, its measured file read, and checked
// against its scenario (each parameter at both ends of its range, each
// group with its value). The files it may name are fixed: `s.json` (a
// two-device scenario) and `d.csv` (latencies with a size and an
// outcome column). Any crash, trap or sanitizer report is a finding;
// every input must end in an experiment or in problems.
import HandoffCalibration
import HandoffReport
import HandoffScenario

let scenario = Array(#"""
    {"name": "fuzz", "seed": 3, "trials": 2, "apps": [{"bundleID": "com.example.notes", "teamID": "ABCDE12345", "activityTypes": ["com.example.notes.editing"]}], "devices": [{"name": "mac", "kind": "mac", "apps": ["com.example.notes"]}, {"name": "iphone", "kind": "iPhone", "apps": ["com.example.notes"], "position": [1.5, 0], "acceptance": {"after": "1s"}}], "activity": {"device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "payloadSize": "3KiB"}, "timeline": [{"at": "0s", "action": "becomeCurrent"}]}
    """#.utf8)
let measured = Array("ms,size,ok\n100,1KiB,1\n104,3KiB,1\n250,3KiB,0\n".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExperimentDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    do {
        let experiment = try Experiment.decode(bytes, file: "fuzz/experiment.json") { path in
            switch path {
            case "fuzz/s.json": return scenario
            case "fuzz/d.csv": return measured
            default: return nil
            }
        }
        _ = experiment.overriding(seed: 2, trials: 1).name
    } catch {
        // What calibrate prints, plain and as GitHub annotations.
        _ = error.description
        if let problems = error.problems { _ = RunReport.annotations(for: problems) }
    }
    return 0
}
