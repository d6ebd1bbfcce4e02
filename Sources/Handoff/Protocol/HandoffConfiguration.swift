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
/// message sizes, timeouts, and how users answer offers.
///
/// Apple publishes none of these numbers except the 3 KB payload guidance;
/// each default is an assumption documented in the defaults table (docs/defaults.md) of
/// calibrated defaults, and every one can be overridden.
public struct HandoffConfiguration: Hashable, Sendable {
    /// The path the payload and streams take.
    public var fetchPath: PathKind
    /// How long the receiver waits for the payload after starting the fetch
    /// before failing with 4610.
    public var fetchTimeout: SimDuration
    /// The largest payload the source sends; larger fails with 4611.
    public var userInfoLimit: Int
    /// Transport settings of the fetch connection (a short retry limit, so
    /// a missing connection fails with 4609 before the fetch timeout).
    public var fetchTransport: TransportParameters
    /// Transport settings of continuation-stream connections.
    public var streamTransport: TransportParameters
    /// The receiver's request for the payload, in bytes.
    public var requestBytes: Int
    /// Bytes sent with every payload besides `userInfo` (type, title,
    /// webpageURL, signatures).
    public var envelopeBytes: Int
    /// The small messages that report an error or a completed continuation.
    public var noticeBytes: Int
    /// The time the browser takes to come up for a web-page continuation.
    public var browserLaunch: SimDuration
    /// How users answer offers, by device name; devices not listed use
    /// ``defaultAcceptance``.
    public var acceptance: [String: AcceptancePolicy]
    /// How users answer offers on devices not listed in ``acceptance``.
    public var defaultAcceptance: AcceptancePolicy

    /// The defaults.
    public init(
        fetchPath: PathKind = .wifiPeerToPeer, fetchTimeout: SimDuration = .seconds(10),
        userInfoLimit: Int = 64 * 1024, fetchTransport: TransportParameters = HandoffConfiguration.defaultFetchTransport,
        streamTransport: TransportParameters = TransportParameters(), requestBytes: Int = 256, envelopeBytes: Int = 512,
        noticeBytes: Int = 64, browserLaunch: SimDuration = .milliseconds(300), acceptance: [String: AcceptancePolicy] = [:],
        defaultAcceptance: AcceptancePolicy = .explicit
    ) {
        self.fetchPath = fetchPath
        self.fetchTimeout = fetchTimeout
        self.userInfoLimit = userInfoLimit
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
    /// limit of 2, so setup gives up after 1 + 2 + 4 = 7 s.
    public static let defaultFetchTransport: TransportParameters = {
        var parameters = TransportParameters()
        parameters.retryLimit = 2
        return parameters
    }()

    /// Checks every setting.
    ///
    /// - Throws: ``HandoffError/invalidParameter(name:value:expected:)``
    ///   naming the first bad one.
    public func validate() throws(HandoffError) {
        if fetchTimeout <= .zero {
            throw .invalidParameter(name: "fetchTimeout", value: "\(fetchTimeout)", expected: "a duration > 0")
        }
        for (name, value) in [
            ("userInfoLimit", userInfoLimit), ("requestBytes", requestBytes), ("envelopeBytes", envelopeBytes),
            ("noticeBytes", noticeBytes),
        ] where value < 0 {
            throw .invalidParameter(name: name, value: "\(value)", expected: "a size ≥ 0")
        }
        if browserLaunch < .zero {
            throw .invalidParameter(name: "browserLaunch", value: "\(browserLaunch)", expected: "a duration ≥ 0")
        }
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
