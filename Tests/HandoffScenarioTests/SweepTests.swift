import Foundation
import Handoff
@testable import HandoffAdvice
import HandoffReport
import HandoffWorld
@testable import HandoffScenario
import SimKernel
import Testing

/// Sweeps: points built by editing the file, aggregates independent of
/// threads and shards, latency against the transfer model's closed form.
@Suite("Sweeps")
struct SweepTests {
    /// A loss-free, jitter-free peer-to-peer link of `rate` bits per second.
    /// A loss-free link with no jitter and no AWDL schedule (a wire), an app that launches at once and
    /// fixed processing times: every trial takes the same time, and
    /// accept → continue is the fetch.
    static func lossFree(rate: String = "100Mbit/s", extra: String = "") -> String {
        scenarioText(
            #""trials": 20, "network": { "wifiPeerToPeer": { "loss": 0, "jitter": "0s", "bandwidth": "\#(rate)", "bandwidthSpread": 0, "schedule": null } }, "#
                + #""protocol": { "rapport": { "processing": "1ms", "resolveHoldBack": "0s" }, "sourceSaveTime": "0s", "coding": { "encodeRate": null, "decodeRate": null } }"# + extra,
            activity: #""device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing", "payloadSize": "1KiB""#,
            app: #", "coldLaunch": "0s""#)
    }

    static func prepare(
        _ text: String, payloads: [String] = [], profiles: [String] = [], parameters: [(path: String, values: [String])] = [],
        options: SweepRunner.Options = SweepRunner.Options()
    ) throws -> PreparedSweep {
        try SweepRunner.prepare(
            Array(text.utf8), file: "sweep.json", payloads: payloads, profiles: profiles, parameters: parameters,
            options: options)
    }

    static func run(_ prepared: PreparedSweep, jobs: Int = 1) throws -> SweepResult {
        try SweepRunner(jobs: jobs).run(prepared)
    }

    /// ⌈bytes · 8 · 10⁹ / rate⌉, written out independently of the model.
    static func serialisation(_ bytes: Int, rate: Int) -> Int64 {
        let bits = Int64(bytes) * 8 * 1_000_000_000
        return (bits + Int64(rate) - 1) / Int64(rate)
    }

    /// The time to put a message of `bytes` on the wire in 1 460-byte
    /// segments, each with 40 bytes of header, back to back.
    static func messageSerialisation(_ bytes: Int, rate: Int) -> Int64 {
        let segments = max(1, (bytes + 1459) / 1460)
        let last = bytes - (segments - 1) * 1460
        return Int64(segments - 1) * serialisation(1500, rate: rate) + serialisation(last + 40, rate: rate)
    }

    @Test("a device or activity the caller names, and the file's name, are escaped in the message: no forged line")
    func namesInMessagesEscaped() {
        let hostile = "x\n::error file=a::forged\u{2028}\u{1B}"
        for options in [SweepRunner.Options(activity: hostile), SweepRunner.Options(device: hostile)] {
            switch Result(catching: { () throws(ScenarioError) in
                try SweepRunner.prepare(
                    Array(Self.lossFree().utf8), file: "evil\n::warning::x.json", payloads: ["1KiB"], options: options)
            }) {
            case .success: Issue.record("an unknown name was accepted")
            case let .failure(failure):
                #expect(!failure.message.contains("\n") && !failure.message.contains("\u{2028}"), "\(failure.message)")
                #expect(failure.message.contains("x\\n::error file=a::forged\\u{2028}\\u{1B}"))
                #expect(failure.prefixed("in \u{85}: ").message.hasPrefix("in \\u{85}: "))
            }
        }
    }

    @Test("loss-free: p50 accept→continue is non-decreasing in payload size and grows exactly by the payload's serialisation (coding costs nothing here)")
    func closedForm() throws {
        let sizes = [256, 1024, 3072, 8192, 16_384, 32_768, 61_440]
        let prepared = try Self.prepare(Self.lossFree(rate: "10Mbit/s"), payloads: sizes.map(String.init))
        let result = try Self.run(prepared)
        let p50 = try result.points.map { try #require($0.aggregate[.acceptToContinue].value(atPercentile: 50)) }
        #expect(result.points.map(\.payloadBytes) == sizes)
        #expect(zip(p50, p50.dropFirst()).allSatisfy { $0 <= $1 })
        // Every trial takes the same time on this link: p50 is the minimum and the maximum.
        #expect(result.points.allSatisfy { $0.aggregate[.acceptToContinue].min == $0.aggregate[.acceptToContinue].max })
        let rapport = prepared.base.setup.configuration.rapport
        let envelope = prepared.base.setup.configuration.envelopeBytes + rapport.frameHeaderBytes + rapport.frameTagBytes
        for index in sizes.indices.dropFirst() {
            let expected = Self.messageSerialisation(sizes[index] + envelope, rate: 10_000_000)
                - Self.messageSerialisation(sizes[0] + envelope, rate: 10_000_000)
            #expect(p50[index] - p50[0] == expected, "\(sizes[index]) bytes")
        }
    }

    @Test("--jobs 1 and --jobs 2 give the same aggregates, point for point")
    func jobs() throws {
        let text = scenarioText(#""trials": 60, "network": { "wifiPeerToPeer": { "loss": 0.05 } }"#)
        let prepared = try Self.prepare(text, payloads: ["1KiB", "16KiB"], parameters: [("network.wifiPeerToPeer.latency", ["5ms", "50ms"])])
        let one = try Self.run(prepared, jobs: 1)
        let two = try Self.run(prepared, jobs: 2)
        #expect(one == two)
        #expect(SweepJSONLines.render(one, toolVersion: "t") == SweepJSONLines.render(two, toolVersion: "t"))
        #expect(one.axes.map(\.name) == ["network.wifiPeerToPeer.latency", "payload"])
        #expect(one.points.map(\.coordinates) == [["5ms", "1KiB"], ["5ms", "16KiB"], ["50ms", "1KiB"], ["50ms", "16KiB"]])
        #expect(one.points.allSatisfy { $0.aggregate.trials == 60 })
    }

    @Test("shards 0/3, 1/3, 2/3 merged equal the unsharded run, byte for byte; parts that do not belong together are refused")
    func shards() throws {
        let text = scenarioText(#""trials": 31, "network": { "wifiPeerToPeer": { "loss": 0.1 } }"#)
        let whole = try Self.run(try Self.prepare(text, payloads: ["2KiB", "40KiB"]))
        func part(_ index: Int, seed: UInt64? = nil) throws -> (file: String, part: SweepJSONLines.Part) {
            let prepared = try Self.prepare(
                text, payloads: ["2KiB", "40KiB"], options: SweepRunner.Options(seed: seed, shard: Shard(index: index, count: 3)))
            let rendered = SweepJSONLines.render(try Self.run(prepared), toolVersion: "0.1.0")
            return ("part\(index).jsonl", try SweepJSONLines.read(rendered, file: "part\(index).jsonl"))
        }
        let parts = try [part(2), part(0), part(1)]
        #expect(parts.map { $0.part.result.points[0].aggregate.trials } == [11, 10, 10])
        let merged = try SweepJSONLines.merge(parts)
        #expect(merged.result == whole)
        #expect(SweepJSONLines.render(merged.result, toolVersion: merged.toolVersion)
            == SweepJSONLines.render(whole, toolVersion: "0.1.0"))

        #expect(throws: ScenarioError.self) { try SweepJSONLines.merge(Array(parts.prefix(2))) }
        #expect(throws: ScenarioError.self) { try SweepJSONLines.merge([parts[0], parts[1], try part(0)]) }
        #expect(throws: ScenarioError.self) { try SweepJSONLines.merge([parts[0], parts[1], try part(1, seed: 9)]) }
        do {
            _ = try SweepJSONLines.merge(Array(parts.prefix(2)))
        } catch {
            #expect("\(error)" == "missing shard 1/3")
        }
        do {
            _ = try SweepJSONLines.merge([parts[0], parts[1], try part(0, seed: 9)])
        } catch {
            #expect("\(error)" == "part2.jsonl and part0.jsonl come from different runs: the seed differs (1 and 9)")
        }
    }

    @Test("a sweep block in the file; values are validated at every point")
    func fileBlock() throws {
        let text = Self.lossFree(extra: #", "sweep": { "payload": ["256B", "2KiB"], "vary": { "protocol.userInfoLimit": ["1KiB", "64KiB"] } }"#)
        let prepared = try Self.prepare(text)
        #expect(prepared.axes.map(\.name) == ["protocol.userInfoLimit", "payload"])
        let result = try Self.run(prepared)
        // Over the 1 KiB limit the source refuses: 4611.
        #expect(result.points.map { $0.aggregate.failures[3] } == [0, 20, 0, 0])
        switch Result(catching: { () throws(ScenarioError) in
            try SweepRunner.prepare(Array(text.utf8), file: "sweep.json", payloads: ["3 parsecs"], options: SweepRunner.Options())
        }) {
        case .success: Issue.record("an invalid payload was accepted")
        case let .failure(failure):
            // A value the caller gave is reported against the axis, not the file.
            #expect(failure.category == .badValue && failure.problems == nil)
            #expect(failure.argument == .payloads && failure.value == "3 parsecs")
            #expect(failure.detail?.hasPrefix("expected a size") == true)
            #expect(failure.description.hasPrefix("the payload value '3 parsecs': expected a size"))
        }
    }

    @Test("the sweep block's payloads are sizes as everywhere else: a size string or a whole number of bytes")
    func payloadValuesInTheFile() {
        func found(_ payloads: String) -> [String] {
            problems(Self.lossFree(extra: #", "sweep": { "payload": \#(payloads) }"#))
        }
        #expect(found(#"["256B", 1024, "3 KiB", 0]"#).isEmpty)
        // A string without a unit, a negative number and a fraction are not
        // sizes (the first two were once let through to fail at run time);
        // each is named at its own place, after a null reported as such.
        let reported = found(#"[null, "1024", -5, 1.5, true, "lots"]"#)
        #expect(reported.count == 6)
        #expect(reported.map { $0.split(separator: "error: ").last.map(String.init) ?? "" } == [
            #"$.sweep.payload[0]: expected a string, number or boolean, found null"#,
            #"$.sweep.payload[1]: expected a size such as "3KiB" or a whole number of bytes, found "1024""#,
            #"$.sweep.payload[2]: expected a size such as "3KiB" or a whole number of bytes, found -5"#,
            #"$.sweep.payload[3]: expected a size such as "3KiB" or a whole number of bytes, found 1.5"#,
            #"$.sweep.payload[4]: expected a size such as "3KiB" or a whole number of bytes, found true"#,
            #"$.sweep.payload[5]: expected a size such as "3KiB" or a whole number of bytes, found "lots""#,
        ])
    }

    @Test("parameter paths")
    func paths() {
        #expect(ParameterPath("network.wifiPeerToPeer.loss")?.components == [.key("network"), .key("wifiPeerToPeer"), .key("loss")])
        #expect(ParameterPath("activities[1].payloadSize")?.components == [.key("activities"), .index(1), .key("payloadSize")])
        #expect(ParameterPath("devices[0].position[1]")?.description == "devices[0].position[1]")
        for bad in ["", ".a", "a.", "a..b", "[0]", "a[x]", "a[-1]", "a[1"] {
            #expect(ParameterPath(bad) == nil, "\(bad)")
        }
    }
}

/// `advise` against a link whose latency has a closed form.
@Suite("Payload advice")
struct AdvisorTests {
    @Test("the largest payload under a p95 bound is exactly the closed form's answer (1-byte resolution)")
    func closedForm() throws {
        let text = SweepTests.lossFree(rate: "1Mbit/s").replacingOccurrences(of: #""trials": 20"#, with: #""trials": 3"#)
        // The constant part of accept → continue, from one size.
        let prepared = try SweepTests.prepare(text, payloads: ["1024"])
        let aggregate = try SweepTests.run(prepared).points[0].aggregate
        let rapport = prepared.base.setup.configuration.rapport
        let envelope = prepared.base.setup.configuration.envelopeBytes + rapport.frameHeaderBytes + rapport.frameTagBytes
        let at1024 = try #require(aggregate[.acceptToContinue].value(atPercentile: 95))
        let constant = at1024 - SweepTests.messageSerialisation(1024 + envelope, rate: 1_000_000)
        let bound = constant + SweepTests.messageSerialisation(20_000 + envelope, rate: 1_000_000)
        let target = Advisor.Target(latency: .nanoseconds(bound), success: 0.9)
        let advice = try Advisor(resolution: 1).advise(
            Array(text.utf8), file: "advise.json", profiles: [], target: target, options: SweepRunner.Options()
        )
        #expect(advice.count == 1)
        #expect(advice[0].largestPayload == 20_000)
        #expect(advice[0].limitBinds == false)
        #expect(advice[0].latencyAtLargest == .nanoseconds(bound))
        #expect(advice[0].profile == "WiFi")
        // One byte more is over the bound: the search is tight.
        let over = try SweepTests.run(try SweepTests.prepare(text, payloads: ["20001"])).points[0].aggregate
        #expect(try #require(over[.acceptToContinue].value(atPercentile: 95)) > bound)
    }

    @Test("a bound every size meets is reported as the limit binding; one no size meets, as none")
    func extremes() throws {
        let text = SweepTests.lossFree().replacingOccurrences(of: #""trials": 20"#, with: #""trials": 3"#)
        let generous = try Advisor(resolution: 4096).advise(
            Array(text.utf8), file: "a.json", profiles: [], target: Advisor.Target(latency: .seconds(60), success: 0.9),
            options: SweepRunner.Options())
        #expect(generous[0].largestPayload == 65_536 && generous[0].limitBinds)
        let impossible = try Advisor(resolution: 4096).advise(
            Array(text.utf8), file: "a.json", profiles: [], target: Advisor.Target(latency: .milliseconds(1), success: 0.9),
            options: SweepRunner.Options())
        #expect(impossible[0].largestPayload == nil)
    }

    @Test("a size is decided only when its interval lies on one side: too few trials is undecided, with the trials that would decide it")
    func undecided() throws {
        // Every trial takes the same time, far under a 60 s bound; but with
        // 20 trials, then 40, no value is high enough to bound the p95 at
        // 95% (0.95^40 > α/2), so no size is decided either way.
        let text = SweepTests.lossFree().replacingOccurrences(of: #""trials": 20"#, with: #""trials": 20"#)
        let target = Advisor.Target(latency: .seconds(60), success: 0.5)
        let capped = try Advisor(resolution: 4096, maximumTrials: 40).advise(
            Array(text.utf8), file: "a.json", profiles: [], target: target, options: SweepRunner.Options())
        let answer = try #require(capped.first)
        #expect(answer.kind == .undecided && answer.largestPayload == nil && answer.firstFailing == nil)
        #expect(answer.tried.map(\.bytes) == [64, 65_536])
        #expect(answer.tried.allSatisfy { $0.decision == .undecided && $0.trials == 40 && !$0.latencyDecided && $0.successDecided })
        // Two looks (20, 40): each at α = 2.5%, so α/2 = 1.25%, and
        // ⌈ln 0.0125 / ln 0.95⌉ = 86 values bring the largest high enough.
        #expect(answer.confidence == 1 - 0.05 / 2)
        #expect(answer.tried.allSatisfy { $0.trialsToDecide == 86 })
        let words = AdviceReport.text(capped, target: target)
        #expect(words.contains("undecided: no size is decided to keep"), "\(words)")
        #expect(words.contains("about 86 trials a size would decide it"), "\(words)")
        // Allowed more, the same file is decided: every size.
        let decided = try Advisor(resolution: 4096).advise(
            Array(text.utf8), file: "a.json", profiles: [], target: target, options: SweepRunner.Options())
        #expect(decided[0].kind == .everySize && decided[0].largestPayload == 65_536)
        #expect(decided[0].tried.allSatisfy { $0.decision == .meets && $0.trials > 40 })
    }

    @Test("the answer, its sizes, trials and decisions are the same for 1 and 2 threads; a size between decided ones is where it turns")
    func threadsAndTurningRange() throws {
        let text = SweepTests.lossFree(rate: "1Mbit/s").replacingOccurrences(of: #""trials": 20"#, with: #""trials": 10"#)
        let target = Advisor.Target(latency: .milliseconds(400), success: 0.9)
        let one = try Advisor(jobs: 1, resolution: 512).advise(
            Array(text.utf8), file: "a.json", profiles: [], target: target, options: SweepRunner.Options())
        let two = try Advisor(jobs: 2, resolution: 512).advise(
            Array(text.utf8), file: "a.json", profiles: [], target: target, options: SweepRunner.Options())
        #expect(one == two)
        let answer = try #require(one.first)
        #expect(answer.kind == .size)
        let largest = try #require(answer.largestPayload), failing = try #require(answer.firstFailing)
        #expect(failing > largest && failing - largest <= 512)
        #expect(answer.tried.first { $0.bytes == largest }?.decision == .meets)
        #expect(answer.tried.first { $0.bytes == failing }?.decision == .fails)
        // Sizes tried are in order, and decided sizes are monotone.
        #expect(answer.tried.map(\.bytes) == answer.tried.map(\.bytes).sorted())
        #expect(answer.tried.allSatisfy { ($0.decision == .meets) == ($0.bytes <= largest) })
    }

    @Test("the work is cut so that every trial of every point runs once, in order, with the run's last pieces finer")
    func chunking() {
        for (points, trials, workers) in [(24, 0..<10_000, 2), (3, 5..<1_005, 4), (1, 0..<7, 2), (5, 0..<100, 1), (2, 0..<64, 3)] {
            let chunks = ParallelTrials.pieces(points: points, trials: trials, workers: workers)
            // Point by point, the pieces tile the trials exactly, in order.
            for point in 0..<points {
                let pieces = chunks.filter { $0.point == point }.map(\.trials)
                #expect(pieces.first?.lowerBound == trials.lowerBound)
                #expect(pieces.last?.upperBound == trials.upperBound)
                #expect(zip(pieces, pieces.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
                #expect(pieces.allSatisfy { !$0.isEmpty })
            }
            // Points are handed out in order.
            #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.point <= $1.point })
            if workers == 1 { #expect(chunks.count == points) }
        }
        // 24 points × 8 pieces of 1,250 trials; the last 4 pieces are cut
        // in four, so the run ends on pieces of 312 or 313 trials.
        let chunks = ParallelTrials.pieces(points: 24, trials: 0..<10_000, workers: 2)
        #expect(chunks.count == 24 * 8 - 4 + 16)
        #expect(chunks.first?.trials.count == 1_250)
        #expect(chunks.suffix(16).allSatisfy { (312...313).contains($0.trials.count) })
    }
}

/// `advise --sensitivity`: each default the file does not set, moved to
/// both ends of its plausible range on common random numbers.
@Suite("Payload advice: sensitivity")
struct AdvisorSensitivityTests {
    /// The shipped same-network guidance, on few trials.
    static func advice(jobs: Int, text: String? = nil) throws -> [Advisor.Advice] {
        let file = packageRoot() + "/sweeps/guidance/same-lan.json"
        let bytes = try text.map { Array($0.utf8) } ?? Array(#require(FileManager.default.contents(atPath: file)))
        let target = Advisor.Target(latency: .seconds(1), success: 0.9)
        // The table, not the decisions, is under test: no trials are added.
        return try Advisor(jobs: jobs, resolution: 32_768, sensitivity: true, maximumTrials: 12).advise(
            bytes, file: file, profiles: ["WiFi", "3G"], target: target, options: SweepRunner.Options(trials: 12))
    }

    @Test("sensitivity is identical for 1 and 2 threads, ranked by movement, each parameter with its evidence")
    func deterministicAndRanked() throws {
        let one = try Self.advice(jobs: 1)
        let two = try Self.advice(jobs: 2)
        #expect(one == two)
        // Off the cloud relay the profiles cannot matter: one answer, for the path.
        #expect(one.count == 1)
        let advice = try #require(one.first)
        #expect(advice.path.hasPrefix("the same Wi-Fi network"))
        #expect(!advice.profileApplies)
        let spans = advice.sensitivity.map(\.span)
        #expect(!spans.isEmpty)
        #expect(zip(spans, spans.dropFirst()).allSatisfy { $0 >= $1 })
        // The app's cold launch is on the critical path of a LAN handoff:
        // it moves the answer, an assumption with its range.
        let launch = try #require(advice.sensitivity.first { $0.parameter.hasPrefix("app launch") })
        #expect(launch.evidence == .assumed)
        #expect(try #require(launch.high) > #require(launch.low))
        // The relay's delay is not on this path: common random numbers give
        // exactly the same trials at both ends, so it is not listed.
        #expect(!advice.sensitivity.contains { $0.parameter.hasPrefix("cloud relay") })
        // The five that move it most have the answer at both ends.
        #expect(advice.sensitivity.prefix(Advisor.answeredParameters).allSatisfy { $0.lowAnswer != nil && $0.highAnswer != nil })
    }

    @Test("a value the file sets is still an assumption: varied and marked set by the file, even the default's own; one it marks measured is not varied")
    func fileValuesAreVariedUnlessMeasured() throws {
        let file = packageRoot() + "/sweeps/guidance/same-lan.json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        // The default launch, spelled out as docs/calibration.md asks before a fit.
        let pinned = text.replacingOccurrences(
            of: #""activityTypes": ["#,
            with: #""coldLaunch": {"logNormal": {"median": "400ms", "sigma": 0.35}}, "activityTypes": ["#)
        #expect(pinned != text)
        let advice = try #require(try Self.advice(jobs: 2, text: pinned).first)
        let launch = try #require(advice.sensitivity.first { $0.parameter.hasPrefix("app launch") })
        #expect(launch.setBy?.hasPrefix("set by the scenario") == true && launch.evidenceLabel == "set by file")
        #expect(try #require(launch.high) > #require(launch.low))
        let words = AdviceReport.text([advice], target: Advisor.Target(latency: .seconds(1), success: 0.9))
        #expect(words.contains("set by file"), "\(words)")
        // Every value the answer rests on is listed, the launch as set by the file.
        #expect(advice.assumptions.count == HandoffDefaults.table.count)
        let listed = try #require(advice.assumptions.first { $0.setting == "app launch" })
        #expect(listed.standing == "set by file" && listed.evidence == "assumed")
        #expect(listed.written.first?.contains("apps[0].coldLaunch") == true, "\(listed.written)")
        let setByFile = advice.assumptions.filter { $0.standing == "set by file" }.count
        #expect(setByFile >= 1 && words.contains("\(setByFile) set by the file"), "\(words)")
        // Marked measured, with its source: the team's own number, not varied.
        let measured = pinned.replacingOccurrences(
            of: #""seed":"#,
            with: #""measured": [{"path": "apps[0].coldLaunch", "source": "MetricKit payloads, 1,234 launches"}], "seed":"#)
        #expect(measured != pinned)
        let kept = try #require(try Self.advice(jobs: 2, text: measured).first)
        #expect(!kept.sensitivity.contains { $0.parameter.hasPrefix("app launch") })
        let marked = try #require(kept.assumptions.first { $0.setting == "app launch" })
        #expect(marked.standing == "measured" && marked.written.first?.contains("MetricKit payloads, 1,234 launches") == true)
    }

    @Test("a measured mark names a value the file sets and a source: anything else is a clear error at its path", arguments: [
        (#"[{"path": "apps[0].warmLaunch", "source": "MetricKit"}]"#, "$.measured[0].path", "does not set"),
        (#"[{"path": "apps[0].coldLaunch"}]"#, "$.measured[0]", "\"source\""),
        (#"[{"path": "apps[0].coldLaunch", "source": ""}]"#, "$.measured[0].source", "measured in"),
        (#"[{"path": "apps[0..coldLaunch", "source": "x"}]"#, "$.measured[0].path", "JSON path"),
        (#"{"path": "apps[0].coldLaunch"}"#, "$.measured", "array"),
    ])
    func badMarks(marks: String, path: String, mentions: String) {
        let text = scenarioText(#""measured": \#(marks)"#, app: #", "coldLaunch": "300ms""#)
        let found = problems(text)
        #expect(found.count == 1 && found.first?.contains(path) == true && found.first?.contains(mentions) == true, "\(found)")
    }
}

/// `advise --overlay FIT` with a fit's bootstrap replicates: the answer
/// again under each replicate, on common random numbers, and its interval.
@Suite("Payload advice: intervals from the fit's replicates")
struct AdvisorIntervalTests {
    /// A loss-free link at 1 Mbit/s, where size costs time in closed form;
    /// the overlay moves its rate, and each replicate moves it again.
    static let text = SweepTests.lossFree(rate: "1Mbit/s").replacingOccurrences(of: #""trials": 20"#, with: #""trials": 3"#)

    static func overlay(_ rates: [String]) throws -> Overlay {
        let replicates = rates.map { #"{"set": [{"path": "network.wifiPeerToPeer.bandwidth", "value": "\#($0)"}]}"# }
        let json = #"{"overlay": "fitted by a test", "set": [{"path": "network.wifiPeerToPeer.bandwidth", "value": "1Mbit/s"}], "replicates": ["#
            + replicates.joined(separator: ", ") + "]}"
        return try Overlay(bytes: Array(json.utf8), file: "fit.json")
    }

    static func advise(_ overlay: Overlay, jobs: Int = 1) throws -> Advisor.Advice {
        let target = Advisor.Target(latency: .milliseconds(400), success: 0.9)
        let advice = try Advisor(jobs: jobs, resolution: 256).advise(
            Array(text.utf8), file: "advise.json", profiles: [], target: target, options: SweepRunner.Options(overlay: overlay))
        return try #require(advice.first)
    }

    @Test("the interval runs from the slowest replicate's answer to the fastest's, identical for 1 and 2 threads")
    func interval() throws {
        let overlay = try Self.overlay(["0.8Mbit/s", "1Mbit/s", "1.25Mbit/s"])
        let advice = try Self.advise(overlay)
        let interval = try #require(advice.interval)
        #expect(interval.replicates == 3)
        let answer = try #require(advice.largestPayload)
        let low = try #require(interval.low), high = try #require(interval.high)
        // A slower link fits less in the same time, a faster more; the
        // middle replicate is the overlay's own rate, so its answer is the
        // point answer.
        #expect(low < answer && answer < high)
        #expect(try Self.advise(overlay, jobs: 2) == advice)
        // Without replicates there is no interval.
        let plain = try Overlay(bytes: Array(#"{"set": [{"path": "network.wifiPeerToPeer.bandwidth", "value": "1Mbit/s"}]}"#.utf8), file: "o.json")
        #expect(try Self.advise(plain).interval == nil)
    }

    @Test("a replicate under which no size meets the target counts below every size")
    func noneBelow() {
        let interval = Advisor.AnswerInterval([nil, 4096, 8192, 2048])
        #expect(interval.low == nil)
        #expect(interval.high == 8192)
        let all = Advisor.AnswerInterval((1...40).map { Optional($0 * 100) })
        // Nearest rank: the 1st and the 39th of 40.
        #expect(all.low == 100 && all.high == 3_900)
    }
}
