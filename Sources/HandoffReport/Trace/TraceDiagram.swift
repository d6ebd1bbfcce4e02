import Handoff
import HandoffScenario
import HandoffWorld
import SimKernel

/// `handoff-sim replay --format svg`: the trial as a sequence diagram.
///
/// One vertical lane per actor (`TraceActors`): the source device's apps
/// and system, the air (one lane per link that carried a packet, and the
/// cloud relay, or one `air` lane without packets), then each receiving
/// device's system and apps. Each lane is a `<g class="lane">` with
/// `id="lane-N"` and its label in `data-lane`.
///
/// Time runs down in rows, one per trace record (and, with packets, per
/// packet or band of packets), in the text trace's order; the left column
/// gives each row's time in milliseconds from the trial's start. Rows are
/// evenly spaced, so the vertical axis is *not* linear in time: a pause of
/// more than 50 ms between rows is drawn as a gap row saying how long it
/// was. A record is a dot on its lane with its event; a message to the
/// other device (Bonjour, Pair-Verify, `_systemInfo`, the payload request,
/// the payload, stream requests) is an arrow from the sender's lane to the
/// peer's system lane, an advertisement heard is an arrow from the source's
/// system lane, and a delegate callback is an arrow from the system lane to
/// the app's lane. Packets go from the sender's system lane through their
/// link's lane to the receiver's: a lost packet ends in a red cross on the
/// link lane, a retransmission is dashed and orange.
///
/// Compression: consecutive packets (no record between them) of one
/// connection that are data segments or acknowledgements, all arrive and
/// are not retransmissions are drawn as one thick band along the data's
/// link, labelled with the data's range, count and bytes and the number of
/// acknowledgements (`data 3–40 ×38, 55480 B + ACK ×19`), and with a head at
/// each end when packets went both ways. Lost packets and retransmissions
/// always get a row of their own.
///
/// The document is 1,200 units wide, its height follows the rows; every
/// text is XML-escaped and nothing varies between runs.
///
/// ```swift
/// let svg = TraceDiagram.svg(replay, scenario: scenario)
/// ```
public enum TraceDiagram {
    /// The most characters of an outcome line on one line of the footer
    /// (bold 11-unit text across the 1,200-unit width).
    static let outcomeWidth = 150

    /// The diagram as a complete SVG document, ending in `\n`.
    public static func svg(_ replay: TrialReplay, scenario: Scenario) -> String {
        var text = ""
        write(replay, scenario: scenario, to: &text)
        return text
    }

    /// Writes the diagram to `output`, row by row (the same bytes as
    /// ``svg(_:scenario:)``). The rows are walked twice, once to count
    /// them for the document's height and once to draw them, and never
    /// held.
    ///
    /// - Complexity: O(*n*) time in the records and packets; beyond the
    ///   replay, memory is one byte per packet (whether it is a retransmission)
    ///   and one row's elements at a time.
    public static func write<Output: TextOutputStream>(_ replay: TrialReplay, scenario: Scenario, to output: inout Output) {
        write(replay, scenario: scenario, to: &output, idPrefix: "")
    }

