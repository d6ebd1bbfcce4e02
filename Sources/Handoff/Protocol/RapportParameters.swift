import HandoffWorld
import SimKernel

/// How the receiver fetches the payload over Rapport, Apple's
/// "companion-link" protocol, and when it falls back to the cloud.
///
/// The steps, in order (sourced from the reverse-engineered protocol; see
/// the defaults table in docs/defaults.md):
/// 1. a Bonjour resolve of the source's `_companion-link._tcp` service over
///    peer-to-peer, which switches AWDL on (an mDNS query and its answer,
///    both multicast, on mDNSResponder's schedule: the first query held
///    back by ``resolveHoldBack``, the repeats 1.002 s, then 3 s, 9 s …
///    apart), or answered from the receiver's cache (``resolveCached``);
/// 2. a TCP connection;
/// 3. Pair-Verify in two round trips (M1 → M2, M3 → M4);
/// 4. a `_systemInfo` request and its answer;
/// 5. the payload request and the payload.
///
/// Each message after the resolve is one Rapport frame: a 4 B header, and a
/// 16 B authentication tag once Pair-Verify has set up encryption. Each
/// device spends ``processing`` on every message it answers (the
/// cryptography of Pair-Verify, the daemons' scheduling).
///
/// Rapport gives up after min(t, ``requestTimeoutCap``), t being
/// ``HandoffConfiguration/fetchTimeout``; then, or at once when its
/// connection fails, the request goes over the cloud relay (IDS) when
/// ``cloudFallback`` is on.
public struct RapportParameters: Hashable, Sendable {
    /// The mDNS query's payload bytes.
    public var resolveQueryBytes: Int
    /// The mDNS answer's payload bytes.
    public var resolveAnswerBytes: Int
    /// How long a new question is held back before its first query
    /// (mDNSResponder's `RandomQueryDelay`: uniform 20–120 ms, drawn for
    /// each new question; `mDNSCore/mDNS.c`, `AnswerNewQuestion`), one draw
    /// per fetch attempt.
    public var resolveHoldBack: DurationDistribution
    /// The wait between the first query and its first repeat
    /// (mDNSResponder: 1.002 s, `InitialQuestionInterval` (334 ms)
    /// tripled at the first send; `mDNSCore/uDNS.h`, `mDNS.c`
    /// `SendQueries`).
    public var resolveRetryInterval: SimDuration
    /// How much longer each next wait between repeats is than the one
    /// before (mDNSResponder: 3, `QuestionIntervalStep`; RFC 6762 §5.2
    /// asks for at least 2). A wait never exceeds an hour
    /// (`MaxQuestionInterval`).
    public var resolveRetryFactor: Int
    /// Whether the receiver's Bonjour cache holds the source's service, so
    /// the resolve answers locally after ``cachedResolveTime`` with nothing
    /// on the air (as in the measured runs; AWDL is still switched on by
    /// the browse).
    public var resolveCached: Bool
    /// How long a resolve answered from the cache takes.
    public var cachedResolveTime: SimDuration
    /// The payload bytes of Pair-Verify's four messages, M1 to M4, before
    /// framing.
    public var pairVerifyBytes: [Int]
    /// The `_systemInfo` request's payload bytes.
    public var systemInfoRequestBytes: Int
    /// The `_systemInfo` answer's payload bytes.
    public var systemInfoAnswerBytes: Int
    /// Every frame's header bytes.
    public var frameHeaderBytes: Int
    /// The authentication tag of every encrypted frame (all frames after
    /// Pair-Verify's).
    public var frameTagBytes: Int
    /// A device's time to handle one message and send the next (on either
    /// side).
    public var processing: DurationDistribution
    /// The cap on Rapport's request timeout: min(t, cap).
    public var requestTimeoutCap: SimDuration
    /// Whether the request goes over the cloud relay (IDS) when Rapport
    /// fails or times out.
    public var cloudFallback: Bool

