import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// The package root (this file is Tests/HandoffSimCLITests/…).
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let invalid = root + "/Tests/Fixtures/invalid-scenarios/"
private let fixtures = root + "/Tests/Fixtures/run-scenarios/"

/// A fresh temporary directory.
private func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "handoff-sim-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private func read(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
}

/// Counts of a JUnit file's elements and its `<testsuites>` attributes.
private final class JUnitCounter: NSObject, XMLParserDelegate {
    var elements: [String: Int] = [:]
    var rootAttributes: [String: String] = [:]
    var suiteAttributes: [[String: String]] = []

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements[name, default: 0] += 1
        if name == "testsuites" { rootAttributes = attributes }
        if name == "testsuite" { suiteAttributes.append(attributes) }
    }
}

@Suite("handoff-sim scenario commands")
struct ScenarioCommandTests {
    // MARK: Exit codes

    @Test("run: every expectation holds → exit 0 and the summary")
    func passes() throws {
        let run = try ProductRunner.run("handoff-sim", ["run", fixtures + "passes.json", "--no-progress"])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("PASS     Passes"))
        let last = run.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.range(of: #"^1 scenario: 1 passed in [0-9]+\.[0-9]{2}s of wall time$"#, options: .regularExpression) != nil, "\(last)")
    }