    /// ``write(_:scenario:to:)`` with every element id (and every
    /// reference to one) beginning with `idPrefix`, so that several
    /// diagrams can share a page.
    static func write<Output: TextOutputStream>(
        _ replay: TrialReplay, scenario: Scenario, to output: inout Output, idPrefix: String
    ) {
        let actors = TraceActors(replay, scenario: scenario)
        let retransmissions = TracePackets.retransmissions(replay.packets)
        var rowCount = 0
        forEachRow(replay, retransmissions: retransmissions) { _ in rowCount += 1 }
        let laneWidth = (Double(width) - lanesLeft - 10) / Double(max(1, actors.lanes.count))
        func x(_ lane: Int) -> Double { lanesLeft + (Double(lane) + 0.5) * laneWidth }
        let outcomes = replay.summaries.map { TraceReport.outcomeLines($0, scenario: scenario, width: outcomeWidth) }
        let leftOut = TraceReport.packetsLeftOutNote(replay)
        let footerLines = outcomes.map(\.count).reduce(0, +) + replay.violations.count + (replay.failure == nil ? 0 : 1)
            + (leftOut == nil ? 0 : 1) + 2
        let height = Int(top + Double(rowCount) * rowHeight + 24 + Double(footerLines) * 16)
        let bottom = top + Double(rowCount) * rowHeight

        func line(_ text: String) {
            output.write(text)
            output.write("\n")
        }
        let title = "\(scenario.name): seed \(replay.seed), trial \(replay.trial)"
        line(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" "
                + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">")
        line("  <title>\(Escape.xml(title))</title>")
        line("  <desc>\(Escape.xml("Sequence diagram of trial \(replay.trial) of \(scenario.file) (seed \(replay.seed)): one lane per actor, one row per trace record or packet band, time in ms on the left (rows are evenly spaced; long pauses are marked)."))</desc>")
        line("  <defs>")
        for (id, colour) in [("arrow", "#333333"), ("arrow-callback", "#0072B2"), ("arrow-packet", "#888888"), ("arrow-retransmission", "#D55E00")] {
            line(
                "    <marker id=\"\(idPrefix)\(id)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto-start-reverse\">"
                    + "<path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"\(colour)\"/></marker>")
        }
        line("  </defs>")
        line("  <rect class=\"background\" x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>")
        line("  <text class=\"title\" x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">\(Escape.xml(title))</text>")
        var subtitle = scenario.file
        if let overlay = scenario.overlayFile { subtitle += ", overlay \(overlay)" }
        subtitle += replay.packets.isEmpty ? "" : "; \(replay.packets.count) packets"
        line("  <text class=\"subtitle\" x=\"10\" y=\"40\" fill=\"#444444\">\(Escape.xml(subtitle))</text>")
        // The time axis.
        line("  <text class=\"axis-title\" x=\"10\" y=\"\(Format.decimal(top - 14))\" font-weight=\"bold\">time (ms)</text>")
        line(
            "  <line class=\"axis\" x1=\"\(Format.decimal(lanesLeft - 6))\" y1=\"\(Format.decimal(top - 8))\" x2=\"\(Format.decimal(lanesLeft - 6))\" y2=\"\(Format.decimal(bottom))\" stroke=\"#999999\"/>")
        // Lanes.
        for (index, lane) in actors.lanes.enumerated() {
            let centre = Format.decimal(x(index))
            let fill = lane.kind == .link || lane.kind == .cloud || lane.kind == .air ? "#f3f3f3" : "#ffffff"
            line("  <g class=\"lane\" id=\"\(idPrefix)lane-\(index)\" data-lane=\"\(Escape.xml(lane.label))\" data-kind=\"\(lane.kind.rawValue)\">")
            line(
                "    <rect x=\"\(Format.decimal(x(index) - laneWidth / 2 + 2))\" y=\"\(Format.decimal(top - 40))\" width=\"\(Format.decimal(laneWidth - 4))\" height=\"\(Format.decimal(bottom - top + 40))\" fill=\"\(fill)\"/>")
            let (first, second): (String, String)
            switch lane.kind {
            case .app, .system: (first, second) = (lane.device, lane.name)
            case .link: (first, second) = ("link", lane.name)
            case .cloud: (first, second) = ("relay", "cloud (IDS)")
            case .air: (first, second) = ("air", "BLE / Wi-Fi")
            }
            line("    <text x=\"\(centre)\" y=\"\(Format.decimal(top - 26))\" text-anchor=\"middle\" font-weight=\"bold\">\(Escape.xml(shortened(first, to: laneWidth)))</text>")
            line("    <text x=\"\(centre)\" y=\"\(Format.decimal(top - 12))\" text-anchor=\"middle\" fill=\"#444444\">\(Escape.xml(shortened(second, to: laneWidth)))</text>")
            line("    <line x1=\"\(centre)\" y1=\"\(Format.decimal(top - 6))\" x2=\"\(centre)\" y2=\"\(Format.decimal(bottom))\" stroke=\"#bbbbbb\" stroke-dasharray=\"3 3\"/>")
            line("  </g>")
        }
        // Rows.
        var lastTime: Int64?
        var index = 0
        forEachRow(replay, retransmissions: retransmissions) { row in
            defer { index += 1 }
            let y = top + (Double(index) + 0.5) * rowHeight
            let time = row.time(replay)
            if case .gap = row {} else if time != lastTime {
                line(
                    "  <text class=\"time\" x=\"\(Format.decimal(lanesLeft - 10))\" y=\"\(Format.decimal(y + 4))\" text-anchor=\"end\" fill=\"#444444\">\(Format.milliseconds(time))</text>")
                lastTime = time
            }
            switch row {
            case let .gap(nanoseconds):
                line(
                    "  <text class=\"gap\" x=\"\(Format.decimal(lanesLeft + 8))\" y=\"\(Format.decimal(y + 4))\" fill=\"#777777\" font-style=\"italic\">⋮ \(Format.milliseconds(nanoseconds)) ms later</text>")
            case let .record(recordIndex):
                for element in recordElements(replay.trace[recordIndex], actors: actors, y: y, x: x, trace: replay.trace, index: recordIndex, idPrefix: idPrefix) {
                    line(element)
                }
            case let .packets(range):
                for element in packetElements(replay, range: range, retransmission: retransmissions[range.lowerBound], actors: actors, y: y, x: x, idPrefix: idPrefix) {
                    line(element)
                }
            }
        }
        // Outcomes and legend.
        var y = bottom + 24
        for outcome in outcomes {
            for (index, text) in outcome.enumerated() {
                // The first line bold; the latencies after it indented.
                let x = index == 0 ? 10 : 24
                line("  <text class=\"outcome\" x=\"\(x)\" y=\"\(Format.decimal(y))\" font-weight=\"bold\">\(Escape.xml(text))</text>")
                y += 16
            }
        }
        if let leftOut {
            line("  <text class=\"packets-left-out\" x=\"10\" y=\"\(Format.decimal(y))\" fill=\"#444444\">\(Escape.xml(leftOut))</text>")
            y += 16
        }
        for violation in replay.violations {
            line("  <text class=\"violation\" x=\"10\" y=\"\(Format.decimal(y))\" fill=\"#cc0000\">\(Escape.xml("violation: \(violation)"))</text>")
            y += 16
        }
        if let failure = replay.failure {
            line("  <text class=\"failure\" x=\"10\" y=\"\(Format.decimal(y))\" fill=\"#cc0000\">\(Escape.xml("stopped: \(failure)"))</text>")
            y += 16
        }
        line(
            "  <text class=\"legend\" x=\"10\" y=\"\(Format.decimal(y))\" fill=\"#444444\">"
                + Escape.xml("● step   → message or advertisement   blue → callback   grey → packet (band: ×count)   orange dashed → retransmission   red ✕ lost")
                + "</text>")
        line("</svg>")
    }

    // MARK: Layout

    static let width = 1200
    static let lanesLeft = 90.0
    static let top = 100.0
    static let rowHeight = 18.0
    /// Pauses longer than this between rows get a gap row.
    static let gapNanoseconds: Int64 = 50_000_000

    /// One row of the diagram.
    enum Row: Equatable {
        case record(Int)
        /// Consecutive packets drawn as one row (one packet, or a band).
        case packets(Range<Int>)
        /// A pause of this many nanoseconds.
        case gap(Int64)

        func time(_ replay: TrialReplay) -> Int64 {
            switch self {
            case let .record(index): return replay.trace[index].time.sinceStart.nanoseconds
            case let .packets(range): return replay.packets[range.lowerBound].time.sinceStart.nanoseconds
            case let .gap(length): return length
            }
        }
    }

    /// Calls `body` with each row in order: records and packets merged by
    /// time, packets banded, pauses marked; one row is held back to band
    /// the packets after it, nothing more.
    ///
    /// - Parameter retransmissions: ``TracePackets/retransmissions(_:)`` of
    ///   the replay's packets.
    static func forEachRow(_ replay: TrialReplay, retransmissions: [Bool], _ body: (Row) -> Void) {
        func bandable(_ index: Int) -> Bool {
            let packet = replay.packets[index]
            guard case .arrives = packet.fate, !retransmissions[index] else { return false }
            return packet.kind == .data || packet.kind == .acknowledgement
        }
        func sameBand(_ a: Int, _ b: Int) -> Bool {
            let first = replay.packets[a]
            let second = replay.packets[b]
            return bandable(a) && bandable(b) && first.connection != nil && first.connection == second.connection
        }
        var previous: Int64?
        func spaced(_ row: Row) {
            let time = row.time(replay)
            if let previous, time - previous > gapNanoseconds { body(.gap(time - previous)) }
            previous = time
            body(row)
        }
        var pending: Row?
        TracePackets.forEachMerged(replay) { entry in
            switch entry {
            case let .record(index):
                if let row = pending { spaced(row) }
                pending = .record(index)
            case let .packet(index):
                if case let .packets(range) = pending, range.upperBound == index, sameBand(range.lowerBound, index) {
                    pending = .packets(range.lowerBound..<(index + 1))
                } else {
                    if let row = pending { spaced(row) }
                    pending = .packets(index..<(index + 1))
                }
            }
        }
        if let row = pending { spaced(row) }
    }

    // MARK: Elements

    static func recordElements(
        _ record: TraceRecord, actors: TraceActors, y: Double, x: (Int) -> Double, trace: [TraceRecord], index: Int,
        idPrefix: String = ""
    ) -> [String] {
        guard let lane = actors.lane(device: record.device.name, app: TraceText.app(record.app)) else { return [] }
        var from: Int?
        var to: Int?
        var style = "arrow"
        switch TraceRecordRole(event: record.event, app: record.app) {
        case let .message(toSource):
            let peer = toSource ? actors.source(of: record.activity) : receiver(of: record, trace: trace, before: index, actors: actors)
            if let peer, let peerLane = actors.systemLane(peer), peerLane != lane { (from, to) = (lane, peerLane) }
        case .advertisement:
            if let source = actors.source(of: record.activity), let sourceLane = actors.systemLane(source) {
                (from, to) = (sourceLane, lane)
            }
        case .callback:
            if let system = actors.systemLane(record.device.name) { (from, to) = (system, lane) }
            style = "arrow-callback"
        case .step:
            break
        }
        var elements: [String] = []
        let colour = style == "arrow-callback" ? "#0072B2" : "#333333"
        if let from, let to {
            elements.append(
                "  <line class=\"\(style == "arrow" ? "message" : "callback")\" x1=\"\(Format.decimal(x(from)))\" y1=\"\(Format.decimal(y))\" x2=\"\(Format.decimal(x(to)))\" y2=\"\(Format.decimal(y))\" "
                    + "stroke=\"\(colour)\" stroke-width=\"1.5\" marker-end=\"url(#\(idPrefix)\(style))\"/>")
        }
        let failing = TraceText.isFailure(record.event)
        elements.append(
            "  <circle class=\"record\" cx=\"\(Format.decimal(x(lane)))\" cy=\"\(Format.decimal(y))\" r=\"3.5\" fill=\"\(failing ? "#cc0000" : colour)\"/>")
        let columns = TraceText.columns(record.event)
        var text = columns.from.isEmpty && columns.to.isEmpty ? columns.event : "\(columns.from) → \(columns.to) (\(columns.event))"
        if !columns.detail.isEmpty { text += " — " + columns.detail }
        let span = [x(lane), from.map(x), to.map(x)].compactMap { $0 }
        elements.append(label(text, left: span.min() ?? x(lane), right: span.max() ?? x(lane), y: y, colour: failing ? "#cc0000" : colour))
        return elements
    }

    static func packetElements(
        _ replay: TrialReplay, range: Range<Int>, retransmission: Bool, actors: TraceActors, y: Double, x: (Int) -> Double,
        idPrefix: String = ""
    ) -> [String] {
        // A band is drawn along its first data segment's link (its first
        // packet's when it has none).
        let lead = range.first { replay.packets[$0].kind == .data } ?? range.lowerBound
        let first = replay.packets[lead]
        let ends = replay.packetEnds[lead]
        guard let linkLane = actors.linkLane(replay.packetLinks[lead]),
            let fromLane = actors.systemLane(ends.from), let toLane = actors.systemLane(ends.to)
        else { return [] }
        var elements: [String] = []
        let colour = retransmission ? "#D55E00" : "#888888"
        let dash = retransmission ? " stroke-dasharray=\"5 3\"" : ""
        let marker = retransmission ? "arrow-retransmission" : "arrow-packet"
        let band = range.count > 1
        // A band with packets both ways (data one way, ACKs back) gets a
        // head at each end.
        let bothWays = band && range.contains { replay.packetEnds[$0] != ends }
        let strokeWidth = band ? "4" : "1"
        var text: String
        if band {
            let data = range.filter { replay.packets[$0].kind == .data }
            let acknowledgements = range.count - data.count
            var parts: [String] = []
            if let low = data.map({ replay.packets[$0].sequence }).min(), let high = data.map({ replay.packets[$0].sequence }).max() {
                let bytes = data.reduce(0) { $0 + replay.packets[$1].payloadBytes }
                parts.append(low == high ? "data \(low), \(bytes) B" : "data \(low)–\(high) ×\(data.count), \(bytes) B")
            }
            if acknowledgements > 0 { parts.append("ACK ×\(acknowledgements)") }
            text = parts.joined(separator: " + ")
        } else {
            text = TracePackets.name(first) + (retransmission ? " (retransmission)" : "") + ", \(first.payloadBytes) B"
        }
        text += first.connection.map { "  #\($0.index)" } ?? ""
        switch first.fate {
        case .arrives:
            let arrival: Int64 = {
                let arrivals = range.compactMap { index -> Int64? in
                    if case let .arrives(instant) = replay.packets[index].fate { return instant.sinceStart.nanoseconds }
                    return nil
                }
                return arrivals.max() ?? first.time.sinceStart.nanoseconds
            }()
            text += "  → \(Format.milliseconds(arrival)) ms"
            elements.append(
                "  <polyline class=\"\(band ? "packet-band" : "packet")\" points=\"\(Format.decimal(x(fromLane))),\(Format.decimal(y)) \(Format.decimal(x(linkLane))),\(Format.decimal(y)) \(Format.decimal(x(toLane))),\(Format.decimal(y))\" "
                    + "fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(strokeWidth)\" stroke-opacity=\"\(band ? "0.6" : "1")\"\(dash) marker-end=\"url(#\(idPrefix)\(marker))\"\(bothWays ? " marker-start=\"url(#\(idPrefix)\(marker))\"" : "")/>")
            elements.append("  <circle cx=\"\(Format.decimal(x(linkLane)))\" cy=\"\(Format.decimal(y))\" r=\"2\" fill=\"\(colour)\"/>")
            let span = [x(fromLane), x(linkLane), x(toLane)]
            elements.append(label(text, left: span.min() ?? 0, right: span.max() ?? 0, y: y, colour: retransmission ? "#D55E00" : "#666666"))
        case let .lost(reason):
            text += "  LOST: " + TraceReport.lossText(reason)
            let cross = x(linkLane)
            elements.append(
                "  <line class=\"packet-lost\" x1=\"\(Format.decimal(x(fromLane)))\" y1=\"\(Format.decimal(y))\" x2=\"\(Format.decimal(cross))\" y2=\"\(Format.decimal(y))\" stroke=\"#cc0000\" stroke-width=\"1\"\(dash)/>")
            elements.append(
                "  <path class=\"loss\" d=\"M \(Format.decimal(cross - 5)) \(Format.decimal(y - 5)) L \(Format.decimal(cross + 5)) \(Format.decimal(y + 5)) M \(Format.decimal(cross - 5)) \(Format.decimal(y + 5)) L \(Format.decimal(cross + 5)) \(Format.decimal(y - 5))\" stroke=\"#cc0000\" stroke-width=\"2.5\"/>")
            elements.append(label(text, left: min(x(fromLane), cross), right: max(x(fromLane), cross) + 6, y: y, colour: "#cc0000"))
        }
        return elements
    }

    /// A row's label: right of what the row draws, or left of it when it
    /// would run past the right edge; on a white halo so lane lines do not
    /// cross it.
    static func label(_ text: String, left: Double, right: Double, y: Double, colour: String) -> String {
        let shown = text.count > 110 ? String(text.prefix(109)) + "…" : text
        let estimatedWidth = Double(shown.count) * 6.3
        let position: Double
        let anchor: String
        if right + 8 + estimatedWidth <= Double(width) - 4 {
            (position, anchor) = (right + 8, "start")
        } else if left - 8 - estimatedWidth >= lanesLeft {
            (position, anchor) = (left - 8, "end")
        } else {
            // Fits on neither side: over the arrow, ending short of its
            // right end (the halo keeps it legible).
            (position, anchor) = (max(right - 14, lanesLeft + 8 + estimatedWidth), "end")
        }
        return "  <text class=\"label\" x=\"\(Format.decimal(position))\" y=\"\(Format.decimal(y + 4))\" text-anchor=\"\(anchor)\" fill=\"\(colour)\" "
            + "stroke=\"#ffffff\" stroke-width=\"4\" stroke-linejoin=\"round\" paint-order=\"stroke\">\(Escape.xml(shown))</text>"
    }

    /// The receiving device a source's message goes to: the device of the
    /// latest earlier record of the same activity on another device.
    static func receiver(of record: TraceRecord, trace: [TraceRecord], before index: Int, actors: TraceActors) -> String? {
        trace[..<index].last { $0.activity == record.activity && $0.device != record.device }?.device.name
            ?? actors.lanes.first { $0.kind == .system && $0.device != record.device.name }?.device
    }

    /// `text` cut to fit a lane `width` wide.
    static func shortened(_ text: String, to width: Double) -> String {
        let fits = max(4, Int(width / 6.2))
        return text.count > fits ? String(text.prefix(fits - 1)) + "…" : text
    }

}