    /// Creates Rapport settings; omitted values take the defaults.
    public init(
        resolveQueryBytes: Int = 64, resolveAnswerBytes: Int = 256,
        resolveHoldBack: DurationDistribution = RapportParameters.defaultResolveHoldBack,
        resolveRetryInterval: SimDuration = .milliseconds(1002), resolveRetryFactor: Int = 3,
        resolveCached: Bool = false, cachedResolveTime: SimDuration = .milliseconds(4),
        pairVerifyBytes: [Int] = [37, 159, 123, 3], systemInfoRequestBytes: Int = 64,
        systemInfoAnswerBytes: Int = 512, frameHeaderBytes: Int = 4, frameTagBytes: Int = 16,
        processing: DurationDistribution = RapportParameters.defaultProcessing,
        requestTimeoutCap: SimDuration = .seconds(5), cloudFallback: Bool = true
    ) {
        self.resolveQueryBytes = resolveQueryBytes
        self.resolveAnswerBytes = resolveAnswerBytes
        self.resolveHoldBack = resolveHoldBack
        self.resolveRetryInterval = resolveRetryInterval
        self.resolveRetryFactor = resolveRetryFactor
        self.resolveCached = resolveCached
        self.cachedResolveTime = cachedResolveTime
        self.pairVerifyBytes = pairVerifyBytes
        self.systemInfoRequestBytes = systemInfoRequestBytes
        self.systemInfoAnswerBytes = systemInfoAnswerBytes
        self.frameHeaderBytes = frameHeaderBytes
        self.frameTagBytes = frameTagBytes
        self.processing = processing
        self.requestTimeoutCap = requestTimeoutCap
        self.cloudFallback = cloudFallback
    }

    /// The default ``resolveHoldBack``: uniform from 20 to 120 ms.
    ///
    /// mDNSResponder draws `RandomQueryDelay = (1000 + mDNSRandom(5000) − 1) / 50 + 1`
    /// ms (`mDNSCore/mDNS.c`, `AnswerNewQuestion`) for the first new
    /// question of a pass of its run loop, shares it with the questions
    /// started in the same pass, and clears it at the end of the pass
    /// (`mDNS_Execute`): each resolve gets its own draw.
    public static let defaultResolveHoldBack = DurationDistribution.uniform(
        lower: .milliseconds(20), upper: .milliseconds(120))

    /// The longest wait between two queries of one question (mDNSResponder's
    /// `MaxQuestionInterval`, `mDNSCore/uDNS.h`).
    public static let longestResolveRetry = SimDuration.seconds(3600)

    /// The wait after query `query` (0 for the first) of an unanswered
    /// resolve: ``resolveRetryInterval`` × ``resolveRetryFactor``^`query`,
    /// at most ``longestResolveRetry``.
    public func resolveWait(after query: Int) -> SimDuration {
        var wait = resolveRetryInterval
        for _ in 0..<max(query, 0) {
            guard wait < Self.longestResolveRetry else { break }
            wait = wait * Int64(resolveRetryFactor)
        }
        return min(wait, Self.longestResolveRetry)
    }

    /// The default ``processing``: log-normal, median 14.2 ms, σ 0.08.
    ///
    /// Fitted to the measured runs of a fresh connection and one exchange
    /// over a cable (`calibration/scenarios/cable-request-response.json`; see
    /// the defaults table).
    public static let defaultProcessing = DurationDistribution.logNormal(
        median: .microseconds(14_200), sigma: 0.08, offset: .zero)

    /// The bytes a frame of `payload` bytes takes on the connection.
    func framed(_ payload: Int, encrypted: Bool = true) -> Int {
        payload + frameHeaderBytes + (encrypted ? frameTagBytes : 0)
    }

    /// Checks every setting.
    ///
    /// - Throws: ``HandoffError/invalidParameter(name:value:expected:)``.
    public func validate() throws(HandoffError) {
        guard pairVerifyBytes.count == 4 else {
            throw .invalidParameter(
                name: "rapport.pairVerifyBytes", value: "\(pairVerifyBytes.count) sizes", expected: "4 sizes, M1 to M4")
        }
        for (name, value) in [
            ("resolveQueryBytes", resolveQueryBytes), ("resolveAnswerBytes", resolveAnswerBytes),
            ("systemInfoRequestBytes", systemInfoRequestBytes), ("systemInfoAnswerBytes", systemInfoAnswerBytes),
            ("frameHeaderBytes", frameHeaderBytes), ("frameTagBytes", frameTagBytes),
        ] + pairVerifyBytes.enumerated().map({ ("pairVerifyBytes[\($0.offset)]", $0.element) }) where value < 0 || value > 1 << 20 {
            throw .invalidParameter(name: "rapport.\(name)", value: "\(value) B", expected: "a size from 0 to 1 MiB")
        }
        guard resolveRetryInterval > .zero, resolveRetryInterval <= Self.longestResolveRetry else {
            throw .invalidParameter(
                name: "rapport.resolveRetryInterval", value: "\(resolveRetryInterval)", expected: "a duration > 0 and at most 1 h")
        }
        guard (1...16).contains(resolveRetryFactor) else {
            throw .invalidParameter(
                name: "rapport.resolveRetryFactor", value: "\(resolveRetryFactor)", expected: "a whole number from 1 to 16")
        }
        try resolveHoldBack.check(named: "rapport.resolveHoldBack")
        guard cachedResolveTime >= .zero, cachedResolveTime <= .seconds(10) else {
            throw .invalidParameter(
                name: "rapport.cachedResolveTime", value: "\(cachedResolveTime)", expected: "a duration from 0 to 10s")
        }
        guard requestTimeoutCap > .zero else {
            throw .invalidParameter(
                name: "rapport.requestTimeoutCap", value: "\(requestTimeoutCap)", expected: "a duration > 0")
        }
        try processing.check(named: "rapport.processing")
    }
}

