import Foundation
import HandoffSimCommands
import Testing

private let fixtures = packageRoot + "/Tests/Fixtures/"

/// One status, as a run of one file must give it, with and without
/// `--strict`, and the exit status that goes with it.
struct StatusCase: CustomStringConvertible, Sendable {
    let file: String
    /// The status every report must show, without and with `--strict`.
    let status: String
    let strictStatus: String
    /// The exit status, without and with `--strict`.
    let exit: ExitCode
    let strictExit: ExitCode

    var description: String { (file as NSString).lastPathComponent }

    /// The status under `strict`, and its exit code.
    func expected(strict: Bool) -> (status: String, exit: ExitCode) {
        strict ? (strictStatus, strictExit) : (status, exit)
    }
}

/// Every status a file can have, run through all seven outputs of `run`
/// (text, Markdown and the step summary, JUnit, JSON, annotations, the
/// seeds table, HTML), with and without `--strict`: each output must name
/// the status the exit code stands for. Statuses are decided once
/// (`RunSummary`); this checks that no output decides its own.
@Suite("run: every report agrees with the exit code")
struct RunSummaryAgreementTests {
    static let cases: [StatusCase] = [
        StatusCase(file: fixtures + "run-scenarios/passes.json", status: "pass", strictStatus: "pass", exit: .success, strictExit: .success),
        StatusCase(file: fixtures + "run-scenarios/fragile.json", status: "fragile", strictStatus: "fail", exit: .success, strictExit: .expectationFailed),
        StatusCase(file: fixtures + "run-scenarios/latency-bound.json", status: "fail", strictStatus: "fail", exit: .expectationFailed, strictExit: .expectationFailed),
        StatusCase(file: fixtures + "run-scenarios/event-limit.json", status: "error", strictStatus: "error", exit: .expectationFailed, strictExit: .expectationFailed),
        StatusCase(file: fixtures + "invalid-scenarios/unknown-key.json", status: "invalid", strictStatus: "invalid", exit: .dataError, strictExit: .dataError),
        StatusCase(file: packageRoot + "/sweeps/guidance/relay.json", status: "skipped", strictStatus: "skipped", exit: .success, strictExit: .success),
    ]

    @Test("each status, with and without --strict, in text, Markdown, step summary, JUnit, JSON, annotations and HTML", arguments: cases, [false, true])
    func agreement(_ statusCase: StatusCase, strict: Bool) throws {
        let (status, exit) = statusCase.expected(strict: strict)
        let fails = exit != .success
        let directory = NSTemporaryDirectory() + "handoff-sim-agreement-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stepSummary = directory + "/step.md"
        let run = runInProcess(
            ["run", statusCase.file, "--no-progress", "--json", directory + "/r.json", "--junit", directory + "/r.xml",
             "--markdown", directory + "/r.md", "--html", directory + "/r.html"] + (strict ? ["--strict"] : []),
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": stepSummary])
        #expect(run.status == exit, "\(run.output)\(run.error)")

        // Text: the file's line starts with its status, upper-cased.
        let label = status.uppercased().padding(toLength: 8, withPad: " ", startingAt: 0) + " "
        #expect(run.output.split(separator: "\n").contains { $0.hasPrefix(label) }, "\(run.output)")

        // JSON: the scenario's status, the summary's count and the conclusion.
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(try String(contentsOfFile: directory + "/r.json", encoding: .utf8).utf8))
                as? [String: Any])
        let scenarios = try #require(json["scenarios"] as? [[String: Any]])
        #expect(scenarios.map { $0["status"] as? String } == [status])
        let summary = try #require(json["summary"] as? [String: Int])
        #expect(summary[status] == 1)
        #expect((json["conclusion"] as? String == "success") == !fails)

        // JUnit: the verdict property; a failure for fail, an error for
        // error and invalid, skipped for skipped.
        let junit = try String(contentsOfFile: directory + "/r.xml", encoding: .utf8)
        #expect(junit.contains(#"<property name="verdict" value="\#(status)"/>"#))
        #expect(junit.contains(#"failures="\#(status == "fail" ? 1 : 0)""#))
        #expect(junit.contains(#"errors="\#(status == "error" || status == "invalid" ? 1 : 0)""#))
        #expect(junit.contains("<failure ") == (status == "fail"))

        // Markdown and the step summary: the row's status, and a total
        // that does not count a failing file as passed.
        for path in [directory + "/r.md", stepSummary] {
            let markdown = try String(contentsOfFile: path, encoding: .utf8)
            #expect(markdown.contains(" | \(status) | "), "\(markdown)")
            #expect(markdown.contains("1 passed") == (status == "pass"), "\(markdown)")
        }

