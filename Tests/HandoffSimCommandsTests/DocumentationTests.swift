import Foundation
import Handoff
import HandoffSimCommands
import HandoffScenario
import ScenarioJSON
import Testing

/// docs/cli.md documents what the specs declare.
@Suite("docs/cli.md against the specs")
struct DocumentationTests {
    /// docs/cli.md's level-two sections: heading line, then body.
    static func sections() throws -> [(heading: String, body: String)] {
        let page = try String(contentsOfFile: packageRoot + "/docs/cli.md", encoding: .utf8)
        return page.components(separatedBy: "\n## ").dropFirst().map { part in
            let heading = String(part.prefix { $0 != "\n" })
            return (heading, String(part.dropFirst(heading.count)))
        }
    }

    @Test("every command has a section that documents each argument, option and exit code of its spec")
    func everyOptionIsDocumented() throws {
        let sections = try Self.sections()
        for path in everyCommandPath() where !path.isRoot {
            let words = path.words
            let section = try #require(
                sections.first { $0.heading.contains("`\(words)`") || $0.heading.contains("`\(words) ") },
                "docs/cli.md has no section for \(words)")
            for argument in path.spec.arguments {
                #expect(section.body.contains("`<\(argument.valueName)>"), "\(words): \(argument.label)")
            }
            for option in path.spec.options {
                for name in option.names {
                    #expect(section.body.contains("`\(name)"), "\(words): \(name)")
                }
            }
            for exit in path.spec.exitCodes {
                #expect(section.body.contains("\n| \(exit.code.rawValue) | "), "\(words): exit \(exit.code.rawValue)")
            }
        }
    }

    @Test("an option with choices has a row in its command's section that lists every choice and its default")
    func everyChoiceIsDocumented() throws {
        let sections = try Self.sections()
        for path in everyCommandPath() where !path.isRoot {
            let words = path.words
            let section = try #require(
                sections.first { $0.heading.contains("`\(words)`") || $0.heading.contains("`\(words) ") })
            for option in path.spec.options where !option.choices.isEmpty {
                let row = try #require(
                    section.body.split(separator: "\n").first { $0.hasPrefix("| `\(option.name) ") },
                    "docs/cli.md, \(words): no row for \(option.name)")
                if option.choices == LatencyMetric.allCases.map(\.rawValue) {
                    // The latency metrics are listed once, in their table.
                    #expect(row.contains("(scenario-format.md#latency-metrics)"), "docs/cli.md, \(words) \(option.name): the metrics' table")
                } else {
                    for choice in option.choices {
                        #expect(row.contains("`\(choice)`"), "docs/cli.md, \(words) \(option.name): \(choice)")
                    }
                }
                if let defaultText = option.defaultText {
                    #expect(row.contains("`\(defaultText)` (default") || row.contains("`\(defaultText)` (the default"),
                        "docs/cli.md, \(words) \(option.name): default \(defaultText)")
                }
            }
        }
    }

    @Test("the overview lists every command, --version and every exit code")
    func overview() throws {
        let overview = try #require(try Self.sections().first { $0.heading == "Commands at a glance" })
        for command in HandoffSimCommandLine.root.subcommands {
            let listed = overview.body.contains("`handoff-sim \(command.name) ") || overview.body.contains("`handoff-sim \(command.name)`")
            #expect(listed, "\(command.name)")
        }
        #expect(overview.body.contains("`handoff-sim --version`"))
        for code in ExitCode.allCases {
            #expect(overview.body.contains("\n| \(code.rawValue) | "), "exit \(code.rawValue)")
        }
    }
}

