import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

@Suite("handoff-sim baseline")
struct BaselineCommandTests {
    /// A scenario with a payload of `payload`, in a fresh directory.
    /// The passing fixture with `payload`, its app launching at once, so
    /// that the person waits for the fetch and the payload's size shows.
    static func scenario(payload: String, in directory: String) throws -> String {
        let text = try String(contentsOfFile: root + "/Tests/Fixtures/run-scenarios/passes.json", encoding: .utf8)
            .replacingOccurrences(of: #""teamID": "ABCDE12345""#, with: #""teamID": "ABCDE12345", "coldLaunch": "0s""#)
            .replacingOccurrences(
                of: #""type": "com.example.notes.editing""#,
                with: #""type": "com.example.notes.editing", "payloadSize": "\#(payload)""#)
        let path = directory + "/notes.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "handoff-baseline-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("update then check on the same code: exit 0; a larger payload: exit 2 with the slower rows; a smaller one: exit 4")
    func regressionsAndImprovements() throws {
        let directory = try Self.directory()
        let file = try Self.scenario(payload: "8KiB", in: directory)
        let baseline = directory + "/baseline.json"
        let update = try ProductRunner.run("handoff-sim", ["baseline", "update", file, "--output", baseline])
        #expect(update.status == 0, "\(update.standardError)")
        #expect(update.standardOutput.hasPrefix("wrote \(baseline): 1 scenario, 1 entries"))

        let same = try ProductRunner.run("handoff-sim", ["baseline", "check", baseline, file])
        #expect(same.status == 0)
        #expect(same.standardOutput == "Every simulated figure matches the baseline.\n")

        // The diff table's figures are the baseline file's.
        let recorded = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: baseline))) as? [String: Any])
        let entry = try #require(((recorded["scenarios"] as? [[String: Any]])?.first?["entries"] as? [[String: Any]])?.first)
        let metrics = try #require(entry["metrics"] as? [String: Any])
        let oldP50 = try #require(metrics["acceptToContinue.p50"] as? Int)

        _ = try Self.scenario(payload: "48KiB", in: directory)
        let slower = try ProductRunner.run("handoff-sim", ["baseline", "check", baseline, file, "--markdown", directory + "/diff.md"])
        #expect(slower.status == 2)
        let lines = slower.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("note: \(file) has changed since the baseline was made") == true)
        let p50Row = try #require(lines.first { $0.contains(" acceptToContinue.p50 ") })
        #expect(p50Row.contains("activity on iphone"))
        #expect(p50Row.contains(" worse (+"))
        let oldText = Self.duration(oldP50)
        #expect(p50Row.contains(" \(oldText) "), "\(p50Row) should show \(oldText)")
        #expect(lines.last?.hasSuffix("regressed.") == true)
        #expect(try String(contentsOfFile: directory + "/diff.md", encoding: .utf8).contains("| acceptToContinue.p50 |"))
        // On GitHub Actions the annotation gives the figures as the table does.
        let annotated = try ProductRunner.run(
            "handoff-sim", ["baseline", "check", baseline, file], environment: ["GITHUB_ACTIONS": "true"])
        let annotation = try #require(
            annotated.standardOutput.split(separator: "\n").first { $0.hasPrefix("::error ") && $0.contains("acceptToContinue.p50") })
        #expect(annotation.contains("(baseline \(oldText), now "), "\(annotation)")
        #expect(!annotation.contains(".0,"), "\(annotation)")

        _ = try Self.scenario(payload: "1KiB", in: directory)
        let faster = try ProductRunner.run("handoff-sim", ["baseline", "check", baseline, file])
        #expect(faster.status == 4)
        #expect(faster.standardOutput.contains(" better (-"))
        #expect(!faster.standardOutput.contains(" worse"))
    }

    @Test("tolerances let figures move within them")
    func tolerances() throws {
        let directory = try Self.directory()
        let file = try Self.scenario(payload: "8KiB", in: directory)
        let baseline = directory + "/baseline.json"
        #expect(try ProductRunner.run("handoff-sim", ["baseline", "update", file, "--output", baseline]).status == 0)
        _ = try Self.scenario(payload: "9KiB", in: directory)
        let strict = try ProductRunner.run("handoff-sim", ["baseline", "check", baseline, file])
        #expect(strict.status == 2)
        let loose = try ProductRunner.run("handoff-sim", ["baseline", "check", baseline, file, "--tolerance", "*=5%"])
        #expect(loose.status == 0, "\(loose.standardOutput)")
        // An absolute tolerance on one metric, the first pattern that
        // matches winning: accept → continue may move 10 ms but not 1 µs,
        // everything else 5%.
        let absolute = try ProductRunner.run(
            "handoff-sim", ["baseline", "check", baseline, file, "--tolerance", "acceptToContinue=10ms", "--tolerance", "*=5%"])
        #expect(absolute.status == 0, "\(absolute.standardOutput)")
        let tight = try ProductRunner.run(
            "handoff-sim", ["baseline", "check", baseline, file, "--tolerance", "acceptToContinue=1us", "--tolerance", "*=5%"])
        #expect(tight.status == 2, "\(tight.standardOutput)")
        #expect(tight.standardOutput.contains(" acceptToContinue."), "\(tight.standardOutput)")
    }

    @Test("a missing or unreadable baseline exits 5; an invalid scenario 65; bad usage 64")
    func errors() throws {
        let directory = try Self.directory()
        let file = try Self.scenario(payload: "1KiB", in: directory)
        let missing = try ProductRunner.run("handoff-sim", ["baseline", "check", directory + "/none.json", file])
        #expect(missing.status == 5)
        #expect(missing.standardError.hasPrefix("error: \(directory)/none.json: the baseline is missing"))
        try "{}".write(toFile: directory + "/bad.json", atomically: true, encoding: .utf8)
        let unreadable = try ProductRunner.run("handoff-sim", ["baseline", "check", directory + "/bad.json", file])
        #expect(unreadable.status == 5)
        #expect(unreadable.standardError == "error: \(directory)/bad.json: not a usable baseline: it is not a handoff-sim baseline\n")
        let invalid = try ProductRunner.run(
            "handoff-sim", ["baseline", "update", root + "/Tests/Fixtures/invalid-scenarios/wrong-type.json", "--output", directory + "/x.json"])
        #expect(invalid.status == 65)
        let usage = try ProductRunner.run("handoff-sim", ["baseline", "chek", directory])
        #expect(usage.status == 64)
        #expect(usage.standardError.hasPrefix("error: unknown baseline subcommand 'chek'; expected update or check (did you mean 'check'?)"))
    }

    /// Nanoseconds as SimDuration prints them (independently: seconds or
    /// milliseconds with the decimals needed).
    static func duration(_ nanoseconds: Int) -> String {
        if nanoseconds % 1_000_000 == 0 { return "\(nanoseconds / 1_000_000)ms" }
        var text = String(nanoseconds % 1_000_000)
        while text.count < 6 { text = "0" + text }
        while text.hasSuffix("0") { text.removeLast() }
        return "\(nanoseconds / 1_000_000).\(text)ms"
    }
}
