import HandoffWorld
import SimKernel

/// What every role of the protocol shares: the world it runs over, the
/// setup and its app tables, and the per-trial records all of them read
/// and write (the activities and the continuation attempts, the trace and
/// the violations, the stream drawn from, the app delegates).
///
/// The roles (``SourceRole``, ``ReceiverRole``, ``FetchRole``,
/// ``OfferLifetimeRole``) keep their own state and get this one passed in;
/// the ``HandoffEngine`` owns it beside them. Recording and the state
/// machines' steps are in `ProtocolCore+Trace.swift`.
///
/// Noncopyable, as the world in it: the engine holds it in place.
struct ProtocolCore: ~Copyable {
    // MARK: What a run fixes

    /// The world the protocol runs over (its own per-trial state is reset
    /// with it).
    var world: World
    /// The setup the run started from.
    let setup: HandoffSetup
    /// Installed apps per device, as indices into `setup.apps`, in the
    /// device's listed order.
    let installed: [[Int]]
    /// Each app's bundle ID.
    let appBundleIDs: [String]
    /// Each app's index by bundle ID.
    let appIndex: [String: Int]
    /// Makes the app delegate of an app on a device.
    let makeAppDelegate: AppDelegateFactory
    /// Whether a reset keeps the app delegates: the built-in
    /// ``ScriptedApp``s keep no state, and a factory's are kept when its
    /// lifetime says so.
    let keepsAppDelegates: Bool
    /// Restoration lists kept for the next trials' `continue` callbacks.
    var restorationLists = RestorationListPool()

    // MARK: What a trial changes (reset by `reset(stream:keepsTrace:)`, below)

    /// The stream this trial draws from.
    var stream: RandomStreamKey.Hashed
    /// The time of the latest event handled.
    var clock: SimInstant = .zero
    /// Every step and callback so far (kept only while ``keepsTrace``).
    var trace: [TraceRecord] = []
    /// Whether ``trace`` keeps records (otherwise only ``traceCount``
    /// counts them).
    var keepsTrace = true
    /// The number of trace records produced.
    var traceCount = 0
    /// Illegal transitions; a run with any has failed.
    var violations: [Violation] = []
    /// The activities, by ``ActivityID``.
    var activities: [SourceActivity] = []
    /// The continuation attempts, in the order they were discovered.
    var attempts: [Attempt] = []
    /// The attempt of each activity on each device (activity × device).
    var attemptIndex: [Int?] = []
    /// App delegates per device × app, made on first use.
    var appDelegates: [HandoffDelegate?] = []

    /// Starts a trial drawing from `stream`, keeping trace records only if
    /// `keepsTrace`: the world is reset, every per-trial field above starts
    /// as in a new run, and only buffers carry over (and the app delegates,
    /// when their lifetime is the run), so that a reset allocates nothing
    /// once they have grown.
    mutating func reset(stream: RandomStreamKey.Hashed, keepsTrace: Bool) {
        world.reset(stream: stream.child(HandoffStreamNames.world))
        self.stream = stream
        clock = .zero
        trace.removeAllKeepingStorage()
        self.keepsTrace = keepsTrace
        traceCount = 0
        violations.removeAllKeepingStorage()
        activities.removeAllKeepingStorage()
        for index in attempts.indices { restorationLists.keep(&attempts[index].restorations) }
        attempts.removeAllKeepingStorage()
        attemptIndex.removeAllKeepingStorage()
        if !keepsAppDelegates {
            appDelegates.refill(with: nil, count: world.deviceCount * setup.apps.count)
        }
    }

    /// The shared state of a run of `setup` over `world`, drawing from
    /// `stream`.
    init(
        world: consuming World, setup: HandoffSetup, installed: [[Int]], appIndex: [String: Int],
        appDelegates factory: AppDelegateFactory?, keepsAppDelegates: Bool, stream: RandomStreamKey.Hashed
    ) {
        self.world = world
        self.setup = setup
        self.installed = installed
        self.appIndex = appIndex
        appBundleIDs = setup.apps.map(\.bundleID)
        makeAppDelegate = factory ?? { _, _ in .application(ScriptedApp()) }
        self.keepsAppDelegates = keepsAppDelegates
        self.stream = stream
        appDelegates = Array(repeating: nil, count: setup.devices.count * setup.apps.count)
    }

    // MARK: Look-ups

    /// The number of the device named `name`.
    func deviceNumber(_ name: String) -> Int? {
        world.deviceTable.device(named: name)?.index
    }

    /// The index of the app with `bundleID`: a scan of the IDs for a few
    /// apps, the table otherwise.
    func appNumber(_ bundleID: String) -> Int? {
        if appBundleIDs.count <= 8 { return appBundleIDs.firstIndex(of: bundleID) }
        return appIndex[bundleID]
    }

    /// The slot of (activity, device) in the per-pair tables.
    func pairSlot(_ activity: Int, _ device: Int) -> Int { activity * world.deviceCount + device }

    /// The name of `device`.
    func deviceName(_ device: DeviceID) -> String { world.deviceTable.name(of: device) }

    /// The bundle ID of the app that created activity `id`.
    @inline(__always)
    func sourceApp(_ id: ActivityID) -> String { appBundleIDs[activities[id.index].app] }

    /// The app delegate of `app` on `device`, made on first use.
    mutating func appDelegate(device: DeviceID, app: Int) -> HandoffDelegate {
        let index = device.index * setup.apps.count + app
        if let delegate = appDelegates[index] { return delegate }
        let delegate = makeAppDelegate(deviceName(device), setup.apps[app])
        appDelegates[index] = delegate
        return delegate
    }

    /// The app's stream callbacks, if its delegate adopts them.
    mutating func streamsDelegate(device: DeviceID, app: Int) -> (any ContinuationStreamsDelegate)? {
        appDelegate(device: device, app: app).object as? any ContinuationStreamsDelegate
    }

    /// Whether the source can still hand the activity to `receiver`: not
    /// invalidated, and the source still signed in to the receiver's
    /// account with Handoff on.
    func isSourceAvailable(_ id: ActivityID, for receiver: DeviceID) -> Bool {
        let source = activities[id.index].device
        guard activities[id.index].state != .invalidated else { return false }
        return world.deviceTable.settings(of: source).handoffEnabled && world.deviceTable.shareAccount(source, receiver)
    }

    /// Whether an activity of `source` is discovered or offered on
    /// `receiver` (not yet accepted, not withdrawn).
    func hasPendingOffer(from source: DeviceID, on receiver: Int) -> Bool {
        for activity in activities where activity.device == source {
            guard let attempt = attemptIndex[pairSlot(activity.id.index, receiver)] else { continue }
            switch attempts[attempt].state {
            case .discovered, .offered: return true
            case .accepted, .launching, .willContinue, .continued, .restored, .failed, .withdrawn, .inBrowser: continue
            }
        }
        return false
    }
}
