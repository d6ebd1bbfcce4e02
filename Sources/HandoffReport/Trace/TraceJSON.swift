import Handoff
import HandoffScenario
import HandoffWorld
import ScenarioJSON
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
    ///   - replay: The trial replayed.
    ///   - scenario: Its scenario (for the names of its activities).
    ///   - packets: whether the replay recorded packets (`"packets"` is
    ///     `null` when it did not).
    public static func render(_ replay: TrialReplay, scenario: Scenario, packets: Bool) -> String {
        var text = ""
        write(replay, scenario: scenario, packets: packets, to: &text)
        return text
    }

    /// Writes the replay as pretty-printed JSON to `output`, record by
    /// record and packet by packet (the same bytes as
    /// ``render(_:scenario:packets:)``).
    ///
    /// - Complexity: O(*n*) time in the records and packets; beyond the
    ///   replay, memory is one byte per packet (whether it is a retransmission)
    ///   and one record's text at a time.
    public static func write<Output: TextOutputStream>(
        _ replay: TrialReplay, scenario: Scenario, packets: Bool, to output: inout Output
    ) {
        var document = JSONObjectStream()
        document.member("format", .int(formatVersion), to: &output)
        document.member("scenario", .string(scenario.name), to: &output)
        document.member("file", .string(scenario.file), to: &output)
        document.member("seed", .int(Int64(replay.seed)), to: &output)
        document.member("trial", .int(Int64(replay.trial)), to: &output)
        document.member("overlay", scenario.overlayFile.map(JSONOutput.string) ?? .null, to: &output)
        document.beginArray("records", to: &output)
        for record in replay.trace { document.element(self.record(record), to: &output) }
        document.endArray(to: &output)
        if packets {
            let retransmissions = TracePackets.retransmissions(replay.packets)
            document.beginArray("packets", to: &output)
            for index in replay.packets.indices {
                document.element(
                    packet(replay.packets[index], link: replay.packetLinks[index], ends: replay.packetEnds[index],
                           retransmission: retransmissions[index]),
                    to: &output)
            }
            document.endArray(to: &output)
        } else {
            document.member("packets", .null, to: &output)
        }
        document.member("outcomes", .array(replay.summaries.map { outcome($0, scenario: scenario) }), to: &output)
        if replay.packetsLeftOut > 0 {
            document.member("packetsLeftOut", .int(Int64(replay.packetsLeftOut)), to: &output)
        }
        document.member("violations", .array(replay.violations.map { .string("\($0)") }), to: &output)
        document.member("failure", replay.failure.map { .string("\($0)") } ?? .null, to: &output)
        document.end(to: &output)
    }

    static func record(_ record: TraceRecord) -> JSONOutput {
        let columns = TraceText.columns(record.event)
        return .object([
            ("timeNanoseconds", .int(record.time.sinceStart.nanoseconds)),
            ("time", .string(Format.seconds(record.time))),
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
            ("time", .string(Format.seconds(record.time))),
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
