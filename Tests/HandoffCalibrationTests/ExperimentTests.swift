import Foundation
import Handoff
import HandoffWorld
@testable import HandoffCalibration
@testable import HandoffScenario
import SimKernel
import Testing

/// `handoff-sim calibrate`'s experiment files and its fitting.
@Suite("Calibration experiments")
struct ExperimentTests {
    /// An experiment over the shipped cable scenario, with `files` as the
    /// files it may read (its CSV as `data.csv`).
    static func decode(
        _ text: String, csv: String = "ms,size\n100,1KiB\n104,1KiB\n110,3KiB\n"
    ) -> Result<Experiment, ScenarioProblems> {
        ExperimentDecoder.decode(Array(text.utf8), file: "dir/experiment.json") { path in
            path == "dir/data.csv" ? Array(csv.utf8) : read(path)
        }
    }

    /// The scenario files the experiments name: `dir/cable.json` and
    /// `dir/streams.json` (shipped scenarios).
    static func read(_ path: String) -> [UInt8]? {
        let shipped: String
        switch path {
        case "dir/cable.json": shipped = "calibration/scenarios/cable-request-response.json"
        case "dir/streams.json": shipped = "scenarios/streams-large-document.json"
        case "dir/awdl.json": shipped = "calibration/scenarios/awdl-request-response.json"
        default: return nil
        }
        return FileManager.default.contents(atPath: packageRoot() + "/" + shipped).map(Array.init)
    }

    static func experiment(data: String = #"{"file": "data.csv", "column": "ms", "metric": "fetch"}"#, parameters: String = "[]") -> String {
        #"{"name": "test", "scenario": "cable.json", "trials": 50, "data": [\#(data)], "parameters": \#(parameters)}"#
    }

    static func problems(_ text: String, csv: String = "ms\n100\n104\n") -> [String] {
        switch decode(text, csv: csv) {
        case .success: return []
        case let .failure(problems): return problems.problems.map(\.description)
        }
    }

