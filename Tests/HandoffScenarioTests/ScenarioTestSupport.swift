import Foundation
@testable import HandoffScenario

/// The package's root directory (this file is Tests/HandoffScenarioTests/…).
func packageRoot(filePath: String = #filePath) -> String {
    URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}

/// Decodes `text` as a scenario file named `file`.
func decode(_ text: String, file: String = "test.json") -> Result<Scenario, ScenarioProblems> {
    ScenarioDecoder.decode(Array(text.utf8), file: file)
}

/// The problems of `text`, as printed.
func problems(_ text: String, file: String = "test.json") -> [String] {
    switch decode(text, file: file) {
    case .success: return []
    case let .failure(problems): return problems.problems.map(\.description)
    }
}

/// A valid two-device scenario with `extra` top-level members spliced in
/// (each "key": value, comma-separated) and the given expectations.
func scenarioText(
    _ extra: String = "", expect: String = #"[{ "outcome": "continued" }]"#,
    timeline: String = #"[{ "at": "0s", "action": "becomeCurrent" }]"#,
    iphone: String = #""position": [1.5, 0], "acceptance": { "after": "1s" }"#,
    activity: String = #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing""#,
    app: String = ""
) -> String {
    """
    {
      "name": "test",\(extra.isEmpty ? "" : "\n  " + extra + ",")
      "apps": [
        { "bundleID": "com.example.notes", "teamID": "ABCDE12345", "activityTypes": ["com.example.notes.editing"]\(app) }
      ],
      "devices": [
        { "name": "mac", "kind": "mac", "apps": ["com.example.notes"] },
        { "name": "iphone", "kind": "iPhone", "apps": ["com.example.notes"], \(iphone) }
      ],
      "activity": { \(activity) },
      "timeline": \(timeline),
      "expect": \(expect)
    }
    """
}

/// Decodes `text`, failing the test with the problems if it is invalid.
func validScenario(_ text: String, file: String = "test.json") throws -> Scenario {
    switch decode(text, file: file) {
    case let .success(scenario): return scenario
    case let .failure(problems):
        struct Invalid: Error, CustomStringConvertible { let description: String }
        throw Invalid(description: problems.description)
    }
}
