import Handoff
import HandoffScenario
import HandoffWorld
import SimKernel

/// The actors of a replayed trial, as the SVG diagram and the Perfetto
/// trace lay them out: one lane per actor, in a fixed order.
///
/// Devices that are the source of some activity come first (each app
/// first-seen order, then the device's system), then the air: one lane per
/// link that carried a packet (first-use order: peer-to-peer links, the
/// source devices' links to the cloud, a `cloud` lane when the relay was
/// used, the other devices' links to it), or a single `air` lane without packets; then the
/// other devices (system, then apps). Devices are in the scenario's order;
/// a device with no record and no packet has no lane.
struct TraceActors {
    /// What a lane stands for.
    enum Kind: String {
        case app, system, link, cloud, air
    }

    /// One lane.
    struct Lane: Equatable {
        let kind: Kind
        /// The device, for app and system lanes.
        let device: String
        /// The bundle ID (app), `system`, the link's name, `cloud` or `air`.
        let name: String

        /// `mac · com.example.notes`, `mac · system`, `wifi iphone → mac`.
        var label: String {
            switch kind {
            case .app, .system: return "\(device) · \(name)"
            case .link, .cloud, .air: return name
            }
        }
    }

    let lanes: [Lane]
    /// The source device of each activity, by its index in the scenario.
    let sourceOfActivity: [String]
    let sourceDevices: [String]

    init(_ replay: TrialReplay, scenario: Scenario) {
        let devices = scenario.setup.devices.map(\.name)
        var sources: [String] = []
        for activity in scenario.activities where !sources.contains(activity.device) { sources.append(activity.device) }
        sourceDevices = sources
        sourceOfActivity = scenario.activities.map(\.device)
        var appsOfDevice: [(device: String, apps: [String])] = devices.map { ($0, []) }
        var seen: [String] = []
        func see(_ device: String) { if !seen.contains(device) { seen.append(device) } }
        for record in replay.trace {
            see(record.device.name)
            let app = TraceText.app(record.app)
            if record.app != .system,
                let index = appsOfDevice.firstIndex(where: { $0.device == record.device.name }),
                !appsOfDevice[index].apps.contains(app)
            {
                appsOfDevice[index].apps.append(app)
            }
        }
        // Links in first-use order, grouped so every packet's path runs one
        // way across the page: peer-to-peer links, then the source devices'
        // links to the cloud, the cloud, and the other devices' links.
        var links: [(name: String, group: Int)] = []
        var usesCloud = false
        for (index, ends) in replay.packetEnds.enumerated() {
            for end in [ends.from, ends.to] {
                if end == "cloud" { usesCloud = true } else { see(end) }
            }
            guard !links.contains(where: { $0.name == replay.packetLinks[index] }) else { continue }
            let group: Int
            if ends.from != "cloud" && ends.to != "cloud" {
                group = 0
            } else {
                group = sources.contains(ends.from) || sources.contains(ends.to) ? 1 : 2
            }
            links.append((replay.packetLinks[index], group))
        }
        var lanes: [Lane] = []
        for entry in appsOfDevice where sources.contains(entry.device) && seen.contains(entry.device) {
            lanes += entry.apps.map { Lane(kind: .app, device: entry.device, name: $0) }
            lanes.append(Lane(kind: .system, device: entry.device, name: "system"))
        }
        if links.isEmpty {
            lanes.append(Lane(kind: .air, device: "", name: "air"))
        } else {
            lanes += links.filter { $0.group < 2 }.map { Lane(kind: .link, device: "", name: $0.name) }
            if usesCloud { lanes.append(Lane(kind: .cloud, device: "", name: "cloud")) }
            lanes += links.filter { $0.group == 2 }.map { Lane(kind: .link, device: "", name: $0.name) }
        }
        for entry in appsOfDevice where !sources.contains(entry.device) && seen.contains(entry.device) {
            lanes.append(Lane(kind: .system, device: entry.device, name: "system"))
            lanes += entry.apps.map { Lane(kind: .app, device: entry.device, name: $0) }
        }
        self.lanes = lanes
    }

    /// The lane of a record's device and app.
    func lane(device: String, app: String) -> Int? {
        lanes.firstIndex { ($0.kind == .app || $0.kind == .system) && $0.device == device && $0.name == app }
    }

    /// A device's system lane; the cloud lane for `"cloud"`.
    func systemLane(_ device: String) -> Int? {
        if device == "cloud" { return lanes.firstIndex { $0.kind == .cloud } }
        return lane(device: device, app: "system")
    }