    @Test("an experiment decodes: groups in file order, units, outcomes, parameter kinds and scales")
    func decodes() throws {
        let text = Self.experiment(
            data: #"{"file": "data.csv", "column": "s", "unit": "s", "metric": "acceptToContinue", "groupBy": {"column": "size", "path": "activity.payloadSize"}, "outcome": {"column": "ok", "success": ["yes"]}}"#,
            parameters: #"[{"path": "network.wifiPeerToPeer.latency", "min": "1ms", "max": "4ms", "scale": "log"}, {"path": "protocol.rapport.processing.logNormal.sigma", "min": 0.01, "max": 0.5}, {"path": "network.wifiPeerToPeer.bandwidth", "min": "10Mbit/s", "max": "1Gbit/s"}, {"path": "protocol.requestBytes", "min": "100B", "max": "4KiB"}]"#)
        let csv = "s,size,ok\n0.1,3KiB,yes\n0.2,1KiB,yes\n0.3,3KiB,no\n0.25,3KiB,yes\n"
        guard case let .success(experiment) = Self.decode(text, csv: csv) else {
            Issue.record("\(Self.decode(text, csv: csv))")
            return
        }
        #expect(experiment.scenarioFile == "dir/cable.json")
        #expect(experiment.trials == 50)
        let dataset = try #require(experiment.datasets.first)
        #expect(dataset.metric == .acceptToContinue)
        #expect(dataset.groupPath == "activity.payloadSize")
        #expect(dataset.groups.map(\.value) == ["3KiB", "1KiB"])
        #expect(dataset.groups.map(\.milliseconds) == [[100, 250], [200]])
        #expect(dataset.groups.map(\.failures) == [1, 0])
        #expect(experiment.parameters.map(\.kind) == [.duration, .number, .rate, .size])
        #expect(experiment.parameters.map(\.scale) == [.log, .linear, .linear, .linear])
        let latency = experiment.parameters[0]
        #expect(latency.minimum == 1_000_000 && latency.maximum == 4_000_000)
        #expect(abs(latency.value(at: 0.5) - 2_000_000) < 1)
        #expect(latency.text(2_000_000.4) == "2000000ns")
        // No start: the middle of the range, in the scale's sense.
        #expect(abs(latency.start - 2_000_000) < 1)
        #expect(experiment.parameters[1].start == (0.01 + 0.5) / 2)
        let started = try Self.decode(Self.experiment(
            parameters: #"[{"path": "network.wifiPeerToPeer.latency", "min": "1ms", "max": "4ms", "start": "3ms"}]"#)).get()
        #expect(started.parameters[0].start == 3_000_000)
        #expect(abs(latency.unit(of: 2_000_000) - 0.5) < 1e-12)
        #expect(experiment.parameters[3].text(2048.6) == "2049B")
        #expect(experiment.parameters[2].text(54_000_000) == "54000000bit/s")
    }

    @Test("bad experiments are clear errors with the file, the path and the line", arguments: [
        (experiment(data: #"{"file": "data.csv", "column": "latency", "metric": "fetch"}"#), "$.data[0].column", "its columns are ms"),
        (experiment(data: #"{"file": "data.csv", "column": "ms", "unit": "minutes", "metric": "fetch"}"#), "$.data[0].unit", "unit"),
        (experiment(data: #"{"file": "data.csv", "column": "ms", "metric": "latency"}"#), "$.data[0].metric", "metric"),
        (experiment(data: #"{"file": "missing.csv", "column": "ms", "metric": "fetch"}"#), "$.data[0].file", "can be read"),
        (experiment(parameters: #"[{"path": "network.wifiPeerToPeer.latency", "min": "5ms", "max": "1ms"}]"#), "$.parameters[0]", "min below max"),
        (experiment(parameters: #"[{"path": "x", "min": "1ms", "max": 3}]"#), "$.parameters[0]", "one kind"),
        (experiment(parameters: #"[{"path": "a..b", "min": 0, "max": 1}]"#), "$.parameters[0].path", "scenario path"),
        (experiment(parameters: #"[{"path": "x", "min": 0, "max": 1, "scale": "log"}]"#), "$.parameters[0].scale", "positive range"),
        (experiment(parameters: #"[{"path": "x", "min": "1ms", "max": "3ms", "start": "4ms"}]"#), "$.parameters[0].start", "inside the range"),
        (experiment(parameters: #"[{"path": "x", "min": "1ms", "max": "3ms", "start": 2}]"#), "$.parameters[0].start", "inside the range"),
        (#"{"name": "test", "scenario": "nowhere.json", "data": []}"#, "$.scenario", "can be read"),
    ])
    func errors(text: String, path: String, mentions: String) {
        let found = Self.problems(text)
        #expect(!found.isEmpty)
        #expect(found.contains { $0.hasPrefix("dir/experiment.json:1:") && $0.contains(path) && $0.contains(mentions) }, "\(found)")
    }

    @Test("an empty or non-numeric column is an error naming the CSV line")
    func badColumns() {
        let nonNumeric = Self.problems(Self.experiment(), csv: "ms\n100\nfast\n120\n")
        #expect(nonNumeric.contains { $0.contains("$.data[0].column") && $0.contains("data.csv:3") && $0.contains("\"fast\"") }, "\(nonNumeric)")
        let empty = Self.problems(Self.experiment(), csv: "ms\n")
        #expect(empty.contains { $0.contains("found none") }, "\(empty)")
    }

    @Test("a parameter path the scenario has no place for is found before anything runs")
    func parameterPaths() throws {
        let text = Self.experiment(parameters: #"[{"path": "network.wifiPeerToPeer.latency", "min": "1ms", "max": "4ms"}, {"path": "devices[7].position", "min": 0, "max": 1}]"#)
        let experiment = try Self.decode(text).get()
        let problems = try #require(Calibrator.problems(in: experiment, read: Self.read))
        #expect(problems.problems.count == 1)
        #expect(problems.problems[0].path == "$.parameters[1].path")
        #expect(problems.problems[0].position != nil)
    }

    @Test("seeds: the search's objective averages over that many seeds, from 1 to 16; the report is at the seed alone")
    func seeds() throws {
        let one = try Self.decode(Self.experiment()).get()
        #expect(one.seedCount == 1)
        let three = try Self.decode(Self.experiment().replacingOccurrences(of: #""trials": 50"#, with: #""trials": 50, "seeds": 3"#)).get()
        #expect(three.seedCount == 3)
        #expect(three.overriding(seed: 9).seedCount == 3)
        for bad in ["0", "17", "2.5", "\"4\""] {
            let problems = Self.problems(Self.experiment().replacingOccurrences(of: #""trials": 50"#, with: #""trials": 50, "seeds": \#(bad)"#))
            #expect(problems.contains { $0.contains("$.seeds") && $0.contains("from 1 to 16") }, "\(bad): \(problems)")
        }
        // A fit over 3 seeds scores each candidate on seeds 1, 2 and 3: it
        // simulates three times as many trials as one over a single seed.
        let parameters = #"[{"path": "network.wifiPeerToPeer.latency", "min": "1ms", "max": "4ms"}]"#
        let single = try Self.decode(Self.experiment(parameters: parameters)).get()
        let triple = try Self.decode(Self.experiment(parameters: parameters)
            .replacingOccurrences(of: #""trials": 50"#, with: #""trials": 50, "seeds": 3"#)).get()
        let a = try Calibrator(jobs: 2, maximumEvaluations: 6).run(single, read: Self.read)
        let b = try Calibrator(jobs: 2, maximumEvaluations: 6).run(triple, read: Self.read)
        #expect(b.seedCount == 3 && a.seedCount == 1)
        #expect(b.trialsSimulated > 2 * a.trialsSimulated, "\(a.trialsSimulated) against \(b.trialsSimulated)")
    }

    /// An experiment over the shipped AWDL request/response scenario,
    /// measured on `era` (JSON text of `measuredOn`).
    static func awdlExperiment(era: String) -> String {
        #"{"name": "era", "scenario": "awdl.json", "trials": 400, "measuredOn": \#(era), "data": [{"file": "data.csv", "column": "ms", "metric": "fetch"}]}"#
    }

    @Test("measuredOn runs every device on its platform's OS version: the fit sees that era's behaviours, and says what it cannot place")
    func era() throws {
        let old = try Self.decode(Self.awdlExperiment(era: #"{"macOS": "10.15.7", "iOS": "14.0"}"#)).get()
        #expect(old.era == [MeasuredEra(platform: .iOS, version: OSVersion(14)), MeasuredEra(platform: .macOS, version: OSVersion(10, 15, 7))])
        #expect(old.eraEdits(of: "dir/awdl.json").map(\.path) == ["devices[0].os", "devices[1].os"])
        #expect(old.eraEdits(of: "dir/awdl.json").map(\.values) == [["\"14.0\""], ["\"10.15.7\""]])
        // The same runs on today's systems: a SYN lost over AWDL is sent
        // again after 100 ms, not 1 s (XNU's tcp_awdl_rtobase, from macOS
        // 14.1 and iOS 17.1), so the simulated tail is shorter.
        let new = try Self.decode(Self.awdlExperiment(era: #"{"macOS": "14.4", "iOS": "17.4"}"#)).get()
        func p95(_ experiment: Experiment) throws -> Double {
            let result = try Calibrator(jobs: 2).run(experiment, check: true, read: Self.read)
            return try #require(result.groups.first?.quantiles.first { $0.level == 0.95 }?.simulated)
        }
        #expect(try p95(new) < p95(old) - 100, "the old era's tail waits for 1 s SYN retries")
        // A device of a platform the era does not state, and a version that
        // is not one, are problems at their paths.
        let missing = Self.problems(Self.awdlExperiment(era: #"{"macOS": "10.15.7"}"#))
        #expect(missing.count == 1 && missing[0].contains("$.measuredOn") && missing[0].contains("iOS"), "\(missing)")
        let bad = Self.problems(Self.awdlExperiment(era: #"{"macOS": "ten", "iOS": "14.0"}"#))
        #expect(bad.contains { $0.contains("$.measuredOn.macOS") && $0.contains("an OS version") }, "\(bad)")
        let empty = Self.problems(Self.awdlExperiment(era: "{}"))
        #expect(empty.contains { $0.contains("$.measuredOn") && $0.contains("at least one") }, "\(empty)")
    }

    @Test("an outcome column: the measured success share is reported and its gap from the simulated one counts")
    func successShare() throws {
        let csv = "ms,ok\n100,yes\n104,yes\n,no\n106,yes\n"
        let with = try Self.decode(Self.experiment(
            data: #"{"file": "data.csv", "column": "ms", "metric": "fetch", "outcome": {"column": "ok", "success": ["yes"]}}"#), csv: csv).get()
        let without = try Self.decode(Self.experiment(), csv: "ms\n100\n104\n106\n").get()
        let checked = try Calibrator().run(with, check: true, read: Self.read)
        let plain = try Calibrator().run(without, check: true, read: Self.read)
        let group = try #require(checked.groups.first)
        #expect(group.measuredSuccess == 0.75)
        #expect(group.simulatedSuccess == 1)
        #expect(plain.groups.first?.measuredSuccess == nil)
        // An outcome column where every attempt succeeded: a share of 1, not none.
        let allSucceeded = try Self.decode(Self.experiment(
            data: #"{"file": "data.csv", "column": "ms", "metric": "fetch", "outcome": {"column": "ok", "success": ["yes"]}}"#),
            csv: "ms,ok\n100,yes\n104,yes\n").get()
        let checkedAll = try Calibrator().run(allSucceeded, check: true, read: Self.read)
        #expect(checkedAll.groups.first?.measuredSuccess == 1)
        // The same latencies; the objective differs by the success gap.
        #expect(abs(checked.objective - plain.objective - 0.25) < 1e-9)
    }

    @Test("a dataset may name its own scenario and trial count: stream rounds simulated in another scenario than the fetch")
    func datasetScenarios() throws {
        let text = Self.experiment(data: #"""
            {"file": "data.csv", "column": "ms", "metric": "fetch"},
            {"file": "data.csv", "column": "ms", "metric": "streamRound", "scenario": "streams.json", "trials": 7}
            """#)
        let experiment = try Self.decode(text, csv: "ms\n30\n60\n").get()
        #expect(experiment.datasets.map(\.scenarioFile) == ["dir/cable.json", "dir/streams.json"])
        #expect(experiment.datasets.map(\.trials) == [50, 7])
        #expect(experiment.scenarioFiles == ["dir/cable.json", "dir/streams.json"])
        #expect(experiment.overriding(trials: 3).datasets.map(\.trials) == [3, 3])
        #expect(Calibrator.problems(in: experiment, read: Self.read) == nil)
        let checked = try Calibrator().run(experiment, check: true, read: Self.read)
        #expect(checked.groups.map(\.metric) == [.fetch, .streamRound])
        #expect(checked.groups.map(\.simulatedCount) == [50, 7])
        // Four 512 KiB rounds: the first takes tens of milliseconds.
        let median = try #require(checked.groups[1].quantiles.first { $0.level == 0.5 }?.simulated)
        #expect(median > 10 && median < 1000, "median stream round \(median) ms")
        // A parameter is checked against every scenario; the streams scenario has no schedule override to refuse it.
        let unreadable = Self.problems(Self.experiment(data: #"""
            {"file": "data.csv", "column": "ms", "metric": "streamRound", "scenario": "missing.json", "trials": 0}
            """#))
        #expect(unreadable.contains { $0.contains("$.data[0].scenario") && $0.contains("missing.json") })
        #expect(unreadable.contains { $0.contains("$.data[0].trials") })
    }

    @Test("a scenario's digest covers its overlays' values: the one it names and the one a command gives")
    func overlayDigest() throws {
        let directory = NSTemporaryDirectory() + "digest-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = try String(contentsOfFile: packageRoot() + "/scenarios/payload-3kib.json", encoding: .utf8)
        let plainFile = directory + "/plain.json"
        try scenario.write(toFile: plainFile, atomically: true, encoding: .utf8)
        let namingFile = directory + "/naming.json"
        try scenario.replacingOccurrences(of: "{\n", with: "{\n  \"overlay\": \"fit.json\",\n", options: .anchored)
            .write(toFile: namingFile, atomically: true, encoding: .utf8)
        func writeOverlay(_ latency: String) throws {
            try #"{"set": [{"path": "network.wifiPeerToPeer.latency", "value": "\#(latency)"}]}"#
                .write(toFile: directory + "/fit.json", atomically: true, encoding: .utf8)
        }
        try writeOverlay("3ms")
        let plain = try ScenarioSuite.load(plainFile).digest
        let given = try ScenarioSuite.load(plainFile, overlay: Overlay.load(directory + "/fit.json")).digest
        let named = try ScenarioSuite.load(namingFile).digest
        try writeOverlay("4ms")
        let renamed = try ScenarioSuite.load(namingFile).digest
        #expect(plain == SHA256.hexDigest(of: Array(scenario.utf8)), "without an overlay: the file's own SHA-256")
        #expect(given != plain)
        #expect(named != renamed, "the named overlay's new value changes the digest")
        // The sweep runner records the same digest as a run.
        let prepared = try SweepRunner.prepare(
            Array(try String(contentsOfFile: namingFile, encoding: .utf8).utf8), file: namingFile, payloads: ["1KiB"],
            options: .init())
        #expect(prepared.base.digest == renamed)
    }

    @Test("Nelder–Mead finds the minimum of a smooth function inside the unit cube, deterministically")
    func nelderMead() throws {
        let target = [0.3, 0.72, 0.5]
        func f(_ point: [Double]) -> Double { zip(point, target).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) }
        let start = [0.5, 0.5, 0.5]
        let first = try Calibrator.nelderMead(from: start, value: f(start), size: 0.25, budget: 400) { f($0) }
        let second = try Calibrator.nelderMead(from: start, value: f(start), size: 0.25, budget: 400) { f($0) }
        #expect(first.point == second.point)
        #expect(zip(first.point, target).allSatisfy { abs($0 - $1) < 0.01 })
        // A minimum outside the cube: the boundary.
        let clamped = try Calibrator.nelderMead(from: [0.5], value: 0.81, size: 0.25, budget: 200) { ($0[0] - 1.4) * ($0[0] - 1.4) }
        #expect(clamped.point[0] > 0.99)
    }

    @Test("the same experiment and seed fit to the same result on 1 and 2 threads; a fit is no worse than the start")
    func determinism() throws {
        let csv = "ms\n" + (0..<60).map { String(95 + ($0 * 7) % 17) }.joined(separator: "\n") + "\n"
        // A fixed processing time per message (a log-normal's median could
        // be fitted only if the scenario spelled the distribution out).
        let text = Self.experiment(parameters: #"[{"path": "protocol.rapport.processing", "min": "8ms", "max": "20ms"}]"#)
        let experiment = try Self.decode(text, csv: csv).get()
        let one = try Calibrator(jobs: 1, maximumEvaluations: 12).run(experiment, read: Self.read)
        let two = try Calibrator(jobs: 2, maximumEvaluations: 12).run(experiment, read: Self.read)
        #expect(one == two)
        #expect(one.fitted)
        let start = try Calibrator(jobs: 2).run(
            experiment, check: true, values: [experiment.parameters[0].value(at: 0.5)], read: Self.read)
        #expect(one.objective <= start.objective)
        // The median near the data's (about 103 ms over 7.3 processing steps).
        let median = one.parameters[0].value / 1e6
        #expect(median > 12 && median < 16, "median \(median) ms")
    }
}

extension ExperimentTests {
    @Test("a CSV named by many datasets is read once, and their rows count together against the bound")
    func measuredFileReadOnce() {
        final class Reads: @unchecked Sendable { var csv = 0 }
        let reads = Reads()
        let datasets = Array(repeating: #"{"file": "data.csv", "column": "ms", "metric": "fetch"}"#, count: 50).joined(separator: ", ")
        let text = #"{"name": "test", "scenario": "cable.json", "trials": 50, "data": [\#(datasets)]}"#
        let result = ExperimentDecoder.decode(Array(text.utf8), file: "dir/experiment.json") { path in
            if path == "dir/data.csv" {
                reads.csv += 1
                return Array("ms\n100\n104\n".utf8)
            }
            return Self.read(path)
        }
        #expect(reads.csv == 1)
        guard case let .success(experiment) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(experiment.datasets.count == 50)
        #expect(experiment.datasets.allSatisfy { $0.groups[0].milliseconds == [100, 104] })
    }
}