/// The README's app-team section is an excerpt of the example app package.
@Suite("README against Examples/NotesApp")
struct ExampleExcerptTests {
    @Test("every Swift block of the README's app-team section is, line for line, in the example's tests")
    func readmeIsAnExcerpt() throws {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "### 4. Run your own app code against simulated devices"))
        let section = String(readme[start.upperBound...]).components(separatedBy: "\n## ").first ?? ""
        let blocks = section.components(separatedBy: "```swift\n").dropFirst().map {
            $0.components(separatedBy: "\n```").first ?? ""
        }
        #expect(blocks.count >= 2)
        let example = try String(
            contentsOfFile: packageRoot + "/Examples/NotesApp/Tests/NotesAppTests/NotesHandoffTests.swift", encoding: .utf8)
        let exampleLines = Set(example.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for block in blocks {
            for line in block.split(separator: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                #expect(exampleLines.contains(trimmed), "README line not in the example: \(trimmed)")
            }
        }
    }
}

/// The JSON examples of README.md and docs/ parse, so `swift test` catches a
/// broken one without Python (Tests/Docs/check-examples.py checks them, and
/// every other example, in CI).
@Suite("JSON examples in the documentation")
struct JSONExampleTests {
    /// A fenced `json` block: where it opens, and its text.
    struct Block: CustomStringConvertible {
        let file: String
        let line: Int
        let text: String
        var description: String { "\(file):\(line)" }
    }

    /// README.md and every Markdown file under docs/, in byte order of their paths.
    static func pages() throws -> [String] {
        let docs = packageRoot + "/docs"
        let enumerator = FileManager.default.enumerator(atPath: docs)
        var pages = ["README.md"]
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix(".md") { pages.append("docs/" + path) }
        }
        return pages.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Every block of `page` fenced as ```json (with or without words after the language).
    static func jsonBlocks(in page: String) throws -> [Block] {
        let lines = try String(contentsOfFile: packageRoot + "/" + page, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let line = lines[index].drop { $0 == " " }
            guard line.hasPrefix("```") else { index += 1; continue }
            let isJSON = line.dropFirst(3).split(separator: " ").first == "json"
            var body: [Substring] = []
            index += 1
            while index < lines.count, !lines[index].drop(while: { $0 == " " }).hasPrefix("```") {
                body.append(lines[index])
                index += 1
            }
            if isJSON {
                blocks.append(Block(file: page, line: index - body.count, text: body.joined(separator: "\n")))
            }
            index += 1
        }
        return blocks
    }

    /// The block's text with each elision (a line holding only `…`) dropped,
    /// with the comma before it: the convention of docs/contributing.md.
    static func withoutElisions(_ text: String) -> String {
        var kept: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces) == "…" {
                if let last = kept.popLast() {
                    kept.append(last.hasSuffix(",") ? String(last.dropLast()) : last)
                }
                continue
            }
            kept.append(String(line))
        }
        return kept.joined(separator: "\n")
    }

    @Test("every fenced json block parses with the scenario reader's JSON parser")
    func everyJSONBlockParses() throws {
        let blocks = try Self.pages().flatMap(Self.jsonBlocks)
        // The scenario format, calibration and cli pages each show JSON.
        #expect(blocks.count >= 4)
        for block in blocks {
            do {
                _ = try JSONParser.parse(Self.withoutElisions(block.text))
            } catch {
                Issue.record("\(block): \(error)")
            }
        }
    }

    @Test("a json block that is a scenario (devices, activity or activities) decodes without problems")
    func scenarioExamplesDecode() throws {
        var scenarios = 0
        for block in try Self.pages().flatMap(Self.jsonBlocks) {
            let text = Self.withoutElisions(block.text)
            guard let node = try? JSONParser.parse(text),
                  ["devices", "activity", "activities"].contains(where: { node.member($0) != nil }) else { continue }
            scenarios += 1
            if case let .failure(problems) = ScenarioDecoder.decode(Array(text.utf8), file: block.description) {
                Issue.record("\(problems)")
            }
        }
        #expect(scenarios >= 1)
    }

    @Test("an elision line and the comma before it are dropped; a broken block is still an error")
    func elisionConvention() throws {
        let elided = "[\n  1,\n  2,\n  …\n]"
        #expect(throws: Never.self) { try JSONParser.parse(Self.withoutElisions(elided)) }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Self.withoutElisions("{\"sweep\": 1,\n\"x\"}")) }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Self.withoutElisions("\"sweep\": {}")) }
    }
}
