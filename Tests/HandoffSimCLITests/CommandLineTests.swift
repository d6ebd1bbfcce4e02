import Foundation
import Testing

@Suite("handoff-sim and handoff-bench on the command line")
struct CommandLineTests {
    @Test("--version prints the version and exits 0")
    func versionFlag() throws {
        let run = try ProductRunner.run("handoff-sim", ["--version"])
        #expect(run.status == 0)
        #expect(run.standardOutput == "0.1.0\n")
        #expect(run.standardError.isEmpty)
    }

    @Test("--help describes the tool and exits 0", arguments: ["--help", "-h", "help"])
    func helpFlag(flag: String) throws {
        let run = try ProductRunner.run("handoff-sim", [flag])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("USAGE: handoff-sim <command> [options]"))
        #expect(run.standardOutput.contains("--version"))
    }

    @Test("an unknown command is a usage error: exit 64, message on stderr")
    func unknownCommand() throws {
        let run = try ProductRunner.run("handoff-sim", ["frobnicate"])
        #expect(run.status == 64)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasPrefix("error: unknown command 'frobnicate'"))
    }

    @Test("a mistyped command gets a did-you-mean, in help too")
    func mistypedCommand() throws {
        for arguments in [["swep", "x.json"], ["help", "swep"]] {
            let run = try ProductRunner.run("handoff-sim", arguments)
            #expect(run.status == 64)
            #expect(run.standardError.hasPrefix("error: unknown command 'swep' (did you mean 'sweep'?)\n"), "\(run.standardError)")
        }
    }

    @Test("handoff-sim help CMD prints CMD's help", arguments: ["run", "validate", "replay", "list", "sweep", "merge", "advise", "calibrate", "baseline", "defaults"])
    func helpCommand(command: String) throws {
        let viaHelp = try ProductRunner.run("handoff-sim", ["help", command])
        let viaFlag = try ProductRunner.run("handoff-sim", [command, "--help"])
        #expect(viaHelp.status == 0)
        #expect(viaHelp.standardOutput == viaFlag.standardOutput)
        #expect(viaHelp.standardOutput.contains("USAGE: handoff-sim \(command)"))
    }

    @Test("no command at all is a usage error")
    func missingCommand() throws {
        let run = try ProductRunner.run("handoff-sim", [])
        #expect(run.status == 64)
        #expect(run.standardError.hasPrefix("error: missing command"))
    }

    @Test("handoff-bench phold prints exactly one line in the documented format")
    func pholdLine() throws {
        let run = try ProductRunner.run("handoff-bench", ["phold", "--lps", "50", "--events", "20000", "--seed", "7"])
        #expect(run.status == 0)
        let lines = run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty)
        let fields = lines[0].split(separator: " ").map(String.init)
        #expect(fields.first == "phold")
        #expect(fields.dropFirst().map { String($0.prefix(while: { $0 != "=" })) }
            == ["lps", "events", "seconds", "events_per_s", "checksum"])
        #expect(fields.contains("lps=50"))
        #expect(fields.contains("events=20000"))
    }

    @Test("handoff-bench phold gives the same checksum for the same seed, another for another seed")
    func pholdChecksumIsReproducible() throws {
        func checksum(seed: Int) throws -> String? {
            let run = try ProductRunner.run(
                "handoff-bench", ["phold", "--lps", "100", "--events", "30000", "--seed", String(seed)])
            return run.standardOutput.split(separator: " ").first { $0.hasPrefix("checksum=") }.map(String.init)
        }
        let first = try checksum(seed: 11)
        #expect(first != nil)
        #expect(try checksum(seed: 11) == first)
        #expect(try checksum(seed: 12) != first)
    }

    @Test("handoff-sim defaults prints the docs/defaults.md table, row for row")
    func defaultsTableMatchesDocumentation() throws {
        let run = try ProductRunner.run("handoff-sim", ["defaults"])
        #expect(run.status == 0)
        let rows = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(rows.count > 15)
        #expect(rows.first == "| setting | default | source |")
        let page = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs").appendingPathComponent("defaults.md"),
            encoding: .utf8)
        let pageLines = Set(page.split(separator: "\n").map(String.init))
        for row in rows {
            #expect(pageLines.contains(row), "docs/defaults.md lacks the row: \(row)")
        }
    }

    @Test("handoff-sim defaults rejects extra arguments with exit 64")
    func defaultsUsageError() throws {
        let run = try ProductRunner.run("handoff-sim", ["defaults", "extra"])
        #expect(run.status == 64)
        #expect(run.standardError.hasPrefix("error: unexpected argument 'extra'"))
        let option = try ProductRunner.run("handoff-sim", ["defaults", "--json"])
        #expect(option.status == 64)
        #expect(option.standardError.hasPrefix("error: unknown option '--json' for 'defaults'"))
    }

    @Test("handoff-bench transfer prints one line in the documented format, events linear in bytes")
    func transferLine() throws {
        func fields(bytes: Int) throws -> [String: String] {
            let run = try ProductRunner.run(
                "handoff-bench", ["transfer", "--bytes", String(bytes), "--loss", "0.01", "--seed", "3"])
            #expect(run.status == 0)
            let lines = run.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.count == 1)
            let parts = (lines.first ?? "").split(separator: " ").map(String.init)
            #expect(parts.first == "transfer")
            #expect(parts.dropFirst().map { String($0.prefix(while: { $0 != "=" })) }
                == ["bytes", "loss", "seconds", "events", "events_per_s", "sim_time", "connected", "packets_sent",
                    "packets_delivered", "packets_lost", "retransmissions", "timeouts", "probes", "recoveries",
                    "lost_retransmissions_found"])
            var result: [String: String] = [:]
            for part in parts.dropFirst() {
                let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { result[pair[0]] = pair[1] }
            }
            return result
        }
        let small = try fields(bytes: 200_000)
        let large = try fields(bytes: 800_000)
        #expect(small["bytes"] == "200000")
        #expect(small["loss"] == "0.01")
        let smallEvents = try #require(small["events"].flatMap(Double.init))
        let largeEvents = try #require(large["events"].flatMap(Double.init))
        // About two events (data arrival, acknowledgement arrival) per segment.
        #expect(abs(largeEvents / smallEvents - 4) < 0.1)
        #expect(try fields(bytes: 200_000)["events"] == small["events"])
        // The packet counts add up: every packet sent is delivered or lost,
        // and at 1% loss some data is retransmitted.
        for line in [small, large] {
            let sent = try #require(line["packets_sent"].flatMap(Int.init))
            let delivered = try #require(line["packets_delivered"].flatMap(Int.init))
            let lost = try #require(line["packets_lost"].flatMap(Int.init))
            #expect(sent == delivered + lost)
            #expect(lost > 0)
            #expect(try #require(line["retransmissions"].flatMap(Int.init)) > 0)
        }
    }

    @Test("handoff-bench rejects bad options with exit 64", arguments: [
        ["phold", "--lps", "zero"], ["phold", "--bogus", "1"], ["phold", "--lps"], ["nope"],
        ["transfer", "--loss", "1"], ["transfer", "--bytes", "-5"], ["transfer", "--seed"],
        ["transfer", "--delayed-ack", "0"], ["transfer", "--loss-detection", "fast"], ["transfer", "--congestion", "bbr"],
    ])
    func benchUsageErrors(arguments: [String]) throws {
        let run = try ProductRunner.run("handoff-bench", arguments)
        #expect(run.status == 64)
        #expect(run.standardError.hasPrefix("error: "))
    }
}