    @Test("run: a failing expectation → exit 1 with the figure, the bound and a replay command that works")
    func failsWithReplay() throws {
        let file = fixtures + "latency-bound.json"
        let run = try ProductRunner.run("handoff-sim", ["run", file, "--no-progress"])
        #expect(run.status == 1)
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("         ✗ $.expect[1]: expected acceptToContinue p95 on iphone < 10ms"))
        #expect(lines.contains { $0.hasPrefix("           measured: p95 = ") && $0.hasSuffix(" over 20 of 20 trials") })
        let replayLine = try #require(lines.first { $0.hasPrefix("           replay: handoff-sim replay ") })
        let words = replayLine.split(separator: " ").map(String.init)
        let seed = try #require(words.firstIndex(of: "--seed").map { words[$0 + 1] })
        let trial = try #require(words.firstIndex(of: "--trial").map { words[$0 + 1] })
        #expect(seed == "3")
        let replay = try ProductRunner.run("handoff-sim", ["replay", file, "--seed", seed, "--trial", trial])
        #expect(replay.status == 0)
        #expect(replay.standardOutput.hasPrefix("scenario Too strict a latency bound (\(file)), seed 3, trial \(trial)"))
        #expect(replay.standardOutput.contains("continueUserActivity"))
        #expect(replay.standardOutput.contains("activity on iphone: continued (advert → offered "))
    }

    @Test("run: a scenario that hits its event limit ends with a clear error (exit 1) and the suite goes on")
    func limitHit() throws {
        let run = try ProductRunner.run(
            "handoff-sim", ["run", fixtures + "event-limit.json", fixtures + "passes.json", "--no-progress"])
        #expect(run.status == 1)
        #expect(run.standardOutput.contains("ERROR    Too few events allowed  trial 0 handled 5 events (limits.maxEvents) without settling"))
        #expect(run.standardOutput.contains("PASS     Passes"))
        #expect(run.standardOutput.contains("2 scenarios: 1 passed, 1 with errors"))
    }

    @Test("run: a trial that reaches its time limit ends the same way on one thread or two (exit 1, same report)")
    func timeLimitIndependentOfJobs() throws {
        var outputs: [String] = []
        for jobs in ["1", "2", "3"] {
            let run = try ProductRunner.run(
                "handoff-sim", ["run", fixtures + "time-limit.json", "--no-progress", "--jobs", jobs])
            #expect(run.status == 1, "--jobs \(jobs)")
            #expect(run.standardOutput.contains("trial 0 reached the simulated-time limit of 20s"), "--jobs \(jobs)")
            outputs.append(run.standardOutput.replacingOccurrences(
                of: #" in [0-9.]+s of wall time"#, with: "", options: .regularExpression))
        }
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2])
    }

    @Test("usage errors exit 64 with a message on stderr", arguments: [
        (["run"], "error: missing <file or dir>"),
        (["run", "/no/such/dir"], "error: /no/such/dir: no such file or directory"),
        (["run", fixtures + "passes.json", "--trails", "3"], "error: unknown option '--trails' for 'run' (did you mean '--trials'?)"),
        (["run", fixtures + "passes.json", "--jobs", "0"], "error: option '--jobs' expects a whole number from 1 to 1024, found '0'"),
        (["replay", fixtures + "passes.json", "--trial", "1"], "error: replay needs '--seed S'"),
        (["validate", "--seed", "1"], "error: unknown option '--seed' for 'validate'"),
    ])
    func usage(arguments: [String], message: String) throws {
        let run = try ProductRunner.run("handoff-sim", arguments)
        #expect(run.status == 64)
        #expect(run.standardError.hasPrefix(message), "\(run.standardError)")
    }

    @Test("an output file that cannot be written is an internal error: exit 70 before the run, nothing half-written")
    func unwritableOutput() throws {
        let directory = try temporaryDirectory()
        try "not a folder".write(toFile: directory + "/file", atomically: false, encoding: .utf8)
        let run = try ProductRunner.run(
            "handoff-sim", ["run", fixtures + "passes.json", "--no-progress", "--json", directory + "/file/r.json"])
        #expect(run.status == 70)
        #expect(run.standardError == "error: cannot write \(directory)/file/r.json: \(directory)/file is not a folder\n")
        #expect(run.standardOutput.isEmpty, "nothing ran")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["file"])
    }

    @Test("run --samples and sweep --samples write one CSV row per trial; an unwritable path stops before running")
    func samples() throws {
        let directory = try temporaryDirectory()
        let run = try ProductRunner.run(
            "handoff-sim", ["run", fixtures + "passes.json", "--no-progress", "--trials", "7", "--samples", directory + "/s.csv"])
        #expect(run.status == 0)
        let rows = try read(directory + "/s.csv").split(separator: "\n").map(String.init)
        // The trial's columns, a latency column per metric (in the metric
        // table's order, checked by TrialSampleTests), then the phases.
        let header = try #require(rows.first)
        #expect(header.hasPrefix("scenario,trial,activity,device,outcome,advert_to_offered_ns,accept_to_continue_ns,"))
        #expect(header.hasSuffix(",phase_launch_ns,phase_will_continue_ns,phase_rapport_gave_up_ns,phase_resolve_ns,phase_connect_ns,"
            + "phase_pair_verify_ns,phase_system_info_ns,phase_request_ns,phase_source_update_ns,phase_encode_ns,"
            + "phase_relay_ns,phase_transfer_ns,phase_decode_ns"))
        #expect(rows.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[1] } == ["0", "1", "2", "3", "4", "5", "6"])
        #expect(rows.dropFirst().allSatisfy { $0.hasPrefix(fixtures + "passes.json,") })

        let sweep = try ProductRunner.run(
            "handoff-sim",
            ["sweep", root + "/sweeps/guidance/relay.json", "--trials", "3", "--payload", "1KiB,2KiB", "--profile", "WiFi",
             "--no-progress", "--samples", directory + "/w.csv", "--jobs", "2"])
        #expect(sweep.status == 0)
        let sweepRows = try read(directory + "/w.csv").split(separator: "\n").map(String.init)
        #expect(sweepRows.count == 1 + 2 * 3)
        #expect(sweepRows.first?.hasPrefix("profile,payload,payload_bytes,trial,") == true)

        try "not a folder".write(toFile: directory + "/file", atomically: false, encoding: .utf8)
        let refused = try ProductRunner.run(
            "handoff-sim", ["run", fixtures + "passes.json", "--no-progress", "--samples", directory + "/file/s.csv"])
        #expect(refused.status == 70)
        #expect(refused.standardOutput.isEmpty, "nothing ran")
    }

    @Test("a file that only describes a sweep is skipped by run: exit 0, JUnit skipped=1")
    func sweepFileSkipped() throws {
        let directory = try temporaryDirectory()
        let run = try ProductRunner.run(
            "handoff-sim", ["run", root + "/sweeps/guidance/relay.json", "--no-progress", "--junit", directory + "/r.xml"])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("SKIPPED  Payload guidance: MonkeyBrowser over the relay  no expectations (a file for sweeps)"))
        #expect(run.standardOutput.hasSuffix("1 scenario: 0 passed, 1 skipped in 0.00s of wall time\n"))
        let junit = try read(directory + "/r.xml")
        #expect(junit.contains(#"<testsuites name="handoff-sim" tests="1" failures="0" errors="0" time="#))
        #expect(junit.contains(#"<testsuite name="\#(root)/sweeps/guidance/relay.json" tests="1" failures="0" errors="0" skipped="1""#))
        #expect(junit.contains(#"<skipped message="no expectations (a file for sweeps)"/>"#))
    }

    @Test("--help on every command exits 0", arguments: ["run", "validate", "replay", "list", "defaults", "sweep", "merge", "advise", "calibrate", "baseline"])
    func help(command: String) throws {
        let run = try ProductRunner.run("handoff-sim", [command, "--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("USAGE: handoff-sim \(command)"))
    }

    // MARK: Bad input

    /// Each bad-input fixture with its exact message.
    static let badInput: [(String, String)] = [
        ("malformed-json.json", #"6:49: error: $: malformed JSON: unexpected ','; expected a value"#),
        ("unknown-key.json", #"32:7: error: $.devices[1].knd: unknown key "knd" in a device object; expected one of name, kind, os, account, apps, position, handoff, bluetooth, wifi, screen, lowPowerMode, idle, internet, internetAccess, wifiNetwork, acceptance, inUse (did you mean "kind"?)"#),
        ("wrong-type.json", #"51:13: error: $.trials: expected a whole number from 1 to 10000000, found "ten""#),
        ("unknown-device.json", #"48:17: error: $.timeline[1].device: unknown device "iphnoe"; devices are mac, iphone (did you mean "iphone"?)"#),
        ("bad-duration.json", #"42:13: error: $.timeline[0].at: expected a duration such as "250ms", "1.5s" or "2min" (units ns, us, ms, s, min, h), found "5 seconds""#),
        ("out-of-range-number.json", #"51:13: error: $.trials: expected a whole number from 1 to 10000000, found 0"#),
        ("missing-required-field.json", #"35:15: error: $.activity: missing required key "type" (the activity type)"#),
        ("non-http-webpage-url.json", #"39:19: error: $.activity.webpageURL: webpageURL "ftp://files.example.com/n/42": expected an http or https URL (Apple's platforms reject other schemes)"#),
        ("become-current-after-invalidate.json", #"51:17: error: $.timeline[2].action: expected a call that activity "activity" admits, found "becomeCurrent" at 2s, when it is invalidated (since invalidate at $.timeline[1]); becomeCurrent is allowed only when it is created, current or resigned: nothing is allowed after invalidate"#),
        ("resign-current-twice.json", #"51:17: error: $.timeline[2].action: expected a call that activity "activity" admits, found "resignCurrent" at 2s, when it is resigned (since resignCurrent at $.timeline[1]); resignCurrent is allowed only when it is current"#),
    ]

    @Test("validate and run: each bad-input fixture gives its exact message and exit 65", arguments: badInput)
    func badInputFixture(file: String, message: String) throws {
        for command in ["validate", "run"] {
            let run = try ProductRunner.run("handoff-sim", [command, invalid + file, "--no-progress"].filter { command == "run" || $0 != "--no-progress" })
            #expect(run.status == 65)
            let lines = (command == "validate" ? run.standardError : run.standardOutput).split(separator: "\n").map(String.init)
            let expected = invalid + file + ":" + message
            #expect(lines.contains { $0.hasSuffix(expected) }, "\(command): \(lines)")
        }
    }

    @Test("validate and run warn about a literal userInfo over the limit, naming its path, size and the limit; exit unchanged")
    func userInfoWarning() throws {
        let directory = try temporaryDirectory()
        let file = directory + "/big-userinfo.json"
        let text = try read(fixtures + "passes.json").replacing(
            #""type": "com.example.notes.editing""#,
            with: #""type": "com.example.notes.editing", "userInfo": {"text": "\#(String(repeating: "x", count: 204_880))"}"#)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let validate = try ProductRunner.run("handoff-sim", ["validate", file])
        #expect(validate.status == 0)
        #expect(validate.standardOutput.hasPrefix("ok       \(file)"))
        let warning = #/: warning: \$\.activity\.userInfo: the userInfo encodes to about ([0-9]+) bytes, over protocol\.userInfoLimit \(65536 bytes\): the source refuses to send it and every continuation fails with 4611/#
        let match = try #require(validate.standardError.firstMatch(of: warning), "\(validate.standardError)")
        #expect(Int(match.output.1).map { $0 > 204_880 } == true)
        #expect(validate.standardError.hasPrefix(file + ":"))
        let annotated = try ProductRunner.run("handoff-sim", ["validate", file], environment: ["GITHUB_ACTIONS": "true"])
        #expect(annotated.standardOutput.contains("::warning file=\(file),line="), "\(annotated.standardOutput)")
        let run = try ProductRunner.run("handoff-sim", ["run", file, "--trials", "2", "--no-progress"])
        #expect(run.status == 1)
        #expect(run.standardError.firstMatch(of: warning) != nil, "\(run.standardError)")
    }

    @Test("validate reports every problem of a file at once, in document order")
    func everyProblem() throws {
        let run = try ProductRunner.run("handoff-sim", ["validate", invalid + "several-problems.json"])
        #expect(run.status == 65)
        let prefix = invalid + "several-problems.json:"
        #expect(run.standardError == """
            \(prefix)6:17: error: $.apps[0].teamID: invalid Team ID "abc"; expected ten upper-case letters and digits such as ABCDE12345
            \(prefix)22:15: error: $.devices[1].kind: unknown device kind "iphone"; expected one of iPhone, iPad, mac, watch, visionPro (did you mean "iPhone"?)
            \(prefix)53:16: error: $.expect[1].below: expected a duration such as "250ms", "1.5s" or "2min" (units ns, us, ms, s, min, h), found "1.5 parsecs"
            1 of 1 file invalid

            """)
    }

    // MARK: Reports

    @Test("JUnit, JSON and Markdown reports: written whole, parse, and their counts match")
    func reports() throws {
        let directory = try temporaryDirectory()
        let files = ["passes.json", "latency-bound.json", "event-limit.json"].map { fixtures + $0 } + [invalid + "wrong-type.json"]
        let run = try ProductRunner.run("handoff-sim", ["run"] + files + [
            "--no-progress", "--junit", directory + "/r.xml", "--json", directory + "/r.json",
            "--markdown", directory + "/r.md",
        ])
        #expect(run.status == 65)  // an invalid file outranks failures
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["r.json", "r.md", "r.xml"])

        let counter = JUnitCounter()
        let parser = XMLParser(data: Data(try read(directory + "/r.xml").utf8))
        parser.delegate = counter
        #expect(parser.parse())
        #expect(counter.elements["testsuites"] == 1)
        #expect(counter.elements["testsuite"] == 4)
        #expect(counter.elements["testcase"] == 4)
        #expect(counter.elements["failure"] == 1)
        #expect(counter.elements["error"] == 2)
        #expect(counter.rootAttributes["tests"] == "4")
        #expect(counter.rootAttributes["failures"] == "1")
        #expect(counter.rootAttributes["errors"] == "2")
        #expect(counter.suiteAttributes.map { $0["failures"]! } == ["0", "1", "0", "0"])
        #expect(counter.suiteAttributes.map { $0["errors"]! } == ["0", "0", "1", "1"])
        #expect(counter.suiteAttributes.allSatisfy { $0["time"]!.contains(".") })
        let junit = try read(directory + "/r.xml")
        #expect(junit.contains(#"<property name="seed" value="3"/>"#))
        #expect(junit.contains(#"classname="\#(JUnitNames.dotted(fixtures + "latency-bound.json"))""#))

        let json = try #require(JSONSerialization.jsonObject(with: Data(try read(directory + "/r.json").utf8)) as? [String: Any])
        #expect(json["toolVersion"] as? String == "0.1.0")
        let summary = try #require(json["summary"] as? [String: Int])
        #expect(summary == ["scenarios": 4, "pass": 1, "fragile": 0, "fail": 1, "error": 1, "invalid": 1, "skipped": 0])
        #expect(json["conclusion"] as? String == "invalidInput")
        let scenarios = try #require(json["scenarios"] as? [[String: Any]])
        #expect(scenarios.map { $0["status"] as? String } == ["pass", "fail", "error", "invalid"])
        #expect((scenarios[0]["digest"] as? String)?.count == 64)

        let markdown = try read(directory + "/r.md")
        #expect(markdown.hasPrefix("## HandoffSim scenarios\n"))
        #expect(markdown.contains("| ✅ | pass | Passes |"))
        #expect(markdown.contains("| ❌ | fail | Too strict a latency bound |"))
        #expect(markdown.contains("**4 scenarios: 1 passed, 1 failed, 1 with errors, 1 invalid.**"))
    }

    /// `text` without its wall-clock figures: JSON `wallClockSeconds`
    /// fields and JUnit `time` attributes.
    static func withoutWallClock(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.contains("\"wallClockSeconds\"") { return "(wall clock)" }
            var result = String(line)
            while let range = result.range(of: #" time="[0-9]+\.[0-9]{3}""#, options: .regularExpression) {
                result.replaceSubrange(range, with: " time=\"(wall clock)\"")
            }
            return result
        }.joined(separator: "\n")
    }

    @Test("same seed ⇒ byte-identical JSON and JUnit across runs and across --jobs (wall-clock fields aside)")
    func determinism() throws {
        let directory = try temporaryDirectory()
        var outputs: [(String, String)] = []
        for (index, jobs) in ["1", "2", "2"].enumerated() {
            let run = try ProductRunner.run("handoff-sim", [
                "run", root + "/scenarios/burst-loss.json", root + "/scenarios/monkeybrowser-four-tabs.json",
                "--no-progress", "--jobs", jobs, "--seed", "11", "--trials", "40",
                "--json", directory + "/\(index).json", "--junit", directory + "/\(index).xml",
            ])
            #expect(run.status == 0 || run.status == 1)
            outputs.append((try read(directory + "/\(index).json"), try read(directory + "/\(index).xml")))
        }
        for output in outputs.dropFirst() {
            #expect(Self.withoutWallClock(output.0) == Self.withoutWallClock(outputs[0].0))
            #expect(Self.withoutWallClock(output.1) == Self.withoutWallClock(outputs[0].1))
        }
        #expect(outputs[0].0.contains(#""seed": 11"#))
    }

    @Test("--check-determinism runs everything twice and passes when the runs agree")
    func checkDeterminism() throws {
        let run = try ProductRunner.run(
            "handoff-sim", ["run", fixtures + "passes.json", "--check-determinism", "--no-progress"])
        #expect(run.status == 0)
        #expect(run.standardError.isEmpty)
    }

    @Test("GitHub Actions: ::error annotations for failures and the Markdown appended to the step summary")
    func gitHubActions() throws {
        let directory = try temporaryDirectory()
        let summary = directory + "/summary.md"
        try "previous step\n".write(toFile: summary, atomically: true, encoding: .utf8)
        let file = fixtures + "latency-bound.json"
        let run = try ProductRunner.run(
            "handoff-sim", ["run", file, "--no-progress"],
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary])
        #expect(run.status == 1)
        let annotation = try #require(run.standardOutput.split(separator: "\n").first { $0.hasPrefix("::error ") })
        #expect(annotation.hasPrefix("::error file=\(file.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")),line="))
        #expect(annotation.contains("::expected acceptToContinue p95 on iphone < 10ms; measured p95 = "))
        #expect(annotation.contains("%0Areplay: handoff-sim replay "))
        let appended = try read(summary)
        #expect(appended.hasPrefix("previous step\n## HandoffSim scenarios\n"))
    }

    @Test("list shows each scenario's trials and expectations")
    func list() throws {
        let run = try ProductRunner.run("handoff-sim", ["list", fixtures + "latency-bound.json"])
        #expect(run.status == 0)
        #expect(run.standardOutput == """
            Too strict a latency bound  (\(fixtures)latency-bound.json)
              20 trials, seed 3
              activity activity: com.example.notes.editing on mac (com.example.notes)
              expect outcome on iphone is continued in every trial
              expect acceptToContinue p95 on iphone < 10ms


            """)
    }
}

/// JUnit class names, as the report makes them.
enum JUnitNames {
    static func dotted(_ file: String) -> String {
        var name = file
        if name.hasSuffix(".json") { name = String(name.dropLast(5)) }
        while name.hasPrefix("/") { name.removeFirst() }
        return name.split(separator: "/").map { $0.split(separator: ".").joined(separator: "_") }.joined(separator: ".")
    }
}
