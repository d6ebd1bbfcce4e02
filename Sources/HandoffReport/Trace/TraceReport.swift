import Handoff
import HandoffScenario
import HandoffWorld
import SimKernel

/// What `handoff-sim replay` prints: the trial's trace, one timestamped
/// record per line (with `--packets`, every packet merged in by time, after
/// the trace's records of the same instant), then each activity's outcome
/// on each device.
public enum TraceReport {
    /// The replay as text.
    public static func render(_ replay: TrialReplay, scenario: Scenario) -> String {
        var text = ""
        write(replay, scenario: scenario, to: &text)
        return text
    }

    /// Writes the replay as text to `output`, line by line (the same bytes
    /// as ``render(_:scenario:)``).
    ///
    /// - Complexity: O(*n*) time in the records and packets; beyond the
    ///   replay, memory is the set of data segments sent (to mark
    ///   retransmissions) and one line at a time.
    public static func write<Output: TextOutputStream>(_ replay: TrialReplay, scenario: Scenario, to output: inout Output) {
        func line(_ text: String) {
            output.write(text.escapingControlCharacters)
            output.write("\n")
        }
        line("scenario \(scenario.name) (\(scenario.file)), seed \(replay.seed), trial \(replay.trial)")
        line("")
        var packet = 0
        var sentData = Set<DataSegment>()  // membership only; never iterated
        func writePackets(through time: SimInstant?) {
            while packet < replay.packets.count, time.map({ replay.packets[packet].time < $0 }) ?? true {
                line(packetLine(replay.packets[packet], link: replay.packetLinks[packet], sentData: &sentData))
                packet += 1
            }
        }
        for record in replay.trace {
            writePackets(through: record.time)
            line(TraceText.line(record))
        }
        writePackets(through: nil)
        if let note = packetsLeftOutNote(replay) { line(note) }
        if !replay.summaries.isEmpty { line("") }
        for summary in replay.summaries {
            line(outcomeLine(summary, scenario: scenario))
        }
        for violation in replay.violations { line("violation: \(violation)") }
    }

    /// A data segment's identity on one link, to tell a retransmission
    /// (the same segment on a relay's second hop is not one).
    struct DataSegment: Hashable {
        let link: Int
        let connection: Int
        let side: ConnectionSide
        let sequence: UInt32
    }

    /// One packet: `1.707943858s  packet  wifi iphone → mac  #0 initiator  data 7 (retransmission)  1460 B  → 1.71s`.
    static func packetLine(_ record: PacketRecord, link: String, sentData: inout Set<DataSegment>) -> String {
        var what: String
        switch record.kind {
        case .syn: what = "SYN"
        case .synAcknowledgement: what = "SYN-ACK"
        case .handshakeAcknowledgement: what = "ACK (handshake)"
        case .data:
            what = "data \(record.sequence)"
            if let connection = record.connection {
                let segment = DataSegment(
                    link: record.link.index, connection: connection.index, side: record.side, sequence: record.sequence)
                if !sentData.insert(segment).inserted { what += " (retransmission)" }
            }
        case .acknowledgement: what = "ACK \(record.sequence)"
        case .duplicateAcknowledgement: what = "D-SACK, ACK \(record.sequence)"
        case .datagram: what = "datagram"
        }
        var line = "\(record.time)  packet  \(link)"
        if let connection = record.connection { line += "  #\(connection.index) \(record.side)" }
        line += "  \(what)  \(record.payloadBytes) B  "
        switch record.fate {
        case let .arrives(instant): line += "→ \(instant)"
        case let .lost(reason): line += "LOST: " + lossText(reason)
        }
        return line
    }

    static func lossText(_ loss: PacketRecord.Loss) -> String {
        switch loss {
        case .queue: return "queue full"
        case .lossModel: return "loss model"
        case .linkDown: return "link down (outage, partition or radio off)"
        case .peerAway: return "AWDL peer away from the channel"
        case .unknownPeer: return "AWDL peer not yet known, dropped"
        }
    }

    /// What a replay says when it kept only the first packets, or nil.
    static func packetsLeftOutNote(_ replay: TrialReplay) -> String? {
        guard replay.packetsLeftOut > 0 else { return nil }
        return "… and \(replay.packetsLeftOut) more packets, not shown: a replay keeps the first \(TrialReplay.packetLimit)"
    }

    /// `activity on device: outcome (latencies)`, as the trace ends.
    static func outcomeLine(_ summary: ContinuationSummary, scenario: Scenario) -> String {
        outcomeLines(summary, scenario: scenario, width: .max).joined()
    }

    /// The outcome line cut into lines of at most about `width`
    /// characters, between latencies (each line but the last ends in a
    /// comma and a space, so joined they give ``outcomeLine(_:scenario:)``).
    static func outcomeLines(_ summary: ContinuationSummary, scenario: Scenario, width: Int) -> [String] {
        var lines = ["\(scenario.activities[summary.activity.index].name) on \(summary.device): \(summary.outcome)"]
        let latencies = LatencyMetric.allCases.compactMap { metric in summary[metric].map { "\(metric.label) \($0)" } }
        for (index, latency) in latencies.enumerated() {
            let piece = (index == 0 ? " (" : "") + latency + (index == latencies.count - 1 ? ")" : ", ")
            if let last = lines.last, last.count + piece.count > width, index > 0 {
                lines.append(piece)
            } else {
                lines[lines.count - 1] += piece
            }
        }
        return lines
    }
}
