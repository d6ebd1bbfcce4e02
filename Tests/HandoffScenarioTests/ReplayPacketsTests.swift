import Handoff
import HandoffReport
@testable import HandoffScenario
import HandoffWorld
import SimKernel
import Testing

/// `handoff-sim replay --packets`: the trial's packets beside its trace.
@Suite("Replay with packets")
struct ReplayPacketsTests {
    static func burstLoss() throws -> Scenario {
        let file = packageRoot() + "/scenarios/burst-loss.json"
        return try validScenario(try String(contentsOfFile: file, encoding: .utf8), file: file)
    }

    @Test("a replay keeps at most its packet limit, counts the rest, and every format says so; the trial is the same")
    func packetLimit() throws {
        let scenario = try Self.burstLoss()
        let whole = try ScenarioRunner.replay(scenario, seed: 1, trial: 3, packets: true)
        #expect(whole.packetsLeftOut == 0)
        #expect(whole.packets.count > 12)
        let capped = try ScenarioRunner.replay(
            scenario, seed: 1, trial: 3, packets: true, appDelegates: nil, packetLimit: 12)
        #expect(capped.packets == Array(whole.packets.prefix(12)), "the first packets, as sent")
        #expect(capped.packetsLeftOut == whole.packets.count - 12)
        #expect(capped.trace == whole.trace && capped.summaries == whole.summaries, "the trial itself does not change")
        #expect(Array(capped.packetLinks) == Array(whole.packetLinks.prefix(12)))
        let note = "… and \(whole.packets.count - 12) more packets, not shown: a replay keeps the first \(TrialReplay.packetLimit)"
        var text = ""
        TraceReport.write(capped, scenario: scenario, to: &text)
        #expect(text.contains(note))
        var json = ""
        json = TraceJSON.render(capped, scenario: scenario, packets: true)
        #expect(json.contains("\"packetsLeftOut\": \(whole.packets.count - 12)") || json.contains("\"packetsLeftOut\":\(whole.packets.count - 12)"))
        var svg = ""
        TraceDiagram.write(capped, scenario: scenario, to: &svg)
        #expect(svg.contains("class=\"packets-left-out\""))
        var uncapped = ""
        TraceReport.write(whole, scenario: scenario, to: &uncapped)
        #expect(!uncapped.contains("more packets, not shown"))
    }

    @Test("every packet of the trial, lost ones with their reason, and every lost data segment sent again")
    func packets() throws {
        let scenario = try Self.burstLoss()
        let plain = try ScenarioRunner.replay(scenario, seed: 1, trial: 12)
        #expect(plain.packets.isEmpty)
        let replay = try ScenarioRunner.replay(scenario, seed: 1, trial: 12, packets: true)
        #expect(replay.trace == plain.trace, "recording packets changes nothing in the trial")
        #expect(replay.packets.count == replay.packetLinks.count)
        #expect(replay.packetLinks.allSatisfy { $0.hasPrefix("wifi ") || $0.hasPrefix("uplink ") || $0.hasPrefix("downlink ") })
        let lostData = replay.packets.filter {
            if $0.kind == .data, case .lost = $0.fate { return true }
            return false
        }
        #expect(!lostData.isEmpty, "this trial loses data in a burst")
        // A lost segment is sent again on its link, unless it was the last
        // its connection sent (the connection then failed: Rapport gave up
        // and the request went over the cloud).
        for lost in lostData {
            let later = replay.packets.filter {
                $0.kind == .data && $0.connection == lost.connection && $0.link == lost.link && $0.time > lost.time
            }
            #expect(later.isEmpty || later.contains { $0.sequence == lost.sequence && $0.side == lost.side },
                    "data \(lost.sequence) is sent again")
        }
        #expect(replay.trace.contains { $0.event.name == .connectionFailed })
        let text = TraceReport.render(replay, scenario: scenario)
        let packetLines = text.split(separator: "\n").filter { $0.contains("  packet  ") }
        #expect(packetLines.count == replay.packets.count)
        #expect(packetLines.contains { $0.contains("(retransmission)") })
        #expect(packetLines.contains { $0.contains("LOST: loss model") })
        // Trace and packets merged in time order.
        let times = text.split(separator: "\n").compactMap { line -> Double? in
            guard let word = line.split(separator: " ").first, word.hasSuffix("s") else { return nil }
            return Double(word.dropLast())
        }
        #expect(times.count > packetLines.count)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
    }
}
