import Foundation
import FoundationXML
import Testing

// handoff-sim calibrate end to end, and the overlays it writes.

@Suite("handoff-sim calibrate")
struct CalibrateCommandTests {
    static let root = packageRootForCalibration()

    @Test("--check reports each group's KS distance against its critical value, the same JSON for any --jobs, and a chart with a measured and a simulated line per group")
    func checkReport() throws {
        // The shipped cable experiment on 60 trials: the command's whole
        // path in seconds. The shipped fits at their full trial counts
        // (KS ≤ 0.05 over AWDL, ≤ 0.10 over a cable, the upload's median)
        // are checked in a release build by Tests/Calibration/check-fit.py
        // in CI.
        let directory = NSTemporaryDirectory() + "calibrate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let experiment = directory + "/cable.json"
        try #"""
            {"name": "cable, few trials", "scenario": "\#(Self.root)/calibration/scenarios/cable-request-response.json", "trials": 60,
             "data": [{"file": "\#(Self.root)/calibration/data/privatedrop-cable.csv", "column": "network_ms", "metric": "fetch"},
                      {"file": "\#(Self.root)/calibration/data/privatedrop-cable.csv", "column": "request_response_ms", "metric": "acceptToContinue"}]}
            """#.write(toFile: experiment, atomically: true, encoding: .utf8)
        let run = try ProductRunner.run("handoff-sim", ["calibrate", experiment, "--check", "--no-progress"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("checked with 60 trials per group"))
        let lines = run.standardOutput.split(separator: "\n").filter { $0.contains("Kolmogorov–Smirnov distance") }
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains("the 5% critical value") })
        var outputs: [String] = []
        for jobs in ["1", "2"] {
            let json = try ProductRunner.run(
                "handoff-sim", ["calibrate", experiment, "--check", "--format", "json", "--jobs", jobs, "--no-progress"])
            #expect(json.status == 0)
            outputs.append(json.standardOutput)
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[0].contains("\"groups\"") && outputs[0].contains("\"ks\"") && outputs[0].contains("\"quantiles\""))

        // The chart: a valid SVG with a measured and a simulated line per group.
        let chart = directory + "/chart.svg"
        let charted = try ProductRunner.run("handoff-sim", ["calibrate", experiment, "--check", "--chart", chart, "--no-progress"])
        #expect(charted.status == 0)
        _ = try XMLDocument(contentsOf: URL(fileURLWithPath: chart))  // well-formed
        let svg = try String(contentsOfFile: chart, encoding: .utf8)
        #expect(svg.components(separatedBy: #"<path class="measured" d="M"#).count == 3)
        #expect(svg.components(separatedBy: #"<path class="simulated" d="M"#).count == 3)
    }

    @Test("a bad experiment file is exit 65 with the file, path and line")
    func badExperiment() throws {
        let directory = NSTemporaryDirectory() + "calibrate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "ms\n100\n".write(toFile: directory + "/data.csv", atomically: true, encoding: .utf8)
        let experiment = #"{"name": "x", "scenario": "\#(Self.root)/calibration/scenarios/cable-request-response.json", "data": [{"file": "data.csv", "column": "mz", "metric": "fetch"}]}"#
        try experiment.write(toFile: directory + "/e.json", atomically: true, encoding: .utf8)
        let run = try ProductRunner.run("handoff-sim", ["calibrate", directory + "/e.json", "--no-progress"])
        #expect(run.status == 65)
        #expect(run.standardError.contains("\(directory)/e.json:1:"))
        #expect(run.standardError.contains("$.data[0].column"))
        #expect(run.standardError.contains("did you mean \"ms\"?"))
    }
}

extension CalibrateCommandTests {
    @Test("every kind of bad experiment is exit 65 naming the file, its path and line", arguments: [
        (#"{"file": "data.csv", "column": "ms", "unit": "minutes", "metric": "fetch"}"#, "[]", "$.data[0].unit"),
        (#"{"file": "data.csv", "column": "ms", "metric": "latency"}"#, "[]", "$.data[0].metric"),
        (#"{"file": "text.csv", "column": "ms", "metric": "fetch"}"#, "[]", "text.csv:3"),
        (#"{"file": "empty.csv", "column": "ms", "metric": "fetch"}"#, "[]", "found none"),
        (#"{"file": "data.csv", "column": "ms", "metric": "fetch"}"#,
         #"[{"path": "network.wifiPeerToPeer.latency", "min": "9ms", "max": "1ms"}]"#, "$.parameters[0]"),
        (#"{"file": "data.csv", "column": "ms", "metric": "fetch"}"#,
         #"[{"path": "devices[9].kind", "min": 0, "max": 1}]"#, "$.parameters[0].path"),
    ])
    func badExperiments(data: String, parameters: String, mentions: String) throws {
        let directory = NSTemporaryDirectory() + "calibrate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "ms\n100\n".write(toFile: directory + "/data.csv", atomically: true, encoding: .utf8)
        try "ms\n100\nslow\n".write(toFile: directory + "/text.csv", atomically: true, encoding: .utf8)
        try "ms\n".write(toFile: directory + "/empty.csv", atomically: true, encoding: .utf8)
        let experiment = #"{"name": "x", "scenario": "\#(Self.root)/calibration/scenarios/cable-request-response.json", "data": [\#(data)], "parameters": \#(parameters)}"#
        try experiment.write(toFile: directory + "/e.json", atomically: true, encoding: .utf8)
        let run = try ProductRunner.run("handoff-sim", ["calibrate", directory + "/e.json", "--no-progress"])
        #expect(run.status == 65)
        #expect(run.standardError.contains("\(directory)/e.json:1:"), "\(run.standardError)")
        #expect(run.standardError.contains(mentions), "\(run.standardError)")
    }
}

private func packageRootForCalibration(filePath: String = #filePath) -> String {
    var url = URL(fileURLWithPath: filePath)
    while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
    return url.deletingLastPathComponent().path
}

@Suite("Overlays: a fitted model used by run, sweep, baseline and replay")
struct OverlayCommandTests {
    static let root = packageRootForCalibration()

    @Test("calibrate --output writes an overlay; run, sweep, baseline and replay with it run the fitted model")
    func overlayRoundTrip() throws {
        let directory = NSTemporaryDirectory() + "overlay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A quick fit: two simulations of 200 trials of the AWDL fetch (the
        // shipped experiment's upload dataset moves 10 MB a trial: minutes
        // in a debug build; CI checks the shipped example in release, and
        // recovers known parameters with it: Tests/Calibration).
        try #"""
            {"name": "AWDL fetch", "scenario": "\#(Self.root)/calibration/scenarios/awdl-request-response.json",
             "data": [{"file": "\#(Self.root)/calibration/data/privatedrop-awdl.csv", "column": "network_ms", "metric": "fetch"}],
             "parameters": [
               {"path": "network.wifiPeerToPeer.latency", "min": "0.5ms", "max": "8ms", "scale": "log"},
               {"path": "network.wifiPeerToPeer.bandwidthSpread", "min": 0, "max": 0.3}]}
            """#.write(toFile: directory + "/experiment.json", atomically: true, encoding: .utf8)
        let calibrate = try ProductRunner.run(
            "handoff-sim",
            ["calibrate", directory + "/experiment.json", "--trials", "200", "--evaluations", "2",
             "--output", directory + "/fitted.json", "--no-progress"])
        #expect(calibrate.status == 0, "\(calibrate.standardError)")
        let overlayText = try String(contentsOfFile: directory + "/fitted.json", encoding: .utf8)
        #expect(overlayText.contains("\"network.wifiPeerToPeer.latency\""))
        #expect(overlayText.contains("\"network.wifiPeerToPeer.bandwidthSpread\""))
        #expect(!overlayText.contains("\"replicates\""), "no bootstrap, no replicates")

        // With a bootstrap, each replicate's values are kept, and the overlay
        // still runs (its "set").
        let bootstrapped = try ProductRunner.run(
            "handoff-sim",
            ["calibrate", directory + "/experiment.json", "--trials", "200", "--evaluations", "2", "--bootstrap", "2",
             "--output", directory + "/replicated.json", "--no-progress"])
        #expect(bootstrapped.status == 0, "\(bootstrapped.standardError)")
        let replicated = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: directory + "/replicated.json"))) as? [String: Any]
        let replicates = replicated?["replicates"] as? [[String: Any]] ?? []
        #expect(replicates.count == 2)
        func paths(_ object: [String: Any]?) -> [String] { (object?["set"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String } }
        #expect(replicates.allSatisfy { paths($0) == paths(replicated) } && paths(replicated).count == 2)
        let withReplicates = try ProductRunner.run(
            "handoff-sim", ["run", Self.root + "/scenarios/payload-3kib.json", "--trials", "5", "--overlay",
                            directory + "/replicated.json", "--no-progress"])
        #expect(withReplicates.status == 0 || withReplicates.status == 1, "\(withReplicates.standardError)")

        // A hand-written overlay that makes the link much slower: run's
        // figures move, and equal those of the scenario with the value written in.
        let slow = #"{"overlay": "slow", "set": [{"path": "network.wifiPeerToPeer.latency", "value": "150ms"}]}"#
        try slow.write(toFile: directory + "/slow.json", atomically: true, encoding: .utf8)
        let scenario = Self.root + "/scenarios/payload-3kib.json"
        var edited = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scenario))) as! [String: Any]
        edited["network"] = ["wifiPeerToPeer": ["latency": "150ms"]]
        try JSONSerialization.data(withJSONObject: edited).write(to: URL(fileURLWithPath: directory + "/edited.json"))
        func json(_ arguments: [String]) throws -> String {
            let run = try ProductRunner.run("handoff-sim", arguments + ["--no-progress", "--json", directory + "/r.json"])
            #expect(run.status == 0 || run.status == 1, "\(run.standardError)")
            let text = try String(contentsOfFile: directory + "/r.json", encoding: .utf8)
            // The figures only (file names and wall-clock times differ).
            return text.split(separator: "\n").filter { $0.contains("Nanoseconds") }.joined(separator: "\n")
        }
        let plain = try json(["run", scenario])
        let overlaid = try json(["run", scenario, "--overlay", directory + "/slow.json"])
        let written = try json(["run", directory + "/edited.json"])
        #expect(plain != overlaid)
        #expect(overlaid == written)

        let sweep = try ProductRunner.run(
            "handoff-sim",
            ["sweep", scenario, "--payload", "1KiB", "--trials", "20", "--format", "csv", "--overlay", directory + "/slow.json", "--no-progress"])
        let sweepPlain = try ProductRunner.run(
            "handoff-sim", ["sweep", scenario, "--payload", "1KiB", "--trials", "20", "--format", "csv", "--no-progress"])
        #expect(sweep.status == 0 && sweepPlain.status == 0)
        #expect(sweep.standardOutput != sweepPlain.standardOutput)
        #expect(sweep.standardOutput.split(separator: "\n").first == sweepPlain.standardOutput.split(separator: "\n").first,
                "the overlay adds no axis")

        // A failure under the overlay prints a replay command that names it.
        let failing = try ProductRunner.run("handoff-sim", ["run", scenario, "--overlay", directory + "/slow.json", "--no-progress"])
        #expect(failing.status == 1)
        #expect(failing.standardOutput.contains("--overlay \(directory)/slow.json"))

        // A baseline recorded with the overlay holds with it, not without.
        let update = try ProductRunner.run(
            "handoff-sim", ["baseline", "update", scenario, "--output", directory + "/b.json", "--overlay", directory + "/slow.json"])
        #expect(update.status == 0)
        let same = try ProductRunner.run(
            "handoff-sim", ["baseline", "check", directory + "/b.json", scenario, "--overlay", directory + "/slow.json"])
        #expect(same.status == 0)
        let without = try ProductRunner.run("handoff-sim", ["baseline", "check", directory + "/b.json", scenario])
        #expect(without.status == 4, "faster without the slow overlay: only improvements")

        // A scenario may name its overlay (relative to itself): the same figures.
        var naming = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scenario))) as! [String: Any]
        naming["overlay"] = "slow.json"
        try JSONSerialization.data(withJSONObject: naming).write(to: URL(fileURLWithPath: directory + "/naming.json"))
        #expect(try json(["run", directory + "/naming.json"]) == overlaid)
        naming["overlay"] = "nowhere.json"
        try JSONSerialization.data(withJSONObject: naming).write(to: URL(fileURLWithPath: directory + "/missing.json"))
        let missing = try ProductRunner.run("handoff-sim", ["run", directory + "/missing.json", "--no-progress"])
        #expect(missing.status == 65)
        #expect((missing.standardOutput + missing.standardError).contains("$.overlay"))

        let replay = try ProductRunner.run(
            "handoff-sim", ["replay", scenario, "--seed", "7", "--trial", "0", "--overlay", directory + "/slow.json"])
        let replayPlain = try ProductRunner.run("handoff-sim", ["replay", scenario, "--seed", "7", "--trial", "0"])
        #expect(replay.status == 0 && replay.standardOutput != replayPlain.standardOutput)
    }

    @Test("a bad overlay, or one whose path has no place in the scenario, is exit 65 with the file")
    func badOverlay() throws {
        let directory = NSTemporaryDirectory() + "overlay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try #"{"set": [{"path": "network..x", "value": 1}]}"#.write(toFile: directory + "/bad.json", atomically: true, encoding: .utf8)
        let bad = try ProductRunner.run(
            "handoff-sim", ["run", Self.root + "/scenarios/payload-3kib.json", "--overlay", directory + "/bad.json", "--no-progress"])
        #expect(bad.status == 65)
        #expect(bad.standardError.contains("\(directory)/bad.json:1:"))
        #expect(bad.standardError.contains("$.set[0].path"))
        try #"{"set": [{"path": "network.wifiPeerToPeer.latency", "value": "fast"}]}"#
            .write(toFile: directory + "/invalid.json", atomically: true, encoding: .utf8)
        let invalid = try ProductRunner.run(
            "handoff-sim", ["run", Self.root + "/scenarios/payload-3kib.json", "--overlay", directory + "/invalid.json", "--no-progress"])
        #expect(invalid.status == 65)
        #expect((invalid.standardOutput + invalid.standardError).contains("$.network.wifiPeerToPeer.latency"))
    }
}
