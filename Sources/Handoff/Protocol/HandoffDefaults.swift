import HandoffWorld
import SimKernel

/// Every default of the continuity protocol with its source, after the
/// world's (``CalibratedDefaults``), in one table.
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
        return [
            CalibratedDefault(
                setting: "userInfo limit (4611 above it)", value: "\(configuration.userInfoLimit / 1024) KiB",
                source: "assumption: Apple publishes no hard limit, only the guidance to keep the payload at 3 KB or "
                    + "less (Handoff Programming Guide); the limit sits well above it so sweeps show the latency "
                    + "growing before the error",
                isAssumption: true),
            CalibratedDefault(
                setting: "fetch timeout (4610 after it)", value: "\(configuration.fetchTimeout)",
                source: "assumption: Apple does not document how long the receiver waits for the source",
                isAssumption: true),
            CalibratedDefault(
                setting: "fetch connection (4609 when it fails)",
                value: "retry limit \(fetch.retryLimit): setup gives up after \(total)",
                source: "assumption: short enough that a missing connection fails with 4609 before the fetch "
                    + "timeout",
                isAssumption: true),
            CalibratedDefault(
                setting: "app launch", value: "cold \(AppDescription.defaultColdLaunch), warm "
                    + "\(AppDescription.defaultWarmLaunch)",
                source: "cold: Apple's launch target of 400 ms to the first frame (WWDC 2019, Optimizing App "
                    + "Launch); warm: assumption",
                isAssumption: true),
            CalibratedDefault(
                setting: "browser launch", value: "\(configuration.browserLaunch)",
                source: "assumption: the browser is usually running; between a warm and a cold app launch",
                isAssumption: true),
            CalibratedDefault(
                setting: "protocol messages",
                value: "request \(configuration.requestBytes) B, envelope \(configuration.envelopeBytes) B per "
                    + "payload, notices \(configuration.noticeBytes) B",
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
