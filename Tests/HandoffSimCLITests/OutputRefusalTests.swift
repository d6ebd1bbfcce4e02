import Foundation
import FoundationXML
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let passes = root + "/Tests/Fixtures/run-scenarios/passes.json"

private func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "handoff-sim-refusal-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A file opened for writing as a child's standard output (a regular file,
/// as with `> out.txt`).
private func regularFile(_ path: String) throws -> FileHandle {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    return try #require(FileHandle(forWritingAtPath: path))
}

/// An experiment on the shipped cable data, 20 trials per group.
private func cableExperiment(in directory: String) throws -> String {
    let experiment = directory + "/cable.json"
    try #"""
        {"name": "cable", "scenario": "\#(root)/calibration/scenarios/cable-request-response.json", "trials": 20,
         "data": [{"file": "\#(root)/calibration/data/privatedrop-cable.csv", "column": "network_ms", "metric": "fetch"}]}
        """#.write(toFile: experiment, atomically: true, encoding: .utf8)
    return experiment
}

/// The output side of issue 28: standard output by any of its names is one
/// stream written in order, an output never overwrites an input or another
/// output, a symbolic link loop is refused, and an output folder that
/// cannot be written is found before any work.
@Suite("Output refusals and standard output")
struct OutputRefusalTests {
    @Test("--samples to standard output by any name, while standard output is a regular file, comes before the table, both intact",
          arguments: ["/dev/stdout", "/dev/fd/1", "-"])
    func samplesToStandardOutputFile(path: String) throws {
        let directory = try temporaryDirectory()
        let file = directory + "/out.txt"
        let handle = try regularFile(file)
        let run = try ProductRunner.run(
            "handoff-sim", ["sweep", passes, "--payload", "1KiB", "--trials", "5", "--samples", path], standardOutput: handle)
        try handle.close()
        #expect(run.status == 0, "\(run.standardError)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.hasPrefix("payload,payload_bytes,trial,") == true)
        // Header and five samples, then the table, whole.
        #expect(lines.dropFirst().prefix(5).allSatisfy { $0.hasPrefix("1KiB,1024,") })
        #expect(lines[6].hasPrefix("payload  trials  success"))
        #expect(lines.contains { $0.hasPrefix("1KiB          5     100%") })
    }

    @Test("calibrate --chart /dev/stdout into a regular file gives a whole SVG, then the report")
    func chartToStandardOutputFile() throws {
        let directory = try temporaryDirectory()
        let experiment = try cableExperiment(in: directory)
        let file = directory + "/out.txt"
        let handle = try regularFile(file)
        let run = try ProductRunner.run(
            "handoff-sim", ["calibrate", experiment, "--check", "--chart", "/dev/stdout", "--no-progress"], standardOutput: handle)
        try handle.close()
        #expect(run.status == 0, "\(run.standardError)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let end = try #require(text.range(of: "</svg>\n"))
        let svg = String(text[..<end.upperBound])
        #expect(svg.hasPrefix("<?xml"))
        _ = try XMLDocument(data: Data(svg.utf8))  // well-formed
        #expect(text[end.upperBound...].contains("checked with 20 trials per group"))
    }

    @Test("an output that names the command's input is refused before any work, exit 64, naming both",
          arguments: [
              (["run", "s.json", "--no-progress", "--samples", "./s.json"], "--samples ./s.json would overwrite the input s.json"),
              (["sweep", "s.json", "--payload", "1KiB", "--output", "sub/../s.json"], "--output sub/../s.json would overwrite the input s.json"),
              (["advise", "s.json", "--p95", "1s", "--output", "link.json"], "--output link.json would overwrite the input s.json"),
              (["replay", "s.json", "--seed", "1", "--trial", "0", "--output", "ABSOLUTE/s.json"], "--output ABSOLUTE/s.json would overwrite the input s.json"),
              (["replay", "s.json", "--seed", "1", "--trial", "0", "--overlay", "o.json", "--output", "o.json"], "--output o.json would overwrite the input o.json"),
              (["baseline", "update", "s.json", "--output", "./s.json"], "--output ./s.json would overwrite the input s.json"),
              (["baseline", "check", "base.json", "s.json", "--markdown", "base.json"], "--markdown base.json would overwrite the input base.json"),
              (["merge", "a.jsonl", "b.jsonl", "--output", "b.jsonl"], "--output b.jsonl would overwrite the input b.jsonl"),
              (["run", "folder", "--no-progress", "--json", "folder/inner.json"], "--json folder/inner.json would overwrite the input folder/inner.json"),
          ])
    func outputOverInputIsRefused(arguments: [String], message: String) throws {
        let directory = try temporaryDirectory()
        let scenario = try String(contentsOfFile: passes, encoding: .utf8)
        for name in ["s.json", "base.json", "a.jsonl", "b.jsonl", "folder/inner.json"] {
            try FileManager.default.createDirectory(
                atPath: (directory + "/" + name as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try scenario.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        try #"{"format": 1, "values": {}}"#.write(toFile: directory + "/o.json", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.json", withDestinationPath: "s.json")
        let absolute = arguments.map { $0.replacingOccurrences(of: "ABSOLUTE", with: directory) }
        let run = try ProductRunner.run("handoff-sim", absolute, directory: directory)
        #expect(run.status == 64)
        let shown = message.replacingOccurrences(of: "ABSOLUTE", with: directory)
        #expect(run.standardError == "error: \(shown); give the output another path\n")
        #expect(run.standardOutput.isEmpty, "nothing ran")
        #expect(try String(contentsOfFile: directory + "/s.json", encoding: .utf8) == scenario)
        #expect(try String(contentsOfFile: directory + "/o.json", encoding: .utf8) == #"{"format": 1, "values": {}}"#)
    }

    @Test("calibrate refuses an output over a file the experiment names, before the fit")
    func calibrateOutputOverMeasuredFile() throws {
        let directory = try temporaryDirectory()
        try FileManager.default.copyItem(atPath: root + "/calibration/data/privatedrop-cable.csv", toPath: directory + "/data.csv")
        let experiment = directory + "/e.json"
        try #"""
            {"name": "cable", "scenario": "\#(root)/calibration/scenarios/cable-request-response.json", "trials": 20,
             "data": [{"file": "data.csv", "column": "network_ms", "metric": "fetch"}]}
            """#.write(toFile: experiment, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory + "/data.csv"))
        let run = try ProductRunner.run("handoff-sim", ["calibrate", experiment, "--check", "--chart", directory + "/./data.csv", "--no-progress"])
        #expect(run.status == 64)
        #expect(run.standardError == "error: --chart \(directory)/./data.csv would overwrite the input \(directory)/data.csv; give the output another path\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/data.csv")) == before)
    }

    @Test("two outputs naming the same file are refused before any work, exit 64, naming both")
    func twoOutputsOneFile() throws {
        let directory = try temporaryDirectory()
        let run = try ProductRunner.run(
            "handoff-sim", ["run", passes, "--no-progress", "--samples", "X", "--json", "./X"], directory: directory)
        #expect(run.status == 64)
        #expect(run.standardError == "error: --json ./X and --samples X are the same file; give each output its own path\n")
        #expect(run.standardOutput.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory + "/X"))
        // Standard output twice is one stream, written in order.
        let twice = try ProductRunner.run("handoff-sim", ["run", passes, "--no-progress", "--quiet", "--samples", "-", "--json", "/dev/stdout"])
        #expect(twice.status == 0)
        #expect(twice.standardOutput.contains("\"tool\": \"handoff-sim\""))
        #expect(twice.standardOutput.contains("activity,device,outcome"))
    }

    @Test("an output path that is a symbolic link loop is refused, exit 70, and stays a link")
    func symbolicLinkLoop() throws {
        let directory = try temporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: directory + "/loop", withDestinationPath: "loop")
        let run = try ProductRunner.run("handoff-sim", ["run", passes, "--no-progress", "--json", directory + "/loop"])
        #expect(run.status == 70)
        #expect(run.standardError == "error: cannot write \(directory)/loop: Too many levels of symbolic links (a symbolic link loop)\n")
        #expect(run.standardOutput.isEmpty, "nothing ran")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/loop") == "loop")
    }

    @Test("an output folder in which no file can be made is found before calibrate fits anything, exit 70")
    func readOnlyFolderBeforeTheFit() throws {
        let directory = try temporaryDirectory()
        let experiment = try cableExperiment(in: directory)
        // Root writes into a mode-555 folder; sysfs refuses even root.
        let folder: String
        if geteuid() == 0 {
            folder = "/sys/kernel"
        } else {
            folder = directory + "/read-only"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        }
        let started = Date()
        let run = try ProductRunner.run("handoff-sim", ["calibrate", experiment, "--chart", folder + "/chart.svg"])
        #expect(run.status == 70)
        #expect(run.standardError == "error: cannot write \(folder)/chart.svg: no file can be made in the folder \(folder): Permission denied\n")
        #expect(run.standardOutput.isEmpty, "nothing was fitted")
        #expect(Date().timeIntervalSince(started) < 5)
    }
}
