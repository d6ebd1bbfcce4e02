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
        #expect(rows.first == "| setting | default | evidence | plausible range | source |")
        let page = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs").appendingPathComponent("defaults.md"),
            encoding: .utf8)
        let pageLines = Set(page.split(separator: "\n").map(String.init))
        for row in rows {
            #expect(pageLines.contains(row), "docs/defaults.md lacks the row: \(row)")
        }
    }

    static var root: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// The keys of the object schema `node` requires, in order.
    static func required(_ node: [String: Any]) -> Set<String> { Set(node["required"] as? [String] ?? []) }

    // Issue 30, item 2: each row's evidence and ranges in JSON, in the
    // form schema/defaults.schema.json gives (every object has exactly the
    // keys the schema requires).
    @Test("handoff-sim defaults --format json gives every row with its evidence and ranges, as the schema says")
    func defaultsJSON() throws {
        let run = try ProductRunner.run("handoff-sim", ["defaults", "--format", "json"])
        #expect(run.status == 0)
        let object = try #require(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let schemaData = try Data(contentsOf: URL(fileURLWithPath: Self.root + "/schema/defaults.schema.json"))
        let schema = try #require(JSONSerialization.jsonObject(with: schemaData) as? [String: Any])
        let rowSchema = try #require(((schema["properties"] as? [String: Any])?["rows"] as? [String: Any])?["items"] as? [String: Any])
        let rangeSchema = try #require(((rowSchema["properties"] as? [String: Any])?["ranges"] as? [String: Any])?["items"] as? [String: Any])
        #expect(Set(object.keys) == Self.required(schema))
        let rows = try #require(object["rows"] as? [[String: Any]])
        let text = try ProductRunner.run("handoff-sim", ["defaults"]).standardOutput.split(separator: "\n")
        #expect(rows.count == text.count - 2)
        var ranges = 0
        for row in rows {
            #expect(Set(row.keys) == Self.required(rowSchema))
            #expect(["measured", "sourced", "assumed"].contains(row["evidence"] as? String ?? ""))
            for range in row["ranges"] as? [[String: Any]] ?? [] {
                #expect(Set(range.keys) == Self.required(rangeSchema))
                #expect((range["low"] as? Double ?? .nan) <= (range["high"] as? Double ?? .nan))
                ranges += 1
            }
        }
        #expect(ranges >= 30)
        let start = try #require(rows.first { $0["setting"] as? String == "AWDL start" })
        let activation = try #require((start["ranges"] as? [[String: Any]])?.first)
        #expect(activation["paths"] as? [String] == ["network.wifiPeerToPeer.schedule.activation"])
        #expect(activation["lowValue"] as? String == "10ms")
        #expect(activation["highValue"] as? String == "200ms")
    }

    // Issue 30, item 2: each value a scenario or overlay sets carries its
    // evidence. calibration/scenarios/awdl-upload.json sets the link's
    // rate; the fit's overlay (as calibrate --output writes it) the latency.
    @Test("handoff-sim defaults --scenario FILE --overlay FIT marks what each sets, a fit's values as measured")
    func defaultsAsAScenarioSeesThem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("defaults-cli-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fit = folder.appendingPathComponent("fit.json").path
        try #"{"overlay": "fitted by handoff-sim calibrate calibration/privatedrop-awdl.json", "set": [{"path": "network.wifiPeerToPeer.latency", "value": "2117000ns"}]}"#
            .write(toFile: fit, atomically: true, encoding: .utf8)
        let scenario = "scenarios/payload-3kib.json"
        let run = try ProductRunner.run(
            "handoff-sim", ["defaults", "--scenario", scenario, "--overlay", fit], directory: Self.root)
        #expect(run.status == 0, "\(run.standardError)")
        let link = try #require(run.standardOutput.split(separator: "\n").first { $0.hasPrefix("| Wi-Fi peer-to-peer link") })
        #expect(link.contains("measured (overlay \(fit), fitted to calibration/privatedrop-awdl.json: \"AWDL: a fresh connection"))
        #expect(link.contains("`network.wifiPeerToPeer.latency` = `2117000ns`"))
        let acceptance = try #require(run.standardOutput.split(separator: "\n").first { $0.hasPrefix("| acceptance |") })
        #expect(acceptance.contains("set by the scenario (\(scenario)): `devices[1].acceptance` = `{\"after\": \"1s\"}`; the default: assumed"))
        // Rows nothing sets keep the default's evidence alone.
        let start = try #require(run.standardOutput.split(separator: "\n").first { $0.hasPrefix("| AWDL start |") })
        #expect(start.contains("| assumed |"))

        let json = try ProductRunner.run(
            "handoff-sim", ["defaults", "--scenario", scenario, "--format", "json"], directory: Self.root)
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let set = rows.flatMap { $0["setBy"] as? [[String: Any]] ?? [] }
        #expect(set.map { $0["by"] as? String } == ["scenario"])
        #expect(set.first?["path"] as? String == "devices[1].acceptance")

        let missing = try ProductRunner.run("handoff-sim", ["defaults", "--scenario", "no-such-file.json"])
        #expect(missing.status == 64)
        let invalid = folder.appendingPathComponent("invalid.json").path
        try #"{"name": "x"}"#.write(toFile: invalid, atomically: true, encoding: .utf8)
        let refused = try ProductRunner.run("handoff-sim", ["defaults", "--scenario", invalid])
        #expect(refused.status == 65)
        #expect(refused.standardOutput.isEmpty)
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
