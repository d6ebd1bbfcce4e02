import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// A name with a line feed followed by text that must never start a line
/// (`LEAK…`, a forged GitHub workflow command), and other controls: ESC,
/// CR, BEL, DEL, a C1 control and the Unicode line separator.
private func evil(_ label: String) -> String {
    "\(label)\nLEAK-\(label)\n::error file=forged.swift,line=1::forged \u{1B}[31m\r\u{07}\u{7F}\u{85}\u{2028}end"
}

/// The raw control characters found in `text`, other than the line feeds
/// that end its lines.
private func rawControls(_ text: String) -> [String] {
    text.unicodeScalars.filter { scalar in
        scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029)
    }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
}

/// Lines a name's line feed would have started.
private func forgedLines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init).filter {
        $0.hasPrefix("LEAK-") || $0.hasPrefix("::error file=forged.swift")
    }
}

/// Issue 28: every name, value and label the tool prints has its control
/// characters escaped, in every text output of every command, on
/// standard output, standard error and in every file written.
@Suite("Control characters in names never reach an output raw")
struct ControlCharacterOutputTests {
    /// A scenario whose name, description, device, activity, title and
    /// userInfo key hold control characters, an overlay that sets the
    /// name again, an experiment whose CSV groups hold them, and every
    /// command's every text output on them.
    @Test("every text output of every command escapes control characters in names and values")
    func everyOutputIsEscaped() throws {
        let directory = NSTemporaryDirectory() + "handoff-sim-controls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let device = evil("device")
        let scenario: [String: Any] = [
            "name": evil("scenario"), "description": evil("description"), "seed": 3, "trials": 5,
            "apps": [["bundleID": "com.example.notes", "teamID": "ABCDE12345", "activityTypes": ["com.example.notes.editing"]]],
            "devices": [
                ["name": device, "kind": "mac", "apps": ["com.example.notes"]],
                ["name": "iphone", "kind": "iPhone", "apps": ["com.example.notes"], "position": [1.5, 0], "acceptance": ["after": "1s"]],
            ],
            "activity": [
                "device": device, "app": "com.example.notes", "type": "com.example.notes.editing", "name": evil("activity"),
                "title": evil("title"), "userInfo": [evil("key"): evil("value")],
            ],
            "timeline": [["at": "0s", "action": "becomeCurrent"]],
            // One expectation fails, so failure messages and replay commands are printed.
            "expect": [["outcome": "continued"], ["latency": "acceptToContinue", "percentile": 50, "below": "1ms"]],
        ]
        let file = directory + "/evil.json"
        try JSONSerialization.data(withJSONObject: scenario, options: [.sortedKeys]).write(to: URL(fileURLWithPath: file))
        let overlay = directory + "/overlay.json"
        let overlayObject: [String: Any] = ["overlay": evil("overlay"), "set": [["path": "name", "value": evil("overlaid")]]]
        try JSONSerialization.data(withJSONObject: overlayObject).write(to: URL(fileURLWithPath: overlay))
        let csv = directory + "/groups.csv"
        // A CSV line holds no line feed or comma: the other controls.
        try "group,ms\ng\u{1B}[31m\u{07}\u{7F}\u{85}\u{2028}roup,120\nplain,130\n"
            .write(toFile: csv, atomically: true, encoding: .utf8)
        let experiment = directory + "/experiment.json"
        let experimentObject: [String: Any] = [
            "name": evil("experiment"), "scenario": root + "/calibration/scenarios/cable-request-response.json", "trials": 10,
            "data": [["file": csv, "column": "ms", "metric": "fetch", "groupBy": ["column": "group", "path": "activity.title"]]],
        ]
        try JSONSerialization.data(withJSONObject: experimentObject).write(to: URL(fileURLWithPath: experiment))

        let actions = ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": directory + "/summary.md"]
        var runs: [(arguments: [String], environment: [String: String])] = [
            (["run", file, "--no-progress", "--json", directory + "/run.json", "--junit", directory + "/run.xml",
              "--markdown", directory + "/run.md", "--samples", directory + "/run.csv"], actions),
            (["run", file, "--no-progress", "--overlay", overlay], actions),
            (["run", file, "--no-progress", "--trials-with", "continued", "--limit", "2"], [:]),
            (["list", file], [:]),
            (["validate", file], [:]),
            (["sweep", file, "--payload", "1KiB,2KiB", "--trials", "3", "--output", directory + "/sweep.jsonl", "--format", "jsonl"], [:]),
            (["merge", directory + "/sweep.jsonl"], [:]),
            (["advise", file, "--p95", "1s", "--trials", "3", "--max-trials", "6", "--profile", "WiFi"], [:]),
            (["advise", file, "--p95", "1s", "--trials", "3", "--max-trials", "6", "--profile", "WiFi", "--format", "json"], [:]),
            (["baseline", "update", file, "--output", directory + "/baseline.json"], [:]),
            (["baseline", "check", directory + "/baseline.json", file, "--markdown", directory + "/check.md"], actions),
            (["calibrate", experiment, "--check", "--no-progress", "--chart", directory + "/calibration.svg"], [:]),
            (["calibrate", experiment, "--check", "--no-progress", "--format", "json"], [:]),
        ]
        for format in ["text", "csv", "jsonl", "markdown", "svg"] {
            runs.append((["sweep", file, "--payload", "1KiB", "--trials", "3", "--format", format,
                          "--samples", directory + "/sweep-\(format).csv"], [:]))
        }
        for format in ["text", "json", "svg", "perfetto"] {
            for packets in [[], ["--packets"]] {
                runs.append((["replay", file, "--seed", "3", "--trial", "0", "--format", format] + packets, [:]))
                runs.append((["replay", file, "--seed", "3", "--trial", "0", "--overlay", overlay, "--format", format] + packets, [:]))
            }
        }
        for (arguments, environment) in runs {
            let run = try ProductRunner.run("handoff-sim", arguments, environment: environment)
            let shown = arguments.map { $0.replacingOccurrences(of: directory, with: "DIR") }.joined(separator: " ")
            #expect([0, 1].contains(run.status), "\(shown): exit \(run.status): \(run.standardError)")
            #expect(!run.standardOutput.isEmpty || arguments.contains("--output"), "\(shown): nothing printed")
            for (stream, text) in [("standard output", run.standardOutput), ("standard error", run.standardError)] {
                #expect(rawControls(text).isEmpty, "\(shown): raw \(rawControls(text)) on \(stream)")
                #expect(forgedLines(text).isEmpty, "\(shown): a name started a line on \(stream): \(forgedLines(text))")
            }
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            !["evil.json", "overlay.json", "groups.csv", "experiment.json"].contains($0)
        }
        #expect(written.count >= 13, "\(written.sorted())")
        for name in written {
            let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
            #expect(rawControls(text).isEmpty, "\(name): raw \(rawControls(text))")
            #expect(forgedLines(text).isEmpty, "\(name): a name started a line: \(forgedLines(text))")
        }
    }
}
