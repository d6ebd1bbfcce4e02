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