    /// The lane of a link by name, or the air lane.
    func linkLane(_ name: String) -> Int? {
        lanes.firstIndex { ($0.kind == .link && $0.name == name) } ?? lanes.firstIndex { $0.kind == .air }
    }

    /// The source device of the activity a record is about.
    func source(of activity: TraceActivity?) -> String? {
        guard let index = activity?.id.index, sourceOfActivity.indices.contains(index) else { return nil }
        return sourceOfActivity[index]
    }
}

/// How the diagram and the Perfetto trace read one trace record.
enum TraceRecordRole {
    /// A message sent to the other device (drawn as an arrow to it).
    case message(toSource: Bool)
    /// An advertisement heard from the source (an arrow from it).
    case advertisement
    /// A delegate callback: the system calls the app.
    case callback
    /// Anything else: a step on the record's own lane.
    case step

    /// The role of a record of `event` by `app`.
    init(event: TraceEvent, app: TraceApp) {
        switch event {
        case let .message(.rapport(message, _)):
            self = .message(toSource: !message.isFromSource)
        case .message(.resolveQuery), .message(.cloudRequest), .message(.keyExchange), .system(.requestAgain),
            .callback(.getContinuationStreams):
            self = .message(toSource: true)
        case .message(.payload), .message(.streamRequest):
            self = .message(toSource: false)
        case .system(.discovered):
            self = .advertisement
        case .callback(.sceneDidUpdate):
            self = .step
        case .callback:
            self = app == .system ? .step : .callback
        case .transition, .illegalChange, .change, .milestone, .system(.notOffered), .system(.acceptedWithoutOffer),
            .system(.notAdvertised), .system(.advertisementPaced), .system(.advertisementRemoved),
            .system(.advertisingAgain), .system(.rapportTimedOut), .system(.fetchOverCloud), .system(.relayDelivers),
            .system(.relayStored), .system(.connectionFailed), .system(.fetchFailed), .system(.keysExchanged),
            .system(.keyExchangeFailed), .system(.payloadTimerFired), .system(.fetchRefused), .system(.saveWaitOver),
            .system(.userInfoOverRecommended), .system(.continuedNoticeIgnored), .system(.deviceLost),
            .system(.lostDeviceHeard), .system(.scanStopped), .system(.scanRestarted), .system(.userInput),
            .system(.userIdle), .system(.activePayloadUpdate), .system(.keysOverCloud):
            self = .step
        }
    }
}

/// Classifying packets: retransmissions, and text.
enum TracePackets {
    /// A data segment's identity on one link.
    private struct Segment: Hashable {
        let link: Int
        let connection: Int
        let side: ConnectionSide
        let sequence: UInt32
    }

    /// Whether each packet is a retransmission of a data segment already
    /// sent on its link (as the text trace marks them).
    static func retransmissions(_ packets: [PacketRecord]) -> [Bool] {
        var sent = Set<Segment>()  // membership only; never iterated
        return packets.map { record in
            guard record.kind == .data, let connection = record.connection else { return false }
            return !sent.insert(Segment(
                link: record.link.index, connection: connection.index, side: record.side, sequence: record.sequence)).inserted
        }
    }

    /// `SYN`, `data 7`, `ACK 4`, as the text trace names them.
    static func name(_ record: PacketRecord) -> String {
        switch record.kind {
        case .syn: return "SYN"
        case .synAcknowledgement: return "SYN-ACK"
        case .handshakeAcknowledgement: return "ACK (handshake)"
        case .data: return "data \(record.sequence)"
        case .acknowledgement: return "ACK \(record.sequence)"
        case .duplicateAcknowledgement: return "D-SACK, ACK \(record.sequence)"
        case .datagram: return "datagram"
        }
    }

    /// Calls `body` with each record and packet in the order they are
    /// shown in: each packet before the first record later than it (after
    /// the records of its own instant); nothing is held.
    static func forEachMerged(_ replay: TrialReplay, _ body: (Either) -> Void) {
        var packet = 0
        for (index, record) in replay.trace.enumerated() {
            while packet < replay.packets.count, replay.packets[packet].time < record.time {
                body(.packet(packet))
                packet += 1
            }
            body(.record(index))
        }
        while packet < replay.packets.count {
            body(.packet(packet))
            packet += 1
        }
    }

    /// A record or a packet, by index.
    enum Either: Equatable {
        case record(Int)
        case packet(Int)
    }
}

