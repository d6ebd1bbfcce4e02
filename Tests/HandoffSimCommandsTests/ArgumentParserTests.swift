import HandoffSimCommands
import Testing

/// The parser made from a spec: the behaviour every command shares.
@Suite("Argument parser")
struct ArgumentParserTests {
    static let quiet = Option<Bool>.flag(name: "--quiet", help: "Quietly.")
    static let seed = Option<String?>.option(name: "--seed", .text("S"), help: "A seed.")
    static let vary = Option<[String]>.repeating(name: "--vary", .text("PATH=LIST"), help: "Vary.")

    /// A command with a flag, an option, a repeatable option and a file.
    static let demo = CommandSpec(
        name: "demo", abstract: "A demonstration.",
        arguments: [ArgumentSpec("file", help: "A file."), ArgumentSpec("more", repeating: true, help: "More.")],
        options: [quiet, seed, vary],
        exitCodes: [ExitCodeSpec(.success, "fine"), ExitCodeSpec(.usage, "bad")],
        action: { _, _ throws(UsageError) in .success })

    static let path = HandoffSimCommandLine.rootPath.appending(demo)

    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        try ParsedArguments.parse(arguments, for: Self.path)
    }

    func message(_ arguments: [String]) -> String? {
        do {
            _ = try parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("--opt value and --opt=value are the same; a value may contain =")
    func optionValues() throws {
        #expect(try parse(["--seed", "7"])[Self.seed] == "7")
        #expect(try parse(["--seed=7"])[Self.seed] == "7")
        #expect(try parse(["--vary=a.b=1,2"])[Self.vary] == ["a.b=1,2"])
        #expect(try parse(["--seed="])[Self.seed] == "")
    }

    @Test("a repeatable option keeps every value in order; any other given twice is an error")
    func repeatable() throws {
        #expect(try parse(["--vary", "a=1", "x", "--vary=b=2"])[Self.vary] == ["a=1", "b=2"])
        #expect(try parse(["x"])[Self.vary] == [])
        #expect(message(["--seed", "1", "--seed=2"]) == "option '--seed' given twice")
    }

    @Test("a missing value, and a value given to a flag, are errors")
    func values() {
        #expect(message(["x", "--seed"]) == "option '--seed' needs a value")
        #expect(message(["--quiet=yes"]) == "option '--quiet' takes no value, found '--quiet=yes'")
    }

    @Test("an unknown option gets a did-you-mean among the command's options")
    func unknownOption() {
        #expect(message(["--sede", "1"]) == "unknown option '--sede' for 'demo' (did you mean '--seed'?)")
        #expect(message(["--zzzzzzzz"]) == "unknown option '--zzzzzzzz' for 'demo'")
        #expect(message(["--hepl"]) == "unknown option '--hepl' for 'demo' (did you mean '--help'?)")
    }

    @Test("-- makes everything after it positional; - is a positional (standard input or output)")
    func positionals() throws {
        let parsed = try parse(["a", "-", "--quiet", "--", "--seed", "-x"])
        #expect(parsed.positional == ["a", "-", "--seed", "-x"])
        #expect(parsed[Self.quiet])
        #expect(parsed[Self.seed] == nil)
        #expect(try parse(["-h"])[.help])
        #expect(try !parse(["x"])[Self.quiet])
    }

    @Test("positional arguments are counted against the spec")
    func counting() throws {
        func check(_ arguments: [String]) -> String? {
            do {
                try parse(arguments).checkPositionals(for: Self.path)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(check(["a"]) == "missing <more>\nUsage: handoff-sim demo <file> <more>... [options]; see 'handoff-sim demo --help'")
        #expect(check(["a", "b", "c"]) == nil)
        let one = HandoffSimCommandLine.rootPath.appending(HandoffSimCommandLine.root.subcommand(named: "replay")!)
        do {
            try ParsedArguments.parse(["a", "b", "--seed", "1", "--trial", "0"], for: one).checkPositionals(for: one)
            Issue.record("two files accepted")
        } catch {
            #expect(error.message.hasPrefix("unexpected argument 'b'\nUsage: handoff-sim replay <file> --seed S --trial K"))
        }
    }

    @Test("an option of a sibling subcommand says where it belongs")
    func siblingOption() throws {
        let baseline = HandoffSimCommandLine.rootPath.appending(HandoffSimCommandLine.root.subcommand(named: "baseline")!)
        let update = baseline.appending(baseline.spec.subcommand(named: "update")!)
        do {
            _ = try ParsedArguments.parse(["--tolerance", "*=1%"], for: update)
            Issue.record("accepted")
        } catch {
            #expect(error.message == "unknown option '--tolerance' for 'baseline update' (it belongs to 'baseline check')")
        }
    }
}
