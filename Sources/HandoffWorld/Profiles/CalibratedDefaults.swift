import SimKernel

/// Every default of the world model with its source, in one table.
///
/// The values are read from the constants the model runs with, so the
/// table cannot drift from the code; docs/defaults.md shows the same table and a
/// test checks that it matches.
public enum CalibratedDefaults {
    /// The table, in the order docs/defaults.md shows it.
    public static var table: [CalibratedDefault] {
        var rows: [CalibratedDefault] = []
        let nlc = "Network Link Conditioner preset (published figures, as listed by NSHipster and WebRTC's emulate.py)"
        let nlcAssumed = "assumption: the usual Network Link Conditioner preset figures; Apple does not document them; "
            + "no range: a profile is one preset, chosen whole (network.profile)"
        let profileSources: [(NetworkProfile, String, Evidence)] = [
            (.wifi, nlcAssumed, .assumed),
            (.lte, nlcAssumed, .assumed),
            (.dsl, nlcAssumed, .assumed),
            (.threeG, nlc, .sourced(document: "Network Link Conditioner presets (NSHipster; WebRTC emulate.py)")),
            (.edge, nlc, .sourced(document: "Network Link Conditioner presets (NSHipster; WebRTC emulate.py)")),
            (.veryBadNetwork, nlc, .sourced(document: "Network Link Conditioner presets (NSHipster; WebRTC emulate.py)")),
            (.hundredPercentLoss, nlc, .sourced(document: "Network Link Conditioner presets (NSHipster; WebRTC emulate.py)")),
        ]
        for (profile, source, evidence) in profileSources {
            rows.append(CalibratedDefault(
                setting: "internet profile \"\(profile.name)\"", value: describe(profile), source: source,
                evidence: evidence))
        }
        let internet = NetworkProfile.wifi.downlink
        rows.append(CalibratedDefault(
            setting: "internet links: MTU, header, queue",
            value: "\(internet.mtu) B, \(internet.headerBytes) B (IPv4 + TCP), \(internet.queueLimit) packets",
            source: "Ethernet MTU; RFC 791/793 minimum headers; dummynet's default queue of 50 slots "
                + "(Network Link Conditioner is built on dummynet)",
            evidence: .sourced(document: "RFC 791, RFC 793; dummynet's default queue"),
            paths: ["network.internetPath.downlink.mtu", "network.internetPath.uplink.mtu",
                    "network.internetPath.downlink.headerBytes", "network.internetPath.uplink.headerBytes",
                    "network.internetPath.downlink.queueLimit", "network.internetPath.uplink.queueLimit"]))
        rows += peerToPeerRows()
        let lan = "network.localNetwork"
        rows.append(CalibratedDefault(
            setting: "local network (both devices on one Wi-Fi network), each way",
            value: describe(LinkParameters.localNetwork),
            source: "assumption: device → access point → device is two Wi-Fi hops; a few milliseconds and a few "
                + "of jitter from contention, half of a typical 802.11ac/ax link rate, 802.11 retries leaving 0.1% "
                + "loss; plausible: 1–10 ms, jitter 0–20 ms, 20–400 Mbit/s, loss 0–1%. No measurement of Rapport "
                + "over a LAN is public; that the service is reachable there: pyatv's Companion protocol notes",
            evidence: .assumed,
            ranges: [
                PlausibleRange("latency", 1, 10, "ms", paths: ["\(lan).latency"]),
                PlausibleRange("jitter", 0, 20, "ms", paths: ["\(lan).jitter"]),
                PlausibleRange("rate", 20, 400, "Mbit/s", paths: ["\(lan).bandwidth"]),
                PlausibleRange("loss", 0, 0.01, "", paths: ["\(lan).loss"]),
            ],
            paths: ["\(lan).mtu", "\(lan).headerBytes", "\(lan).queueLimit"]))
        let servers = NetworkProfile.toAppleServers
        let down = "network.internetPath.downlink", up = "network.internetPath.uplink"
        rows.append(CalibratedDefault(
            setting: "path to Apple's servers (before the device's profile impairs it)", value: describe(servers),
            source: "assumption: a broadband access near one of Apple's points of presence, round trip about 24 ms; "
                + "plausible: 5–60 ms each way, 10–1,000 Mbit/s down, 2–100 Mbit/s up. A device's internet profile "
                + "(the Network Link Conditioner presets above) impairs this path as the tool impairs a real "
                + "interface: delays add, the lower rate wins, losses combine",
            evidence: .assumed,
            ranges: [
                PlausibleRange("latency each way", 5, 60, "ms", paths: ["\(down).latency", "\(up).latency"]),
                PlausibleRange("rate down", 10, 1000, "Mbit/s", paths: ["\(down).bandwidth"]),
                PlausibleRange("rate up", 2, 100, "Mbit/s", paths: ["\(up).bandwidth"]),
            ],
            paths: ["\(down).jitter", "\(up).jitter", "\(down).loss", "\(up).loss"]))
        let ble = LinkParameters.bluetoothLowEnergy
        rows.append(CalibratedDefault(
            setting: "Bluetooth LE link, each way", value: describe(ble),
            source: "300 kbit/s: application throughput measured on iPhones (Apple Developer Forums); 15 ms: half "
                + "of a 30 ms connection interval (Accessory Design Guidelines: 15 ms minimum); MTU: the 185-byte "
                + "ATT MTU iOS negotiates, less 3 B ATT and 4 B L2CAP headers; assumed: that these figures hold "
                + "for Handoff's connection; plausible 7.5–30 ms (half of connection intervals of 15–60 ms) and "
                + "100 kbit/s–1 Mbit/s (a long interval to LE data length extension)",
            evidence: .assumed,
            ranges: [
                PlausibleRange("latency", 7.5, 30, "ms", paths: ["network.bluetooth.latency"]),
                PlausibleRange("rate", 100, 1000, "kbit/s", paths: ["network.bluetooth.bandwidth"]),
            ],
            paths: ["network.bluetooth.jitter", "network.bluetooth.loss", "network.bluetooth.mtu",
                    "network.bluetooth.headerBytes", "network.bluetooth.queueLimit"]))
        let indoor = [PlausibleRange("path-loss exponent", 1.8, 3, ""), PlausibleRange("shadowing σ", 3, 14, "dB")]
        rows.append(CalibratedDefault(
            setting: "Bluetooth LE radio", value: describe(RadioPropagation.bluetoothLowEnergy),
            source: "−59 dBm at 1 m: iBeacon calibrated power at 0 dBm; exponent 3.0 and σ 6 dB: indoor values "
                + "(Rappaport's table, exponent 1.8–3.0 indoors, σ 3–14 dB); −90 dBm: typical receiver "
                + "sensitivity; the threshold distance matches Apple's ~10 m Continuity range",
            evidence: .assumed, ranges: indoor))
        rows.append(CalibratedDefault(
            setting: "Wi-Fi radio (5 GHz)", value: describe(RadioPropagation.wifi),
            source: "15 dBm transmit power less 46 dB free-space loss at 1 m; −82 dBm: 802.11's minimum "
                + "sensitivity for the lowest 20 MHz rate; exponent and σ as for Bluetooth",
            evidence: .assumed, ranges: indoor))
        let advertising = WorldConfiguration.defaultAdvertising
        rows.append(CalibratedDefault(
            setting: "advertising interval",
            value: "\(advertising.fastInterval) for the first \(advertising.fastDuration), then \(advertising.interval); "
                + "+ 0–\(advertising.maximumRandomDelay) random delay",
            source: "30 ms then 181.25 ms: WirelessProximity's Continuity rates (WPContinuity, rate 48 then 290 in "
                + "0.625 ms units); that the fast rate lasts 2 s (updateTime 2.0) is an assumption; 0–10 ms advDelay: "
                + "Bluetooth Core Specification Vol 6 Part B §4.4.2.2.1",
            evidence: .assumed))
        let scanning = WorldConfiguration.defaultScanning
        rows.append(CalibratedDefault(
            setting: "scanning", value: "\(scanning.window) every \(scanning.interval) with the screen on, every "
                + "\(scanning.screenOffInterval) with it off or locked",
            source: "window: the Continuity scan's window 30 (WirelessProximity), in 0.625 ms units (an assumption, "
                + "the unit of its advertising rates); intervals: placeholders: the scan requests carry a screen-on "
                + "and a screen-off interval, and the screen state picks one, but their values are not published; "
                + "300 ms catches one of the 30 ms fast advertisements in the first 2 s almost surely (a 6% duty "
                + "cycle), 1.5 s is a fifth of that duty cycle for a dark screen; plausible 100 ms–1 s and 1–5 s",
            evidence: .assumed,
            ranges: [
                PlausibleRange("interval, screen on", 100, 1000, "ms"),
                PlausibleRange("interval, screen off", 1, 5, "s"),
            ]))
        let transport = TransportParameters()
        let tcp = "network.transport"
        rows.append(CalibratedDefault(
            setting: "retransmission timeout: initial, maximum",
            value: "initial \(transport.initialRetransmissionTimeout), maximum \(transport.maximumRetransmissionTimeout)",
            source: "sourced: xnu bsd/netinet/tcp_timer.h (TCPTV_RTOBASE 1 s, TCPTV_REXMTMAX 64 s)",
            evidence: .sourced(document: "xnu bsd/netinet/tcp_timer.h"),
            paths: ["\(tcp).initialRetransmissionTimeout"]))
        rows.append(CalibratedDefault(
            setting: "retransmission timeout: minimum",
            value: "\(transport.minimumRetransmissionTimeout)",
            source: "assumption: XNU's timeout is max(100 ms, SRTT + 4·RTTVAR) + 200 ms once established "
                + "(xnu bsd/netinet/tcp_subr.c net.inet.tcp.rtt_min 100, tcp_timer.h TCPTV_REXMTSLOP), which this "
                + "model (SRTT + 4·RTTVAR within [minimum, maximum]) cannot express; 200 ms is Linux's floor and "
                + "the figure the transport was validated with; plausible 100–300 ms",
            evidence: .assumed,
            ranges: [PlausibleRange("minimum", 100, 300, "ms", paths: ["\(tcp).minimumRetransmissionTimeout"])]))
        rows.append(CalibratedDefault(
            setting: "retry limit", value: "\(transport.retryLimit) timeouts in a row",
            source: "assumption: with backoff, about a minute without progress before the connection fails; "
                + "plausible 3–12 (12: XNU's TCP_MAXRXTSHIFT, xnu bsd/netinet/tcp_timer.h)",
            evidence: .assumed,
            ranges: [PlausibleRange("timeouts", 3, 12, "")]))
        let cubic = transport.cubic
        rows.append(CalibratedDefault(
            setting: "congestion control",
            value: "\(transport.congestionControl == .cubic ? "CUBIC" : "\(transport.congestionControl)") with SACK "
                + "recovery and PRR: C \(cubic.constant), β \(cubic.beta), fast convergence "
                + "\(cubic.fastConvergence ? "on" : "off"), Reno-friendly region \(cubic.renoFriendly ? "on" : "off"), "
                + "target ahead by the \(cubic.roundTrip) RTT, reduction from the \(cubic.reductionBase)",
            source: "sourced: xnu bsd/netinet/tcp_subr.c (CUBIC unless net.inet.tcp.use_newreno), tcp_cubic.c "
                + "(C 0.4; backoff 0.3, fast-convergence factor 0.85 with tcp_sysctls.c's cubic_rfc_compliant = 1); "
                + "RFC 9438",
            evidence: .sourced(document: "xnu bsd/netinet/tcp_subr.c, tcp_cubic.c, tcp_sysctls.c; RFC 9438"),
            paths: ["\(tcp).congestionControl", "\(tcp).cubic"]))
        rows.append(CalibratedDefault(
            setting: "initial window", value: "\(transport.initialWindow) segments",
            source: "sourced: xnu bsd/netinet/tcp_cc.h (TCP_CC_CWND_INIT_PKTS 10, with cubic_minor_fixes = 1); "
                + "RFC 6928",
            evidence: .sourced(document: "xnu bsd/netinet/tcp_cc.h; RFC 6928"),
            paths: ["\(tcp).initialWindow"]))
        rows.append(CalibratedDefault(
            setting: "loss detection",
            value: "RACK-TLP: reorder window ¼ of the minimum RTT (0 after 3 SACKed segments until reordering is "
                + "seen), probe after 2·SRTT (+ \(transport.worstCaseDelayedAcknowledgement) with one segment in flight)",
            source: "RFC 8985", evidence: .sourced(document: "RFC 8985"), paths: ["\(tcp).lossDetection"]))
        rows.append(CalibratedDefault(
            setting: "acknowledgements",
            value: transport.delayedAcknowledgement.map { "delayed, every second segment or after \($0)" }
                ?? "every segment at once, one SACK block each",
            source: "assumption: XNU delays ACKs (xnu bsd/netinet/tcp_input.c net.inet.tcp.delayed_ack 3, "
                + "tcp_timer.c tcp_delack 100 ms) by a rule of its own (bsd/netinet/tcp_cc.c: every second segment "
                + "while the window grows, then up to half a BDP) that neither setting here expresses; acknowledging "
                + "every segment is the setting the peer-to-peer fit and the ns-3 comparison were made with",
            evidence: .assumed, paths: ["\(tcp).delayedAcknowledgement"]))
        rows.append(CalibratedDefault(
            setting: "connection setup",
            value: "TCP's three-way handshake (\(transport.handshakeBytes) B payload each way)",
            source: "RFC 9293 §3.5; the first-contact key exchange is its own Bluetooth LE step (protocol.keyExchange)",
            evidence: .sourced(document: "RFC 9293 §3.5")))
        let awdlFrom = DeviceKind.allCases.map { "\($0.platform) \($0.firstOSWithPeerToPeerRetransmissionBase)" }
        rows.append(CalibratedDefault(
            setting: "handshake retransmission (by OS version)",
            value: "SYN again after 1, 1, 1, 1, 1, 2, 4, 8, 16, 32, 64, 64 × its initial timeout, SYN-ACK after "
                + "doubling ones; set-up given up after 12 retransmissions or \(transport.connectTimeout) after the first "
                + "SYN; over AWDL the initial timeout is \(transport.peerToPeerInitialRetransmissionTimeout) from "
                + "\(Array(Set(awdlFrom)).sorted().joined(separator: ", ")) (SYNs at 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.1, 1.9 s …), "
                + "\(transport.initialRetransmissionTimeout) before (0, 1, 2, 3, 4, 5, 7, 11, 19 s …)",
            source: "xnu (apple-oss-distributions/xnu): bsd/netinet/tcp_timer.c tcp_syn_backoff and tcp_backoff, the same "
                + "from xnu-6153.141.1 to xnu-11417.101.15; tcp_timer.h TCP_MAXRXTSHIFT 12, TCPTV_KEEP_INIT 75 s "
                + "(tcp_keepinit), TCP_ADD_REXMTSLOP (no 200 ms slop before the connection is established); "
                + "bsd/netinet/tcp_subr.c tcp_getrt_rtt: an unestablished connection on an IFEF_AWDL interface with no "
                + "cached route RTT starts from tcp_awdl_rtobase (tcp_input.c, 100 ms), added in xnu-10002.41.9 "
                + "(absent in xnu-10002.1.13); that release is macOS 14.1, and the iOS, iPadOS, watchOS and "
                + "visionOS versions with it are an inference (one kernel release across the year's platforms). "
                + "Not modelled: a route's cached RTT (a second connection on a route whose earlier one closed with "
                + "16 RTT samples starts from it)",
            evidence: .sourced(document: "apple-oss-distributions/xnu (tcp_timer.c, tcp_timer.h, tcp_subr.c, tcp_input.c)"),
            paths: ["\(tcp).handshakeRetransmission", "\(tcp).peerToPeerInitialRetransmissionTimeout", "\(tcp).connectTimeout"]))
        rows.append(CalibratedDefault(
            setting: "flow-control window", value: "\(transport.window / 1024) KiB each way",
            source: "assumption: TCP's largest window without window scaling (RFC 7323); plausible 64 KiB–1 MiB: "
                + "XNU scales its windows and sizes its buffers to the path, and a short transfer rarely needs more",
            evidence: .assumed,
            ranges: [PlausibleRange("window", 64, 1024, "KiB", paths: ["\(tcp).window"])]))
        return rows
    }

