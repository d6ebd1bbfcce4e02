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
        var setup = fetch.initialRetransmissionTimeout
        var total = SimDuration.zero
        for _ in 0...fetch.retryLimit {
            total += setup
            setup = setup * 2
        }
        let rapport = configuration.rapport
        let exchange = configuration.keyExchange
        return [
            CalibratedDefault(
                setting: "fetch ∥ launch",
                value: "the fetch starts at the accept, while the app launches; willContinue when the app is up; "
                    + "continue when the app is up and the payload has arrived",
                source: "Apple developer documentation: willContinue comes \"possibly before the data … is available\"; "
                    + "scene(_:continue:) only after all of the data has arrived",
                isAssumption: false),
            CalibratedDefault(
                setting: "Rapport fetch steps",
                value: "Bonjour resolve over peer-to-peer (mDNS query \(rapport.resolveQueryBytes) B, answer "
                    + "\(rapport.resolveAnswerBytes) B, repeated after \(rapport.resolveRetryInterval) then doubling), TCP, "
                    + "Pair-Verify M1–M4 (\(rapport.pairVerifyBytes.map { "\($0) B" }.joined(separator: ", "))), "
                    + "_systemInfo (\(rapport.systemInfoRequestBytes) B / \(rapport.systemInfoAnswerBytes) B), payload "
                    + "request and payload; the resolve " + (rapport.resolveCached ? "answered from the cache" : "not cached")
                    + " (a cached answer takes \(rapport.cachedResolveTime), nothing on the air)",
                source: "the cached answer's 3–5 ms: PrivateDrop raw sender logs (USENIX Security 2021), where 1,498 of "
                    + "1,500 browses answered from the cache; that a Handoff receiver's cache is cold is an assumption; "
                    + "the order of steps and Pair-Verify's two round trips: the reverse-engineered Rapport protocol "
                    + "(seemoo-lab/handoff-authentication-swift); mDNS repeats: RFC 6762 §5.2; message sizes are "
                    + "assumptions from the message formats (X25519 keys 32 B, Ed25519 signatures 64 B, TLV headers)",
                isAssumption: true),
            CalibratedDefault(
                setting: "Rapport framing", value: "\(rapport.frameHeaderBytes) B header per frame, "
                    + "\(rapport.frameTagBytes) B tag per encrypted frame",
                source: "the reverse-engineered Rapport protocol (seemoo-lab/handoff-authentication-swift): "
                    + "ChaCha20-Poly1305 frames after Pair-Verify",
                isAssumption: false),
            CalibratedDefault(
                setting: "processing per fetch message", value: "\(rapport.processing)",
                source: "assumption, fitted to the measured runs of a fresh connection and one exchange over a cable "
                    + "(PrivateDrop evaluation data, USENIX Security 2021; calibration/data/): Kolmogorov–Smirnov "
                    + "distance 0.080–0.112 over 30 seeds, mean 0.092 (calibration/scenarios/cable-request-response.json)",
                isAssumption: true),
            CalibratedDefault(
                setting: "Rapport request timeout, then the cloud", value: "min(t, \(rapport.requestTimeoutCap)); "
                    + (rapport.cloudFallback ? "then the request over the cloud relay (IDS)" : "no cloud fallback"),
                source: "sharingd (SDActivityPayloadManager): Rapport's timeout is min(timeout, 5 s) and the request can "
                    + "go over IDS; that the fallback follows Rapport's failure or timeout is an assumption",
                isAssumption: true),
            CalibratedDefault(
                setting: "fetch timeout t (4610 after t + \(configuration.payloadTimerExtra))",
                value: "\(configuration.fetchTimeout)",
                source: "assumption: HandoffRequestTimeout's value is not public; the payload timer's extra "
                    + "\(configuration.payloadTimerExtra) is sharingd's",
                isAssumption: true),
            CalibratedDefault(
                setting: "fetch connection (4609 when it fails)",
                value: "retry limit \(fetch.retryLimit): setup gives up after \(total)",
                source: "assumption: the connection gives up before the fetch timeout",
                isAssumption: true),
            CalibratedDefault(
                setting: "save wait", value: "at most \(configuration.saveWait) for the app's update, then the payload "
                    + "as it is",
                source: "UserActivity's defaults (UAUserActivityDefaults): the system waits at most 1.0 s for the app",
                isAssumption: false),
            CalibratedDefault(
                setting: "source save time", value: "\(configuration.sourceSaveTime)",
                source: "assumption: encoding a small activity and handing it to the daemon takes a few milliseconds",
                isAssumption: true),
            CalibratedDefault(
                setting: "userInfo maximum (4611 above it)", value: "\(configuration.userInfoLimit / 1024) KiB, checked "
                    + "at the source on the encoded payload",
                source: "that the source checks the encoded payload and refuses larger ones: UASharingAdvertiser "
                    + "(UAContinuityErrorDomain −110); the value is a hidden default, an assumption here; that −110 "
                    + "reaches the app as 4611 is an assumption",
                isAssumption: true),
            CalibratedDefault(
                setting: "userInfo recommended maximum (a warning above it)",
                value: "\(configuration.userInfoRecommendedLimit / 1024) KiB",
                source: "UASharingAdvertiser warns above a recommended maximum (\"may cause slow transfers\"); the value "
                    + "is an assumption: Apple's guidance of 3 KB or less (Handoff Programming Guide)",
                isAssumption: true),
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
                isAssumption: false),
            CalibratedDefault(
                setting: "advertisement-key exchange",
                value: "\(exchange.firstContact ? "on first contact" : "keys exchanged before the run"); over Bluetooth "
                    + "LE, \(exchange.requestBytes) B / \(exchange.answerBytes) B, timeout \(exchange.timeout), no retry "
                    + "within \(exchange.retryHold)",
                source: "Apple Platform Security (\"Handoff security\"): a BLE key exchange on first contact; sharingd: "
                    + "15 s timeout, not repeated within 5 s; message sizes are assumptions",
                isAssumption: true),
            CalibratedDefault(
                setting: "app launch", value: "cold \(AppDescription.defaultColdLaunch), warm "
                    + "\(AppDescription.defaultWarmLaunch)",
                source: "assumption; cold median: Apple's launch target of 400 ms to the first frame (WWDC 2019, "
                    + "Optimizing App Launch); log-normal because a launch is a product of many independent costs; "
                    + "warm: a fraction of a cold launch",
                isAssumption: true),
            CalibratedDefault(
                setting: "browser launch", value: "\(configuration.browserLaunch)",
                source: "assumption: the browser is usually running; between a warm and a cold app launch",
                isAssumption: true),
            CalibratedDefault(
                setting: "protocol messages",
                value: "request \(configuration.requestBytes) B, envelope \(configuration.envelopeBytes) B per "
                    + "payload, notices \(configuration.noticeBytes) B, before framing",
                source: "assumption: the type, title, webpageURL and signatures around userInfo; Apple does not "
                    + "document the wire format",
                isAssumption: true),
            CalibratedDefault(
                setting: "acceptance", value: "explicit accept actions",
                source: "scenarios say when the user accepts; a think-time distribution is available",
                isAssumption: true),
        ]
    }
}
