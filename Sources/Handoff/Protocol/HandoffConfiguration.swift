import HandoffWorld
import SimKernel

/// How the user answers offers on one device.
public enum AcceptancePolicy: Hashable, Sendable {
    /// Only explicit ``HandoffAction/accept(device:)`` actions accept.
    case explicit
    /// The user accepts every offer after a think time drawn (in seconds)
    /// from a log-normal distribution with this mean and standard deviation.
    case thinkTime(meanSeconds: Double, standardDeviationSeconds: Double)
    /// The user accepts every offer after exactly this long.
    case after(SimDuration)
}

/// The continuity protocol's settings: the path and limits of the fetch,
/// message sizes, timeouts, processing times, and how users answer offers.
///
/// Apple publishes few of these numbers. Each default is either sourced
/// (reverse-engineered behaviour of sharingd, UserActivity and Rapport) or a
/// labelled assumption; the defaults table (docs/defaults.md) lists every one
/// with its source or reasoning, and every one can be overridden.
public struct HandoffConfiguration: Hashable, Sendable {
    /// The path the payload and streams take first: Rapport browsed over
    /// Wi-Fi peer-to-peer and, when both devices are on the same Wi-Fi
    /// network, over that network too (the default, `wifiPeerToPeer`);
    /// Rapport over the local network only or over Bluetooth; or the cloud
    /// relay (IDS) straight away.
    public var fetchPath: PathKind
    /// The receiver's request timeout t: Rapport gives up after min(t,
    /// ``RapportParameters/requestTimeoutCap``) and the whole fetch fails
    /// with 4610 after t + ``payloadTimerExtra``.
    public var fetchTimeout: SimDuration
    /// What the payload timer adds to ``fetchTimeout`` (1 s in sharingd).
    public var payloadTimerExtra: SimDuration
    /// The hard maximum of the encoded `userInfo`, checked at the source;
    /// above it the source refuses and the receiver fails with 4611.
    public var userInfoLimit: Int
    /// The recommended maximum of the encoded `userInfo`, checked at the
    /// source; above it the trace warns ("may cause slow transfers").
    public var userInfoRecommendedLimit: Int
    /// How long the source waits for the app's `userActivityWillSave`
    /// before it sends what it has (1 s in UserActivity).
    public var saveWait: SimDuration
    /// The source system's own time to encode and hand over the payload once
    /// the app's update is in.
    public var sourceSaveTime: DurationDistribution
    /// The Rapport fetch: resolve, connection, Pair-Verify, `_systemInfo`,
    /// framing, per-step processing, and the cloud fallback.
    public var rapport: RapportParameters
    /// The cloud relay (IDS) the fetch falls back to: the servers' delay
    /// and what they do with a large payload.
    public var relay: RelayParameters
    /// What the payload's size costs to encode at the source and decode at
    /// the receiver.
    public var coding: PayloadCoding
    /// The first-contact advertisement-key exchange over Bluetooth LE.
    public var keyExchange: KeyExchangeParameters
    /// When the source takes its advertisement away, and how long an offer
    /// outlives it.
    public var advertising: AdvertisingPolicy
    /// Transport settings of the fetch connection (a short retry limit, so
    /// a missing connection fails before the fetch timeout).
    public var fetchTransport: TransportParameters
    /// Transport settings of continuation-stream connections.
    public var streamTransport: TransportParameters
    /// The receiver's request for the payload, in bytes (before framing).
    public var requestBytes: Int
    /// Bytes sent with every payload besides `userInfo` (type, title,
    /// webpageURL, signatures), before framing.
    public var envelopeBytes: Int
    /// The small messages that report an error or a completed continuation.
    public var noticeBytes: Int
    /// The time the browser takes to come up for a web-page continuation.
    public var browserLaunch: DurationDistribution
    /// How users answer offers, by device name; devices not listed use
    /// ``defaultAcceptance``.
    public var acceptance: [String: AcceptancePolicy]
    /// How users answer offers on devices not listed in ``acceptance``.
    public var defaultAcceptance: AcceptancePolicy
    /// The devices, by name, whose user keeps using them throughout: they
    /// never go idle, so their advertisement stays. On every other device
    /// the user counts as idle ``AdvertisingPolicy/userIdleAfter`` after the
    /// last input (a `userInput` action, an unlock or screen-on, and the
    /// app's own calls on its activities: `becomeCurrent`, `resignCurrent`,
    /// `invalidate`, `needsSave`, `addUserInfoEntries`,
    /// `isEligibleForHandoff`).
    public var devicesInUse: Set<String>

