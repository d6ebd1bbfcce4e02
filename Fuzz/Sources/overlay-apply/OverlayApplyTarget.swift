// libFuzzer target: an overlay file, as `--overlay` reads it: decoded,
// written back and read again, then written over a scenario and the
// result validated, as run and sweep do. Any crash, trap or sanitizer
// report is a finding; every input must end in a scenario or in problems.
import HandoffReport
import HandoffScenario

let scenario = Array(#"""
    {"name": "fuzz", "seed": 3, "trials": 2, "apps": [{"bundleID": "com.example.notes", "teamID": "ABCDE12345", "activityTypes": ["com.example.notes.editing"]}], "devices": [{"name": "mac", "kind": "mac", "apps": ["com.example.notes"]}, {"name": "iphone", "kind": "iPhone", "apps": ["com.example.notes"], "position": [1.5, 0], "acceptance": {"after": "1s"}}], "activity": {"device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "payloadSize": "3KiB"}, "timeline": [{"at": "0s", "action": "becomeCurrent"}]}
    """#.utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOverlayApply(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let overlay: Overlay
    do {
        overlay = try Overlay(bytes: bytes, file: "fuzz-overlay.json")
    } catch {
        _ = error.description
        if let problems = error.problems { _ = RunReport.annotations(for: problems) }
        return 0
    }
    // Written back, it reads again.
    if (try? Overlay(bytes: Array(overlay.json.utf8), file: "rewritten.json")) == nil {
        fatalError("an overlay's own text does not read back: \(overlay.json)")
    }
    do {
        let prepared = try SweepRunner.prepare(
            scenario, file: "s.json", parameters: [(path: "trials", values: ["1"])],
            options: SweepRunner.Options(overlay: overlay))
        _ = prepared.axes.count
    } catch {
        _ = error.description
        if let problems = error.problems { _ = RunReport.annotations(for: problems) }
    }
    return 0
}
