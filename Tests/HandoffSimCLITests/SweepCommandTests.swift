import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let scenario = root + "/Tests/Fixtures/run-scenarios/passes.json"

@Suite("handoff-sim sweep, merge and advise")
struct SweepCommandTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "handoff-sweep-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("sweep writes every format; shards merged through the CLI equal the unsharded run in every format")
    func shardsThroughTheCommandLine() throws {
        let directory = try Self.directory()
        let axes = ["--payload", "256B,8KiB", "--vary", "network.wifiPeerToPeer.loss=0,0.2", "--trials", "12", "--no-progress"]
        for format in ["text", "csv", "jsonl", "markdown", "svg"] {
            let whole = try ProductRunner.run(
                "handoff-sim", ["sweep", scenario] + axes + ["--format", format, "--output", "\(directory)/whole.\(format)"])
            #expect(whole.status == 0, "\(format): \(whole.standardError)")
        }
        for index in 0..<3 {
            let part = try ProductRunner.run(
                "handoff-sim", ["sweep", scenario] + axes + ["--shard", "\(index)/3", "--jobs", "2", "--output", "\(directory)/part\(index).jsonl"])
            #expect(part.status == 0, "\(part.standardError)")
        }
        let parts = (0..<3).map { "\(directory)/part\($0).jsonl" }
        for format in ["text", "csv", "jsonl", "markdown", "svg"] {
            let merged = try ProductRunner.run(
                "handoff-sim", ["merge"] + parts.reversed() + ["--format", format, "--output", "\(directory)/merged.\(format)"])
            #expect(merged.status == 0, "\(merged.standardError)")
            let a = try String(contentsOfFile: "\(directory)/whole.\(format)", encoding: .utf8)
            let b = try String(contentsOfFile: "\(directory)/merged.\(format)", encoding: .utf8)
            #expect(a == b, "\(format)")
        }
        let csv = try String(contentsOfFile: "\(directory)/whole.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 5)
        #expect(csv[0].hasPrefix("network.wifiPeerToPeer.loss,payload,payload_bytes,trials,success_rate,"))
        // A missing part is refused with exit 65.
        let missing = try ProductRunner.run("handoff-sim", ["merge", parts[0], parts[2]])
        #expect(missing.status == 65)
        #expect(missing.standardError == "error: missing shard 1/3\n")
    }

    @Test("usage errors of sweep exit 64", arguments: [
        (["sweep", scenario], "error: nothing to sweep: give --payload, --profile or --vary"),
        (["sweep", scenario, "--payload", "1KiB", "--shard", "3/3"], "error: option '--shard' expects I/N with 0 ≤ I < N"),
        (["sweep", scenario, "--payload", "1KiB", "--shard", "999999999999999999/1000000000000000000"],
         "error: option '--shard' expects I/N with 0 ≤ I < N ≤ 1000000, such as 0/4; found '999999999999999999/1000000000000000000'"),
        (["sweep", scenario, "--payload", "1KiB", "--shards", "1000000000000000000"],
         "error: option '--shards' expects a whole number from 1 to 1000000, found '1000000000000000000'"),
        (["sweep", scenario, "--payload", "1KiB", "--format", "svgg"], "error: option '--format' expects one of text, csv, jsonl, markdown, svg, found 'svgg' (did you mean 'svg'?)"),
        (["sweep", scenario, "--payload", "1KiB", "--shard", "0/2", "--format", "csv"], "error: a shard writes a partial result as JSON Lines"),
        (["sweep", scenario, "--vary", "network..loss=1"], "error: 'network..loss' is not a parameter path"),
        (["sweep", scenario, "--payload", "1KiB", "--on", "mac"], "error: \"mac\" is the source of the activity"),
        (["advise", scenario], "error: advise needs exactly one latency bound"),
    ])
    func usage(arguments: [String], message: String) throws {
        let run = try ProductRunner.run("handoff-sim", arguments)
        #expect(run.status == 64)
        #expect(run.standardError.hasPrefix(message), "\(run.standardError)")
    }

    @Test("sweep and advise warn when the varied profiles are not on the fetch path; the sweep still runs")
    func profilesOffThePathWarn() throws {
        let warning = "warning: the network profiles shape each device's internet link, but \(scenario) fetches over wifiPeerToPeer, which does not use it; the profiles change nothing here (set network.fetchPath to cloudRelay to measure them)\n"
        let sweep = try ProductRunner.run("handoff-sim", ["sweep", scenario, "--profile", "WiFi,LTE", "--trials", "4", "--no-progress"])
        #expect(sweep.status == 0)
        #expect(sweep.standardError == warning)
        let advise = try ProductRunner.run(
            "handoff-sim", ["advise", scenario, "--p95", "2s", "--profile", "WiFi", "--trials", "4", "--max-trials", "8"])
        #expect(advise.standardError.hasPrefix(warning), "\(advise.standardError)")
        let relay = try ProductRunner.run(
            "handoff-sim", ["sweep", root + "/sweeps/guidance/relay.json", "--trials", "2", "--no-progress"])
        #expect(relay.status == 0)
        #expect(!relay.standardError.contains("warning"))
    }

    @Test("a latency target is answered under the text and Markdown tables, and refused where nothing would show it")
    func targetOutsideTheChart() throws {
        let axes = ["--payload", "256B,8KiB", "--trials", "6", "--no-progress", "--p95", "1s"]
        let text = try ProductRunner.run("handoff-sim", ["sweep", scenario] + axes)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("\ntarget: acceptToContinue p95 ≤ 1s; the largest size swept that meets it\n  "),
                "\(text.standardOutput)")
        let markdown = try ProductRunner.run("handoff-sim", ["sweep", scenario] + axes + ["--format", "markdown"])
        #expect(markdown.status == 0)
        #expect(markdown.standardOutput.contains("\n**Target:** acceptToContinue p95 ≤ 1s; the largest size swept that meets it:\n- "),
                "\(markdown.standardOutput)")
        for format in ["csv", "jsonl"] {
            let refused = try ProductRunner.run("handoff-sim", ["sweep", scenario] + axes + ["--format", format])
            #expect(refused.status == 64)
            #expect(refused.standardError.hasPrefix("error: option '--p95' answers a latency target in --format text, markdown or svg, or with --html; --format \(format)"),
                    "\(refused.standardError)")
        }
        let shard = try ProductRunner.run("handoff-sim", ["sweep", scenario] + axes + ["--shard", "0/2"])
        #expect(shard.status == 64)
        #expect(shard.standardError.contains("--format jsonl holds every point's figures"), "\(shard.standardError)")
    }

    @Test("extreme Slurm indices are usage errors, never an overflow", arguments: [
        (["SLURM_ARRAY_TASK_ID": "-9223372036854775808", "SLURM_ARRAY_TASK_MIN": "9223372036854775807", "SLURM_ARRAY_TASK_COUNT": "4"],
         "error: SLURM_ARRAY_TASK_ID -9223372036854775808 less SLURM_ARRAY_TASK_MIN 9223372036854775807 is out of range"),
        (["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "9223372036854775807"],
         "error: SLURM_ARRAY_TASK_ID 5 (less SLURM_ARRAY_TASK_MIN) is outside 0..<9223372036854775807, or SLURM_ARRAY_TASK_COUNT is over 1000000"),
        (["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "x\n", "SLURM_ARRAY_TASK_COUNT": "8"],
         "error: SLURM_ARRAY_TASK_MIN is 'x\\n', not a whole number"),
    ])
    func extremeSlurmIndices(environment: [String: String], message: String) throws {
        let run = try ProductRunner.run("handoff-sim", ["sweep", scenario, "--payload", "1KiB"], environment: environment)
        #expect(run.status == 64)
        #expect(run.standardError.hasPrefix(message), "\(run.standardError)")
    }

    @Test("a bad value given on the command line is a usage error naming the option: exit 64", arguments: [
        (["--payload", "1KiB,lots"], "error: option '--payload' value 'lots': expected a size such as"),
        (["--payload", "3kb"], "error: option '--payload' value '3kb': expected a size such as"),
        (["--vary", "network.wifiPeerToPeer.latency=5ms,fast"],
         "error: option '--vary network.wifiPeerToPeer.latency' value 'fast': expected a duration such as"),
    ])
    func invalidOptionValue(arguments: [String], message: String) throws {
        let run = try ProductRunner.run("handoff-sim", ["sweep", scenario] + arguments + ["--no-progress"])
        #expect(run.status == 64)
        #expect(run.standardError.hasPrefix(message), "\(run.standardError)")
        #expect(!run.standardError.contains(":0:0:"))
    }

    @Test("an invalid value in the file's own sweep block is an invalid scenario: exit 65, at its place in the file")
    func invalidPointInFile() throws {
        let directory = NSTemporaryDirectory() + "handoff-sim-sweep-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var text = try String(contentsOfFile: scenario, encoding: .utf8)
        let brace = try #require(text.lastIndex(of: "}"))
        text.replaceSubrange(brace...brace, with: #", "sweep": { "payload": ["1KiB", "lots"] } }"#)
        let file = directory + "/sweep.json"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try ProductRunner.run("handoff-sim", ["sweep", file, "--no-progress"])
        #expect(run.status == 65)
        #expect(run.standardError.hasPrefix("\(file):"), "\(run.standardError)")
        #expect(run.standardError.contains(#": error: $.sweep.payload[1]: expected a size such as "3KiB" or a whole number of bytes, found "lots""#),
                "\(run.standardError)")
    }

    @Test("advise answers in words and in JSON, labelled by the path, with the schema's fields, its budget and its sensitivity")
    func advise() throws {
        let words = try ProductRunner.run(
            "handoff-sim", ["advise", scenario, "--p95", "5s", "--success", "90%", "--trials", "4", "--resolution", "8KiB"])
        #expect(words.status == 0, "\(words.standardError)")
        // The fixture fetches over peer-to-peer Wi-Fi: the answer is the
        // path's, not an internet profile's.
        #expect(words.standardOutput.hasPrefix("peer-to-peer Wi-Fi (AWDL): every userInfo up to the 64 KiB (65 536 bytes) limit keeps accept → continue p95 under 5s"))
        #expect(words.standardOutput.contains("where the time goes at 64 KiB"))
        let json = try ProductRunner.run(
            "handoff-sim",
            ["advise", scenario, "--p95", "5s", "--trials", "4", "--resolution", "8KiB", "--format", "json", "--sensitivity"])
        #expect(json.status == 0)
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let answers = try #require(object["answers"] as? [[String: Any]])
        #expect(answers.count == 1)
        let answer = try #require(answers.first)
        // Every key the schema requires, and no other.
        let schemaData = try #require(FileManager.default.contents(atPath: root + "/schema/advice.schema.json"))
        let schema = try #require(JSONSerialization.jsonObject(with: schemaData) as? [String: Any])
        let answerSchema = try #require(
            ((schema["properties"] as? [String: Any])?["answers"] as? [String: Any])?["items"] as? [String: Any])
        let required = try #require(answerSchema["required"] as? [String])
        let allowed = try #require(answerSchema["properties"] as? [String: Any]).keys
        #expect(required.allSatisfy { answer.keys.contains($0) })
        #expect(answer.keys.allSatisfy { allowed.contains($0) })
        #expect(answer["bytes"] as? Int == 65_536)
        #expect(answer["profile"] is NSNull)
        #expect(answer["path"] as? String == "peer-to-peer Wi-Fi (AWDL)")
        let smallest = try #require(answer["smallestTried"] as? [String: Any])
        #expect(smallest["bytes"] as? Int == 64)
        let budget = try #require(answer["budget"] as? [[String: Any]])
        let shares = budget.compactMap { $0["share"] as? Double }
        #expect(!shares.isEmpty && abs(shares.reduce(0, +) - 1) < 1e-3)
        #expect(zip(shares, shares.dropFirst()).allSatisfy { $0 >= $1 })
        let sensitivity = try #require(answer["sensitivity"] as? [[String: Any]])
        #expect(!sensitivity.isEmpty)
        #expect(sensitivity.allSatisfy { ["measured", "sourced", "assumed"].contains($0["evidence"] as? String ?? "") })
        // Largest movement first.
        let spans = sensitivity.compactMap { entry -> Int? in
            guard let low = entry["low"] as? Int, let high = entry["high"] as? Int else { return nil }
            return abs(high - low)
        }
        #expect(zip(spans, spans.dropFirst()).allSatisfy { $0 >= $1 })
    }

    @Test("advise on a file whose userInfoLimit is below 64 B searches up to that limit: exit 0, never a usage error")
    func adviseBelowTheDefaultSmallestSize() throws {
        let directory = try Self.directory()
        let text = try String(contentsOfFile: scenario, encoding: .utf8)
            .replacingOccurrences(of: #""trials": 20,"#, with: #""trials": 4, "protocol": {"userInfoLimit": "32B"},"#)
        let file = directory + "/limit-32b.json"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let advice = try ProductRunner.run("handoff-sim", ["advise", file, "--p95", "5s", "--format", "json"])
        #expect(advice.status == 0, "\(advice.standardError)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(advice.standardOutput.utf8)) as? [String: Any])
        let answer = try #require((object["answers"] as? [[String: Any]])?.first)
        #expect(answer["bytes"] as? Int == 32)
        #expect(answer["limitBinds"] as? Bool == true)
        #expect((answer["smallestTried"] as? [String: Any])?["bytes"] as? Int == 32)
    }

    @Test("a profile axis over a device with its own internet is refused naming it, in sweep (every format, the chart too) and advise; varying that device's link works")
    func profileAxisOverOwnInternet() throws {
        let relay = root + "/scenarios/paths/relay.json"
        let directory = try Self.directory()
        for format in ["text", "svg", "csv"] {
            let result = try ProductRunner.run(
                "handoff-sim", ["sweep", relay, "--profile", "WiFi,LTE,3G", "--payload", "1KiB", "--format", format,
                                "--output", directory + "/chart.\(format)"])
            #expect(result.status == 64, "\(format): \(result.standardError)")
            #expect(result.standardError.contains("device \"iphone\" sets its own internet (LTE) at $.devices[1].internet"))
            #expect(!FileManager.default.fileExists(atPath: directory + "/chart.\(format)"), "nothing half-written")
        }
        let advice = try ProductRunner.run("handoff-sim", ["advise", relay, "--p95", "4s", "--profile", "WiFi"])
        #expect(advice.status == 64 && advice.standardError.contains("sweep --vary devices[1].internet=WiFi,LTE"), "\(advice.standardError)")
        // The device's own link, varied, labels each series with what it ran.
        let varied = try ProductRunner.run(
            "handoff-sim", ["sweep", relay, "--vary", "devices[1].internet=WiFi,LTE", "--payload", "1KiB", "--trials", "20",
                            "--no-intervals", "--format", "svg", "--output", directory + "/varied.svg"])
        #expect(varied.status == 0, "\(varied.standardError)")
        let chart = try String(contentsOfFile: directory + "/varied.svg", encoding: .utf8)
        #expect(chart.contains("WiFi") && chart.contains("LTE"))
    }

    @Test("advise --sensitivity skips a range end the file does not admit and says so in text, JSON and HTML")
    func sensitivitySkipsConflictingEnds() throws {
        let directory = try Self.directory()
        // An excursion may last two thirds of its interval: at 140ms, the
        // excursion duration's high end (101 ms) breaks the rule (the
        // interval the file sets is varied too, from 0.6 s up, which the
        // default duration fits).
        let text = try String(contentsOfFile: scenario, encoding: .utf8).replacingOccurrences(
            of: #""trials": 20,"#, with: #""trials": 3, "network": {"wifiPeerToPeer": {"schedule": {"excursionInterval": "140ms"}}},"#)
        let file = directory + "/interval-140ms.json"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let common = ["advise", file, "--p95", "5s", "--resolution", "32KiB", "--sensitivity"]
        let words = try ProductRunner.run("handoff-sim", common + ["--html", directory + "/advice.html"])
        #expect(words.status == 0, "\(words.standardError)")
        let sentence = "Not tried: AWDL excursions (idle pair) at the high end of its plausible range (duration 101 ms): "
            + "it conflicts with a value the file sets (\(file), $.network.wifiPeerToPeer.schedule: "
        #expect(words.standardOutput.contains(sentence), "\(words.standardOutput)")
        #expect(words.standardOutput.contains("two thirds of the excursion interval (140ms)"), "\(words.standardOutput)")
        let page = try String(contentsOfFile: directory + "/advice.html", encoding: .utf8)
        #expect(page.contains("Not tried: AWDL excursions (idle pair) at the high end"))
        let json = try ProductRunner.run("handoff-sim", common + ["--format", "json"])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let answer = try #require((object["answers"] as? [[String: Any]])?.first)
        let skipped = try #require(answer["skippedEnds"] as? [[String: Any]])
        #expect(skipped.count == 1, "\(skipped)")
        #expect(skipped.first?["parameter"] as? String == "AWDL excursions (idle pair)")
        #expect(skipped.first?["end"] as? String == "high")
        #expect(skipped.first?["endValue"] as? String == "101ms")
        #expect(skipped.first?["path"] as? String == "$.network.wifiPeerToPeer.schedule")
        // The schema's keys, required and allowed, for the answer and its
        // sensitivity rows.
        let schemaData = try #require(FileManager.default.contents(atPath: root + "/schema/advice.schema.json"))
        let schema = try #require(JSONSerialization.jsonObject(with: schemaData) as? [String: Any])
        let answerSchema = try #require(
            ((schema["properties"] as? [String: Any])?["answers"] as? [String: Any])?["items"] as? [String: Any])
        let answerProperties = try #require(answerSchema["properties"] as? [String: Any])
        #expect(try #require(answerSchema["required"] as? [String]).allSatisfy { answer.keys.contains($0) })
        #expect(answer.keys.allSatisfy { answerProperties.keys.contains($0) })
        let rowSchema = try #require((answerProperties["sensitivity"] as? [String: Any])?["items"] as? [String: Any])
        let rowProperties = try #require(rowSchema["properties"] as? [String: Any]).keys
        let skippedSchema = try #require((answerProperties["skippedEnds"] as? [String: Any])?["items"] as? [String: Any])
        let skippedProperties = try #require(skippedSchema["properties"] as? [String: Any]).keys
        #expect(skipped.allSatisfy { $0.keys.allSatisfy { skippedProperties.contains($0) } })
        let rows = try #require(answer["sensitivity"] as? [[String: Any]])
        #expect(rows.allSatisfy { $0.keys.allSatisfy { rowProperties.contains($0) } })
        let duration = rows.first { $0["parameter"] as? String == "AWDL excursions (idle pair)" }
        if let duration {
            #expect(duration["skipped"] as? [String] == ["high"])
            #expect(duration["high"] is NSNull)
        }
    }

    @Test("with the shipped fit's replicates: sweep gives intervals in every format and advise an interval; --no-intervals skips them")
    func intervalsFromTheShippedFit() throws {
        let fit = root + "/calibration/fits/privatedrop-awdl.json"
        let guidance = root + "/sweeps/guidance/peer-to-peer.json"
        let common = ["sweep", guidance, "--overlay", fit, "--payload", "256B,64KiB", "--trials", "6", "--no-progress"]
        let text = try ProductRunner.run("handoff-sim", common)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("over the overlay's 20 bootstrap replicates"))
        #expect(text.standardOutput.split(separator: "\n").filter { $0.contains(" [") }.count == 2)
        let csv = try ProductRunner.run("handoff-sim", common + ["--format", "csv"])
        #expect(csv.standardOutput.split(separator: "\n").first?.hasSuffix("_p99_high_ns") == true)
        let skipped = try ProductRunner.run("handoff-sim", common + ["--no-intervals"])
        #expect(skipped.status == 0)
        #expect(!skipped.standardOutput.contains("["))
        // The point estimate is the same with or without the replicates.
        let strip = { (output: String) in
            output.split(separator: "\n").map { line in
                line.replacingOccurrences(of: #" \[[^\]]*\]"#, with: "", options: .regularExpression)
                    .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            }
        }
        #expect(Array(strip(text.standardOutput).prefix(4)).dropFirst(2) == Array(strip(skipped.standardOutput).prefix(4)).dropFirst(2))
        let advice = try ProductRunner.run(
            "handoff-sim",
            ["advise", guidance, "--overlay", fit, "--p95", "1.3s", "--trials", "6", "--max-trials", "12", "--resolution", "16KiB", "--format", "json"])
        #expect(advice.status == 0, "\(advice.standardError)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(advice.standardOutput.utf8)) as? [String: Any])
        let answer = try #require((object["answers"] as? [[String: Any]])?.first)
        let interval = try #require(answer["interval"] as? [String: Any])
        #expect(interval["replicates"] as? Int == 20)
        let bare = try ProductRunner.run(
            "handoff-sim",
            ["advise", guidance, "--overlay", fit, "--p95", "1.3s", "--trials", "6", "--max-trials", "12", "--resolution", "16KiB", "--format", "json",
             "--no-intervals"])
        let bareAnswer = try #require(
            ((try JSONSerialization.jsonObject(with: Data(bare.standardOutput.utf8)) as? [String: Any])?["answers"] as? [[String: Any]])?.first)
        #expect(bareAnswer["interval"] is NSNull)
    }

    @Test("--html: a shard's partial result has no report (exit 64); a sweep and a merge write the same page but for the wall time")
    func htmlReports() throws {
        let directory = try Self.directory()
        let common = ["sweep", scenario, "--payload", "256B,8KiB", "--trials", "6", "--no-progress"]
        let refused = try ProductRunner.run("handoff-sim", common + ["--shard", "0/2", "--html", "\(directory)/part.html"])
        #expect(refused.status == 64)
        #expect(refused.standardError.contains("merge --html"))
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/part.html"))
        let whole = try ProductRunner.run("handoff-sim", common + ["--html", "\(directory)/whole.html", "--p95", "2s"])
        #expect(whole.status == 0, "\(whole.standardError)")
        for index in 0..<2 {
            let part = try ProductRunner.run("handoff-sim", common + ["--shard", "\(index)/2", "--output", "\(directory)/part\(index).jsonl"])
            #expect(part.status == 0)
        }
        let merged = try ProductRunner.run(
            "handoff-sim", ["merge", "\(directory)/part0.jsonl", "\(directory)/part1.jsonl", "--p95", "2s", "--html", "\(directory)/merged.html"])
        #expect(merged.status == 0, "\(merged.standardError)")
        func body(_ name: String) throws -> String {
            let text = try String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8)
            // The facts (command line, wall time) differ; the report below them does not.
            return String(text[(text.range(of: "<main>")?.lowerBound ?? text.startIndex)...])
        }
        #expect(try body("whole.html") == body("merged.html"))
        #expect(try body("whole.html").contains("class=\"target\""))
    }
}