    static func describe(_ profile: NetworkProfile) -> String {
        let down = profile.downlink
        let up = profile.uplink
        func rate(_ bandwidth: Bandwidth?) -> String { bandwidth.map(\.description) ?? "unlimited" }
        var text = "\(rate(down.bandwidth)) down, \(rate(up.bandwidth)) up"
        text += down.latency == up.latency
            ? ", \(down.latency) each way" : ", \(down.latency) down, \(up.latency) up"
        if down.jitter > .zero, down.jitter == up.jitter { text += " + up to \(down.jitter) of jitter" }
        if case let .bernoulli(loss) = down.loss { text += ", \(percent(loss)) loss each way" }
        return text
    }

    static func describe(_ link: LinkParameters) -> String {
        var text = link.bandwidth.map(\.description) ?? "unlimited"
        if !link.bandwidthSpread.isNone { text += " at most (slowed from trial to trial by \(link.bandwidthSpread))" }
        text += ", \(link.latency)"
        if link.jitter > .zero { text += " + up to \(link.jitter) of jitter" }
        if case let .bernoulli(loss) = link.loss { text += ", \(percent(loss)) loss" }
        text += ", MTU \(link.mtu) B with \(link.headerBytes) B header"
        if case .distance = link.loss { text += ", loss by distance" }
        return text
    }

