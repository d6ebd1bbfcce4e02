import Handoff
import HandoffScenario
import HandoffWorld
import ScenarioJSON
import SimKernel

/// `handoff-sim replay --format perfetto`: the trial as a Chrome
/// trace-event file (`{"traceEvents": […], "displayTimeUnit": "ms"}`),
/// which ui.perfetto.dev and chrome://tracing open.
///
/// One process per device (in the scenario's order, pid 1, 2, …) and one
/// more, `links`, for the air; one thread (track) per actor, as in the SVG
/// diagram (`TraceActors`): each app, the system, each link, the cloud.
/// Complete slices (`"ph": "X"`) where the trace gives both ends: an app's
/// launch (`launch` → `willContinue`, or the failure), the fetch (`fetch` →
/// `payload arrived` or `fetch failed`), the Bonjour resolve (`resolve` →
/// `resolved`), the connection set-up (the latest `resolved` or `fetch` →
/// `connected`), and each stream round (`stream request` on the source →
/// its `continuationStreamResponse`, on the receiving app's track). Every
/// record is also an instant (`"ph": "i"`, `"s": "t"`) with its fields in
/// `args`; with `--packets` every packet is an instant on its link's track.
/// Times are microseconds (fractional: nanoseconds / 1000). Events come in a
/// fixed order: metadata, slices, records, packets.
///
/// ```swift
/// let text = TracePerfetto.render(replay, scenario: scenario)
/// ```
public enum TracePerfetto {
    /// The replay as trace-event JSON.
    public static func render(_ replay: TrialReplay, scenario: Scenario) -> String {
        var text = ""
        write(replay, scenario: scenario, to: &text)
        return text
    }

    /// Writes the replay as trace-event JSON to `output`, event by event
    /// (the same bytes as ``render(_:scenario:)``).
    ///
    /// - Complexity: beyond the replay, memory is the metadata and slices
    ///   (a few per record pair), one byte per packet (whether it is a
    ///   retransmission) and one event's text at a time.
    public static func write<Output: TextOutputStream>(_ replay: TrialReplay, scenario: Scenario, to output: inout Output) {
        var document = JSONObjectStream()
        document.beginArray("traceEvents", to: &output)
        func emit(_ event: JSONOutput) { document.element(event, to: &output) }
        let actors = TraceActors(replay, scenario: scenario)
        let devices = scenario.setup.devices.map(\.name)
        let linksProcess = devices.count + 1
        func process(of lane: TraceActors.Lane) -> Int {
            (devices.firstIndex(of: lane.device)).map { $0 + 1 } ?? linksProcess
        }
        // Metadata: process and thread names, and their order.
        var named: [Int] = []
        for lane in actors.lanes {
            let pid = process(of: lane)
            if !named.contains(pid) {
                named.append(pid)
                let name = pid == linksProcess ? "links" : lane.device
                emit(metadata("process_name", pid: pid, tid: 0, name: name))
                emit(metadata("process_sort_index", pid: pid, tid: 0, index: pid))
            }
        }
        for (index, lane) in actors.lanes.enumerated() {
            let pid = process(of: lane)
            emit(metadata("thread_name", pid: pid, tid: index + 1, name: lane.label))
            emit(metadata("thread_sort_index", pid: pid, tid: index + 1, index: index + 1))
        }
        func track(_ lane: Int?) -> (pid: Int, tid: Int)? {
            guard let lane else { return nil }
            return (process(of: actors.lanes[lane]), lane + 1)
        }
        // Slices.
        for slice in slices(replay.trace) {
            let record = replay.trace[slice.start]
            let lane = slice.onLane.map { actors.lane(device: $0.device.name, app: TraceText.app($0.app)) }
                ?? actors.lane(device: record.device.name, app: TraceText.app(record.app))
            guard let (pid, tid) = track(lane) else { continue }
            let start = record.time.sinceStart.nanoseconds
            let end = replay.trace[slice.end].time.sinceStart.nanoseconds
            emit(.object([
                ("name", .string(slice.name)),
                ("cat", .string("handoff")),
                ("ph", .string("X")),
                ("ts", microseconds(start)),
                ("dur", microseconds(end - start)),
                ("pid", .int(Int64(pid))),
                ("tid", .int(Int64(tid))),
                ("args", .object([
                    ("activity", .string(TraceText.activity(record.activity))),
                    ("ends", .string(replay.trace[slice.end].event.name.rawValue)),
                ])),
            ]))
        }
        // Records.
        for record in replay.trace {
            guard let (pid, tid) = track(actors.lane(device: record.device.name, app: TraceText.app(record.app))) else {
                continue
            }
            let columns = TraceText.columns(record.event)
            emit(instant(columns.step, category: "trace", time: record.time, pid: pid, tid: tid, args: [
                ("activity", .string(TraceText.activity(record.activity))),
                ("event", .string(columns.event)),
                ("from", .string(columns.from)),
                ("to", .string(columns.to)),
                ("detail", .string(columns.detail)),
            ]))
        }
        // Packets.
        let retransmissions = TracePackets.retransmissions(replay.packets)
        for (index, packet) in replay.packets.enumerated() {
            guard let (pid, tid) = track(actors.linkLane(replay.packetLinks[index])) else { continue }
            var name = TracePackets.name(packet)
            if retransmissions[index] { name += " (retransmission)" }
            var args: [(key: String, value: JSONOutput)] = [
                ("connection", packet.connection.map { .int(Int64($0.index)) } ?? .null),
                ("side", .string("\(packet.side)")),
                ("payloadBytes", .int(Int64(packet.payloadBytes))),
            ]
            switch packet.fate {
            case let .arrives(instant):
                args.append(("arrivesMicroseconds", microseconds(instant.sinceStart.nanoseconds)))
            case let .lost(reason):
                name = "LOST " + name
                args.append(("loss", .string(reason.rawValue)))
            }
            emit(instant(name, category: "packet", time: packet.time, pid: pid, tid: tid, args: args))
        }
        document.endArray(to: &output)
        document.member("displayTimeUnit", .string("ms"), to: &output)
        document.member("otherData", .object([
            ("scenario", .string(scenario.name)),
            ("file", .string(scenario.file)),
            ("seed", .string("\(replay.seed)")),
            ("trial", .string("\(replay.trial)")),
        ]), to: &output)
        document.end(to: &output)
    }