/// The first-contact exchange of advertising keys over Bluetooth LE.
///
/// A receiver that sees an advertisement under a key it does not know opens
/// a Bluetooth LE connection to the source and exchanges keys before it can
/// read the advertisement (Apple Platform Security, "Handoff security");
/// sharingd's key request times out after 15 s and is not repeated within
/// 5 s.
public struct KeyExchangeParameters: Hashable, Sendable {
    /// Whether the devices meet for the first time: no pair on the same
    /// account has exchanged advertising keys when the run starts. When
    /// `false` (the default, the usual case), pairs signed in to the same
    /// account start with keys exchanged; a pair whose account changes
    /// during the run exchanges again.
    public var firstContact: Bool
    /// The request's payload bytes.
    public var requestBytes: Int
    /// The answer's payload bytes.
    public var answerBytes: Int
    /// How long the receiver waits for the keys.
    public var timeout: SimDuration
    /// How long after a failed exchange the receiver does not try again.
    public var retryHold: SimDuration
    /// Whether the keys come through the cloud relay when the Bluetooth LE
    /// connection for the exchange fails and both devices reach the
    /// internet.
    ///
    /// Apple Platform Security ("Handoff security") says that "in some
    /// situations these messages are sent using APNs"; which situations is
    /// not published. That a failed Bluetooth LE connection is one of them
    /// is an assumption; the exchange keeps its timeout.
    public var overCloud: Bool

    /// Creates key-exchange settings; omitted values take the defaults.
    public init(
        firstContact: Bool = false, requestBytes: Int = 128, answerBytes: Int = 128, timeout: SimDuration = .seconds(15),
        retryHold: SimDuration = .seconds(5), overCloud: Bool = true
    ) {
        self.overCloud = overCloud
        self.firstContact = firstContact
        self.requestBytes = requestBytes
        self.answerBytes = answerBytes
        self.timeout = timeout
        self.retryHold = retryHold
    }

    /// Checks every setting.
    ///
    /// - Throws: ``HandoffError/invalidParameter(name:value:expected:)``.
    public func validate() throws(HandoffError) {
        for (name, value) in [("requestBytes", requestBytes), ("answerBytes", answerBytes)] where value < 0 || value > 1 << 20 {
            throw .invalidParameter(name: "keyExchange.\(name)", value: "\(value) B", expected: "a size from 0 to 1 MiB")
        }
        guard timeout > .zero else {
            throw .invalidParameter(name: "keyExchange.timeout", value: "\(timeout)", expected: "a duration > 0")
        }
        guard retryHold >= .zero else {
            throw .invalidParameter(name: "keyExchange.retryHold", value: "\(retryHold)", expected: "a duration ≥ 0")
        }
    }
}

/// How the source system advertises the current activity and takes the
/// advertisement away (UserActivity's defaults, UAUserActivityDefaults).
public struct AdvertisingPolicy: Hashable, Sendable {
    /// The advertisement is removed this long after the source locks.
    public var removalAfterLock: SimDuration
    /// … after its screen dims (goes off).
    public var removalAfterDim: SimDuration
    /// … after the system goes idle.
    public var removalAfterIdle: SimDuration
    /// How long after advertising ends an offer can still be accepted; then
    /// receivers take it away.
    public var resumeWindow: SimDuration
    /// The shortest time between two advertisement updates (a new current
    /// activity); a later one waits.
    public var minimumUpdateInterval: SimDuration
    /// At most this many updates in any ``updateWindow``.
    public var maximumUpdatesPerWindow: Int
    /// The window of ``maximumUpdatesPerWindow``.
    public var updateWindow: SimDuration
    /// The shortest time an advertisement lives before an update replaces
    /// it.
    public var minimumLife: SimDuration
    /// The source's user counts as idle this long after the last input (the
    /// system then goes idle, and ``removalAfterIdle`` later the
    /// advertisement goes).
    public var userIdleAfter: SimDuration
    /// While an activity is current and its app keeps it dirty
    /// (`needsSave`), the system asks for an update this often
    /// (`userActivityWillSave`).
    public var activePayloadUpdateInterval: SimDuration
    /// A receiver keeps a device it no longer hears this long after the
    /// last advertisement it heard from it; then the device is removed and
    /// its offers end.
    public var lostDeviceGrace: SimDuration
    /// A receiver stops scanning for a lost device this long after the
    /// last advertisement it heard from it; after that it hears the device
    /// again only once its scanning restarts.
    public var scanStopAfterLoss: SimDuration