    static func describeSlots(_ schedule: PeerToPeerSchedule) -> String {
        "slots of \(schedule.slot), \(schedule.slotsPerSequence) per sequence; an idle pair shares slots "
            + "\(list(schedule.sharedSlots.slots)); multicast in slots \(list(schedule.multicastSlots.slots)); sync frames every "
            + "\(schedule.syncInterval); unicast to a peer not yet heard is dropped"
    }

    static func describePresence(_ schedule: PeerToPeerSchedule) -> String {
        "\(schedule.idlePresence) from the start of each shared slot; the rest of the slot only once a frame of "
            + "the pair is heard in it"
    }

    static func describeStart(_ schedule: PeerToPeerSchedule) -> String {
        "\(schedule.start.rawValue); switched on by the peer-to-peer browse, up after \(schedule.activation), then "
            + "synchronised at the peer's next sync frame in a shared slot"
    }

    static func describeExcursions(_ schedule: PeerToPeerSchedule) -> String {
        "each device away for \(schedule.excursionDuration) (½–1½×) at each excursion; its frames wait, frames to "
            + "it are lost"
    }

    static func describeActive(_ schedule: PeerToPeerSchedule) -> String {
        "from the next sync frame until \(schedule.idleAfter) after the last unicast frame: "
            + (schedule.awaySlots == 0
                ? "on AWDL in every slot"
                : "apart \(schedule.awaySlots) slot\(schedule.awaySlots == 1 ? "" : "s") per sequence")
    }

    static func list(_ slots: [Int]) -> String { slots.map(String.init).joined(separator: ", ") }

    static func describe(_ radio: RadioPropagation) -> String {
        let range = (radio.thresholdDistance * 10).rounded() / 10
        return "\(number(radio.referencePower)) dBm at \(number(radio.referenceDistance)) m, exponent "
            + "\(number(radio.pathLossExponent)), shadowing σ \(number(radio.shadowingStandardDeviation)) dB, "
            + "threshold \(number(radio.receptionThreshold)) dBm (50% range \(number(range)) m)"
    }

    /// A fraction as a percentage, to at most six decimals (so 0.14 is
    /// "14%", not binary rounding's "14.000000000000002%").
    static func percent(_ fraction: Double) -> String { number((fraction * 100 * 1e6).rounded() / 1e6) + "%" }

    /// A number without a trailing `.0`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
