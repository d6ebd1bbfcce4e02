import Foundation
import Testing

// Issue 38, wrong exit codes: an input from a pipe or a FIFO (`<(…)`,
// `/dev/stdin`) is read like a file, once, by every command that reads one.

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let scenario = root + "/Tests/Fixtures/run-scenarios/passes.json"
private let cable = root + "/calibration/scenarios/cable-request-response.json"

@Suite("Inputs from pipes and FIFOs")
struct PipeInputTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "handoff-pipe-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs `handoff-sim` with `arguments`, where "FIFO" stands for a FIFO
    /// at `directory/name` that a writer process fills once with the bytes
    /// of `source` (the FIFO can be opened for reading once: a second
    /// reading would wait for a writer forever). A command still running
    /// after a minute is terminated, so a second reading fails the test
    /// instead of hanging it.
    static func run(_ arguments: [String], source: String, name: String, in directory: String) throws -> ProductRun {
        let fifo = directory + "/" + name
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", #"exec cat "$0" > "$1""#, source, fifo]
        try writer.run()
        let command = Process()
        command.executableURL = try ProductRunner.productsDirectory().appendingPathComponent("handoff-sim")
        command.arguments = arguments.map { $0 == "FIFO" ? fifo : $0 }
        let output = Pipe()
        let error = Pipe()
        command.standardOutput = output
        command.standardError = error
        try command.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if command.isRunning { command.terminate() } }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        command.waitUntilExit()
        // A command that never opened the FIFO leaves the writer waiting.
        if writer.isRunning { writer.terminate() }
        writer.waitUntilExit()
        return ProductRun(
            status: command.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }

    @Test("validate, run, sweep and advise read a scenario from a FIFO", arguments: [
        ["validate", "FIFO"],
        ["run", "FIFO", "--no-progress", "--trials", "3"],
        ["run", "FIFO", "--no-progress", "--trials", "3", "--seeds", "1-2", "--check-determinism"],
        ["sweep", "FIFO", "--payload", "1KiB", "--trials", "3", "--no-progress"],
        ["advise", "FIFO", "--p95", "5s", "--trials", "3", "--max-trials", "6", "--resolution", "16KiB"],
    ])
    func scenarioFromFIFO(arguments: [String]) throws {
        let run = try Self.run(arguments, source: scenario, name: "scenario.json", in: try Self.directory())
        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.standardError.contains("cannot be read") && !run.standardError.contains("cannot read"), "\(run.standardError)")
    }

    @Test("merge reads a part from a FIFO")
    func mergeFromFIFO() throws {
        let directory = try Self.directory()
        let part = directory + "/part.jsonl"
        let sweep = try ProductRunner.run("handoff-sim", [
            "sweep", scenario, "--payload", "1KiB", "--trials", "4", "--shard", "0/1", "--no-progress", "--output", part,
        ])
        #expect(sweep.status == 0, "\(sweep.standardError)")
        let merged = try Self.run(["merge", "FIFO"], source: part, name: "part-fifo.jsonl", in: directory)
        #expect(merged.status == 0, "\(merged.standardError)")
        #expect(merged.standardOutput.contains("1KiB"), "\(merged.standardOutput)")
    }

    @Test("calibrate reads an experiment from a FIFO (its files relative to the FIFO's folder)")
    func calibrateFromFIFO() throws {
        let directory = try Self.directory()
        try "ms\n100\n104\n".write(toFile: directory + "/data.csv", atomically: true, encoding: .utf8)
        let experiment = directory + "/experiment.txt"
        try #"{"name": "x", "scenario": "\#(cable)", "trials": 20, "data": [{"file": "data.csv", "column": "ms", "metric": "fetch"}], "parameters": []}"#
            .write(toFile: experiment, atomically: true, encoding: .utf8)
        let run = try Self.run(["calibrate", "FIFO", "--check", "--no-progress"], source: experiment, name: "e.json", in: directory)
        #expect(run.status == 0, "\(run.standardError)")
    }

    @Test("validate and run read /dev/stdin when it is a pipe")
    func standardInputPipe() throws {
        let text = try Data(contentsOf: URL(fileURLWithPath: scenario))
        for arguments in [["validate", "/dev/stdin"], ["run", "/dev/stdin", "--no-progress", "--trials", "3"]] {
            let command = Process()
            command.executableURL = try ProductRunner.productsDirectory().appendingPathComponent("handoff-sim")
            command.arguments = arguments
            let input = Pipe()
            let output = Pipe()
            let error = Pipe()
            command.standardInput = input
            command.standardOutput = output
            command.standardError = error
            try command.run()
            try input.fileHandleForWriting.write(contentsOf: text)
            try input.fileHandleForWriting.close()
            _ = output.fileHandleForReading.readDataToEndOfFile()
            let errorText = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            command.waitUntilExit()
            #expect(command.terminationStatus == 0, "\(arguments): \(errorText)")
        }
    }
}
