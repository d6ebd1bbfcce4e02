import HandoffWorld
import SimKernel

/// Every default of the continuity protocol with its source, after the
/// world's (`CalibratedDefaults`), in one table.
///
/// The values are read from the constants the protocol runs with, so the
/// table cannot drift from the code.
public enum HandoffDefaults {
    /// The world's rows, then the protocol's.
    public static var table: [CalibratedDefault] { CalibratedDefaults.table + protocolRows }

    /// The protocol's rows.
    public static var protocolRows: [CalibratedDefault] {
        let configuration = HandoffConfiguration()
        let fetch = configuration.fetchTransport
        let rapport = configuration.rapport
        let exchange = configuration.keyExchange
        let advertising = configuration.advertising
        let rapportPath = "protocol.rapport", adsPath = "protocol.advertising"
        return [
            CalibratedDefault(
                setting: "fetch ∥ launch",
                value: "the fetch starts at the accept, while the app launches; willContinue when the app is up; "
                    + "continue when the app is up and the payload has arrived",
                source: "Apple developer documentation: willContinue comes \"possibly before the data … is available\"; "
                    + "scene(_:continue:) only after all of the data has arrived",
                evidence: .sourced(document: "Apple developer documentation (application(_:willContinueUserActivityWithType:), scene(_:continue:))")),
            CalibratedDefault(
                setting: "Rapport fetch steps",
                value: "Bonjour resolve over peer-to-peer (mDNS query \(rapport.resolveQueryBytes) B, answer "
                    + "\(rapport.resolveAnswerBytes) B, on mDNSResponder's schedule), TCP, "
                    + "Pair-Verify M1–M4 (\(rapport.pairVerifyBytes.map { "\($0) B" }.joined(separator: ", "))), "
                    + "_systemInfo (\(rapport.systemInfoRequestBytes) B / \(rapport.systemInfoAnswerBytes) B), payload "
                    + "request and payload; the resolve " + (rapport.resolveCached ? "answered from the cache" : "not cached")
                    + " (a cached answer takes \(rapport.cachedResolveTime), nothing on the air)",
                source: "the cached answer's 3–5 ms: PrivateDrop raw sender logs (USENIX Security 2021), where 1,498 of "
                    + "1,500 browses answered from the cache; that a Handoff receiver's cache is cold is an assumption; "
                    + "the order of steps and Pair-Verify's two round trips: the reverse-engineered Rapport protocol "
                    + "(seemoo-lab/handoff-authentication-swift); message sizes are "
                    + "assumptions from the message formats (X25519 keys 32 B, Ed25519 signatures 64 B, TLV headers)",
                evidence: .assumed,
                ranges: [PlausibleRange("cached answer", 3, 5, "ms", paths: ["\(rapportPath).cachedResolveTime"])],
                paths: ["\(rapportPath).resolveCached", "\(rapportPath).resolveQueryBytes", "\(rapportPath).resolveAnswerBytes",
                        "\(rapportPath).pairVerifyBytes",
                        "\(rapportPath).systemInfoRequestBytes", "\(rapportPath).systemInfoAnswerBytes"]),
            CalibratedDefault(
                setting: "the resolve's mDNS queries",
                value: "the first held back \(rapport.resolveHoldBack) (one draw per fetch), repeats "
                    + "\(rapport.resolveRetryInterval) after it, then each wait ×\(rapport.resolveRetryFactor) (at most "
                    + "\(RapportParameters.longestResolveRetry)); the source answers at once (SRV and TXT are unique records)",
                source: "mDNSResponder-2600.100.147 (the same in 1096.100.3 and 1310.140.1): mDNSCore/mDNS.c "
                    + "AnswerNewQuestion (RandomQueryDelay, 20–120 ms, for a question with nothing unique cached), "
                    + "mDNS_Execute (the delay is cleared after each pass, so each new question draws its own), SendQueries "
                    + "(the interval ×3 at each send made at least halfway to it), mDNSCore/uDNS.h (InitialQuestionInterval "
                    + "334 ms, QuestionIntervalStep 3, MaxQuestionInterval 1 h): queries at 0, 1.002, 4.008, 13.026 s after "
                    + "the hold-back; ProcessQuery answers unique records without delay. Assumptions, with the ranges varied: "
                    + "that the multicast exchange on AWDL, not the closed D2D plugin (mDNSMacOSX/D2D.c hands the resolve to "
                    + "it too), decides when the answer comes; a repeat 334 ms after the first query is what a question "
                    + "restarted by unicast assist (mDNSResponder 2200 and later) sends; a factor 2 is RFC 6762 §5.2's least",
                evidence: .sourced(document: "apple-oss-distributions/mDNSResponder, mDNSResponder-2600.100.147"),
                ranges: [
                    PlausibleRange("hold-back", 20, 120, "ms", paths: ["\(rapportPath).resolveHoldBack"]),
                    PlausibleRange("first repeat", 334, 1002, "ms", paths: ["\(rapportPath).resolveRetryInterval"]),
                    PlausibleRange("factor", 2, 3, "", paths: ["\(rapportPath).resolveRetryFactor"]),
                ],
                paths: ["\(rapportPath).resolveHoldBack", "\(rapportPath).resolveRetryInterval",
                        "\(rapportPath).resolveRetryFactor"]),
            CalibratedDefault(
                setting: "payload coding (size → time off the network)",
                value: "encode and seal at \(configuration.coding.encodeRate.map(\.description) ?? "no cost"), open and "
                    + "decode at \(configuration.coding.decodeRate.map(\.description) ?? "no cost"), over userInfo and the "
                    + "envelope",
                source: "assumption: a binary property list of small values encodes and decodes at tens of MB/s on a "
                    + "phone, and ChaCha20-Poly1305 runs at GB/s, so the coding dominates; 64 KiB costs about 1.6 ms "
                    + "to encode and 1.1 ms to decode; plausible 80 Mbit/s–4 Gbit/s (10–500 MB/s)",
                evidence: .assumed,
                ranges: [
                    PlausibleRange("encode rate", 80, 4000, "Mbit/s", paths: ["protocol.coding.encodeRate"]),
                    PlausibleRange("decode rate", 80, 4000, "Mbit/s", paths: ["protocol.coding.decodeRate"]),
                ]),
            CalibratedDefault(
                setting: "Rapport frame size",
                value: "one frame per message up to 16 MiB − 1 B (a 24-bit length): every payload up to the "
                    + "userInfo maximum is one frame",
                source: "assumption: the 4 B frame header read as a 1 B type and a 3 B big-endian length, as "
                    + "descriptions of the Companion protocol give it (pyatv's protocol notes); not checked against a "
                    + "capture",
                evidence: .assumed),
            CalibratedDefault(
                setting: "Rapport framing", value: "\(rapport.frameHeaderBytes) B header per frame, "
                    + "\(rapport.frameTagBytes) B tag per encrypted frame",
                source: "the reverse-engineered Rapport protocol (seemoo-lab/handoff-authentication-swift): "
                    + "ChaCha20-Poly1305 frames after Pair-Verify",
                evidence: .sourced(document: "seemoo-lab/handoff-authentication-swift"),
                paths: ["\(rapportPath).frameHeaderBytes", "\(rapportPath).frameTagBytes"]),
            CalibratedDefault(
                setting: "processing per fetch message", value: "\(rapport.processing)",
                source: "fitted to the measured runs of a fresh connection and one exchange over a cable "
                    + "(PrivateDrop evaluation data, USENIX Security 2021; calibration/data/): Kolmogorov–Smirnov "
                    + "distance 0.080–0.112 over 30 seeds, mean 0.092 (calibration/scenarios/cable-request-response.json)",
                evidence: .measured(dataset: "PrivateDrop evaluation data (USENIX Security 2021), "
                    + "calibration/data/privatedrop-cable.csv (network_ms)"),
                paths: ["\(rapportPath).processing"]),
            CalibratedDefault(
                setting: "the browse's interfaces",
                value: "peer-to-peer, and the Wi-Fi network when both devices are on the same one; the first answer "
                    + "decides the path",
                source: "Bonjour browses every interface and a peer-to-peer browse adds AWDL to them (Apple's "
                    + "includePeerToPeer documentation; pyatv reaches the Companion service on a LAN address); "
                    + "assumption: that Rapport takes the first answer (which path it prefers is not public)",
                evidence: .assumed),
            CalibratedDefault(
                setting: "cloud relay (IDS): delay per message", value: "\(configuration.relay.delay)",
                source: "assumption informed by public reports of push delivery (Apple Developer Forums thread 825224, "
                    + "VoIP pushes: mean about 800 ms, p95 about 2 s; LoginTC 2013: iOS mean 1.07 s); plausible median "
                    + "0.1–1.5 s. Each relayed message (the request, the payload) waits one draw, on top of both "
                    + "devices' links to the servers, which each device keeps open (the push connection)",
                evidence: .assumed,
                ranges: [PlausibleRange.median(of: configuration.relay.delay, 100, 1500, "ms", paths: ["protocol.relay.delay"])]),
            CalibratedDefault(
                setting: "cloud relay (IDS): largest payload in the push",
                value: "\(configuration.relay.inlineLimit) B; above it a \(configuration.relay.noticeBytes) B notice and a "
                    + "download (one more round trip to the servers)",
                source: "assumption, with its reasoning: Apple documents 4 KB as the payload limit of a remote "
                    + "notification (5 KB for a VoIP one; Apple, \"Generating a remote notification\"), and IDS "
                    + "carries its messages over the same push connection, so a payload above it is assumed not to go "
                    + "inline; that IDS applies APNs' limit is an inference, IDS's own limit is not published; that "
                    + "IDS stores a larger payload and the receiver downloads it, as Messages does with attachments, "
                    + "is an assumption too; plausible 2–16 KiB",
                evidence: .assumed,
                ranges: [PlausibleRange("inline limit", 2, 16, "KiB", paths: ["protocol.relay.inlineLimit"])],
                paths: ["protocol.relay.inlineLimit", "protocol.relay.noticeBytes"]),
            CalibratedDefault(
                setting: "Rapport request timeout, then the cloud", value: "min(t, \(rapport.requestTimeoutCap)); "
                    + (rapport.cloudFallback ? "then the request over the cloud relay (IDS)" : "no cloud fallback"),
                source: "sharingd (SDActivityPayloadManager): Rapport's timeout is min(timeout, 5 s) and the request can "
                    + "go over IDS; that the fallback follows Rapport's failure or timeout is an assumption",
                evidence: .sourced(document: "decompiled sharingd (SDActivityPayloadManager)"),
                paths: ["\(rapportPath).requestTimeoutCap", "\(rapportPath).cloudFallback"]),
            CalibratedDefault(
                setting: "fetch timeout t (4610 after t + \(configuration.payloadTimerExtra))",
                value: "\(configuration.fetchTimeout)",
                source: "placeholder: HandoffRequestTimeout's value is not public; 10 s leaves the payload timer "
                    + "(t + \(configuration.payloadTimerExtra), sharingd's extra) above Rapport's 5 s cap plus a relayed "
                    + "fetch's tail (p99 about 5 s); plausible 5–30 s",
                evidence: .assumed,
                ranges: [PlausibleRange("t", 5, 30, "s", paths: ["protocol.fetchTimeout"])],
                paths: ["protocol.payloadTimerExtra"]),
            CalibratedDefault(
                setting: "fetch connection (4609 when it fails)",
                value: "set-up gives up \(fetch.connectTimeout) after the first SYN; data after \(fetch.retryLimit) "
                    + "timeouts in a row",
                source: "assumption: Rapport's own connect timeout is not public (XNU's own is 75 s, tcp_keepinit); the "
                    + "connection gives up before the fetch timeout; plausible 3–15 s, retry limit 1–3",
                evidence: .assumed,
                ranges: [PlausibleRange("connect timeout", 3, 15, "s"), PlausibleRange("retry limit", 1, 3, "")]),
            CalibratedDefault(
                setting: "save wait", value: "at most \(configuration.saveWait) for the app's update, then the payload "
                    + "as it is",
                source: "UserActivity's defaults (UAUserActivityDefaults): the system waits at most 1.0 s for the app",
                evidence: .sourced(document: "UserActivity's defaults (decompiled UAUserActivityDefaults)"),
                paths: ["protocol.saveWait"]),
            CalibratedDefault(
                setting: "source save time", value: "\(configuration.sourceSaveTime)",
                source: "assumption: encoding a small activity and handing it to the daemon takes a few milliseconds; "
                    + "plausible median 1–20 ms",
                evidence: .assumed,
                ranges: [PlausibleRange.median(of: configuration.sourceSaveTime, 1, 20, "ms", paths: ["protocol.sourceSaveTime"])]),
            CalibratedDefault(
                setting: "userInfo maximum (4611 above it)", value: "\(configuration.userInfoLimit / 1024) KiB, checked "
                    + "at the source on the encoded payload",
                source: "that the source checks the encoded payload and refuses larger ones: UASharingAdvertiser "
                    + "(UAContinuityErrorDomain −110); the value is a hidden default, and 64 KiB is a placeholder (a "
                    + "round figure twenty times Apple's 3 KB guidance, so that the guidance and a few multiples "
                    + "pass); plausible 16 KiB–1 MiB: set protocol.userInfoLimit to your own measurement; that −110 "
                    + "reaches the app as 4611 is an assumption",
                evidence: .assumed,
                ranges: [PlausibleRange("limit", 16, 1024, "KiB", paths: ["protocol.userInfoLimit"])]),
            CalibratedDefault(
                setting: "userInfo recommended maximum (a warning above it)",
                value: "\(configuration.userInfoRecommendedLimit / 1024) KiB",
                source: "UASharingAdvertiser warns above a recommended maximum (\"may cause slow transfers\"); the value "
                    + "is an assumption: Apple's guidance of 3 KB or less (Handoff Programming Guide); no range: it "
                    + "only decides a warning, and no figure depends on it",
                evidence: .assumed, paths: ["protocol.userInfoRecommendedLimit"]),
            CalibratedDefault(
                setting: "advertisement removal",
                value: "\(configuration.advertising.removalAfterLock) after a lock, "
                    + "\(configuration.advertising.removalAfterDim) after the screen dims, "
                    + "\(configuration.advertising.removalAfterIdle) after the system goes idle; none in Low Power Mode; "
                    + "offers last \(configuration.advertising.resumeWindow) after advertising ends; updates at least "
                    + "\(configuration.advertising.minimumUpdateInterval) apart, at most "
                    + "\(configuration.advertising.maximumUpdatesPerWindow) per \(configuration.advertising.updateWindow), "
                    + "an advertisement lives at least \(configuration.advertising.minimumLife)",
                source: "UserActivity's defaults (UAUserActivityDefaults) and agent logs (\"LowPowerMode is enabled so no "
                    + "activity will be advertised\")",
                evidence: .sourced(document: "UserActivity's defaults (decompiled UAUserActivityDefaults); agent logs"),
                paths: ["\(adsPath).removalAfterLock", "\(adsPath).removalAfterDim", "\(adsPath).removalAfterIdle",
                        "\(adsPath).resumeWindow", "\(adsPath).minimumUpdateInterval", "\(adsPath).maximumUpdatesPerWindow",
                        "\(adsPath).updateWindow", "\(adsPath).minimumLife"]),
            CalibratedDefault(
                setting: "lost device: grace, then the scan stops",
                value: "offers from a device not heard for \(advertising.lostDeviceGrace) end; its scan stops "
                    + "\(advertising.scanStopAfterLoss) after its last advertisement, until the receiver's screen or "
                    + "Bluetooth comes on",
                source: "WirelessProximity and sharingd's scanner (furiousMAC/continuity; decompiled WirelessProximity): "
                    + "a lost device is kept 5 s (grace), and scanning stops 10 s after it is lost; the model counts the "
                    + "loss from the last advertisement heard, and that a screen-on or Bluetooth-on restarts the scan is "
                    + "an assumption",
                evidence: .sourced(document: "furiousMAC/continuity; decompiled WirelessProximity and sharingd"),
                paths: ["\(adsPath).lostDeviceGrace", "\(adsPath).scanStopAfterLoss"]),
            CalibratedDefault(
                setting: "presence of a device (for the grace)",
                value: "every advertisement the radio model delivers counts, inside or outside the scan windows; a "
                    + "device that sends no Handoff advertisement (resigned, idle, locked) counts as present",
                source: "assumption: the receiver keeps its list of nearby devices from all their Continuity "
                    + "advertisements (Nearby Info, type 0x10, among them; and, from a locked iPhone on iOS 18.3 or "
                    + "later, the one advertisement of an unidentified type 0x16 furiousMAC/continuity issue 10 "
                    + "reports), not only from the Handoff scan's windows; plausible range: from the Handoff scan "
                    + "alone (then a screen-off receiver, listening 1.25% of the time, would lose devices in range) "
                    + "to every advertisement",
                evidence: .assumed),
            CalibratedDefault(
                setting: "idle source",
                value: "the user is idle \(advertising.userIdleAfter) after the last input; then the advertisement "
                    + "goes after \(advertising.removalAfterIdle) and offers after the resume window",
                source: "UserActivity's defaults (UAUserActivityDefaults, iOS 18.2): user idle after 120 s; that the "
                    + "app's own calls on its activities (becomeCurrent, needsSave, …), an unlock and a screen-on count "
                    + "as input, and that the trial's start does not, is an assumption",
                evidence: .sourced(document: "UserActivity's defaults (decompiled UAUserActivityDefaults, iOS 18.2)"),
                paths: ["\(adsPath).userIdleAfter"]),
            CalibratedDefault(
                setting: "locked iPhone on iOS \(AdvertisingPolicy.nearbyOnlyWhenLockedFrom) or later",
                value: "no Handoff advertisement while locked (removed at the lock; none when an activity becomes "
                    + "current while locked); earlier versions and other devices: removed \(advertising.removalAfterLock) "
                    + "after the lock",
                source: "furiousMAC/continuity issue 10 (one observer, one iPhone): a locked iPhone on iOS 18.3+ "
                    + "sends one advertisement of an unidentified Continuity type 0x16 about every 2 s, and no "
                    + "Handoff (0x0C) or Nearby Info (0x10) advertisement; that it removes its Handoff advertisement "
                    + "at the lock, rather than after the lock's delay, is an inference from that report",
                evidence: .sourced(document: "furiousMAC/continuity issue 10 (one observation)")),
            CalibratedDefault(
                setting: "OS versions when a scenario gives none",
                value: DeviceKind.allCases.map { "\($0) \($0.defaultOSVersion)" }.joined(separator: ", "),
                source: "assumption: recent releases from before iOS 18.3's locked-iPhone behaviour, so scenarios "
                    + "without `os` keep the long-standing behaviour; set `os` to model a newer device",
                evidence: .assumed, paths: ["devices[0].os"]),
            CalibratedDefault(
                setting: "active payload update",
                value: "userActivityWillSave every \(advertising.activePayloadUpdateInterval) after becomeCurrent "
                    + "while the activity is current and needsSave",
                source: "UserActivity's defaults (UAUserActivityDefaults): active payload update interval 15 s; that "
                    + "the update is a userActivityWillSave that clears needsSave (a fetch then sends the latest save) "
                    + "is an assumption",
                evidence: .sourced(document: "UserActivity's defaults (decompiled UAUserActivityDefaults)"),
                paths: ["\(adsPath).activePayloadUpdateInterval"]),
            CalibratedDefault(
                setting: "advertisement keys through the cloud",
                value: exchange.overCloud
                    ? "when the Bluetooth LE connection of the exchange fails and both devices reach the internet, "
                        + "over the cloud relay within the same timeout"
                    : "never",
                source: "Apple Platform Security (\"Handoff security\"): \"in some situations these messages are sent "
                    + "using APNs\"; which situations is not published: a failed Bluetooth LE connection is an "
                    + "assumption",
                evidence: .assumed, paths: ["protocol.keyExchange.overCloud"]),
            CalibratedDefault(
                setting: "advertisement-key exchange",
                value: "\(exchange.firstContact ? "on first contact" : "keys exchanged before the run"); over Bluetooth "
                    + "LE, \(exchange.requestBytes) B / \(exchange.answerBytes) B, timeout \(exchange.timeout), no retry "
                    + "within \(exchange.retryHold)",
                source: "Apple Platform Security (\"Handoff security\"): a BLE key exchange on first contact; sharingd: "
                    + "15 s timeout, not repeated within 5 s; message sizes are assumptions, plausible 64–512 B each "
                    + "(an X25519 key and an Ed25519 signature with headers at the least)",
                evidence: .assumed,
                ranges: [
                    PlausibleRange("request", 64, 512, "B", paths: ["protocol.keyExchange.requestBytes"]),
                    PlausibleRange("answer", 64, 512, "B", paths: ["protocol.keyExchange.answerBytes"]),
                ],
                paths: ["protocol.keyExchange.firstContact", "protocol.keyExchange.timeout", "protocol.keyExchange.retryHold"]),
            CalibratedDefault(
                setting: "app launch", value: "cold \(AppDescription.defaultColdLaunch), warm "
                    + "\(AppDescription.defaultWarmLaunch)",
                source: "assumption; cold median: Apple's launch target of 400 ms to the first frame (WWDC 2019, "
                    + "Optimizing App Launch); log-normal because a launch is a product of many independent costs; "
                    + "warm: a placeholder, a quarter of a cold launch (the process is alive, only its scene comes "
                    + "back; plausible 30–300 ms); the same figures on every platform, a Mac included (no "
                    + "platform-specific measurement is public; a Mac app's cold launch is often longer); cold median "
                    + "plausible 200 ms–1.5 s (an app well inside Apple's target to a heavy one far past it)",
                evidence: .assumed,
                ranges: [
                    PlausibleRange.median(of: AppDescription.defaultColdLaunch, 200, 1500, "ms", quantity: "cold median",
                                          paths: ["apps[0].coldLaunch"]),
                    PlausibleRange.median(of: AppDescription.defaultWarmLaunch, 30, 300, "ms", quantity: "warm median",
                                          paths: ["apps[0].warmLaunch"]),
                ]),
            CalibratedDefault(
                setting: "browser launch", value: "\(configuration.browserLaunch)",
                source: "assumption: the browser is usually running; between a warm and a cold app launch (plausible median "
                    + "100–400 ms)",
                evidence: .assumed,
                ranges: [PlausibleRange.median(of: configuration.browserLaunch, 100, 400, "ms", paths: ["protocol.browserLaunch"])]),
            CalibratedDefault(
                setting: "protocol messages",
                value: "request \(configuration.requestBytes) B, envelope \(configuration.envelopeBytes) B per "
                    + "payload, notices \(configuration.noticeBytes) B, before framing",
                source: "assumption: the type, title, webpageURL and signatures around userInfo; Apple does not "
                    + "document the wire format; plausible: request 128–512 B, envelope 256–2,048 B (a short title "
                    + "and no URL to a long title, a long webpageURL and several signatures)",
                evidence: .assumed,
                ranges: [
                    PlausibleRange("request", 128, 512, "B", paths: ["protocol.requestBytes"]),
                    PlausibleRange("envelope", 256, 2048, "B", paths: ["protocol.envelopeBytes"]),
                ],
                paths: ["protocol.noticeBytes"]),
            CalibratedDefault(
                setting: "acceptance", value: "explicit accept actions",
                source: "scenarios say when the user accepts; a think-time distribution is available",
                evidence: .assumed, paths: ["protocol.acceptance", "devices[0].acceptance"]),
        ]
    }
}
