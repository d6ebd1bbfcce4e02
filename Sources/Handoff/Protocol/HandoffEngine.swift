import HandoffWorld
import SimKernel

/// The continuity protocol run over a ``World``: devices advertise their
/// current activity, nearby devices check eligibility and offer it, the user
/// accepts, the app launches, the data is fetched and the app continues,
/// calling the app and activity delegates on the way.
///
/// Every step goes through the state machines
/// (``SourceActivityMachine``, ``ContinuationMachine``); an illegal event is
/// recorded in ``violations`` and not applied. Every step and callback is
/// recorded in ``trace``.
///
/// The engine is noncopyable: the ``Simulation`` inside a ``HandoffRun``,
/// the app-facing handle, drives it.
package struct HandoffEngine: SimulationModel, ~Copyable {
    package typealias Event = HandoffEvent

    /// The world the protocol runs over.
    package internal(set) var world: World
    /// The setup it started from.
    package let setup: HandoffSetup
    // What a run fixes: the world's tables and configuration live in the
    // world, the setup and its tables here. What changes during a trial is
    // in `trial` (see HandoffEngine+TrialState), which a reset rebuilds.

    /// The state of the current trial.
    var trial: TrialState
    /// Whether the run stops by itself once nothing is under way (no
    /// scheduled action left, no attempt in progress).
    var stopsWhenSettled = false
    /// Restoration lists kept for the next trials' `continue` callbacks.
    var restorationLists = RestorationListPool()
    /// Installed apps per device, as indices into `setup.apps`, in the
    /// device's listed order.
    let installed: [[Int]]
    /// Per device: the installed apps that run on its platform (the
    /// candidates for a native continuation there).
    let runnableApps: [[Int]]
    /// Per app: its Team ID as a small number (equal IDs, equal numbers),
    /// so the eligibility check compares integers.
    let appTeams: [Int]
    let makeAppDelegate: AppDelegateFactory
    /// Each app's bundle ID.
    let appBundleIDs: [String]
    let appIndex: [String: Int]
    /// The activity delegate of activities created without one.
    let defaultActivityDelegate = ScriptedApp()
    /// Whether ``reset(stream:keepsTrace:)`` keeps the app delegates: the
    /// built-in ``ScriptedApp``s keep no state, and a factory's are kept
    /// when its lifetime says so.
    let keepsAppDelegates: Bool
    /// How each device's user answers offers.
    let acceptancePolicies: [AcceptancePolicy]
    /// Whether each device's user accepts offers without an action.
    let acceptsAutomatically: [Bool]
    /// Whether each device's user keeps using it throughout (it never goes
    /// idle).
    let inUseThroughout: [Bool]
    /// Whether each device is an iPhone whose iOS sends no Handoff
    /// advertisement while locked (18.3 or later).
    let nearbyOnlyWhenLocked: [Bool]

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
        world = try Self.world(of: setup, stream: stream.child("world"))
        self.setup = setup
        self.appIndex = appIndex
        self.installed = installed
        runnableApps = zip(setup.devices, installed).map { device, apps in
            apps.filter { setup.apps[$0].runs(on: device.kind.platform) }
        }
        var teamNumbers: [TeamID: Int] = [:]
        appTeams = setup.apps.map { app in
            if let number = teamNumbers[app.teamID] { return number }
            teamNumbers[app.teamID] = teamNumbers.count
            return teamNumbers.count - 1
        }
        appBundleIDs = setup.apps.map(\.bundleID)
        makeAppDelegate = factory ?? { _, _ in .application(ScriptedApp()) }
        trial = TrialState(
            stream: stream.numbersOnly, deviceCount: setup.devices.count, appCount: setup.apps.count,
            updatesPerWindow: setup.configuration.advertising.maximumUpdatesPerWindow)
        keepsAppDelegates = factory == nil || appDelegateLifetime == .run
        acceptancePolicies = setup.devices.map { device in
            setup.configuration.acceptance[device.name] ?? setup.configuration.defaultAcceptance
        }
        acceptsAutomatically = acceptancePolicies.map { $0 != .explicit }
        inUseThroughout = setup.devices.map { setup.configuration.devicesInUse.contains($0.name) }
        nearbyOnlyWhenLocked = setup.devices.map {
            $0.kind == .iPhone && $0.osVersion >= AdvertisingPolicy.nearbyOnlyWhenLockedFrom
        }
        trustPairsAtStart()
    }

    /// The world of `setup`, drawing from `stream`.
    private static func world(of setup: HandoffSetup, stream: RandomStreamKey) throws(HandoffError) -> World {
        do {
            return try World(devices: setup.devices, configuration: setup.world, stream: stream)
        } catch {
            throw .world(error)
        }
    }

    /// Starts over at time zero drawing from `stream`: exactly the
    /// simulation a new ``init(setup:stream:appDelegates:appDelegateLifetime:)``
    /// would make, without building its tables again (and keeping the app
    /// delegates, when their lifetime is the run), keeping trace records
    /// only if `keepsTrace`.
    ///
    /// Pair it with `Simulation.reset`, which empties the scheduler; see
    /// ``HandoffRun/reset(seed:trial:)``.
    mutating func reset(stream: RandomStreamKey.Hashed, keepsTrace: Bool) {
        world.reset(stream: stream.child(HandoffStreamNames.world))
        trial.rebuild(
            stream: stream, keepsTrace: keepsTrace, deviceCount: world.deviceCount, appCount: setup.apps.count,
            updatesPerWindow: setup.configuration.advertising.maximumUpdatesPerWindow,
            keepingDelegates: keepsAppDelegates, into: &restorationLists)
        trustPairsAtStart()
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
        guard let deviceNumber = deviceNumber(device) else { throw .unknownDevice(device) }
        guard let app = appNumber(bundleID) else { throw .unknownApp(bundleID) }
        guard installed[deviceNumber].contains(app) else { throw .appNotInstalled(bundleID: bundleID, device: device) }
        let id = ActivityID(activities.count)
        var content = content
        if let path = content.documentPath {
            content.userInfo[documentURLKey] = .url(UbiquityContainer.url(
                of: path, bundleID: bundleID, device: device, platform: world.deviceTable.platform(of: DeviceID(deviceNumber))))
        }
        activities.append(SourceActivity(
            id: id, device: DeviceID(deviceNumber), app: app, content: content,
            delegate: delegate ?? defaultActivityDelegate))
        running[deviceNumber * setup.apps.count + app] = true
        for _ in 0..<world.deviceCount {
            rejections.append(nil)
            attemptIndex.append(nil)
        }
        return id
    }

    /// The activity's content as its app sees it now.
    func content(of activity: ActivityID) -> ActivityContent { activities[activity.index].content }

    /// The activity's state on its source device.
    func state(of activity: ActivityID) -> SourceActivityMachine.State { activities[activity.index].state }

    /// The state of the continuation attempt of `activity` on `device`, if
    /// there is one.
    func continuationState(of activity: ActivityID, on device: String) -> ContinuationMachine.State? {
        guard let number = deviceNumber(device), let attempt = attemptIndex[pairSlot(activity.index, number)] else {
            return nil
        }
        return attempts[attempt].state
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
            guard id.index >= 0, id.index < activities.count else {
                throw .invalidParameter(name: "activity", value: "\(id)", expected: "an activity created earlier")
            }
        case let .accept(device), let .setSettings(device, _), let .setAccount(device, _), let .userInput(device):
            guard deviceNumber(device) != nil else { throw .unknownDevice(device) }
        }
        guard time >= scheduler.now else {
            throw .invalidParameter(name: "time", value: "\(time)", expected: "an instant not before \(scheduler.now)")
        }
        actions.append(action)
        actionsRemaining += 1
        scheduler.schedule(.action(Int32(actions.count - 1)), at: time)
    }

    // MARK: Trace and machines

    /// The app a trace record names, resolved only when the trace keeps
    /// records.
    enum AppReference {
        /// The app that created activity `id`.
        case source(ActivityID)
        /// The app at this index in the setup.
        case bundle(Int)
        /// Where a continuation goes: an app, or the browser.
        case target(ContinuationTarget)
        /// The system itself.
        case system
    }

    /// The app `app` stands for in a trace record.
    func traceApp(_ app: AppReference) -> TraceApp {
        switch app {
        case let .source(id): return .app(bundleID: sourceApp(id))
        case let .bundle(index): return .app(bundleID: appBundleIDs[index])
        case let .target(.app(index)): return .app(bundleID: appBundleIDs[index])
        case .target(.browser): return .browser
        case .system: return .system
        }
    }

    /// `device` as a trace names it.
    func traceDevice(_ device: DeviceID) -> TraceDevice { TraceDevice(id: device, name: deviceName(device)) }

    /// Activity `id` as a trace names it.
    func traceActivity(_ id: ActivityID) -> TraceActivity {
        TraceActivity(id: id, label: activities[id.index].content.label)
    }

    /// Counts a trace record and, when the trace keeps records, appends it.
    ///
    /// The event is a small value (no text); with the trace off nothing but
    /// the count happens. Callers whose event needs a look-up (a device's
    /// name, an activity's label) build it only when ``keepsTrace``.
    @inline(__always)
    mutating func record(
        _ now: SimInstant, device: DeviceID, app: AppReference, activity: ActivityID, _ event: TraceEvent
    ) {
        traceCount += 1
        guard keepsTrace else { return }
        keep(now, device: device, app: app, activity: activity, event)
    }

    /// Appends a record (the trace keeps records).
    @inline(never)
    mutating func keep(_ now: SimInstant, device: DeviceID, app: AppReference, activity: ActivityID?, _ event: TraceEvent) {
        var named: TraceActivity?
        if let activity { named = traceActivity(activity) }
        trace.append(TraceRecord(
            time: now, device: traceDevice(device), app: traceApp(app), activity: named, event: event))
    }

    /// Records a change the app made to activity `id` after invalidating
    /// it: a violation, and a trace record.
    mutating func recordIllegalChange(_ now: SimInstant, activity id: ActivityID, change: ActivityChange.Kind) {
        let device = activities[id.index].device
        violations.append(Violation(
            time: now, device: deviceName(device), activity: activities[id.index].content.label,
            step: .changeAfterInvalidate(change)))
        record(now, device: device, app: .source(id), activity: id, .illegalChange(change))
    }

    /// Records an illegal step of a state machine: a violation, and a trace
    /// record.
    mutating func recordViolation(
        _ now: SimInstant, device: DeviceID, app: AppReference, activity: ActivityID, _ transition: StateTransition
    ) {
        violations.append(Violation(
            time: now, device: deviceName(device), activity: activities[activity.index].content.label,
            step: .transition(transition)))
        record(now, device: device, app: app, activity: activity, .transition(transition, .illegal))
    }

    /// Applies `event` to the activity's source machine; records a
    /// violation and returns `false` if it is illegal.
    @discardableResult
    mutating func apply(
        _ event: SourceActivityMachine.Event, to id: ActivityID, now: SimInstant, note: TransitionNote? = nil
    ) -> Bool {
        let state = activities[id.index].state
        let device = activities[id.index].device
        guard let next = SourceActivityMachine.transition(from: state, on: event) else {
            recordViolation(now, device: device, app: .source(id), activity: id, .source(from: state, event: event, to: nil))
            return false
        }
        activities[id.index].state = next
        record(now, device: device, app: .source(id), activity: id,
               .transition(.source(from: state, event: event, to: next), note))
        return true
    }

    /// Applies `event` to the attempt's machine; records a violation and
    /// returns `false` if it is illegal.
    @discardableResult
    mutating func apply(
        _ event: ContinuationMachine.Event, to attempt: Int, now: SimInstant, note: TransitionNote? = nil
    ) -> Bool {
        let state = attempts[attempt].state
        let receiver = attempts[attempt].receiver
        let activity = attempts[attempt].activity
        let target = attempts[attempt].target
        guard let next = ContinuationMachine.transition(from: state, on: event) else {
            recordViolation(
                now, device: receiver, app: .target(target), activity: activity,
                .continuation(from: state, event: event, to: nil))
            return false
        }
        attempts[attempt].state = next
        record(now, device: receiver, app: .target(target), activity: activity,
               .transition(.continuation(from: state, event: event, to: next), note))
        return true
    }

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
}

/// The fixed components of the protocol's stream paths, hashed once.
enum HandoffStreamNames {
    static let trial: RandomStreamKey.Name = "trial"
    static let world: RandomStreamKey.Name = "world"
    static let acceptance: RandomStreamKey.Name = "acceptance"
    /// App and browser launch times, per attempt.
    static let launch: RandomStreamKey.Name = "launch"
    /// Devices' processing of fetch messages, per attempt and message.
    static let processing: RandomStreamKey.Name = "processing"
    /// The source system's save time, per attempt.
    static let save: RandomStreamKey.Name = "save"
    /// The cloud relay's delay, per attempt and relayed message.
    static let relay: RandomStreamKey.Name = "relay"
}
