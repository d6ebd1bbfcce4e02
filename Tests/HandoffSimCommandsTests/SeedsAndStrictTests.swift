import Foundation
import HandoffSimCommands
import Testing

private let fixtures = packageRoot + "/Tests/Fixtures/run-scenarios/"

/// The lines of `text` without the total (the only line with wall time).
private func withoutTotal(_ text: String) -> [Substring] {
    text.split(separator: "\n").filter { !$0.contains("of wall time") }
}

/// `run --seeds` and `run --strict`, and fragile verdicts in every report.
@Suite("run --seeds and --strict")
struct SeedsAndStrictTests {
    @Test("--seeds runs the suite under each seed, shows each verdict per seed, and does not depend on --jobs")
    func seeds() {
        let one = runInProcess(["run", fixtures + "passes.json", fixtures + "fragile.json", "--seeds", "1-3", "--jobs", "1", "--no-progress"])
        #expect(one.status == .success)
        let lines = one.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "seeds: 1 2 3")
        #expect(lines.contains { $0.hasPrefix("PASS     Passes") && $0.hasSuffix("pass pass pass") })
        #expect(lines.contains { $0.hasPrefix("FRAGILE  Fragile") && $0.hasSuffix("fragile fragile fragile") })
        #expect(lines.contains("seed 2:"))
        #expect(lines.last?.hasPrefix("2 scenarios over 3 seeds: 1 passed under every seed, 1 fragile in ") == true)
        let two = runInProcess(["run", fixtures + "passes.json", fixtures + "fragile.json", "--seeds", "1,2,3", "--jobs", "2", "--no-progress"])
        #expect(withoutTotal(two.output) == withoutTotal(one.output))
    }

    @Test("--seeds fails when any seed fails, and names the seed in its replay commands")
    func seedsFail() {
        let run = runInProcess(["run", fixtures + "latency-bound.json", "--seeds", "5,9", "--no-progress"])
        #expect(run.status == .expectationFailed)
        #expect(run.output.contains("seed 9:"))
        #expect(run.output.contains("--seed 9 --trial "))
    }

    @Test("--seeds refuses a bad list, --seed and --samples", arguments: [
        (["--seeds", "3-1"], "a range from low to high"),
        (["--seeds", "1,1"], "each seed once"),
        (["--seeds", "0-1000"], "at most 1000 seeds"),
        (["--seeds", "1,x"], "seeds and ranges separated by commas"),
        (["--seeds", "1-2", "--seed", "3"], "cannot be used with '--seed'"),
        (["--seeds", "1-2", "--samples", "-"], "cannot be used with '--samples'"),
    ])
    func badSeeds(arguments: [String], message: String) {
        let run = runInProcess(["run", fixtures + "passes.json"] + arguments)
        #expect(run.status == .usage)
        #expect(run.error.contains(message), "\(run.error)")
    }

    @Test("a fragile verdict passes, is reported as fragile everywhere, and fails with --strict")
    func fragile() throws {
        let directory = NSTemporaryDirectory() + "handoff-sim-fragile-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = runInProcess([
            "run", fixtures + "fragile.json", "--no-progress", "--json", directory + "/r.json",
            "--junit", directory + "/j.xml", "--markdown", directory + "/m.md",
        ])
        #expect(run.status == .success)
        #expect(run.output.hasPrefix("FRAGILE  Fragile"))
        // 20 of 20 continued: the rule-of-three bound 13.9% is above the 1% allowed; 299 trials settle it.
        #expect(run.output.contains("exception rate ≤ 13.9% (95% upper bound, rule of three) crosses the bound; about 299 trials would settle it"))
        #expect(run.output.contains("1 scenario: 0 passed, 1 fragile in "))
        let json = try String(contentsOfFile: directory + "/r.json", encoding: .utf8)
        #expect(json.contains(#""status": "fragile""#))
        #expect(json.contains(#""verdict": "fragile""#))
        #expect(json.contains(#""trialsToSettle": 299"#))
        let junit = try String(contentsOfFile: directory + "/j.xml", encoding: .utf8)
        #expect(junit.contains(#"<property name="verdict" value="fragile"/>"#))
        #expect(junit.contains("<system-out>fragile: $.expect[0]"))
        #expect(junit.contains(#"failures="0""#))
        let markdown = try String(contentsOfFile: directory + "/m.md", encoding: .utf8)
        #expect(markdown.contains("### 🟡 fragile: Fragile"))

        let strict = runInProcess(["run", fixtures + "fragile.json", "--no-progress", "--strict", "--junit", directory + "/s.xml"])
        #expect(strict.status == .expectationFailed)
        let strictJUnit = try String(contentsOfFile: directory + "/s.xml", encoding: .utf8)
        #expect(strictJUnit.contains(#"type="FragileVerdict""#))
        #expect(runInProcess(["run", fixtures + "passes.json", "--no-progress", "--strict"]).status == .success)

        // On GitHub Actions a fragile expectation is a warning on its line.
        let github = runInProcess(["run", fixtures + "fragile.json", "--no-progress"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(github.status == .success)
        #expect(github.output.contains("::warning file=\(fixtures)fragile.json,line="))
        #expect(!github.output.contains("::error"))
    }
}