        // Annotations: an ::error exactly when the run fails on an
        // expectation or a file (a skipped file or a pass has none).
        let errors = run.output.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        let warnings = run.output.split(separator: "\n").filter { $0.hasPrefix("::warning ") }
        #expect(!errors.isEmpty == fails, "\(run.output)")
        #expect(!warnings.isEmpty == (status == "fragile"))

        // HTML: the section's data-status and the page's badge.
        let page = try String(contentsOfFile: directory + "/r.html", encoding: .utf8)
        #expect(page.contains(#"data-status="\#(status)""#))
        #expect(page.contains(#"<p class="lede"><span class="badge \#(fails ? "fail" : "pass")">"#), "\(page.prefix(2000))")
    }

    @Test("the seeds table names each status, and --seeds exits as one seed does", arguments: cases, [false, true])
    func seedsTable(_ statusCase: StatusCase, strict: Bool) {
        let (status, exit) = statusCase.expected(strict: strict)
        let run = runInProcess(["run", statusCase.file, "--no-progress", "--seeds", "3,4"] + (strict ? ["--strict"] : []))
        #expect(run.status == exit, "\(run.output)\(run.error)")
        let label = status.uppercased().padding(toLength: 8, withPad: " ", startingAt: 0) + " "
        #expect(run.output.split(separator: "\n").contains { $0.hasPrefix(label) && $0.hasSuffix("  \(status) \(status)") }, "\(run.output)")
    }

    @Test("run fragile.json --strict: the HTML page and the Markdown summary fail, as the exit code does")
    func strictFragile() throws {
        let directory = NSTemporaryDirectory() + "handoff-sim-strict-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = runInProcess([
            "run", fixtures + "run-scenarios/fragile.json", "--strict", "--no-progress",
            "--markdown", directory + "/s.md", "--html", directory + "/r.html", "--junit", directory + "/j.xml",
        ])
        #expect(run.status == .expectationFailed)
        #expect(run.output.hasPrefix("FAIL     Fragile"))
        #expect(run.output.contains("(fragile, --strict)"))
        #expect(run.output.contains("1 scenario: 0 passed, 1 failed (--strict: a fragile scenario fails)"))
        let page = try String(contentsOfFile: directory + "/r.html", encoding: .utf8)
        #expect(page.contains(#"data-status="fail""#))
        #expect(!page.contains(#"data-status="pass""#))
        #expect(page.contains(#"<span class="badge fail">FAIL</span>"#))
        let markdown = try String(contentsOfFile: directory + "/s.md", encoding: .utf8)
        #expect(markdown.contains("| ❌ | fail | Fragile |"))
        #expect(markdown.contains("**1 scenario: 0 passed, 1 failed (--strict: a fragile scenario fails).**"))
        #expect(!markdown.contains("1 passed"))
    }
}

/// A failing share names how the other trials ended, with their error code.
@Suite("run: a failing share says how the other trials ended")
struct FailingShareWordsTests {
    @Test("a success rate whose trials all end in 4611 names 4611 in text, Markdown, JUnit, annotations, HTML and JSON")
    func namesErrorCode() throws {
        let directory = NSTemporaryDirectory() + "handoff-sim-4611-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = runInProcess(
            ["run", fixtures + "run-scenarios/too-large.json", "--no-progress", "--markdown", directory + "/s.md",
             "--junit", directory + "/j.xml", "--html", directory + "/r.html", "--json", directory + "/r.json"],
            environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == .expectationFailed)
        let words = "continued (app or browser) in 0 of 20 trials (0%); the others: 20 failed (4611 handoffUserInfoTooLarge)"
        #expect(run.output.contains("measured: " + words), "\(run.output)")
        #expect(run.output.contains("::error ") && run.output.contains("the others: 20 failed (4611 handoffUserInfoTooLarge)"))
        #expect(try String(contentsOfFile: directory + "/s.md", encoding: .utf8).contains("measured " + words))
        #expect(try String(contentsOfFile: directory + "/j.xml", encoding: .utf8).contains("measured: " + words))
        #expect(try String(contentsOfFile: directory + "/r.html", encoding: .utf8).contains(words))
        // JSON carries the numbers: 0 matching of 20, the others 20 with code 4611.
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(try String(contentsOfFile: directory + "/r.json", encoding: .utf8).utf8))
                as? [String: Any])
        let scenario = try #require((json["scenarios"] as? [[String: Any]])?.first)
        let expectation = try #require((scenario["expectations"] as? [[String: Any]])?.first)
        let measurement = try #require(expectation["measurement"] as? [String: Any])
        #expect(measurement["kind"] as? String == "share")
        #expect(measurement["matching"] as? Int == 0)
        #expect(measurement["trials"] as? Int == 20)
        let others = try #require(measurement["others"] as? [[String: Any]])
        #expect(others.count == 1)
        #expect(others.first?["errorCode"] as? Int == 4611)
        #expect(others.first?["trials"] as? Int == 20)
    }
}
