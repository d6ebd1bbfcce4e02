import Handoff
import ScenarioJSON
import SimKernel

/// Sweep results as JSON Lines: a header line, then one line per point with
/// its counts, latency sums and percentiles, and the encoded histograms.
/// When the sweep ran a fit's bootstrap replicates, the header says how
/// many (`replicates`) and each point holds its 95% intervals
/// (`intervals`) and every replicate's counts and histograms.
///
/// This is both an output format and the format of partial results:
/// ``read(_:file:)`` reads it back exactly, and ``merge(_:)`` adds shards
/// together. A merged result written again is byte-identical to the
/// unsharded run's.
public enum SweepJSONLines {
    /// The format version in the header.
    static let formatVersion: Int64 = 1

    /// The text of `result`, written by `toolVersion`.
    public static func render(_ result: SweepResult, toolVersion: String) -> String {
        var lines = [header(result, toolVersion: toolVersion).render(pretty: false)]
        for point in result.points {
            lines.append(pointLine(point, axes: result.axes).render(pretty: false))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func header(_ result: SweepResult, toolVersion: String) -> JSONOutput {
        .object([
            ("kind", .string("handoff-sim sweep")),
            ("format", .int(formatVersion)),
            ("toolVersion", .string(toolVersion)),
            ("file", .string(result.file)),
            ("name", .string(result.name)),
            ("digest", .string(result.digest)),
            ("seed", .int(Int64(result.seed))),
            ("trials", .int(Int64(result.trials))),
            ("activity", .string(result.activity)),
            ("device", .string(result.device)),
            ("axes", .array(result.axes.map { axis in
                .object([("name", .string(axis.name)), ("values", .array(axis.values.map(JSONOutput.string)))])
            })),
            ("shard", result.shard.map { .object([("index", .int(Int64($0.index))), ("count", .int(Int64($0.count)))]) } ?? .null),
            ("fixedPath", result.fixedPath.map(JSONOutput.string) ?? .null),
            ("replicates", .int(Int64(result.replicates))),
        ])
    }

    static func pointLine(_ point: SweepPoint, axes: [SweepAxis]) -> JSONOutput {
        let aggregate = point.aggregate
        return .object([
            ("point", .object(zip(axes, point.coordinates).map { ($0.name, .string($1)) })),
            ("payloadBytes", .int(Int64(point.payloadBytes))),
            ("profile", .string(point.profile)),
            ("trials", .int(Int64(aggregate.trials))),
            ("events", .int(Int64(aggregate.events))),
            ("continued", .int(Int64(aggregate.continued))),
            ("continuedInBrowser", .int(Int64(aggregate.continuedInBrowser))),
            ("failures", .object(zip(PointAggregate.failureCodes, aggregate.failures).map { (String($0), .int(Int64($1))) })),
            ("notOffered", .int(Int64(aggregate.notOffered))),
            ("other", .int(Int64(aggregate.otherOutcomes))),
            ("successRate", .double(aggregate.successRate)),
            ("latencies", .object(LatencyMetric.allCases.map { metric in
                let histogram = aggregate.histogram(metric)
                func percentile(_ p: Double) -> JSONOutput { histogram.value(atPercentile: p).map(JSONOutput.int) ?? .null }
                let sum = histogram.exactSum
                return (metric.rawValue, .object([
                    ("count", .int(Int64(histogram.count))),
                    ("sumNanoseconds", sum.high == 0 && sum.low <= UInt64(Int64.max) ? .int(Int64(sum.low)) : .double(histogram.sum)),
                    ("p50", percentile(50)), ("p90", percentile(90)), ("p95", percentile(95)),
                    ("p99", percentile(99)), ("p99_9", percentile(99.9)), ("max", histogram.max.map(JSONOutput.int) ?? .null),
                    ("histogram", .string(histogram.encoded)),
                ]))
            })),
            ("budget", budgetObject(aggregate.budget)),
        ] + replicateMembers(point))
    }

    /// With replicates: each metric's 95% interval per percentile
    /// (`intervals`), and each replicate's counts and histograms
    /// (`replicates`, for merging shards). Nothing without.
    static func replicateMembers(_ point: SweepPoint) -> [(key: String, value: JSONOutput)] {
        guard !point.replicates.isEmpty else { return [] }
        let intervals = JSONOutput.object(LatencyMetric.allCases.map { metric in
            (metric.rawValue, .object(PercentileInterval.percentiles.map { percentile in
                let interval = point.interval(metric, atPercentile: percentile)
                return ("p\(Int(percentile))", .object([
                    ("low", interval?.low.map(JSONOutput.int) ?? .null),
                    ("high", interval?.high.map(JSONOutput.int) ?? .null),
                ]))
            }))
        })
        let replicates = JSONOutput.array(point.replicates.map { aggregate in
            .object(countMembers(aggregate) + [
                ("latencies", .object(LatencyMetric.allCases.map { metric in
                    (metric.rawValue, .object([("histogram", .string(aggregate[metric].encoded))]))
                })),
            ])
        })
        return [("intervals", intervals), ("replicates", replicates)]
    }

    /// An aggregate's outcome counts.
    static func countMembers(_ aggregate: PointAggregate) -> [(key: String, value: JSONOutput)] {
        [
            ("trials", .int(Int64(aggregate.trials))),
            ("continued", .int(Int64(aggregate.continued))),
            ("continuedInBrowser", .int(Int64(aggregate.continuedInBrowser))),
            ("failures", .object(zip(PointAggregate.failureCodes, aggregate.failures).map { (String($0), .int(Int64($1))) })),
            ("notOffered", .int(Int64(aggregate.notOffered))),
            ("other", .int(Int64(aggregate.otherOutcomes))),
        ]
    }

    /// A point's latency budget: per phase its mean and its share of the
    /// p95 trials' time, and the tally itself (for merging shards).
    static func budgetObject(_ tally: BudgetTally) -> JSONOutput {
        guard let summary = tally.summary() else { return .object([("trials", .int(0)), ("tally", .string(tally.encoded))]) }
        return .object([
            ("trials", .int(Int64(summary.trials))),
            ("tailTrials", .int(Int64(summary.tailTrials))),
            ("phases", .object(summary.phases.map { figure in
                (figure.phase.description, .object([
                    ("meanNanoseconds", .int(figure.mean.nanoseconds)), ("p95Share", .double(figure.tailShare)),
                ]))
            })),
            ("tally", .string(tally.encoded)),
        ])
    }

    /// A JSON Lines result read back, with the tool version that wrote it.
    public struct Part: Sendable {
        /// The version of the tool that wrote it.
        public let toolVersion: String
        /// The result.
        public let result: SweepResult
    }

    /// Reads a result written by ``render(_:toolVersion:)``.
    ///
    /// - Throws: ``ScenarioError`` (``ScenarioError/Category/invalidInput``)
    ///   when the text is not a sweep result this tool can read.
    public static func read(_ text: String, file: String) throws(ScenarioError) -> Part {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard let first = lines.first else { throw .unreadablePart(file: file, line: 1, reason: "the file is empty") }
        let header: JSONNode
        do {
            header = try JSONParser.parse(String(first))
        } catch {
            throw .unreadablePart(file: file, line: 1, reason: "\(error)")
        }
        func fail(_ line: Int, _ reason: String) -> ScenarioError { .unreadablePart(file: file, line: line, reason: reason) }
        guard header.string("kind") == "handoff-sim sweep" else { throw fail(1, "not a handoff-sim sweep result") }
        guard header.integer("format") == formatVersion else {
            throw fail(1, "format \(header.integer("format").map(String.init) ?? "?"); this tool reads format \(formatVersion)")
        }
        guard let toolVersion = header.string("toolVersion"), let name = header.string("name"),
            let scenarioFile = header.string("file"), let digest = header.string("digest"),
            let seed = header.integer("seed"), seed >= 0, let trials = header.integer("trials"),
            (1...Int64(ScenarioDecoder.maximumTrials)).contains(trials),
            let activity = header.string("activity"), let device = header.string("device"),
            case let .array(axisNodes)? = header.member("axes")?.value.value
        else { throw fail(1, "the header lacks a field") }
        var axes: [SweepAxis] = []
        for node in axisNodes {
            guard let axisName = node.string("name"), case let .array(values)? = node.member("values")?.value.value else {
                throw fail(1, "an axis lacks its name or values")
            }
            axes.append(SweepAxis(name: axisName, values: values.compactMap {
                if case let .string(text) = $0.value { return text } else { return nil }
            }))
        }
        var shard: Shard?
        if let shardNode = header.member("shard")?.value, shardNode.value != .null {
            guard let index = shardNode.integer("index"), let count = shardNode.integer("count"),
                let parsed = Shard(index: Int(index), count: Int(count))
            else { throw fail(1, "the shard is not i/n with 0 ≤ i < n ≤ \(Shard.maximumCount)") }
            shard = parsed
        }
        // Files written before replicates were run lack the count: none.
        let replicateCount = header.member("replicates") == nil ? 0 : header.integer("replicates") ?? -1
        guard (0...Int64(Overlay.maximumReplicates)).contains(replicateCount) else {
            throw fail(1, "the replicate count is not a whole number in 0...\(Overlay.maximumReplicates)")
        }
        var points: [SweepPoint] = []
        for (offset, line) in lines.dropFirst().enumerated() {
            let number = offset + 2
            let node: JSONNode
            do {
                node = try JSONParser.parse(String(line))
            } catch {
                throw fail(number, "\(error)")
            }
            guard case let .object(coordinates)? = node.member("point")?.value.value,
                let payload = node.integer("payloadBytes"), let profile = node.string("profile"),
                let trialCount = node.integer("trials"), let events = node.integer("events")
            else { throw fail(number, "a point lacks a field") }
            // No sweep sends more than the largest payload a scenario may set.
            guard (0...Int64(InputBounds.maximumBytes)).contains(payload) else {
                throw fail(number, "the point's payload of \(payload) bytes is outside 0...\(InputBounds.maximumBytes)")
            }
            // Counts are checked against the trials this part holds, so that
            // no edited file can make a merge overflow.
            let expectedTrials = Int64((shard?.trials(of: Int(trials)) ?? 0..<Int(trials)).count)
            guard trialCount == expectedTrials else {
                throw fail(number, "the point has \(trialCount) trials; this part holds \(expectedTrials)")
            }
            let maximumEvents = trialCount * InputBounds.maximumEventsPerTrial
            guard (0...maximumEvents).contains(events) else {
                throw fail(number, "the point's event count \(events) is outside 0...\(maximumEvents)")
            }
            var aggregate = try counts(node, trials: trialCount) { fail(number, $0) }
            aggregate.events = UInt64(events)
            // Files written before the budget was added lack it: it is empty there.
            if let budget = node.member("budget")?.value {
                guard let encoded = budget.string("tally"), let tally = BudgetTally(encoded: encoded) else {
                    throw fail(number, "the budget has no valid tally")
                }
                if let inconsistency = tally.inconsistency(longest: InputBounds.maximumDuration) {
                    throw fail(number, "the budget's \(inconsistency)")
                }
                // A budget is made by every continued trial, and by no other.
                let continuedTrials = aggregate.continued + aggregate.continuedInBrowser
                guard UInt64(tally.trials) == continuedTrials else {
                    throw fail(number, "the budget has \(tally.trials) trials for the point's \(continuedTrials) continued")
                }
                aggregate.budget = tally
            }
            let values = coordinates.compactMap { member -> String? in
                if case let .string(text) = member.value.value { return text } else { return nil }
            }
            guard values.count == axes.count else { throw fail(number, "the point has \(values.count) coordinates for \(axes.count) axes") }
            var point = SweepPoint(coordinates: values, payloadBytes: Int(payload), profile: profile, aggregate: aggregate)
            if replicateCount > 0 {
                guard case let .array(replicateNodes)? = node.member("replicates")?.value.value,
                    replicateNodes.count == replicateCount
                else { throw fail(number, "the point does not hold the header's \(replicateCount) replicates") }
                for (index, replicateNode) in replicateNodes.enumerated() {
                    guard replicateNode.integer("trials") == trialCount else {
                        throw fail(number, "replicate \(index + 1) does not hold the point's \(trialCount) trials")
                    }
                    point.replicates.append(try counts(replicateNode, trials: trialCount) {
                        fail(number, "replicate \(index + 1): \($0)")
                    })
                }
            } else if node.member("replicates") != nil {
                throw fail(number, "the point holds replicates the header does not announce")
            }
            points.append(point)
        }
        var result = SweepResult(
            file: scenarioFile, name: name, digest: digest, seed: UInt64(seed), trials: Int(trials), activity: activity,
            device: device, axes: axes, points: points, shard: shard)
        // Files written before it was recorded lack it: the chart then names profiles.
        result.fixedPath = header.string("fixedPath")
        return Part(toolVersion: toolVersion, result: result)
    }

    /// The outcome counts and histograms of `node` (a point, or one of its
    /// replicates), checked against the `trials` it must hold.
    static func counts(
        _ node: JSONNode, trials trialCount: Int64, fail: (String) -> ScenarioError
    ) throws(ScenarioError) -> PointAggregate {
        guard let continued = node.integer("continued"),
            let browser = node.integer("continuedInBrowser"), let notOffered = node.integer("notOffered"),
            let other = node.integer("other"), let failureNode = node.member("failures")?.value,
            let latencyNode = node.member("latencies")?.value
        else { throw fail("a point lacks a field") }
        var aggregate = PointAggregate()
        aggregate.trials = UInt64(trialCount)
        var outcomes: [Int64] = [continued, browser, notOffered, other]
        for (index, code) in PointAggregate.failureCodes.enumerated() {
            guard let count = failureNode.integer(String(code)) else { throw fail("failures lack \(code)") }
            outcomes.append(count)
            aggregate.failures[index] = UInt64(clamping: count)
        }
        guard outcomes.allSatisfy({ (0...trialCount).contains($0) }), outcomes.reduce(0, +) == trialCount else {
            throw fail("the point's outcome counts do not add up to its \(trialCount) trials")
        }
        aggregate.continued = UInt64(continued)
        aggregate.continuedInBrowser = UInt64(browser)
        aggregate.notOffered = UInt64(notOffered)
        aggregate.otherOutcomes = UInt64(other)
        for metric in LatencyMetric.allCases {
            // Files written before a metric was added lack it: it is
            // empty there. The first four are in every file.
            if !Self.inEveryFile.contains(metric), latencyNode.member(metric.rawValue) == nil { continue }
            guard let encoded = latencyNode.member(metric.rawValue)?.value.string("histogram") else {
                throw fail("no \(metric.rawValue) histogram")
            }
            let histogram: LatencyHistogram
            do {
                histogram = try LatencyHistogram(encoded: encoded)
            } catch {
                throw fail("\(error)")
            }
            guard histogram.count <= UInt64(trialCount) else {
                throw fail("the \(metric.rawValue) histogram has \(histogram.count) values for \(trialCount) trials")
            }
            // No trial runs past the longest simulated-time limit.
            let longest = InputBounds.maximumDuration.nanoseconds
            if let max = histogram.max, max > longest {
                throw fail("the \(metric.rawValue) histogram holds a latency of \(max) ns, outside 0...\(longest)")
            }
            // Its sum lies between count × min and count × max (in 128 bits).
            if let min = histogram.min, let max = histogram.max {
                let least = histogram.count.multipliedFullWidth(by: UInt64(min))
                let most = histogram.count.multipliedFullWidth(by: UInt64(max))
                let sum = histogram.exactSum
                guard (least.high, least.low) <= (sum.high, sum.low), (sum.high, sum.low) <= (most.high, most.low) else {
                    throw fail("the \(metric.rawValue) histogram's sum cannot come from \(histogram.count) values from \(min) to \(max) ns")
                }
            }
            aggregate[metric] = histogram
        }
        return aggregate
    }

    /// The metrics every file has had since the format's first version
    /// (later metrics may be missing from older files).
    static let inEveryFile: [LatencyMetric] = [.advertToOffered, .acceptToContinue, .acceptToRestored, .fetch]

    /// The whole result from its shards: every shard `i/n` for one `n`,
    /// each once, all from the same scenario, seed, trials, axes and tool
    /// version.
    ///
    /// - Throws: ``ScenarioError`` naming the first mismatch
    ///   (``ScenarioError/Category/invalidInput``).
    public static func merge(_ parts: [(file: String, part: Part)]) throws(ScenarioError) -> (toolVersion: String, result: SweepResult) {
        guard let (firstFile, first) = parts.first else { throw .noParts }
        let reference = first.result
        for (file, part) in parts.dropFirst() {
            let result = part.result
            func mismatch(_ what: String, _ a: String, _ b: String) -> ScenarioError {
                .mismatch(first: firstFile, other: file, what: what, values: (a, b))
            }
            if part.toolVersion != first.toolVersion { throw mismatch("tool version", first.toolVersion, part.toolVersion) }
            if result.digest != reference.digest { throw mismatch("scenario (file digest)", reference.digest, result.digest) }
            if result.seed != reference.seed { throw mismatch("seed", "\(reference.seed)", "\(result.seed)") }
            if result.trials != reference.trials { throw mismatch("trials per point", "\(reference.trials)", "\(result.trials)") }
            if result.activity != reference.activity || result.device != reference.device {
                throw mismatch("measured activity and device", "\(reference.activity) on \(reference.device)",
                               "\(result.activity) on \(result.device)")
            }
            if result.axes != reference.axes {
                throw mismatch("axes", reference.axes.map(\.name).joined(separator: ", "), result.axes.map(\.name).joined(separator: ", "))
            }
            if result.points.map(\.coordinates) != reference.points.map(\.coordinates) {
                throw mismatch("points", "\(reference.points.count) points", "\(result.points.count) points")
            }
            if result.replicates != reference.replicates {
                throw mismatch("bootstrap replicates run", "\(reference.replicates)", "\(result.replicates)")
            }
        }
        // Shards: one n, each index once, all present.
        let shards = parts.map { ($0.file, $0.part.result.shard) }
        guard let count = shards[0].1?.count else {
            if parts.count == 1 { return (first.toolVersion, reference) }
            throw .notShards(file: shards[0].0)
        }
        var seen = [String?](repeating: nil, count: count)
        for (file, shard) in shards {
            guard let shard else { throw .notShards(file: file) }
            guard shard.count == count else { throw .shardCounts(first: shards[0].0, other: file, count, shard.count) }
            if let earlier = seen[shard.index] { throw .duplicateShard(index: shard.index, count: count, files: (earlier, file)) }
            seen[shard.index] = file
        }
        let missing = seen.indices.filter { seen[$0] == nil }
        guard missing.isEmpty else { throw .missingShards(missing.map { "\($0)/\(count)" }) }
        var points = reference.points
        for (_, part) in parts.dropFirst() {
            for index in points.indices {
                points[index].aggregate.merge(part.result.points[index].aggregate)
                for replicate in points[index].replicates.indices {
                    points[index].replicates[replicate].merge(part.result.points[index].replicates[replicate])
                }
            }
        }
        var merged = SweepResult(
            file: reference.file, name: reference.name, digest: reference.digest, seed: reference.seed,
            trials: reference.trials, activity: reference.activity, device: reference.device, axes: reference.axes,
            points: points, shard: nil)
        merged.fixedPath = reference.fixedPath
        return (first.toolVersion, merged)
    }
}

extension ScenarioError {
    /// Merging was asked of no parts.
    static let noParts = ScenarioError(.badValue, "no parts to merge")

    /// A part that is not a readable sweep result.
    static func unreadablePart(file: String, line: Int, reason: String) -> ScenarioError {
        ScenarioError(.invalidInput, "\(file):\(line): not a readable sweep result: \(reason)", file: file)
    }

    /// Two parts from different runs.
    static func mismatch(first: String, other: String, what: String, values: (String, String)) -> ScenarioError {
        ScenarioError(
            .invalidInput,
            "\(first) and \(other) come from different runs: the \(what) differs (\(values.0) and \(values.1))",
            file: other)
    }

    /// A whole result among parts.
    static func notShards(file: String) -> ScenarioError {
        ScenarioError(
            .invalidInput, "\(file) is a whole result, not a shard (run with \(argument: .shard) to make parts)",
            file: file, argument: .shard)
    }

    /// Parts of different shard counts.
    static func shardCounts(first: String, other: String, _ a: Int, _ b: Int) -> ScenarioError {
        ScenarioError(.invalidInput, "\(first) is one of \(a) shards but \(other) is one of \(b)", file: other)
    }

    /// One shard given twice.
    static func duplicateShard(index: Int, count: Int, files: (String, String)) -> ScenarioError {
        ScenarioError(
            .invalidInput, "shard \(index)/\(count) given twice (\(files.0) and \(files.1))", file: files.1)
    }

    /// Shards missing from the parts.
    static func missingShards(_ missing: [String]) -> ScenarioError {
        ScenarioError(.invalidInput, "missing shard\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", "))")
    }
}
