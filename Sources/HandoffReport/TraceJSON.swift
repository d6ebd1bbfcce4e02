import Handoff
import HandoffScenario
import HandoffWorld
import SimKernel

/// `handoff-sim replay --format json`: the trial's trace as JSON, with the
/// packets (with `--packets`), the outcome on each receiver and its
/// latencies.
///
/// Keys come in a fixed order (see docs/traces.md for every field); times
/// are integer nanoseconds from the trial's start, with the same instant as
/// text beside them (`"time": "2.728755271s"`). The same replay gives
/// byte-identical output.
///
/// ```swift
/// let replay = try ScenarioRunner.replay(scenario, seed: 1, trial: 0, packets: true)
/// print(TraceJSON.render(replay, scenario: scenario, packets: true))
/// ```
public enum TraceJSON {
    /// The format's version; bumped when a field changes meaning.
    public static let formatVersion: Int64 = 1

    /// The replay as pretty-printed JSON.
    ///
    /// - Parameters:
    ///   - packets: whether the replay recorded packets (`"packets"` is
    ///     `null` when it did not).
    public static func render(_ replay: TrialReplay, scenario: Scenario, packets: Bool) -> String {
        let retransmissions = TracePackets.retransmissions(replay.packets)
        let document: JSONOutput = .object([
            ("format", .int(formatVersion)),
            ("scenario", .string(scenario.name)),
            ("file", .string(scenario.file)),
            ("seed", .int(Int64(replay.seed))),
            ("trial", .int(Int64(replay.trial))),
            ("overlay", scenario.overlayFile.map(JSONOutput.string) ?? .null),
            ("records", .array(replay.trace.map(record))),
            ("packets", packets ? .array(replay.packets.indices.map { index in
                packet(replay.packets[index], link: replay.packetLinks[index], ends: replay.packetEnds[index],
                       retransmission: retransmissions[index])
            }) : .null),
            ("outcomes", .array(replay.summaries.map { outcome($0, scenario: scenario) })),
            ("violations", .array(replay.violations.map { .string("\($0)") })),
            ("failure", replay.failure.map { .string("\($0)") } ?? .null),
        ])
        return document.render(pretty: true)
    }

    static func record(_ record: TraceRecord) -> JSONOutput {
        let columns = TraceText.columns(record.event)
        return .object([
            ("timeNanoseconds", .int(record.time.sinceStart.nanoseconds)),
            ("time", .string(TraceTime.seconds(record.time))),
            ("device", .string(record.device.name)),
            ("app", .string(TraceText.app(record.app))),
            ("activity", .string(TraceText.activity(record.activity))),
            ("from", .string(columns.from)),
            ("event", .string(columns.event)),
            ("to", .string(columns.to)),
            ("detail", .string(columns.detail)),
        ])
    }

    static func packet(
        _ record: PacketRecord, link: String, ends: TrialReplay.LinkEnds, retransmission: Bool
    ) -> JSONOutput {
        var arrival: JSONOutput = .null
        var loss: JSONOutput = .null
        switch record.fate {
        case let .arrives(instant): arrival = .int(instant.sinceStart.nanoseconds)
        case let .lost(reason): loss = .string(reason.rawValue)
        }
        return .object([
            ("timeNanoseconds", .int(record.time.sinceStart.nanoseconds)),
            ("time", .string(TraceTime.seconds(record.time))),
            ("link", .string(link)),
            ("from", .string(ends.from)),
            ("to", .string(ends.to)),
            ("connection", record.connection.map { .int(Int64($0.index)) } ?? .null),
            ("side", .string("\(record.side)")),
            ("kind", .string(record.kind.rawValue)),
            ("name", .string(TracePackets.name(record))),
            ("sequence", .int(Int64(record.sequence))),
            ("payloadBytes", .int(Int64(record.payloadBytes))),
            ("retransmission", .bool(retransmission)),
            ("fate", .string(loss == .null ? "arrives" : "lost")),
            ("arrivalNanoseconds", arrival),
            ("loss", loss),
        ])
    }

    static func outcome(_ summary: ContinuationSummary, scenario: Scenario) -> JSONOutput {
        func nanoseconds(_ value: SimDuration?) -> JSONOutput { value.map { .int($0.nanoseconds) } ?? .null }
        let kind = OutcomeKind.allCases.first { $0.matches(summary.outcome) }
        return .object([
            ("activity", .string(scenario.activities[summary.activity.index].name)),
            ("device", .string(summary.device)),
            ("outcome", .string(kind?.rawValue ?? "\(summary.outcome)")),
            ("description", .string("\(summary.outcome)")),
        ] + LatencyMetric.allCases.map { metric in ("\(metric.rawValue)Nanoseconds", nanoseconds(summary[metric])) })
    }
}