    /// The defaults.
    public init(
        fetchPath: PathKind = .wifiPeerToPeer, fetchTimeout: SimDuration = .seconds(10),
        payloadTimerExtra: SimDuration = .seconds(1), userInfoLimit: Int = 64 * 1024,
        userInfoRecommendedLimit: Int = 3 * 1024, saveWait: SimDuration = .seconds(1),
        sourceSaveTime: DurationDistribution = HandoffConfiguration.defaultSourceSaveTime,
        rapport: RapportParameters = RapportParameters(), relay: RelayParameters = RelayParameters(),
        coding: PayloadCoding = PayloadCoding(),
        keyExchange: KeyExchangeParameters = KeyExchangeParameters(),
        advertising: AdvertisingPolicy = AdvertisingPolicy(),
        fetchTransport: TransportParameters = HandoffConfiguration.defaultFetchTransport,
        streamTransport: TransportParameters = TransportParameters(), requestBytes: Int = 256, envelopeBytes: Int = 512,
        noticeBytes: Int = 64, browserLaunch: DurationDistribution = HandoffConfiguration.defaultBrowserLaunch,
        acceptance: [String: AcceptancePolicy] = [:], defaultAcceptance: AcceptancePolicy = .explicit,
        devicesInUse: Set<String> = []
    ) {
        self.devicesInUse = devicesInUse
        self.fetchPath = fetchPath
        self.fetchTimeout = fetchTimeout
        self.payloadTimerExtra = payloadTimerExtra
        self.userInfoLimit = userInfoLimit
        self.userInfoRecommendedLimit = userInfoRecommendedLimit
        self.saveWait = saveWait
        self.sourceSaveTime = sourceSaveTime
        self.rapport = rapport
        self.relay = relay
        self.coding = coding
        self.keyExchange = keyExchange
        self.advertising = advertising
        self.fetchTransport = fetchTransport
        self.streamTransport = streamTransport
        self.requestBytes = requestBytes
        self.envelopeBytes = envelopeBytes
        self.noticeBytes = noticeBytes
        self.browserLaunch = browserLaunch
        self.acceptance = acceptance
        self.defaultAcceptance = defaultAcceptance
    }

    /// The fetch connection's transport: the world's defaults with a retry
    /// limit of 2 and set-up given up 7 s after the first SYN (an
    /// assumption: Rapport's own connect timeout is not public; it gives up
    /// before the fetch timeout).
    public static let defaultFetchTransport: TransportParameters = {
        var parameters = TransportParameters()
        parameters.retryLimit = 2
        parameters.connectTimeout = .seconds(7)
        return parameters
    }()

    /// The default ``sourceSaveTime``: log-normal, median 5 ms, σ 0.5.
    ///
    /// An assumption: encoding a small activity as a property list and
    /// handing it to the daemon is a few milliseconds of work on any device.
    public static let defaultSourceSaveTime = DurationDistribution.logNormal(
        median: .milliseconds(5), sigma: 0.5, offset: .zero)

    /// The default ``browserLaunch``: log-normal, median 300 ms, σ 0.35.
    ///
    /// An assumption: the browser is usually running, so between a warm and
    /// a cold app launch, spread like an app's launch.
    public static let defaultBrowserLaunch = DurationDistribution.logNormal(
        median: .milliseconds(300), sigma: 0.35, offset: .zero)

    /// Checks every setting.
    ///
    /// - Throws: ``HandoffError/invalidParameter(name:value:expected:)``
    ///   naming the first bad one.
    public func validate() throws(HandoffError) {
        for (name, value) in [("fetchTimeout", fetchTimeout), ("payloadTimerExtra", payloadTimerExtra), ("saveWait", saveWait)]
        where value < .zero || (name == "fetchTimeout" && value == .zero) {
            throw .invalidParameter(
                name: name, value: "\(value)", expected: name == "fetchTimeout" ? "a duration > 0" : "a duration ≥ 0")
        }
        for (name, value) in [
            ("userInfoLimit", userInfoLimit), ("userInfoRecommendedLimit", userInfoRecommendedLimit),
            ("requestBytes", requestBytes), ("envelopeBytes", envelopeBytes), ("noticeBytes", noticeBytes),
        ] where value < 0 {
            throw .invalidParameter(name: name, value: "\(value)", expected: "a size ≥ 0")
        }
        try browserLaunch.check(named: "browserLaunch")
        try sourceSaveTime.check(named: "sourceSaveTime")
        try rapport.validate()
        try relay.validate()
        try keyExchange.validate()
        try advertising.validate()
        for policy in [defaultAcceptance] + acceptance.keys.sorted().compactMap({ acceptance[$0] }) {
            switch policy {
            case .explicit: break
            case let .after(delay) where delay < .zero:
                throw .invalidParameter(name: "acceptance", value: "\(delay)", expected: "a delay ≥ 0")
            case .after: break
            case let .thinkTime(mean, deviation):
                if !(mean > 0) || !mean.isFinite || !(deviation >= 0) || !deviation.isFinite {
                    throw .invalidParameter(
                        name: "acceptance", value: "think time mean \(mean) s, deviation \(deviation) s",
                        expected: "a finite mean > 0 and deviation ≥ 0")
                }
            }
        }
        do {
            try fetchTransport.validate()
            try streamTransport.validate()
        } catch {
            throw .world(error)
        }
    }

    /// The Rapport request's deadline after the fetch starts: min(t, cap).
    var rapportDeadline: SimDuration { min(fetchTimeout, rapport.requestTimeoutCap) }

    /// The payload timer: t + the extra second.
    var payloadTimer: SimDuration { fetchTimeout + payloadTimerExtra }
}

/// Everything a Handoff simulation starts from: the devices, the apps they
/// may have installed, the web's apple-app-site-association files, and the
/// settings of the world and the protocol.
public struct HandoffSetup: Sendable {
    /// The devices; each lists its installed apps by bundle ID.
    public var devices: [DeviceDescription]
    /// Every app any device may have installed.
    public var apps: [AppDescription]
    /// The apple-app-site-association files of the web.
    public var siteAssociations: SiteAssociations
    /// Links, radios and transport.
    public var world: WorldConfiguration
    /// The continuity protocol.
    public var configuration: HandoffConfiguration

    /// A setup from its parts.
    public init(
        devices: [DeviceDescription], apps: [AppDescription], siteAssociations: SiteAssociations = SiteAssociations(),
        world: WorldConfiguration = WorldConfiguration(), configuration: HandoffConfiguration = HandoffConfiguration()
    ) {
        self.devices = devices
        self.apps = apps
        self.siteAssociations = siteAssociations
        self.world = world
        self.configuration = configuration
    }
}
