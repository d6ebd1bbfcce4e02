import Foundation
import Handoff
import HandoffBaseline
@testable import HandoffReport
@testable import HandoffScenario
import SimKernel
import Testing

/// The HTML reports: the DOM contract, self-containment and escaping. The
/// pages are also opened in headless Chromium by `.ci/run`.
@Suite("HTML reports")
struct HTMLReportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let context = HTMLReport.Context(toolVersion: "test", arguments: ["run", "x"], wallSeconds: 1.5)

    /// The run fixtures: a pass, a fragile pass, a failed latency bound, a
    /// stop at the event limit; and one invalid file.
    static func suiteResults() -> [FileResult] {
        let files = ["passes.json", "fragile.json", "latency-bound.json", "event-limit.json"]
            .map { root + "/Tests/Fixtures/run-scenarios/" + $0 } + [root + "/Tests/Fixtures/invalid-scenarios/unknown-key.json"]
        return ScenarioSuite.run(files: files, runner: ScenarioRunner(jobs: 1))
    }

    /// The attributes of every start tag named `tag` with class `className`.
    static func elements(_ page: String, tag: String, className: String) -> [[String: String]] {
        var found: [[String: String]] = []
        var rest = page[...]
        while let start = rest.range(of: "<\(tag) ") {
            guard let end = rest[start.upperBound...].firstIndex(of: ">") else { break }
            let inside = rest[start.upperBound..<end]
            var attributes: [String: String] = [:]
            var scanner = inside[...]
            while let equals = scanner.firstIndex(of: "=") {
                let name = scanner[..<equals].trimmingCharacters(in: .whitespaces)
                let afterQuote = scanner.index(equals, offsetBy: 2)
                guard afterQuote <= scanner.endIndex, let close = scanner[afterQuote...].firstIndex(of: "\"") else { break }
                attributes[name] = String(scanner[afterQuote..<close])
                scanner = scanner[scanner.index(after: close)...]
            }
            if attributes["class"]?.split(separator: " ").contains(Substring(className)) == true { found.append(attributes) }
            rest = rest[end...]
        }
        return found
    }

    /// The text of the section whose `data-scenario` ends with `file`.
    static func section(_ page: String, endingWith file: String) -> String? {
        var rest = page[...]
        while let start = rest.range(of: "<section class=\"scenario\"") {
            let end = rest[start.upperBound...].range(of: "</section>")?.upperBound ?? rest.endIndex
            let text = String(rest[start.lowerBound..<end])
            if let attribute = text.range(of: "data-scenario=\"")?.upperBound,
               let close = text[attribute...].firstIndex(of: "\""), text[attribute..<close].hasSuffix(file)
            {
                return text
            }
            rest = rest[end...]
        }
        return nil
    }

    @Test("run: one section per scenario with data-scenario and data-status; a failure holds its trace <svg> and its replay command")
    func runContract() throws {
        let results = Self.suiteResults()
        let page = HTMLReport.run(RunSummary(results), context: Self.context)
        #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\" data-report=\"run\">"))
        let sections = Self.elements(page, tag: "section", className: "scenario")
        #expect(sections.count == results.count)
        // Failures first, then the fragile pass, then the pass.
        let order = [2, 3, 4, 1, 0]
        #expect(sections.map { $0["data-scenario"] ?? "" } == order.map { results[$0].file })
        #expect(sections.map { $0["data-status"] ?? "" } == ["fail", "error", "invalid", "fragile", "pass"])
        // The failed latency bound: its trial, replayed, inline.
        let failed = try #require(Self.section(page, endingWith: "latency-bound.json"))
        #expect(failed.contains("<figure class=\"trace\">\n<svg "))
        #expect(failed.contains("<code class=\"replay\">handoff-sim replay "))
        #expect(failed.contains("--seed ") && failed.contains("--trial "))
        #expect(failed.contains("Where accept → continue goes"))
        // A passing scenario has neither.
        let passed = try #require(Self.section(page, endingWith: "passes.json"))
        #expect(!passed.contains("<svg") && !passed.contains("class=\"replay\""))
        // The invalid file lists its problem.
        let invalid = try #require(Self.section(page, endingWith: "unknown-key.json"))
        #expect(invalid.contains("unknown key"))
        #expect(page.contains("5 scenarios: 1 passed, 1 fragile, 1 failed, 1 with errors, 1 invalid"))
    }

    @Test("every report is self-contained: no script, style, font or picture from elsewhere; ids are unique")
    func selfContained() throws {
        let page = HTMLReport.run(RunSummary(Self.suiteResults()), context: Self.context)
        for forbidden in ["<link", " src=", "@import", "http://", "https://", "<iframe", "<object"] {
            #expect(!page.contains(forbidden), "\(forbidden)")
        }
        #expect(!page.replacing("url(#", with: "").contains("url("))
        // Inline SVG without its XML declaration; ids prefixed per picture.
        #expect(!page.contains("<?xml"))
        var ids: [String] = []
        var rest = page[...]
        while let start = rest.range(of: " id=\"") {
            let close = rest[start.upperBound...].firstIndex(of: "\"") ?? rest.endIndex
            ids.append(String(rest[start.upperBound..<close]))
            rest = rest[close...]
        }
        #expect(!ids.isEmpty)
        #expect(Set(ids).count == ids.count, "duplicate ids")
        // Every url(#…) names an id on the page.
        var references = page[...]
        while let start = references.range(of: "url(#") {
            let close = references[start.upperBound...].firstIndex(of: ")") ?? references.endIndex
            #expect(ids.contains(String(references[start.upperBound..<close])))
            references = references[close...]
        }
    }

    @Test("names and values from input are escaped in text and attributes")
    func escaping() throws {
        let directory = NSTemporaryDirectory() + "html-escaping-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/a\"<b>&'.json"
        try "{\"name\": \"<script>alert(1)</script>\"".write(toFile: file, atomically: true, encoding: .utf8)
        let results = ScenarioSuite.run(files: [file], runner: ScenarioRunner(jobs: 1))
        let page = HTMLReport.run(RunSummary(results), context: HTMLReport.Context(toolVersion: "t", arguments: ["run", file], overlay: "o<\"x\">.json"))
        #expect(!page.contains("<script>alert"))
        #expect(!page.contains("a\"<b>"))
        #expect(page.contains("a&quot;&lt;b&gt;&amp;&#39;.json"))
        #expect(page.contains("o&lt;&quot;x&quot;&gt;.json"))
        #expect(html("a\u{1B}b\nc") == "a\\u{1B}b\\nc")
    }

    @Test("sweep, advice, calibration and baseline pages carry their kind, their picture and their figures")
    func otherReports() throws {
        var point = SweepRenderingTests().point(profile: "WiFi", bytes: 1024, milliseconds: Array(10...109))
        point.replicates = [-5, 5].map { shift in
            SweepRenderingTests().point(profile: "WiFi", bytes: 1024, milliseconds: (10...109).map { $0 + shift }).aggregate
        }
        let result = SweepRenderingTests().sweep(axes: [SweepAxis(name: "payload", values: ["1KiB"])], points: [point])
        let sweep = HTMLReport.sweep(result, context: Self.context, target: SweepChart.Target(latency: .milliseconds(120)))
        #expect(sweep.contains("data-report=\"sweep\""))
        #expect(sweep.contains("<figure class=\"chart\">\n<svg "))
        #expect(sweep.contains("class=\"interval\""))
        #expect(sweep.contains("104ms ["))
        #expect(sweep.contains("2 bootstrap replicates"))
        let comparison = BaselineComparison(
            baseline: Baseline(toolVersion: "a", scenarios: []), now: Baseline(toolVersion: "b", scenarios: []))
        let baseline = HTMLReport.baseline(comparison, tolerances: ["acceptToContinue=5%"], context: Self.context)
        #expect(baseline.contains("data-report=\"baseline\""))
        #expect(baseline.contains("acceptToContinue=5%"))
        #expect(baseline.contains("the baseline was made by handoff-sim a"))
    }

    @Test("several seeds: one section per file and seed, each with data-seed and the seed in its heading")
    func seeds() throws {
        let file = Self.root + "/Tests/Fixtures/run-scenarios/passes.json"
        let results = [3, 4].flatMap { seed in
            ScenarioSuite.run(files: [file], runner: ScenarioRunner(jobs: 1), trials: 5, seed: UInt64(seed))
        }
        let page = HTMLReport.run(RunSummary(results, seeds: [3, 4]), context: Self.context)
        let sections = Self.elements(page, tag: "section", className: "scenario")
        #expect(sections.map { $0["data-seed"] ?? "" } == ["3", "4"])
        #expect(sections.allSatisfy { $0["data-scenario"] == file })
        #expect(page.contains("(seed 3)") && page.contains("(seed 4)"))
        // The page names no single seed when each section has its own.
        #expect(!page.contains("<dt>seed</dt>"))
    }

    /// The latency-bound fixture with `count` latency bounds that every
    /// trial fails, run for 5 trials under `seed`.
    static func manyFailingBounds(_ count: Int, seed: UInt64 = 3) throws -> FileResult {
        let file = root + "/Tests/Fixtures/run-scenarios/latency-bound.json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let bounds = (1...count).map { #"{"latency": "acceptToContinue", "percentile": 50, "below": "\#($0)ms"}"# }
        let many = text.replacing(#/"expect": \[[\s\S]*\]\s*\}\s*$/#, with: { _ in
            "\"expect\": [" + bounds.joined(separator: ", ") + "]}\n"
        })
        let scenario = try ScenarioSuite.decode(Array(many.utf8), file: file)
        return FileResult(file: file, outcome: .ran(ScenarioRunner(jobs: 1).run(scenario, trials: 5, seed: seed)))
    }

    @Test("a trial that shows many failing expectations is replayed and pictured once, and each expectation links to it")
    func oneTracePerTrial() throws {
        let result = try Self.manyFailingBounds(30)
        guard case let .ran(run) = result.outcome else { throw CancellationError() }
        let trials = Set(run.expectations.compactMap(\.failingTrial))
        #expect(run.expectations.allSatisfy { !$0.passed })
        let page = HTMLReport.run(RunSummary([result]), context: Self.context)
        #expect(page.components(separatedBy: "<figure class=\"trace\">").count - 1 == trials.count)
        #expect(Self.elements(page, tag: "div", className: "trial").count == trials.count)
        for trial in trials {
            #expect(page.components(separatedBy: "href=\"#scenario-1-trial-\(trial)\"").count - 1
                == run.expectations.filter { $0.failingTrial == trial }.count)
            #expect(page.contains("id=\"scenario-1-trial-\(trial)\""))
        }
        #expect(!page.contains("pictures-left-out"))
    }

    @Test("however many seeds fail, a page pictures at most its cap of trials and says how many it left out")
    func pictureCap() throws {
        let seeds = Array(UInt64(1)...UInt64(25))
        let results = try seeds.map { try Self.manyFailingBounds(3, seed: $0) }
        let page = HTMLReport.run(RunSummary(results, seeds: seeds), context: Self.context)
        let pictured = page.components(separatedBy: "<figure class=\"trace\">").count - 1
        let trials = Self.elements(page, tag: "div", className: "trial").count
        #expect(pictured == HTMLReport.TrialPictures.maximumTrials)
        #expect(trials >= seeds.count)
        #expect(page.contains("<p class=\"note pictures-left-out\">\(trials - pictured) trials are not pictured"))
        // Every trial keeps its replay command.
        #expect(page.components(separatedBy: "<code class=\"replay\">").count - 1 == trials)
    }
}
