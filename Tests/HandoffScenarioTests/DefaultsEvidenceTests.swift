import Foundation
import Handoff
import HandoffCalibration
@testable import HandoffScenario
import HandoffWorld
import ScenarioJSON
import SimKernel
import Testing

/// Every default carries its evidence, and its plausible ranges name
/// scenario paths the decoder accepts at both ends (issue 30, item 2).
@Suite("Defaults' evidence and ranges")
struct DefaultsEvidenceTests {
    static let shipped = packageRoot() + "/scenarios/payload-3kib.json"

    /// An overlay writing `edits`, in memory.
    static func overlay(_ edits: [(path: String, value: String)], file: String = "ends.json") throws -> Overlay {
        let set = edits.map { edit in
            JSONOutput.object([("path", .string(edit.path)), ("value", .string(edit.value))])
        }
        let json = JSONOutput.object([("overlay", .string("a range's end")), ("set", .array(set))]).render(pretty: false)
        return try Overlay(bytes: Array(json.utf8), file: file)
    }

    // The link an advise --sensitivity needs: each end of each range,
    // written through an overlay at its paths over a shipped scenario,
    // decodes. A misspelt path fails (the decoder rejects unknown keys), and
    // so does an end past the decoder's bounds.
    @Test("every range's paths take both of its ends on a shipped scenario")
    func rangesDecodeAtBothEnds() throws {
        var checked = 0
        for row in HandoffDefaults.table {
            for range in row.parameters {
                for end in [range.low, range.high] {
                    let edits = range.paths.map { ($0, range.text(end)) }
                    let overlay = try Self.overlay(edits)
                    do {
                        _ = try ScenarioSuite.load(Self.shipped, overlay: overlay)
                    } catch {
                        Issue.record("\(row.setting): \(range.quantity) = \(range.text(end)) at \(range.paths): \(error)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked >= 40)
    }

    // The same over every shipped scenario, all the ranges' low ends in one
    // overlay and all the high ends in another: no scenario holds a value
    // (a null schedule, a fixed distribution) that a range's edit cannot
    // write over.
    @Test("every shipped scenario and sweep takes all the ranges' low ends, and all their high ends")
    func everyShippedScenarioTakesTheEnds() throws {
        let ranges = HandoffDefaults.table.flatMap(\.parameters)
        let files = try ScenarioSuite.files(in: [packageRoot() + "/scenarios", packageRoot() + "/sweeps"])
        #expect(files.count >= 30)
        for end in [\PlausibleRange.low, \PlausibleRange.high] {
            let overlay = try Self.overlay(ranges.flatMap { range in range.paths.map { ($0, range.text(range[keyPath: end])) } })
            for file in files {
                do {
                    _ = try ScenarioSuite.load(file, overlay: overlay)
                } catch {
                    Issue.record("\(file): \(error)")
                }
            }
        }
    }

    // The edit lands where the model reads it: the low end of the AWDL
    // activation and of the cold launch's median show in the decoded
    // scenario.
    @Test("a range's end written through an overlay reaches the model")
    func endsReachTheModel() throws {
        let rows = HandoffDefaults.table
        let activation = try #require(rows.flatMap(\.parameters).first { $0.paths == ["network.wifiPeerToPeer.schedule.activation"] })
        let launch = try #require(rows.flatMap(\.parameters).first { $0.paths == ["apps[0].coldLaunch"] })
        let overlay = try Self.overlay([
            (activation.paths[0], activation.text(activation.low)), (launch.paths[0], launch.text(launch.low)),
        ])
        let scenario = try ScenarioSuite.load(Self.shipped, overlay: overlay)
        #expect(scenario.setup.world.wifiPeerToPeer.schedule?.activation == .milliseconds(10))
        let coldLaunch = try #require(Self.logNormal(scenario.setup.apps[0].coldLaunch), "the cold launch is no longer log-normal")
        #expect(coldLaunch.median == .milliseconds(200))
        let defaultColdLaunch = try #require(Self.logNormal(AppDescription.defaultColdLaunch), "the default cold launch is no longer log-normal")
        #expect(coldLaunch.sigma == defaultColdLaunch.sigma)
    }

    /// The median and σ of a log-normal distribution; `nil` for any other.
    static func logNormal(_ distribution: DurationDistribution) -> (median: SimDuration, sigma: Double)? {
        guard case let .logNormal(median, sigma, _) = distribution else { return nil }
        return (median, sigma)
    }

    /// The schema node at `path` (keys and `[i]` indices), following
    /// `$ref`s and the alternatives of `oneOf`/`anyOf`/`allOf`.
    static func schemaNode(_ root: JSONNode, _ node: JSONNode, _ path: ArraySlice<ParameterPath.Component>) -> Bool {
        guard let step = path.first else { return true }
        var candidates = [node]
        var index = 0
        while index < candidates.count {
            let candidate = candidates[index]
            index += 1
            if case let .string(reference)? = candidate.member("$ref")?.value.value,
               let name = reference.split(separator: "/").last,
               let definitions = root.member("$defs")?.value ?? root.member("definitions")?.value,
               let target = definitions.member(String(name))?.value {
                candidates.append(target)
            }
            for key in ["oneOf", "anyOf", "allOf"] {
                if case let .array(alternatives)? = candidate.member(key)?.value.value { candidates += alternatives }
            }
        }
        for candidate in candidates {
            switch step {
            case let .key(key):
                if let next = candidate.member("properties")?.value.member(key)?.value,
                   schemaNode(root, next, path.dropFirst()) { return true }
            case .index:
                if let next = candidate.member("items")?.value, schemaNode(root, next, path.dropFirst()) { return true }
            }
        }
        return false
    }

    // The paths without a range (a whole distribution, a switch, a size
    // with no stated range) cannot be set to a number; the JSON Schema
    // names every key the decoder reads, so each path is checked there.
    @Test("every path a row names is a place in schema/scenario.schema.json")
    func pathsAreInTheSchema() throws {
        let root = try SchemaTests.schema()
        var checked = 0
        for row in HandoffDefaults.table {
            for text in row.paths {
                let path = try #require(ParameterPath(text), "\(row.setting): \(text) is not a path")
                #expect(Self.schemaNode(root, root, path.components[...]), "\(row.setting): \(text) is not in the schema")
                checked += 1
            }
        }
        #expect(checked >= 80)
        // The check can fail.
        #expect(!Self.schemaNode(root, root, ParameterPath("network.wifiPeerToPeer.schedule.activations")!.components[...]))
    }

    // Measured rows name a dataset shipped in calibration/data; sourced rows
    // a document; every row a source or reasoning.
    @Test("measured rows name a shipped dataset, sourced rows a document")
    func evidenceNamesItsBasis() throws {
        var kinds: Set<String> = []
        for row in HandoffDefaults.table {
            kinds.insert(row.evidence.kind)
            #expect(!row.source.isEmpty, "\(row.setting) has no source")
            switch row.evidence {
            case let .measured(dataset):
                let file = try #require(dataset.split(separator: " ").first { $0.hasPrefix("calibration/data/") },
                                        "\(row.setting): \(dataset) names no file in calibration/data")
                #expect(FileManager.default.fileExists(atPath: packageRoot() + "/" + file), "\(file) does not exist")
            case let .sourced(document):
                #expect(!document.isEmpty, "\(row.setting) names no document")
            case .assumed:
                break
            }
            for range in row.ranges {
                #expect(range.low <= range.high)
                #expect(range.low.isFinite && range.high.isFinite)
            }
        }
        #expect(kinds == ["measured", "sourced", "assumed"])
    }

    // Where a row's prose states a plausible span, the span is also
    // machine-readable. The one exception says its range in words only: it
    // runs between two behaviours, not two numbers.
    @Test("a plausible range stated in prose is a range in the row")
    func proseRangesAreMachineReadable() {
        let qualitative = ["presence of a device (for the grace)"]
        for row in HandoffDefaults.table where row.source.contains("plausible") && !qualitative.contains(row.setting) {
            #expect(!row.ranges.isEmpty, "\(row.setting) states a plausible range in prose only")
        }
    }

    @Test("a range's ends are written in the path's units")
    func rangeText() {
        #expect(PlausibleRange("t", 5, 30, "s").text(5) == "5s")
        #expect(PlausibleRange("loss", 0, 0.01, "").text(0.01) == "0.01")
        #expect(PlausibleRange("rate", 107.06, 108.94, "Mbit/s").text(107.06) == "107.06Mbit/s")
        let median = PlausibleRange.median(
            of: .logNormal(median: .milliseconds(600), sigma: 0.7, offset: .zero), 100, 1500, "ms", paths: ["p"])
        #expect(median.text(100) == #"{"logNormal": {"median": "100ms", "sigma": 0.7}}"#)
        #expect(PlausibleRange("activation", 10, 200, "ms").description == "activation 10–200 ms")
    }
}

/// `handoff-sim defaults --scenario FILE --overlay FIT`: each value a
/// scenario or overlay sets is marked with who set it.
@Suite("Defaults as a scenario sees them")
struct DefaultsAttributionTests {
    static func temporary(_ name: String, _ text: String) throws -> String {
        // A folder of its own per call: the suite's tests run in parallel
        // and each writes a scenario.json of its own.
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("defaults-attribution-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name).path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// payload-3kib.json with `network` set to `network`.
    static func scenario(network: String) throws -> String {
        let shipped = try String(contentsOfFile: DefaultsEvidenceTests.shipped, encoding: .utf8)
        let edited = shipped.replacingOccurrences(
            of: "\n  \"apps\": [\n", with: "\n  \"network\": \(network),\n  \"apps\": [\n")
        #expect(edited != shipped)
        return try temporary("scenario.json", edited)
    }

    static func row(_ setting: String) throws -> Int {
        try #require(HandoffDefaults.table.firstIndex { $0.setting == setting })
    }

    @Test("a value the scenario sets is marked as the scenario's; the rest keep the default's evidence")
    func scenarioValues() throws {
        let file = try Self.scenario(network: #"{"wifiPeerToPeer": {"schedule": {"activation": "80ms"}}}"#)
        let found = try DefaultsAttribution.overrides(of: HandoffDefaults.table, scenario: file, overlay: nil).get()
        let start = found.rows[try Self.row("AWDL start")]
        #expect(start == [DefaultOverride(
            path: "network.wifiPeerToPeer.schedule.activation", value: "80ms", origin: .scenario(file: file))])
        #expect(start.first?.wording == "set by the scenario (\(file))")
        #expect(found.rows[try Self.row("AWDL active pair")].isEmpty)
        // payload-3kib.json sets the iPhone's acceptance; nothing else.
        #expect(found.rows[try Self.row("acceptance")].map(\.path) == ["devices[1].acceptance"])
        #expect(found.rows.reduce(0) { $0 + $1.count } == 2)
        #expect(found.unmatched.isEmpty)
    }

    @Test("an app's value is found at its own index; a null schedule sets every schedule row")
    func indicesAndNulls() throws {
        let file = try Self.scenario(network: #"{"wifiPeerToPeer": {"schedule": null}}"#)
        let found = try DefaultsAttribution.overrides(of: HandoffDefaults.table, scenario: file, overlay: nil).get()
        for setting in ["AWDL start", "AWDL active pair", "AWDL slots and channel sequence"] {
            #expect(found.rows[try Self.row(setting)].map(\.path) == ["network.wifiPeerToPeer.schedule"], "\(setting)")
        }
        let launch = try DefaultsAttribution.overrides(
            of: HandoffDefaults.table, scenario: packageRoot() + "/scenarios/monkeybrowser-four-tabs.json", overlay: nil
        ).get().rows[try Self.row("app launch")]
        for value in launch { #expect(value.path.hasPrefix("apps[")) }
    }

    @Test("a fit's overlay is measured and names its experiment; any other overlay is set by the overlay")
    func overlayValues() throws {
        let file = try Self.scenario(network: #"{"wifiPeerToPeer": {"schedule": {"activation": "80ms"}}}"#)
        let experiment = packageRoot() + "/calibration/privatedrop-awdl.json"
        let fitted = try Overlay(bytes: Array("""
            {"overlay": "fitted by handoff-sim calibrate \(experiment)",
             "set": [{"path": "network.wifiPeerToPeer.schedule.excursionDuration", "value": "305ms"},
                     {"path": "network.wifiPeerToPeer.schedule.activation", "value": "20ms"},
                     {"path": "network.bluetooth.jitter", "value": "1ms"},
                     {"path": "duration", "value": "2m"}]}
            """.utf8), file: "fit.json")
        let found = try DefaultsAttribution.overrides(of: HandoffDefaults.table, scenario: file, overlay: fitted).get()
        let duration = try #require(found.rows[try Self.row("AWDL excursions (idle pair)")].first)
        #expect(duration.evidence == "measured")
        #expect(duration.wording.hasPrefix("measured (overlay fit.json, fitted to \(experiment): \"AWDL: a fresh connection"))
        // The overlay's activation overwrites the scenario's.
        #expect(found.rows[try Self.row("AWDL start")].map(\.value) == ["20ms"])
        #expect(found.unmatched.map(\.path) == ["duration"])

        let plain = try DefaultsEvidenceTests.overlay([("network.bluetooth.latency", "20ms")], file: "mine.json")
        let set = try DefaultsAttribution.overrides(of: HandoffDefaults.table, scenario: nil, overlay: plain).get()
        let bluetooth = try #require(set.rows[try Self.row("Bluetooth LE link, each way")].first)
        #expect(bluetooth.wording == "set by overlay mine.json (\"a range's end\")")
        #expect(bluetooth.evidence == "overlay")
    }

    @Test("an invalid scenario gives its problems, not a table")
    func invalidScenario() throws {
        let file = try Self.scenario(network: #"{"wifiPeerToPeer": {"schedule": {"activation": "-1ms"}}}"#)
        let result = DefaultsAttribution.overrides(of: HandoffDefaults.table, scenario: file, overlay: nil)
        let error = try #require(throws: ScenarioError.self, "an activation of -1ms was accepted") { try result.get() }
        #expect(error.description.contains("$.network.wifiPeerToPeer.schedule.activation"))
    }
}