    /// The first iOS version on which a locked iPhone sends no Handoff
    /// advertisement, only one of an unidentified Continuity type 0x16
    /// about every 2 s (not Nearby Info, which is type 0x10;
    /// furiousMAC/continuity issue 10, one observation): 18.3.
    public static let nearbyOnlyWhenLockedFrom = OSVersion(18, 3)

    /// Creates an advertising policy; omitted values take the defaults.
    public init(
        removalAfterLock: SimDuration = .seconds(8), removalAfterDim: SimDuration = .seconds(10),
        removalAfterIdle: SimDuration = .seconds(3), resumeWindow: SimDuration = .seconds(10),
        minimumUpdateInterval: SimDuration = .milliseconds(500), maximumUpdatesPerWindow: Int = 5,
        updateWindow: SimDuration = .seconds(10), minimumLife: SimDuration = .seconds(3),
        userIdleAfter: SimDuration = .seconds(120), activePayloadUpdateInterval: SimDuration = .seconds(15),
        lostDeviceGrace: SimDuration = .seconds(5), scanStopAfterLoss: SimDuration = .seconds(10)
    ) {
        self.userIdleAfter = userIdleAfter
        self.activePayloadUpdateInterval = activePayloadUpdateInterval
        self.lostDeviceGrace = lostDeviceGrace
        self.scanStopAfterLoss = scanStopAfterLoss
        self.removalAfterLock = removalAfterLock
        self.removalAfterDim = removalAfterDim
        self.removalAfterIdle = removalAfterIdle
        self.resumeWindow = resumeWindow
        self.minimumUpdateInterval = minimumUpdateInterval
        self.maximumUpdatesPerWindow = maximumUpdatesPerWindow
        self.updateWindow = updateWindow
        self.minimumLife = minimumLife
    }

    /// Checks every setting.
    ///
    /// - Throws: ``HandoffError/invalidParameter(name:value:expected:)``.
    public func validate() throws(HandoffError) {
        for (name, value) in [
            ("removalAfterLock", removalAfterLock), ("removalAfterDim", removalAfterDim),
            ("removalAfterIdle", removalAfterIdle), ("resumeWindow", resumeWindow),
            ("minimumUpdateInterval", minimumUpdateInterval), ("updateWindow", updateWindow), ("minimumLife", minimumLife),
        ] where value < .zero {
            throw .invalidParameter(name: "advertising.\(name)", value: "\(value)", expected: "a duration ≥ 0")
        }
        for (name, value) in [
            ("userIdleAfter", userIdleAfter), ("activePayloadUpdateInterval", activePayloadUpdateInterval),
            ("lostDeviceGrace", lostDeviceGrace),
        ] where value <= .zero {
            throw .invalidParameter(name: "advertising.\(name)", value: "\(value)", expected: "a duration > 0")
        }
        guard scanStopAfterLoss >= lostDeviceGrace else {
            throw .invalidParameter(
                name: "advertising.scanStopAfterLoss", value: "\(scanStopAfterLoss)",
                expected: "a duration of at least advertising.lostDeviceGrace (\(lostDeviceGrace))")
        }
        guard maximumUpdatesPerWindow >= 1, maximumUpdatesPerWindow <= 64 else {
            throw .invalidParameter(
                name: "advertising.maximumUpdatesPerWindow", value: "\(maximumUpdatesPerWindow)",
                expected: "a count from 1 to 64")
        }
    }

    /// How long after entering `settings`' state (with the user idle or
    /// not) the advertisement is removed (the shortest rule that applies),
    /// or `nil` while the device is in use.
    func removalDelay(_ settings: DeviceSettings, userIdle: Bool = false) -> SimDuration? {
        var delay: SimDuration?
        func consider(_ value: SimDuration) { delay = min(delay ?? value, value) }
        switch settings.screen {
        case .on: break
        case .off: consider(removalAfterDim)
        case .locked: consider(removalAfterLock)
        }
        if settings.idle || userIdle { consider(removalAfterIdle) }
        return delay
    }
}
