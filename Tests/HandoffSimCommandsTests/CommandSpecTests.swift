import Foundation
import HandoffSimCommands
import Testing

/// The specs themselves, and the help made from them.
@Suite("Command specs and their help")
struct CommandSpecTests {
    @Test("every command's help shows its usage, every argument, every option and every exit code")
    func helpShowsTheSpec() {
        for path in everyCommandPath() {
            let spec = path.spec
            let help = Help.text(for: path)
            let name = path.invocation
            #expect(help.hasPrefix("OVERVIEW: "), "\(name)")
            #expect(help.contains("USAGE: \(path.invocation)"), "\(name)")
            for argument in spec.arguments {
                #expect(help.contains("\n  \(argument.label) "), "\(name): \(argument.label)")
            }
            for option in spec.options {
                #expect(help.contains("\n  \(option.label)"), "\(name): \(option.label)")
                let firstWords = option.help.split(separator: " ").prefix(3).joined(separator: " ")
                #expect(help.replacingOccurrences(of: "\n", with: " ").contains(firstWords), "\(name): \(option.name)")
            }
            for subcommand in spec.subcommands {
                #expect(help.contains("\n  \(subcommand.name) "), "\(name): \(subcommand.name)")
            }
            let exitSection = help.components(separatedBy: "\nEXIT CODES:\n").last ?? ""
            let listed = exitSection.split(separator: "\n").compactMap { line -> Int32? in
                line.hasPrefix("  ") && !line.hasPrefix("      ") ? Int32(line.split(separator: " ")[0]) : nil
            }
            #expect(listed == spec.exitCodes.map(\.code.rawValue), "\(name)")
        }
    }

    @Test("help lines are at most 80 columns, with no trailing spaces")
    func helpWidth() {
        for path in everyCommandPath() {
            for line in Help.text(for: path).split(separator: "\n") {
                #expect(line.count <= Help.width, "\(path.invocation): \(line)")
                #expect(!line.hasSuffix(" "), "\(path.invocation): '\(line)'")
            }
        }
    }

    @Test("the specs are well formed: unique names, only the last argument repeats, exit codes in order")
    func wellFormed() {
        for path in everyCommandPath() {
            let spec = path.spec
            let name = path.invocation
            let optionNames = spec.options.flatMap(\.names)
            #expect(Set(optionNames).count == optionNames.count, "\(name): an option name twice")
            #expect(optionNames.allSatisfy { $0.hasPrefix("-") && !$0.contains("=") }, "\(name)")
            #expect(spec.arguments.dropLast().allSatisfy { !$0.isRepeating }, "\(name)")
            #expect(Set(spec.subcommands.map(\.name)).count == spec.subcommands.count, "\(name)")
            #expect((spec.action == nil) == !spec.subcommands.isEmpty, "\(name): runs or groups, never both")
            let codes = spec.exitCodes.map(\.code.rawValue)
            #expect(codes == codes.sorted() && Set(codes).count == codes.count, "\(name): \(codes)")
            #expect(spec.exitCodes.first?.code == .success, "\(name)")
            #expect(spec.exitCodes.contains { $0.code == .usage }, "\(name)")
            // A command that writes standard output can fail to: 70.
            #expect(spec.exitCodes.contains { $0.code == .software }, "\(name)")
            #expect(!spec.abstract.isEmpty && !spec.exitCodes.contains { $0.meaning.isEmpty }, "\(name)")
            if let parent = path.parent {
                let parentCodes = Set(parent.spec.exitCodes.map(\.code))
                #expect(spec.exitCodes.allSatisfy { parentCodes.contains($0.code) }, "\(name): a code its parent does not list")
            }
        }
    }

    @Test("one meaning per exit code, with the numbers docs/cli.md promises")
    func exitCodeNumbers() {
        #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 2, 4, 5, 64, 65, 70])
        let help = Help.text(for: HandoffSimCommandLine.rootPath)
        for code in ExitCode.allCases {
            #expect(help.contains("  \(String(code.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0))\(code.meaning)"))
        }
    }

    @Test("the tool's help lists every command with its abstract, in spec order")
    func rootHelp() {
        let help = Help.text(for: HandoffSimCommandLine.rootPath)
        let names = HandoffSimCommandLine.root.subcommands.map(\.name)
        #expect(names == ["run", "validate", "replay", "list", "sweep", "merge", "advise", "calibrate", "baseline", "defaults"])
        let listed = help.components(separatedBy: "COMMANDS:\n")[1].split(separator: "\n")
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.map { String($0.split(separator: " ")[0]) }
        #expect(Array(listed.prefix(names.count)) == names)
        #expect(help.contains("USAGE: handoff-sim <command> [options]"))
        #expect(help.contains("--version"))
    }

    @Test("usage lines show the arguments and the options a command needs")
    func usageLines() {
        func usage(_ words: String...) -> [String] {
            var path = HandoffSimCommandLine.rootPath
            for word in words { path = path.appending(path.spec.subcommand(named: word)!) }
            return Help.usageLines(path)
        }
        #expect(usage("run") == ["handoff-sim run <file or dir>... [options]"])
        #expect(usage("replay") == ["handoff-sim replay <file> --seed S --trial K [options]"])
        #expect(usage("advise") == ["handoff-sim advise <file> --p95 DURATION [options]"])
        #expect(usage("defaults") == ["handoff-sim defaults [options]"])
        #expect(usage("baseline") == [
            "handoff-sim baseline update <file or dir>... --output PATH [options]",
            "handoff-sim baseline check <baseline> <file or dir>... [options]",
        ])
    }

    @Test("wrapping keeps words whole, indents continuation lines and keeps an example's indentation")
    func wrapping() {
        let path = HandoffSimCommandLine.rootPath.appending(.init(
            name: "demo", abstract: "A demonstration.",
            discussion: "word " + String(repeating: "long ", count: 30) + "\n\n    indented example line",
            options: [Option<[String]>.repeating(name: "--value", .text("V"), help: String(repeating: "text ", count: 20))],
            exitCodes: [ExitCodeSpec(.success, "fine"), ExitCodeSpec(.usage, "bad")],
            action: { _, _ throws(UsageError) in .success }))
        let help = Help.text(for: path)
        #expect(help.contains("\n\n    indented example line\n"))
        #expect(help.contains("\n  --value V   text text"))
        #expect(help.contains("\n              text text"))
        #expect(help.contains(" Repeatable.\n"))
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }
}
