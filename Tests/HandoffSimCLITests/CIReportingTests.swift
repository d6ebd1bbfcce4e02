import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// Every command a CI job runs speaks to it: annotations on GitHub, and a
/// plain hint when arguments are the wrong way round.
@Suite("CI reporting")
struct CIReportingTests {
    @Test("validate prints a GitHub annotation per problem when GITHUB_ACTIONS is true, none otherwise")
    func validateAnnotates() throws {
        let file = root + "/Tests/Fixtures/invalid-scenarios/unknown-key.json"
        let github = try ProductRunner.run("handoff-sim", ["validate", file], environment: ["GITHUB_ACTIONS": "true"])
        #expect(github.status == 65)
        let lines = github.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("::error file=\(file),line=") })
        #expect(lines.last?.hasSuffix(#"$.devices[1].knd: unknown key "knd" in a device object; expected one of name, kind, os, account, apps, position, handoff, bluetooth, wifi, screen, lowPowerMode, idle, internet, internetAccess, wifiNetwork, acceptance, inUse (did you mean "kind"?)"#) == true)
        let plain = try ProductRunner.run("handoff-sim", ["validate", file])
        #expect(plain.status == 65)
        #expect(!plain.standardOutput.contains("::error"))
    }

    @Test("baseline check with its arguments swapped says so: exit 64")
    func swappedBaselineArguments() throws {
        let run = try ProductRunner.run(
            "handoff-sim", ["baseline", "check", root + "/scenarios", root + "/baselines/scenarios.json"])
        #expect(run.status == 64)
        #expect(run.standardError == "error: '\(root)/scenarios' is a folder, not a baseline file; the baseline comes first: handoff-sim baseline check BASELINE <file or dir>...; '\(root)/baselines/scenarios.json' is the baseline\n")
        let file = try ProductRunner.run(
            "handoff-sim", ["baseline", "check", root + "/scenarios/payload-3kib.json", root + "/baselines/scenarios.json"])
        #expect(file.status == 64)
        #expect(file.standardError == "error: '\(root)/scenarios/payload-3kib.json' is not a baseline but '\(root)/baselines/scenarios.json' is; the baseline comes first: handoff-sim baseline check BASELINE <file or dir>...\n")
    }

    @Test("one meaning per exit code: a limit is 1 in baseline as in run, a missing input is 64 in merge as in sweep")
    func exitCodesAgree() throws {
        let directory = NSTemporaryDirectory() + "handoff-sim-exit-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let limit = root + "/Tests/Fixtures/run-scenarios/event-limit.json"
        let run = try ProductRunner.run("handoff-sim", ["run", limit, "--no-progress"])
        let baseline = try ProductRunner.run("handoff-sim", ["baseline", "update", limit, "--output", directory + "/b.json"])
        #expect(run.status == 1)
        #expect(baseline.status == 1)
        #expect(baseline.standardError.contains("handled 5 events (limits.maxEvents) without settling"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/b.json"))
        let missing = directory + "/nowhere.jsonl"
        let merge = try ProductRunner.run("handoff-sim", ["merge", missing])
        let sweep = try ProductRunner.run("handoff-sim", ["sweep", missing, "--payload", "1KiB"])
        #expect(merge.status == 64)
        #expect(sweep.status == 64)
        #expect(merge.standardError == "error: \(missing): no such file or cannot be read\n")
    }
}
