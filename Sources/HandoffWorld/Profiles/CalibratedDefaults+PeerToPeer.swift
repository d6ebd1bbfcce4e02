import SimKernel

extension CalibratedDefaults {
    /// The rows of the Wi-Fi peer-to-peer link (AWDL): the link, its
    /// schedule, and the Wi-Fi network while AWDL is up.
    static func peerToPeerRows() -> [CalibratedDefault] {
        var rows: [CalibratedDefault] = []
        let privateDropAWDL = "PrivateDrop evaluation data (USENIX Security 2021), calibration/data/privatedrop-awdl.csv"
        let wifi = LinkParameters.wifiPeerToPeer
        let link = "network.wifiPeerToPeer"
        rows.append(CalibratedDefault(
            setting: "Wi-Fi peer-to-peer link (AWDL), each way", value: describe(wifi),
            source: "fitted with the schedule below to the measured runs of a fresh connection and one "
                + "exchange over AWDL between a Mac and an iPhone (PrivateDrop evaluation data, USENIX Security 2021; "
                + "calibration/data/) under the measured systems' behaviours (macOS 10.15.7, iOS 14.0: the 1 s SYN "
                + "timeout, XNU's 556,032 B receive window), the search's objective averaged over seeds 1–8: the "
                + "latency to the fetches (network_ms), the rate's ceiling and the spread of each transfer's extra "
                + "time over it to the 1,500 uploads of 10.49 MB on the established connection (upload_ms; "
                + "calibration/privatedrop-awdl.json), median 96.3 Mbit/s as measured: a log-normal extra time, so "
                + "that the fastest uploads lie above the measured floor as they do (a slowdown crowding at the "
                + "ceiling put them some 35 ms below it); Kolmogorov–Smirnov distance of the uploads 0.038–0.132 "
                + "over seeds 1–30, mean 0.072 (200 simulated; the 5% critical value is 0.102); ranges: the fit's "
                + "95% bootstrap intervals (20 replicates, "
                + "calibration/fits/privatedrop-awdl.json), widened to the default",
            evidence: .measured(dataset: privateDropAWDL + " (network_ms, upload_ms)"),
            ranges: [
                PlausibleRange("latency", 2.271, 2.831, "ms", paths: ["\(link).latency"]),
                PlausibleRange("rate", 111.68, 112.53, "Mbit/s", paths: ["\(link).bandwidth"]),
                PlausibleRange("median extra time", 0.1063, 0.1241, "", paths: ["\(link).bandwidthSpread.logNormal.median"]),
                PlausibleRange("extra time σ", 0.6207, 0.6934, "", paths: ["\(link).bandwidthSpread.logNormal.sigma"]),
            ],
            paths: ["\(link).jitter", "\(link).loss", "\(link).mtu", "\(link).headerBytes", "\(link).queueLimit"]))
        if let schedule = wifi.schedule {
            let at = "\(link).schedule"
            rows.append(CalibratedDefault(
                setting: "AWDL slots and channel sequence", value: describeSlots(schedule),
                source: "seemoo-lab/owl: 64-TU extended availability windows and 16-slot sequences (sync.c, "
                    + "channel.h), the idle sequence with channel 149 in slots 0, 9, 10 and channel 6 in slot 8 "
                    + "(channel.c awdl_chanseq_init_idle), multicast only in slots 0 and 10 (schedule.c), a master's "
                    + "sync frames every 110 TU (state.c), unicast only to known peers (daemon/core.c)",
                evidence: .sourced(document: "seemoo-lab/owl sync.c, channel.h, channel.c, schedule.c, state.c, daemon/core.c"),
                paths: ["\(at).slot", "\(at).slotsPerSequence", "\(at).sharedSlots", "\(at).multicastSlots",
                        "\(at).syncInterval"]))
            rows.append(CalibratedDefault(
                setting: "AWDL idle presence", value: describePresence(schedule),
                source: "assumption: a slot is four availability windows of 16 TU, and a device announces a "
                    + "committed window length and how far it extends windows for traffic (seemoo-lab/owl sync.c, "
                    + "frame.h: aw_period, aw_com_length, aw_ext_length, min_ext, max_ext_unicast). What each value "
                    + "rests on: 64 TU (the whole slot): OWL's own announced parameters (tx.c: committed window 16 TU, "
                    + "at least 3 extensions, presence mode 4; its comment: \"appears to be fixed in current AWDL "
                    + "implementation\"), which an Apple peer interoperates with, but what an Apple device announces "
                    + "for an idle slot is not published; 48 TU (3 of 4 windows): chosen by an earlier fit to the "
                    + "measured runs over AWDL (PrivateDrop evaluation data, calibration/privatedrop-awdl.json) among "
                    + "1–4, mean KS over seeds 1–10 0.043 against 0.053 for the whole slot (the model before the "
                    + "measured era's behaviours; not refitted since); 16 TU: the committed window alone, with no "
                    + "extension. Plausible 16–64 TU",
                evidence: .assumed,
                ranges: [PlausibleRange("idle presence", 16.384, 65.536, "ms", paths: ["\(at).idlePresence"])]))
            rows.append(CalibratedDefault(
                setting: "AWDL start", value: describeStart(schedule),
                source: "assumption: AWDL is switched on when a peer-to-peer browse starts (\"Adding PTR: "
                    + "_companion-link._tcp … Enabling AWDL\", itlwm issue log); that Handoff's browse does so, and "
                    + "that AWDL is off when the user accepts (no AirDrop or other peer-to-peer service browsing) "
                    + "are assumptions; the activation (the interface up and listening on the social channels) is "
                    + "assumed, plausible 10–200 ms",
                evidence: .assumed,
                ranges: [PlausibleRange("activation", 10, 200, "ms", paths: ["\(at).activation"])],
                paths: ["\(at).start"]))
            if schedule.excursionDuration != .zero {
                // Two rows: the data identify how long the excursions are
                // (fitted, measured), not how often they come (assumed).
                rows.append(CalibratedDefault(
                    setting: "AWDL excursions (idle pair)", value: describeExcursions(schedule),
                    source: "fitted to the measured runs of a fresh connection and one exchange over AWDL, warm and "
                        + "with the Bonjour answer cached as measured, under the measured systems' behaviours "
                        + "(PrivateDrop evaluation data, USENIX Security 2021; calibration/privatedrop-awdl.json, the "
                        + "search's objective averaged over seeds 1–8; the interval, below, held; the data identify "
                        + "mainly the share of time away, about 6%); Kolmogorov–Smirnov distance 0.031–0.059 over seeds "
                        + "1–30, mean 0.043 (0.040 over seeds 1–10, at most 0.046; the 5% critical value is 0.046); range: "
                        + "the duration's 95% bootstrap interval (20 replicates, "
                        + "70.34–101 ms, calibration/fits/privatedrop-awdl.json)",
                    evidence: .measured(dataset: privateDropAWDL + " (network_ms)"),
                    ranges: [PlausibleRange("duration", 70.34, 101, "ms", paths: ["\(at).excursionDuration"])]))
                rows.append(CalibratedDefault(
                    setting: "AWDL excursion interval (idle pair)",
                    value: "an excursion once every \(schedule.excursionInterval) (½–1½×)",
                    source: "assumption: the interval is not among the parameters the experiment fits (the measured "
                        + "runs identify the share of time away, not how it is split); the default was picked with "
                        + "the duration on a grid; plausible 0.6–4 s (ping spikes of 200–800 ms every 1–5 s over "
                        + "awdl0, seemoo-lab/owl issue 38 and NearDrop issue 59, are an excursion plus the wait for a "
                        + "shared slot)",
                    evidence: .assumed,
                    ranges: [PlausibleRange("interval", 0.6, 4, "s", paths: ["\(at).excursionInterval"])]))
            } else {
                rows.append(CalibratedDefault(
                    setting: "AWDL excursions (idle pair)", value: "none", source: "assumption", evidence: .assumed,
                    paths: ["\(at).excursionDuration", "\(at).excursionInterval"]))
            }
            rows.append(CalibratedDefault(
                setting: "AWDL active pair", value: describeActive(schedule),
                source: "assumption: the richer sequence of a pair with traffic travels in the next sync frame "
                    + "(seemoo-lab/owl sync.c); the time a pair stays active is not in any data (plausible "
                    + "0.5–5 s). Away slots: none, chosen against the measured uploads (PrivateDrop evaluation "
                    + "data, calibration/data/privatedrop-awdl.csv, upload_ms): with a whole slot away in each "
                    + "sequence, a 10.49 MB upload takes about 65 ms longer when it spans one, and under the fit "
                    + "made with one the fastest simulated uploads fell some 35 ms below the measured p5 of 813 ms "
                    + "(Kolmogorov–Smirnov distance 0.104 at 2,000 simulated); refitted with none, 0.070 (p5 809 "
                    + "ms). So the radio's visits to other channels while the pair is busy are taken to be short "
                    + "and many, their cost part of the fitted rate. Plausible 0–2 per sequence",
                evidence: .assumed,
                ranges: [
                    PlausibleRange("away slots", 0, 2, "", paths: ["\(at).awaySlots"]),
                    PlausibleRange("active for", 0.5, 5, "s", paths: ["\(at).idleAfter"]),
                ]))
            let slots = schedule.infrastructureAbsentSlots.slots
            rows.append(CalibratedDefault(
                setting: "the Wi-Fi network while AWDL is up",
                value: schedule.infrastructureAbsences == 0
                    ? "no wait"
                    : "each device off the network's channel in \(slots.count) slot\(slots.count == 1 ? "" : "s") of each "
                        + "sequence (slot\(slots.count == 1 ? "" : "s") \(slots.map(String.init).joined(separator: ", ")), "
                        + "\(schedule.slot) each) from the pair's synchronisation: frames between the pair over the "
                        + "network wait, and the access point holds those for an absent receiver",
                source: "one radio serves AWDL and the infrastructure network (seemoo-lab/owl: AWDL's channel sequence "
                    + "of 16 slots, the idle one on AWDL channels in 4 of them). Measured: moonlight-qt PR 1974, the "
                    + "router's round trip with AirDrop discoverable 10.6 ms mean, 89.1 ms max, σ 20.1 ms, against "
                    + "2.06 / 8.48 / 0.65 ms with it off, and 11–14% UDP loss at 5–20 Mbit/s. Assumption, fitted by "
                    + "hand to that summary: two one-slot absences per sequence give, by arithmetic (each way a frame "
                    + "waits with probability 1/8 for a uniform part of a 65.5 ms slot), +8.2 ms mean and σ 18 ms per "
                    + "round trip (OWL's idle sequence as absences, slots 8–10 together, would give a 200 ms maximum "
                    + "the measurement rules out); which slots is not known. Not modelled: the loss, which a stream "
                    + "overflowing the access point's buffer shows and Handoff's few small frames do not; a plausible "
                    + "0 (AWDL on the network's own channel) to 4",
                evidence: .assumed,
                ranges: [PlausibleRange("absent slots", 0, 4, "", paths: ["\(at).infrastructureAbsences"])]))
        }
        return rows
    }
}
