import Foundation
import Testing

// Issue 28, the input side: every input that crashed, hung or misread is
// a clear error with its exact message (or reads as it should).

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let scenario = root + "/Tests/Fixtures/run-scenarios/passes.json"
private let cable = root + "/calibration/scenarios/cable-request-response.json"
/// A path of 40,000 steps (80,008 bytes): it overflowed the stack.
private let deepPath = (["protocol"] + Array(repeating: "x", count: 40_000)).joined(separator: ".")

@Suite("Robust input: paths, overlays, experiments and measured files")
struct InputRobustnessTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "handoff-input-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    // MARK: Deep paths

    @Test("an overlay with a 40,000-step path is refused by every command, exit 65, with the bound")
    func deepOverlayPath() throws {
        let directory = try Self.directory()
        let overlay = directory + "/deep.json"
        try Self.write(#"{"overlay": "deep", "set": [{"path": "\#(deepPath)", "value": 1}]}"#, overlay)
        let message = "\(overlay):1:38: error: $.set[0].path: expected a scenario path of at most 1024 bytes, found one of 80008 bytes"
        let recorded = try ProductRunner.run("handoff-sim", ["baseline", "update", scenario, "--output", directory + "/b.json"])
        #expect(recorded.status == 0, "\(recorded.standardError)")
        let commands: [[String]] = [
            ["run", scenario, "--trials", "2", "--overlay", overlay],
            ["replay", scenario, "--seed", "1", "--trial", "0", "--overlay", overlay],
            ["sweep", scenario, "--payload", "1KiB", "--trials", "2", "--overlay", overlay, "--no-progress"],
            ["advise", scenario, "--p95", "1s", "--trials", "2", "--max-trials", "4", "--overlay", overlay],
            ["baseline", "update", scenario, "--output", directory + "/b.json", "--overlay", overlay],
            ["baseline", "check", directory + "/b.json", scenario, "--overlay", overlay],
        ]
        for arguments in commands {
            let run = try ProductRunner.run("handoff-sim", arguments)
            #expect(run.status == 65, "\(arguments[0]): \(run.standardError)")
            #expect(run.standardError.contains(message), "\(arguments[0]): \(run.standardError)")
        }
        // validate, through the scenario's own "overlay".
        let named = directory + "/named.json"
        var text = try String(contentsOfFile: scenario, encoding: .utf8)
        text = text.replacingOccurrences(of: "{", with: #"{"overlay": "deep.json", "#, options: [], range: text.range(of: "{"))
        try Self.write(text, named)
        let validate = try ProductRunner.run("handoff-sim", ["validate", named])
        #expect(validate.status == 65, "\(validate.standardError)")
        #expect(validate.standardOutput.contains(message) || validate.standardError.contains(message),
                "\(validate.standardOutput)\(validate.standardError)")
    }

    @Test("a path of 33 steps is refused with the step bound")
    func overlayPathSteps() throws {
        let directory = try Self.directory()
        let overlay = directory + "/steps.json"
        let path = (["protocol"] + Array(repeating: "x", count: 32)).joined(separator: ".")
        try Self.write(#"{"overlay": "deep", "set": [{"path": "\#(path)", "value": 1}]}"#, overlay)
        let run = try ProductRunner.run("handoff-sim", ["run", scenario, "--trials", "2", "--overlay", overlay])
        #expect(run.status == 65)
        #expect(run.standardError.contains(
            "\(overlay):1:38: error: $.set[0].path: expected a scenario path of at most 32 keys and indices, found one of 33"),
            "\(run.standardError)")
    }

    @Test("sweep --vary with a 40,000-step path is a usage error with the bound")
    func deepVary() throws {
        let run = try ProductRunner.run("handoff-sim", ["sweep", scenario, "--vary", deepPath + "=1", "--trials", "2"])
        #expect(run.status == 64)
        #expect(run.standardError == "error: a parameter path may be at most 1024 bytes long; this one is 80008 bytes\n")
    }

    @Test("a scenario's sweep.vary key of 40,000 steps is invalid, exit 65, in validate and sweep")
    func deepSweepKey() throws {
        let directory = try Self.directory()
        let file = directory + "/s.json"
        var text = try String(contentsOfFile: scenario, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "{", with: #"{"sweep": {"vary": {"\#(deepPath)": [1, 2]}}, "#, options: [], range: text.range(of: "{"))
        try Self.write(text, file)
        for arguments in [["validate", file], ["sweep", file, "--trials", "2", "--no-progress"]] {
            let run = try ProductRunner.run("handoff-sim", arguments)
            #expect(run.status == 65, "\(run.standardError)")
            #expect((run.standardOutput + run.standardError).contains(
                "\(file):1:21: error: $.sweep.vary: expected a scenario path of at most 1024 bytes, found one of 80008 bytes"),
                "\(run.standardOutput)\(run.standardError)")
        }
    }

    // MARK: calibrate

    /// An experiment over the cable scenario with `data` and `parameters`,
    /// and `csv` as data.csv.
    static func experiment(
        _ directory: String, data: String = #"{"file": "data.csv", "column": "ms", "metric": "fetch"}"#,
        parameters: String = "[]", csv: String = "ms\n100\n104\n", scenario: String = cable, extra: String = ""
    ) throws -> String {
        try Self.write(csv, directory + "/data.csv")
        let file = directory + "/e.json"
        try Self.write(
            #"{"name": "x", "scenario": "\#(scenario)", "trials": 20, \#(extra)"data": [\#(data)], "parameters": \#(parameters)}"#, file)
        return file
    }

    static func calibrate(_ file: String, _ options: [String] = ["--check"]) throws -> ProductRun {
        try ProductRunner.run("handoff-sim", ["calibrate", file, "--no-progress"] + options)
    }

    @Test("calibrate refuses a 40,000-step parameter or groupBy path, exit 65, with the bound", arguments: [
        (#"{"file": "data.csv", "column": "ms", "metric": "fetch"}"#, #"[{"path": "\#(deepPath)", "min": 0, "max": 1}]"#,
         "$.parameters[0].path: expected a scenario path of at most 1024 bytes, found one of 80008 bytes"),
        (#"{"file": "data.csv", "column": "ms", "metric": "fetch", "groupBy": {"column": "ms", "path": "\#(deepPath)"}}"#, "[]",
         "$.data[0].groupBy.path: expected a scenario path of at most 1024 bytes, found one of 80008 bytes"),
    ])
    func deepCalibratePaths(data: String, parameters: String, message: String) throws {
        let file = try Self.experiment(try Self.directory(), data: data, parameters: parameters)
        let run = try Self.calibrate(file)
        #expect(run.status == 65)
        #expect(run.standardError.contains(message), "\(run.standardError)")
    }

    @Test("calibrate refuses ranges and measurements past their bounds instead of trapping", arguments: [
        (#"[{"path": "network.wifiPeerToPeer.latency", "min": "1ms", "max": "9223372036854775807ns"}]"#, "ms\n100\n",
         #"$.parameters[0].max: expected a duration of at most 168h, found "9223372036854775807ns""#),
        (#"[{"path": "network.wifiPeerToPeer.loss", "min": -1e308, "max": 1e308}]"#, "ms\n100\n",
         "$.parameters[0].min: expected a number from -1e15 to 1e15, found -1e308"),
        ("[]", "ms\n1e19\n",
         #"$.data[0].column: data.csv:2: expected a latency in ms from 0 to 168h (604800000 ms) in column "ms", found "1e19""#),
        ("[]", "ms\n1e22\n",
         #"$.data[0].column: data.csv:2: expected a latency in ms from 0 to 168h (604800000 ms) in column "ms", found "1e22""#),
        ("[]", "ms\n100\u{0}abc\n",
         #"$.data[0].column: data.csv:2: expected a latency in ms from 0 to 168h (604800000 ms) in column "ms", found "100\u{0}abc""#),
        ("[]", "ms\n0x1p8\n",
         #"$.data[0].column: data.csv:2: expected a latency in ms from 0 to 168h (604800000 ms) in column "ms", found "0x1p8""#),
        ("[]", "ms\n-0\n",
         #"$.data[0].column: data.csv:2: expected a latency in ms from 0 to 168h (604800000 ms) in column "ms", found "-0""#),
    ])
    func boundedCalibration(parameters: String, csv: String, message: String) throws {
        let directory = try Self.directory()
        let file = try Self.experiment(directory, parameters: parameters, csv: csv)
        let run = try Self.calibrate(file)
        #expect(run.status == 65)
        #expect(run.standardError.contains("\(file):1:"), "\(run.standardError)")
        #expect(run.standardError.contains(message), "\(run.standardError)")
    }

    @Test("a byte-order mark is skipped and a CR-only file is rows")
    func csvLineEndings() throws {
        for csv in ["\u{FEFF}ms\n100\n104\n", "ms\r100\r104\r"] {
            let file = try Self.experiment(try Self.directory(), csv: csv)
            let run = try Self.calibrate(file)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("dataset 1: fetch, 2 measured, 20 simulated"), "\(run.standardOutput)")
        }
    }

    @Test("a subnormal measurement leaves the objective finite")
    func subnormalMeasurement() throws {
        let file = try Self.experiment(try Self.directory(), csv: "ms\n4.9e-324\n100\n")
        let run = try Self.calibrate(file, ["--check", "--format", "json"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.standardOutput.contains(#""objective" : null"#) && !run.standardOutput.contains(#""objective": null"#))
        #expect(run.standardOutput.contains(#""objective""#))
    }

    @Test("more than 1,000 groups are refused before anything is simulated")
    func tooManyGroups() throws {
        let csv = "ms,size\n" + (0...1_000).map { "100,\($0 + 1)B" }.joined(separator: "\n") + "\n"
        let file = try Self.experiment(
            try Self.directory(),
            data: #"{"file": "data.csv", "column": "ms", "metric": "fetch", "groupBy": {"column": "size", "path": "activity.payloadSize"}}"#,
            csv: csv)
        let run = try Self.calibrate(file)
        #expect(run.status == 65)
        #expect(run.standardError.contains(
            "$.data[0].groupBy: expected at most 1000 measured groups in all datasets, found more at data.csv:1002"),
            "\(run.standardError)")
    }

    @Test("measured files past 256 MiB are refused without being read whole")
    func measuredFileSize() throws {
        let directory = try Self.directory()
        let file = try Self.experiment(directory)
        // A sparse file: 257 MiB of zeros that take no disk.
        let big = directory + "/big.csv"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: 257 << 20)
        try handle.close()
        try Self.write(
            #"{"name": "x", "scenario": "\#(cable)", "data": [{"file": "big.csv", "column": "ms", "metric": "fetch"}]}"#, file)
        let run = try Self.calibrate(file)
        #expect(run.status == 65)
        #expect(run.standardError.contains(#"$.data[0].file: expected measured files of at most 256 MiB in all, found "big.csv" larger than that"#),
                "\(run.standardError)")
    }

    @Test("a number parameter whose path takes only whole numbers is refused up front, exit 65, with its line")
    func wholeNumberParameter() throws {
        let file = try Self.experiment(try Self.directory(), parameters: #"[{"path": "limits.maxEvents", "min": 1000, "max": 100000}]"#)
        // The column of the path's value: the file names the scenario by its
        // absolute path, so the column depends on where the package is.
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let value = try #require(text.range(of: #""limits.maxEvents""#))
        let column = text.utf8.distance(from: text.startIndex, to: value.lowerBound) + 1
        for options in [["--check"], ["--evaluations", "3"]] {
            let run = try Self.calibrate(file, options)
            #expect(run.status == 65)
            #expect(run.standardError.contains(
                "\(file):1:\(column): error: $.parameters[0].path: limits.maxEvents takes only whole numbers in the scenario \(cable), and calibrate fits a number over its whole range (50500.5 does not fit); fit a parameter that takes fractions"),
                "\(run.standardError)")
        }
    }

    @Test("calibrate's usage errors: --check with --bootstrap, --trials past 10^6")
    func calibrateUsage() throws {
        let file = try Self.experiment(try Self.directory())
        let both = try Self.calibrate(file, ["--check", "--bootstrap", "3"])
        #expect(both.status == 64)
        #expect(both.standardError == "error: --check fits nothing, so --bootstrap has nothing to resample; give one or the other\n")
        let trials = try Self.calibrate(file, ["--check", "--trials", "10000000"])
        #expect(trials.status == 64)
        #expect(trials.standardError.hasPrefix("error: option '--trials' expects a whole number from 1 to 1000000, found '10000000'"),
                "\(trials.standardError)")
    }

    @Test("an ambiguous activity says to choose with the experiment's activity key")
    func ambiguousActivity() throws {
        let several = root + "/scenarios/monkeybrowser-four-tabs.json"
        let file = try Self.experiment(try Self.directory(), scenario: several)
        let run = try Self.calibrate(file)
        #expect(run.status == 65)
        #expect(run.standardError.contains(
            "has several activities; say which with the experiment's \"activity\" key (tab1, tab2, tab3, tab4)"), "\(run.standardError)")
    }

    @Test("a fitted number below 5e-10 is written to the overlay exactly, not as 0")
    func tinyOverlayValue() throws {
        let directory = try Self.directory()
        let file = try Self.experiment(
            directory, parameters: #"[{"path": "network.wifiPeerToPeer.loss", "min": 0, "max": 1e-12}]"#)
        let run = try Self.calibrate(file, ["--evaluations", "1", "--output", directory + "/fitted.json"])
        #expect(run.status == 0, "\(run.standardError)")
        let overlay = try String(contentsOfFile: directory + "/fitted.json", encoding: .utf8)
        #expect(overlay.contains(#""value" : 5e-13"#) || overlay.contains(#""value": 5e-13"#), "\(overlay)")
    }

    // MARK: Overlays

    @Test("a missing --overlay file is exit 64 on every command", arguments: [
        ["run", scenario, "--trials", "2"],
        ["replay", scenario, "--seed", "1", "--trial", "0"],
        ["sweep", scenario, "--payload", "1KiB", "--trials", "2", "--no-progress"],
        ["advise", scenario, "--p95", "1s", "--trials", "2", "--max-trials", "4"],
        ["baseline", "update", scenario, "--output", NSTemporaryDirectory() + "never.json"],
    ])
    func missingOverlay(arguments: [String]) throws {
        let missing = NSTemporaryDirectory() + "no-such-overlay-\(UUID().uuidString).json"
        let run = try ProductRunner.run("handoff-sim", arguments + ["--overlay", missing])
        #expect(run.status == 64)
        #expect(run.standardError == "error: \(missing): no such file or cannot be read\n")
    }

    @Test("an overlay value out of bounds is reported against the overlay file, its path and line")
    func overlayValueOutOfBounds() throws {
        let directory = try Self.directory()
        let overlay = directory + "/o.json"
        try Self.write(#"{"overlay": "o", "set": [{"path": "limits.maxEvents", "value": 1000000000000}]}"#, overlay)
        let run = try ProductRunner.run("handoff-sim", ["run", scenario, "--trials", "2", "--overlay", overlay])
        #expect(run.status == 65)
        #expect(run.standardOutput.contains(
            "\(overlay):1:64: error: $.set[0].value: the value of limits.maxEvents does not fit \(scenario) ($.limits.maxEvents): expected a whole number from 1 to 100000000, found 1000000000000"),
            "\(run.standardOutput)")
        #expect(!run.standardOutput.contains(":0:0"))
    }

    @Test("an overlay value that breaks a rule across fields is reported against the overlay's value, in set and in a replicate")
    func overlayValueBreaksCrossFieldRule() throws {
        let directory = try Self.directory()
        // The scenario fixes the excursion interval at 600ms: an excursion
        // may last at most two thirds of it.
        let file = directory + "/s.json"
        try Self.write(
            try String(contentsOfFile: scenario, encoding: .utf8).replacingOccurrences(
                of: #""trials": 20,"#, with: #""trials": 3, "network": {"wifiPeerToPeer": {"schedule": {"excursionInterval": "600ms"}}},"#),
            file)
        let rule = "expected a valid schedule: schedule.excursionDuration: 500ms; expected a duration from 0 to two thirds of the excursion interval (600ms)"
        let base = directory + "/base.json"
        try Self.write(#"{"overlay": "o", "set": [{"path": "network.wifiPeerToPeer.schedule.excursionDuration", "value": "500ms"}]}"#, base)
        let run = try ProductRunner.run("handoff-sim", ["run", file, "--overlay", base, "--no-progress"])
        #expect(run.status == 65)
        #expect(run.standardOutput.contains(
            "\(base):1:97: error: $.set[0].value: the value of network.wifiPeerToPeer.schedule.excursionDuration does not fit \(file) ($.network.wifiPeerToPeer.schedule): \(rule)"),
            "\(run.standardOutput)")
        let fit = directory + "/fit.json"
        try Self.write(#"""
            {"overlay": "fit", "set": [{"path": "network.wifiPeerToPeer.latency", "value": "2ms"}, {"path": "network.wifiPeerToPeer.schedule.excursionDuration", "value": "100ms"}],
             "replicates": [{"set": [{"path": "network.wifiPeerToPeer.schedule.excursionDuration", "value": "110ms"}]},
                            {"set": [{"path": "network.wifiPeerToPeer.latency", "value": "3ms"}, {"path": "network.wifiPeerToPeer.schedule.excursionDuration", "value": "500ms"}]}]}
            """#, fit)
        let sweep = try ProductRunner.run("handoff-sim", ["sweep", file, "--overlay", fit, "--payload", "1KiB", "--no-progress"])
        #expect(sweep.status == 65)
        #expect(sweep.standardError.contains(
            "\(fit):3:157: error: $.replicates[1].set[1].value: the value of network.wifiPeerToPeer.schedule.excursionDuration does not fit \(file) ($.network.wifiPeerToPeer.schedule): \(rule)"),
            "\(sweep.standardError)")
        // A problem of the scenario's own in the same object stays the scenario's.
        try Self.write(
            try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: #""600ms""#, with: #""600ms", "excursionDuration": "500ms""#),
            file)
        let activation = directory + "/activation.json"
        try Self.write(#"{"overlay": "o", "set": [{"path": "network.wifiPeerToPeer.schedule.activation", "value": "50ms"}]}"#, activation)
        let own = try ProductRunner.run("handoff-sim", ["run", file, "--overlay", activation, "--no-progress"])
        #expect(own.status == 65)
        #expect(own.standardOutput.contains("\(file):"), "\(own.standardOutput)")
        #expect(own.standardOutput.contains(": error: $.network.wifiPeerToPeer.schedule: \(rule)"), "\(own.standardOutput)")
        #expect(!own.standardOutput.contains(activation), "\(own.standardOutput)")
    }

    @Test("an overlay that sets \"overlay\" is an error, not ignored")
    func overlaySettingOverlay() throws {
        let directory = try Self.directory()
        let overlay = directory + "/o.json"
        try Self.write(#"{"overlay": "o", "set": [{"path": "overlay", "value": "missing.json"}]}"#, overlay)
        let run = try ProductRunner.run("handoff-sim", ["run", scenario, "--trials", "2", "--overlay", overlay])
        #expect(run.status == 65)
        #expect(run.standardError.contains(
            #"\#(overlay):1:35: error: $.set[0].path: expected a scenario value to write, found "overlay": an overlay cannot name another overlay (put its values in this one)"#),
            "\(run.standardError)")
    }
}
