import HandoffWorld
import SimKernel

/// The continuity protocol run over a ``World``: devices advertise their
/// current activity, nearby devices check eligibility and offer it, the user
/// accepts, the app launches, the data is fetched and the app continues,
/// calling the app and activity delegates on the way.
///
/// The protocol is split by role, each a value the engine owns with its
/// own per-trial state and its reset beside it: the source and its
/// advertising (``SourceRole``), the receiver and its offers
/// (``ReceiverRole``), the fetch with the relay, streams and key exchange
/// (``FetchRole``), and how long offers live (``OfferLifetimeRole``). What
/// they all share (the world, the activities and attempts, the trace) is
/// the ``ProtocolCore``. The engine routes each event and world
/// notification to the role it concerns (`HandoffEngine+Events.swift`),
/// and a role's step that concerns another is handed on by the engine.
///
/// Every step goes through the state machines
/// (``SourceActivityMachine``, ``ContinuationMachine``); an illegal event is
/// recorded in the violations and not applied. Every step and callback is
/// recorded in the trace.
///
/// The engine is noncopyable: the ``Simulation`` inside a ``HandoffRun``,
/// the app-facing handle, drives it.
package struct HandoffEngine: SimulationModel, ~Copyable {
    /// The events the engine handles.
    package typealias Event = HandoffEvent

    /// What the roles share: the world, the setup, the activities and
    /// attempts, the trace.
    var core: ProtocolCore
    /// The source devices' side: current activities and advertising.
    var source: SourceRole
    /// The receiving devices' side: offers, acceptance, the app's launch
    /// and callbacks.
    var receiver: ReceiverRole
    /// The fetch, the relay, continuation streams and the key exchange.
    var fetch: FetchRole
    /// How long offers live: lost devices, stopped scans, idle users.
    var lifetime: OfferLifetimeRole

    /// Whether the run stops by itself once nothing is under way (no
    /// scheduled action left, no attempt in progress). Set by the run; kept
    /// across resets.
    var stopsWhenSettled = false
    /// The activity delegate of activities created without one.
    let defaultActivityDelegate = ScriptedApp()

    // MARK: What a trial changes besides the roles (reset by `reset(stream:keepsTrace:)`, below)

    /// Scheduled actions, by index.
    var actions: [HandoffAction] = []
    /// Scheduled actions not yet performed.
    var actionsRemaining = 0
    /// Whether the last check found the run unsettled and nothing in the
    /// protocol has changed since (so the check can be skipped).
    var knownUnsettled = false

    /// Starts over at time zero drawing from `stream`: exactly the
    /// simulation a new ``init(setup:stream:appDelegates:appDelegateLifetime:)``
    /// would make, without building its tables again (and keeping the app
    /// delegates, when their lifetime is the run), keeping trace records
    /// only if `keepsTrace`.
    ///
    /// Each role resets its own per-trial state, beside its fields; the
    /// engine's own are the three above.
    ///
    /// Pair it with `Simulation.reset`, which empties the scheduler; see
    /// ``HandoffRun/reset(seed:trial:)``.
    mutating func reset(stream: RandomStreamKey.Hashed, keepsTrace: Bool) {
        core.reset(stream: stream, keepsTrace: keepsTrace)
        let devices = core.world.deviceCount
        source.reset(deviceCount: devices)
        receiver.reset(deviceCount: devices)
        fetch.reset(deviceCount: devices)
        lifetime.reset(deviceCount: devices)
        actions.removeAllKeepingStorage()
        actionsRemaining = 0
        knownUnsettled = false
        FetchRole.trustPairsAtStart(in: &core)
    }

    /// A simulation of `setup`, drawing every random number from `stream`.
    ///
    /// - Parameters:
    ///   - appDelegates: makes the app delegate of an app on a device (by
    ///     device name); the built-in ``ScriptedApp`` otherwise.
    ///   - appDelegateLifetime: whether ``reset(stream:keepsTrace:)`` keeps
    ///     the delegates `appDelegates` made.
    /// - Throws: ``HandoffError`` for a duplicate app, an installed app that
    ///   is not in `setup.apps`, an acceptance policy for a device that does
    ///   not exist, an invalid configuration, or a world error.
    package init(
        setup: HandoffSetup, stream: RandomStreamKey, appDelegates factory: AppDelegateFactory? = nil,
        appDelegateLifetime: AppDelegateLifetime = .trial
    ) throws(HandoffError) {
        try setup.configuration.validate()
        var appIndex: [String: Int] = [:]
        for (index, app) in setup.apps.enumerated() {
            guard appIndex[app.bundleID] == nil else { throw .duplicateApp(app.bundleID) }
            appIndex[app.bundleID] = index
        }
        var installed: [[Int]] = []
        for device in setup.devices {
            var apps: [Int] = []
            for bundleID in device.installedApps {
                guard let index = appIndex[bundleID] else { throw .unknownApp(bundleID) }
                apps.append(index)
            }
            installed.append(apps)
        }
        let deviceNames = Set(setup.devices.map(\.name))
        for name in setup.configuration.acceptance.keys.sorted() where !deviceNames.contains(name) {
            throw .unknownDevice(name)
        }
        for name in setup.configuration.devicesInUse.sorted() where !deviceNames.contains(name) {
            throw .unknownDevice(name)
        }
        let world = try Self.world(of: setup, stream: stream.child("world"))
        core = ProtocolCore(
            world: world, setup: setup, installed: installed, appIndex: appIndex, appDelegates: factory,
            keepsAppDelegates: factory == nil || appDelegateLifetime == .run, stream: stream.numbersOnly)
        source = SourceRole(setup: setup)
        receiver = ReceiverRole(setup: setup, installed: installed)
        fetch = FetchRole(deviceCount: setup.devices.count)
        lifetime = OfferLifetimeRole(setup: setup)
        FetchRole.trustPairsAtStart(in: &core)
    }

    /// The world of `setup`, drawing from `stream`.
    private static func world(of setup: HandoffSetup, stream: RandomStreamKey) throws(HandoffError) -> World {
        do {
            return try World(devices: setup.devices, configuration: setup.world, stream: stream)
        } catch {
            throw .world(error)
        }
    }

    // MARK: Activities

    /// Creates an activity of `app` on `device` (in state `created`; the
    /// app is running there from now on).
    ///
    /// - Parameter delegate: the activity delegate; a ``ScriptedApp`` with
    ///   default behaviour otherwise.
    /// - Throws: ``HandoffError/unknownDevice(_:)``,
    ///   ``HandoffError/unknownApp(_:)``, or
    ///   ``HandoffError/appNotInstalled(bundleID:device:)`` when the app is
    ///   not installed on the device.
    mutating func createActivity(
        _ content: ActivityContent, on device: String, app bundleID: String,
        delegate: (any UserActivityDelegate)? = nil
    ) throws(HandoffError) -> ActivityID {
        guard let deviceNumber = core.deviceNumber(device) else { throw .unknownDevice(device) }
        guard let app = core.appNumber(bundleID) else { throw .unknownApp(bundleID) }
        guard core.installed[deviceNumber].contains(app) else {
            throw .appNotInstalled(bundleID: bundleID, device: device)
        }
        let id = ActivityID(core.activities.count)
        var content = content
        if let path = content.documentPath {
            content.userInfo[documentURLKey] = .url(UbiquityContainer.url(
                of: path, bundleID: bundleID, device: device,
                platform: core.world.deviceTable.platform(of: DeviceID(deviceNumber))))
        }
        core.activities.append(SourceActivity(
            id: id, device: DeviceID(deviceNumber), app: app, content: content,
            delegate: delegate ?? defaultActivityDelegate))
        let devices = core.world.deviceCount
        receiver.activityCreated(app: app, on: deviceNumber, deviceCount: devices)
        for _ in 0..<devices { core.attemptIndex.append(nil) }
        return id
    }

    /// The activity's content as its app sees it now.
    func content(of activity: ActivityID) -> ActivityContent { core.activities[activity.index].content }

    /// The activity's state on its source device.
    func state(of activity: ActivityID) -> SourceActivityMachine.State { core.activities[activity.index].state }

    /// The state of the continuation attempt of `activity` on `device`, if
    /// there is one.
    func continuationState(of activity: ActivityID, on device: String) -> ContinuationMachine.State? {
        guard let number = core.deviceNumber(device),
            let attempt = core.attemptIndex[core.pairSlot(activity.index, number)]
        else {
            return nil
        }
        return core.attempts[attempt].state
    }

    /// Records `action` to run at `time`.
    ///
    /// - Throws: ``HandoffError/unknownDevice(_:)`` for a device name that
    ///   does not exist, ``HandoffError/invalidParameter(name:value:expected:)``
    ///   for an activity that does not exist or a time in the past.
    mutating func schedule(
        _ action: HandoffAction, at time: SimInstant, into scheduler: inout Scheduler<HandoffEvent>
    ) throws(HandoffError) {
        switch action {
        case let .becomeCurrent(id), let .resignCurrent(id), let .invalidate(id), let .setNeedsSave(id, _),
            let .addUserInfoEntries(id, _), let .setEligibleForHandoff(id, _):
            guard id.index >= 0, id.index < core.activities.count else {
                throw .invalidParameter(name: "activity", value: "\(id)", expected: "an activity created earlier")
            }
        case let .accept(device), let .setSettings(device, _), let .setAccount(device, _), let .userInput(device):
            guard core.deviceNumber(device) != nil else { throw .unknownDevice(device) }
        }
        guard time >= scheduler.now else {
            throw .invalidParameter(name: "time", value: "\(time)", expected: "an instant not before \(scheduler.now)")
        }
        actions.append(action)
        actionsRemaining += 1
        scheduler.schedule(.action(Int32(actions.count - 1)), at: time)
    }
}
