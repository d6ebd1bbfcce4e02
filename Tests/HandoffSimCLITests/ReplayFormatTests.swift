import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// The package root (this file is Tests/HandoffSimCLITests/…).
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let payload = root + "/scenarios/payload-3kib.json"
private let relay = root + "/scenarios/relay-very-bad-network.json"
private let signOut = root + "/scenarios/sign-out-during-fetch.json"

/// The lanes of a trace diagram (`<g class="lane" data-lane=…>`), and
/// every element's name, read with XMLParser.
private final class LaneCollector: NSObject, XMLParserDelegate {
    var lanes: [String] = []
    var laneIDs: [String] = []
    var elements: [String] = []

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(name)
        if name == "g", attributes["class"] == "lane" {
            lanes.append(attributes["data-lane"] ?? "")
            laneIDs.append(attributes["id"] ?? "")
        }
    }
}

private func replay(_ arguments: [String], file: String = payload) throws -> ProductRun {
    try ProductRunner.run("handoff-sim", ["replay", file, "--seed", "1", "--trial", "0"] + arguments)
}

@Suite("handoff-sim replay --format, and run --trials-with/--trials-over")
struct ReplayFormatTests {
    @Test("--format text is the default and unchanged")
    func textIsDefault() throws {
        let plain = try replay(["--packets"])
        let text = try replay(["--packets", "--format", "text"])
        #expect(plain.status == 0)
        #expect(plain.standardOutput == text.standardOutput)
        #expect(plain.standardOutput.hasPrefix("scenario A 3 KiB userInfo"))
    }

