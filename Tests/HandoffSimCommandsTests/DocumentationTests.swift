import Foundation
import HandoffSimCommands
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
                for choice in option.choices {
                    #expect(row.contains("`\(choice)`"), "docs/cli.md, \(words) \(option.name): \(choice)")
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