    /// A slice: the indices of its first and last records, its name, and
    /// the lane it goes on when not the first record's.
    struct Slice: Equatable {
        let name: String
        let start: Int
        let end: Int
        var onLane: (device: TraceDevice, app: TraceApp)?

        static func == (lhs: Slice, rhs: Slice) -> Bool {
            lhs.name == rhs.name && lhs.start == rhs.start && lhs.end == rhs.end
        }
    }

    /// The slices of `trace`, ordered by start (then end, then name).
    static func slices(_ trace: [TraceRecord]) -> [Slice] {
        var slices: [Slice] = []
        /// Pairs each end record with the latest earlier start record on the
        /// same device and activity (and app, when `sameApp`) not yet used.
        func pair(_ name: String, starts: [TraceEvent.Name], ends: [TraceEvent.Name], sameApp: Bool) {
            var used = Array(repeating: false, count: trace.count)
            for (end, record) in trace.enumerated() where ends.contains(record.event.name) {
                let start = trace[..<end].indices.last { index in
                    let candidate = trace[index]
                    return !used[index] && starts.contains(candidate.event.name) && candidate.device == record.device
                        && candidate.activity == record.activity && (!sameApp || candidate.app == record.app)
                }
                guard let start else { continue }
                used[start] = true
                slices.append(Slice(name: name, start: start, end: end))
            }
        }
        pair("launch", starts: [.launch], ends: [.willContinue, .fail, .didFailToContinueUserActivity], sameApp: true)
        pair("fetch", starts: [.fetch], ends: [.payloadArrived, .fetchFailed], sameApp: true)
        pair("resolve", starts: [.resolve], ends: [.resolved], sameApp: true)
        pair("connection set-up", starts: [.resolved, .fetch], ends: [.connected], sameApp: true)
        // Stream rounds: the source's request, the receiver's response.
        for (end, record) in trace.enumerated() {
            guard case let .callback(.continuationStreamResponse(round, _)) = record.event else { continue }
            let start = trace[..<end].indices.last { index in
                guard case .message(.streamRequest(round, _, _)) = trace[index].event else { return false }
                return trace[index].activity == record.activity
            }
            guard let start else { continue }
            slices.append(Slice(
                name: "stream round \(round)", start: start, end: end, onLane: (record.device, record.app)))
        }
        return slices.sorted { ($0.start, $0.end, $0.name) < ($1.start, $1.end, $1.name) }
    }

    static func microseconds(_ nanoseconds: Int64) -> JSONOutput {
        nanoseconds % 1000 == 0 ? .int(nanoseconds / 1000) : .double(Double(nanoseconds) / 1000)
    }

    static func metadata(_ kind: String, pid: Int, tid: Int, name: String) -> JSONOutput {
        .object([
            ("name", .string(kind)), ("ph", .string("M")), ("ts", .int(0)), ("pid", .int(Int64(pid))),
            ("tid", .int(Int64(tid))), ("args", .object([("name", .string(name))])),
        ])
    }

    static func metadata(_ kind: String, pid: Int, tid: Int, index: Int) -> JSONOutput {
        .object([
            ("name", .string(kind)), ("ph", .string("M")), ("ts", .int(0)), ("pid", .int(Int64(pid))),
            ("tid", .int(Int64(tid))), ("args", .object([("sort_index", .int(Int64(index)))])),
        ])
    }

    static func instant(
        _ name: String, category: String, time: SimInstant, pid: Int, tid: Int,
        args: [(key: String, value: JSONOutput)]
    ) -> JSONOutput {
        .object([
            ("name", .string(name)), ("cat", .string(category)), ("ph", .string("i")), ("s", .string("t")),
            ("ts", microseconds(time.sinceStart.nanoseconds)), ("pid", .int(Int64(pid))), ("tid", .int(Int64(tid))),
            ("args", .object(args)),
        ])
    }
}