    @Test("--format svg is well-formed XML with exactly one lane per actor")
    func svgLanes() throws {
        let run = try replay(["--packets", "--format", "svg"])
        #expect(run.status == 0)
        let collector = LaneCollector()
        let parser = XMLParser(data: Data(run.standardOutput.utf8))
        parser.delegate = collector
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(collector.elements.first == "svg")
        #expect(collector.lanes == [
            "mac · com.example.notes", "mac · system", "wifi iphone → mac", "wifi mac → iphone", "iphone · system",
            "iphone · com.example.notes",
        ])
        #expect(collector.laneIDs == (0..<6).map { "lane-\($0)" })
        #expect(run.standardOutput.contains("width=\"1200\""))
        // Packets are drawn; consecutive data segments of one connection form a band.
        #expect(run.standardOutput.contains("class=\"packet-band\""))
        #expect(run.standardOutput.contains("data 3–5 ×3, 3604 B + ACK ×2"))
    }

    @Test("--format svg without --packets has one air lane")
    func svgWithoutPackets() throws {
        let run = try replay(["--format", "svg"])
        let collector = LaneCollector()
        let parser = XMLParser(data: Data(run.standardOutput.utf8))
        parser.delegate = collector
        #expect(parser.parse())
        #expect(collector.lanes == [
            "mac · com.example.notes", "mac · system", "air", "iphone · system", "iphone · com.example.notes",
        ])
    }

    @Test("--format svg marks lost packets and retransmissions over a lossy relay")
    func svgLosses() throws {
        let json = try replay(["--packets", "--format", "json"], file: relay)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let packets = try #require(document["packets"] as? [[String: Any]])
        let svg = try replay(["--packets", "--format", "svg"], file: relay).standardOutput
        let lost = packets.filter { $0["fate"] as? String == "lost" }.count
        #expect(svg.components(separatedBy: "class=\"loss\"").count - 1 == lost)
        let retransmitted = packets.filter { $0["retransmission"] as? Bool == true }.count
        #expect((svg.components(separatedBy: "stroke-dasharray=\"5 3\"").count - 1 > 0) == (retransmitted > 0))
        #expect(svg.contains("cloud"))
    }

    @Test("--format perfetto matches the trace-event schema (checked by hand here, with jsonschema in CI)")
    func perfettoSchema() throws {
        let run = try replay(["--packets", "--format", "perfetto"])
        #expect(run.status == 0)
        let schemaData = try Data(contentsOf: URL(fileURLWithPath: root + "/Tests/Fixtures/trace-event/trace-event.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: schemaData) as? [String: Any])
        let eventSchema = try #require((schema["$defs"] as? [String: Any])?["event"] as? [String: Any])
        let required = try #require(eventSchema["required"] as? [String])
        let properties = try #require(eventSchema["properties"] as? [String: Any])
        let phases = try #require((properties["ph"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(required) == ["name", "ph", "ts", "pid", "tid"])

        let trace = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(trace["displayTimeUnit"] as? String == "ms")
        let events = try #require(trace["traceEvents"] as? [[String: Any]])
        #expect(!events.isEmpty)
        for event in events {
            for key in required { #expect(event[key] != nil, "\(key) missing in \(event)") }
            #expect(event["name"] is String)
            #expect(event["ts"] is NSNumber && ((event["ts"] as? NSNumber)?.doubleValue ?? -1) >= 0)
            #expect(event["pid"] is NSNumber && event["tid"] is NSNumber)
            let phase = try #require(event["ph"] as? String)
            #expect(phases.contains(phase), "\(phase)")
            if phase == "X" { #expect(((event["dur"] as? NSNumber)?.doubleValue ?? -1) >= 0, "\(event)") }
            if phase == "i" { #expect(event["s"] as? String == "t") }
        }
        let names = events.filter { $0["ph"] as? String == "M" && $0["name"] as? String == "thread_name" }
            .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(names.count == 6)
        let slices = Set(events.filter { $0["ph"] as? String == "X" }.compactMap { $0["name"] as? String })
        #expect(slices.isSuperset(of: ["launch", "fetch", "connection set-up"]))
        #expect(events.contains { $0["cat"] as? String == "packet" })
        // Deterministic.
        #expect(try replay(["--packets", "--format", "perfetto"]).standardOutput == run.standardOutput)
    }

    @Test("--format json round-trips through JSONSerialization with the records, packets and outcome")
    func jsonRoundTrip() throws {
        let run = try replay(["--packets", "--format", "json"])
        #expect(run.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(document["seed"] as? Int == 1)
        #expect(document["trial"] as? Int == 0)
        let records = try #require(document["records"] as? [[String: Any]])
        let text = try replay([]).standardOutput
        let traceLines = text.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(records.count == traceLines.count)
        #expect(records.first?["event"] as? String == "becomeCurrent")
        #expect(records.first?["time"] as? String == "0.000000000s")
        #expect(Set(records[0].keys) == ["timeNanoseconds", "time", "device", "app", "activity", "from", "event", "to", "detail"])
        let packets = try #require(document["packets"] as? [[String: Any]])
        #expect(packets.count == (try replay(["--packets"]).standardOutput.components(separatedBy: "  packet  ").count - 1))
        #expect(Set(packets[0].keys) == [
            "timeNanoseconds", "time", "link", "from", "to", "connection", "side", "kind", "name", "sequence",
            "payloadBytes", "retransmission", "fate", "arrivalNanoseconds", "loss",
        ])
        let outcomes = try #require(document["outcomes"] as? [[String: Any]])
        #expect(outcomes.first?["outcome"] as? String == "continued")
        #expect(outcomes.first?["acceptToContinueNanoseconds"] is Int)
        let again = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        #expect(try JSONSerialization.jsonObject(with: again) as? NSDictionary == document as NSDictionary)
        // Without --packets, packets is null.
        let bare = try #require(try JSONSerialization.jsonObject(with: Data(try replay(["--format", "json"]).standardOutput.utf8)) as? [String: Any])
        #expect(bare["packets"] is NSNull)
    }

    @Test("--output writes the file, and nothing to standard output")
    func output() throws {
        let folder = NSTemporaryDirectory() + "handoff-sim-trace-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/trace/trial.svg"
        let run = try replay(["--format", "svg", "--output", path])
        #expect(run.status == 0)
        #expect(run.standardOutput.isEmpty)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == (try replay(["--format", "svg"]).standardOutput))
    }

    @Test("bad values are usage errors (64) with a clear message", arguments: [
        (["replay", payload, "--seed", "1", "--trial", "0", "--format", "xml"], "option '--format' expects one of text, json, svg, perfetto, found 'xml'"),
        (["run", payload, "--trials-over", "foo"], "option '--trials-over' expects METRIC=DURATION"),
        (["run", payload, "--trials-over", "acceptToContinue=soon"], "option '--trials-over' expects a duration after '='"),
        (["run", payload, "--trials-with", "crashed"], "option '--trials-with' expects one of continued, continuedInBrowser, failed"),
        (["run", payload, "--limit", "3"], "option '--limit' needs '--trials-with' or '--trials-over'"),
    ])
    func badValues(arguments: [String], message: String) throws {
        let run = try ProductRunner.run("handoff-sim", arguments)
        #expect(run.status == 64)
        #expect(run.standardError.contains(message), "\(run.standardError)")
        #expect(run.standardOutput.isEmpty)
    }

    @Test("--trials-with lists the matching trials with replay commands that show that outcome, the same for any --jobs")
    func trialsWith() throws {
        let arguments = ["run", signOut, "--trials", "30", "--no-progress", "--trials-with", "failed", "--limit", "2"]
        let one = try ProductRunner.run("handoff-sim", arguments + ["--jobs", "1"])
        let two = try ProductRunner.run("handoff-sim", arguments + ["--jobs", "2"])
        func listing(_ text: String) -> String { String(text[text.range(of: "\ntrials with")!.lowerBound...]) }
        #expect(one.standardOutput.contains("\ntrials with failed (at most 2 per scenario)\n"))
        #expect(listing(one.standardOutput) == listing(two.standardOutput))
        let lines = listing(one.standardOutput).split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("The Mac signs out of iCloud while the iPhone fetches: ") })
        let total = try #require(Int(header.split(separator: " ").reversed()[3]))
        let trialLines = lines.filter { $0.hasPrefix("  trial ") }
        #expect(trialLines.count == min(2, total))
        #expect(total <= 2 || lines.contains("  … and \(total - 2) more (raise --limit to list them)"))
        // Replay the first listed trial: it failed.
        let command = try #require(lines.first { $0.hasPrefix("    handoff-sim replay ") })
        let words = command.split(separator: " ").map(String.init)
        let seed = try #require(words.firstIndex(of: "--seed").map { words[$0 + 1] })
        let trial = try #require(words.firstIndex(of: "--trial").map { words[$0 + 1] })
        #expect(trialLines.first?.hasPrefix("  trial \(trial): ") == true)
        let replayed = try ProductRunner.run("handoff-sim", ["replay", signOut, "--seed", seed, "--trial", trial, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(replayed.standardOutput.utf8)) as? [String: Any])
        let outcomes = try #require(document["outcomes"] as? [[String: Any]])
        #expect(outcomes.contains { $0["outcome"] as? String == "failed" })
    }

    @Test("--trials-over lists trials over the bound, the same for any --jobs")
    func trialsOver() throws {
        let arguments = ["run", payload, "--trials", "40", "--no-progress", "--trials-over", "acceptToContinue=500ms"]
        let one = try ProductRunner.run("handoff-sim", arguments + ["--jobs", "1"])
        let two = try ProductRunner.run("handoff-sim", arguments + ["--jobs", "2"])
        #expect(one.status == two.status)
        func listing(_ text: String) -> String { String(text[text.range(of: "\ntrials over")!.lowerBound...]) }
        #expect(listing(one.standardOutput) == listing(two.standardOutput))
        let lines = listing(one.standardOutput).split(separator: "\n").map(String.init)
        let first = try #require(lines.first { $0.hasPrefix("  trial ") })
        let trial = String(first.dropFirst("  trial ".count).prefix { $0 != ":" })
        let command = try #require(lines.first { $0.hasPrefix("    handoff-sim replay ") })
        let words = command.split(separator: " ").map(String.init)
        let seed = try #require(words.firstIndex(of: "--seed").map { words[$0 + 1] })
        let replayed = try ProductRunner.run("handoff-sim", ["replay", payload, "--seed", seed, "--trial", trial, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(replayed.standardOutput.utf8)) as? [String: Any])
        let outcomes = try #require(document["outcomes"] as? [[String: Any]])
        let latency = try #require(outcomes.first?["acceptToContinueNanoseconds"] as? Int)
        #expect(latency > 500_000_000)
    }

    @Test("the sequence diagram docs/traces.md shows is what the command it names draws today")
    func documentedDiagramIsCurrent() throws {
        // docs/traces.md: handoff-sim replay scenarios/payload-3kib.json --seed 1 --trial 0 --packets --format svg
        let drawn = try ProductRunner.run(
            "handoff-sim", ["replay", "scenarios/payload-3kib.json", "--seed", "1", "--trial", "0", "--packets", "--format", "svg"],
            directory: root)
        #expect(drawn.status == 0)
        let shipped = try String(contentsOfFile: root + "/docs/images/replay-payload-3kib.svg", encoding: .utf8)
        #expect(drawn.standardOutput == shipped, "regenerate docs/images/replay-payload-3kib.svg with the command above")
    }
}
