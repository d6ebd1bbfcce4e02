import HandoffWorld
import SimKernel

/// Makes the delegate of an app on a device, in the app's lifecycle, given
/// the device's name and the app's description:
/// `.scene(NotesScene())` (iOS, iPadOS and visionOS apps) or
/// `.application(NotesAppDelegate())` (macOS, and iOS apps without scenes).
public typealias AppDelegateFactory = (_ device: String, _ app: AppDescription) -> HandoffDelegate

/// How long the app delegates made by an ``AppDelegateFactory`` are kept.
public enum AppDelegateLifetime: Hashable, Sendable {
    /// A new delegate for every trial: after ``HandoffRun/reset(seed:trial:)``
    /// the factory is asked again, on first use. Right for any delegate, and
    /// the default.
    case trial
    /// One delegate per app and device for the whole run, kept across
    /// resets.
    ///
    /// Only for delegates that keep no state from one trial to the next: a
    /// delegate that remembers anything makes trial k depend on the trials
    /// run before it, so it would no longer give the same result alone as
    /// in a sweep.
    case run
}

/// A Handoff simulation an app team drives: devices and apps, activities
/// and what happens to them, the delegates that are called, and what came
/// of each continuation.
///
/// ```swift
/// let run = try HandoffRun(setup: setup, seed: 42, trial: 3)
/// let tab = try run.createActivity(content, on: "mac", app: "com.example.browser")
/// try run.schedule(.becomeCurrent(tab), at: .zero)
/// try run.schedule(.accept(device: "iphone"), at: SimInstant(nanosecondsSinceStart: 3_000_000_000))
/// run.run(until: SimInstant(nanosecondsSinceStart: 60_000_000_000))
/// run.summary(of: tab, on: "iphone")?.outcome   // .continued
/// ```
///
/// Trial `k` of seed `s` draws from its own named random stream, so it gives
/// the same result whether it runs alone or among others. To run many
/// trials, ``reset(seed:trial:)`` one run rather than making a new one for
/// each.
///
/// Not guaranteed: a run is not thread-safe, and delegates are called on
/// the thread that calls ``run(until:)``. Use one run per thread.
public final class HandoffRun {
    /// The engine and its scheduler.
    var simulation: Simulation<HandoffEngine>

    /// Trial `trial` of `setup` under `seed`.
    ///
    /// - Parameters:
    ///   - setup: the devices, the apps and the configuration.
    ///   - seed: the seed of the run's random streams.
    ///   - trial: the trial: trial `k` of `seed` draws from its own stream.
    ///   - appDelegates: makes the delegate of an app on a device, in its
    ///     lifecycle; the built-in ``ScriptedApp`` otherwise.
    ///   - appDelegateLifetime: whether `appDelegates` is asked again after
    ///     every ``reset(seed:trial:)`` (the default) or its delegates are
    ///     kept for the whole run.
    /// - Throws: ``HandoffError`` when the setup is invalid.
    public init(
        setup: HandoffSetup, seed: UInt64, trial: Int = 0, appDelegates: AppDelegateFactory? = nil,
        appDelegateLifetime: AppDelegateLifetime = .trial
    ) throws(HandoffError) {
        let engine = try HandoffEngine(
            setup: setup, stream: RandomStreamKey(seed: seed).child("trial", trial), appDelegates: appDelegates,
            appDelegateLifetime: appDelegateLifetime)
        simulation = Simulation(model: engine, expectedPendingEvents: 64)
    }

    /// The setup the run was made from.
    public var setup: HandoffSetup { simulation.model.core.setup }

    /// The current simulated time.
    public var now: SimInstant { simulation.now }

    /// Starts over as trial `trial` of `seed`, with no activities and no
    /// actions: the same as a new run of the same setup, but reusing this
    /// one's storage.
    ///
    /// - Complexity: O(devices² + apps × devices), allocating nothing once
    ///   the run's buffers have reached their peak size.
    public func reset(seed: UInt64, trial: Int) {
        reset(seed: seed, trial: trial, keepsTrace: true)
    }

    /// Creates an activity of `app` on `device`, in state `created`; the
    /// app is running there from now on.
    ///
    /// - Parameters:
    ///   - content: what the activity carries.
    ///   - device: the source device's name.
    ///   - bundleID: the app's bundle ID; the app must be installed there.
    ///   - delegate: the activity delegate; a ``ScriptedApp`` with default
    ///     behaviour otherwise.
    /// - Returns: the activity's identifier: activities are numbered from 0
    ///   in creation order, in every trial.
    /// - Throws: ``HandoffError/unknownDevice(_:)``,
    ///   ``HandoffError/unknownApp(_:)``, or
    ///   ``HandoffError/appNotInstalled(bundleID:device:)``.
    public func createActivity(
        _ content: ActivityContent, on device: String, app bundleID: String,
        delegate: (any UserActivityDelegate)? = nil
    ) throws(HandoffError) -> ActivityID {
        try simulation.model.createActivity(content, on: device, app: bundleID, delegate: delegate)
    }

    /// Schedules `action` to happen at `time`.
    ///
    /// - Throws: ``HandoffError/unknownDevice(_:)`` for a device name that
    ///   does not exist, ``HandoffError/invalidParameter(name:value:expected:)``
    ///   for an activity that does not exist or a time in the past.
    public func schedule(_ action: HandoffAction, at time: SimInstant) throws(HandoffError) {
        try simulation.schedule(action, at: time)
    }

    /// Runs until nothing is under way any more (every action done, no
    /// attempt in progress) or until `limit`, whichever comes first.
    ///
    /// Advertising never stops by itself while an activity is current, so
    /// a run always needs a limit.
    ///
    /// - Returns: `StopReason.stopped` when the run settled,
    ///   `StopReason.reachedTime` when the limit ended it first.
    @discardableResult
    public func run(until limit: SimInstant) -> StopReason {
        run(until: limit, maxEvents: .max)
    }

    /// Runs until nothing is under way any more, until `limit`, or until
    /// `maxEvents` events have run, whichever comes first.
    ///
    /// - Returns: `StopReason.stopped` when the run settled,
    ///   `StopReason.reachedTime` or `StopReason.reachedEventLimit`
    ///   when a bound ended it first.
    @discardableResult
    public func run(until limit: SimInstant, maxEvents: UInt64) -> StopReason {
        simulation.model.stopsWhenSettled = true
        return simulation.run(until: limit, maxEvents: maxEvents)
    }

    /// Runs until `limit` or until `maxEvents` events have run, whether or
    /// not anything is under way: a run observed for a fixed time (a
    /// scenario's `duration`), in which an offer may still reach a device
    /// whose user never accepts.
    ///
    /// - Returns: `StopReason.reachedTime` at the end of the time,
    ///   `StopReason.reachedEventLimit` when the event bound ended it first.
    @discardableResult
    package func observe(until limit: SimInstant, maxEvents: UInt64) -> StopReason {
        simulation.model.stopsWhenSettled = false
        return simulation.run(until: limit, maxEvents: maxEvents)
    }

    /// Every step and callback so far, in time order.
    public var trace: [TraceRecord] { simulation.model.core.trace }

    /// Illegal transitions so far; a run with any has found a simulator
    /// bug.
    public var violations: [Violation] { simulation.model.core.violations }

    /// What happened to `activity` on the device named `device`, with its
    /// latencies; `nil` for an unknown device or activity.
    public func summary(of activity: ActivityID, on device: String) -> ContinuationSummary? {
        simulation.model.summary(of: activity, on: device)
    }

    /// What happened to every activity on every device other than its
    /// source, by activity then device.
    public func summaries() -> [ContinuationSummary] { simulation.model.summaries() }

    /// The activity's content as its app sees it now.
    ///
    /// - Precondition: `activity` was created in this trial.
    public func content(of activity: ActivityID) -> ActivityContent { simulation.model.content(of: activity) }

    /// The activity's state on its source device.
    ///
    /// - Precondition: `activity` was created in this trial.
    public func state(of activity: ActivityID) -> SourceActivityMachine.State { simulation.model.state(of: activity) }

    /// The state of the continuation attempt of `activity` on the device
    /// named `device`, if there is one.
    public func continuationState(of activity: ActivityID, on device: String) -> ContinuationMachine.State? {
        simulation.model.continuationState(of: activity, on: device)
    }
}

// MARK: - Trials, for the scenario layer and the benchmarks

extension HandoffRun {
    /// Starts over as trial `trial` of `seed` (see ``reset(seed:trial:)``),
    /// keeping the trace's records only if `keepsTrace`: a trial whose
    /// trace nobody reads need not build its text.
    package func reset(seed: UInt64, trial: Int, keepsTrace: Bool) {
        let stream = RandomStreamKey(seed: seed).numbersOnly.child(HandoffStreamNames.trial, trial)
        simulation.reset { engine in engine.reset(stream: stream, keepsTrace: keepsTrace) }
    }

    /// The number of events handled since the last reset.
    package var handledEventCount: UInt64 { simulation.handledEventCount }

    /// The number of trace records produced since the last reset, kept or
    /// not.
    package var traceCount: Int { simulation.model.core.traceCount }
}

extension Simulation where Model == HandoffEngine {
    /// Records `action` to run at `time`; see
    /// ``HandoffEngine/schedule(_:at:into:)``.
    mutating func schedule(_ action: HandoffAction, at time: SimInstant) throws(HandoffError) {
        try model.schedule(action, at: time, into: &scheduler)
    }
}

// MARK: - Packets

extension HandoffRun {
    /// Whether the run records every packet put on a link in
    /// ``packetLog``: off by default, since it costs memory per packet.
    /// It stays on across ``reset(seed:trial:)``.
    public var recordsPackets: Bool {
        get { simulation.model.core.world.recordsPackets }
        set { simulation.model.core.world.recordsPackets = newValue }
    }

    /// Every packet put on a link since the last reset while
    /// ``recordsPackets`` was on: when, on which link, what, and what became
    /// of it (its arrival, or why it was lost).
    public var packetLog: [PacketRecord] { simulation.model.core.world.packetLog }

    /// The most packets ``packetLog`` keeps in a trial (later ones are only
    /// counted in ``packetsLeftOut``).
    package var packetLogLimit: Int {
        get { simulation.model.core.world.packetLogLimit }
        set { simulation.model.core.world.packetLogLimit = newValue }
    }

    /// Packets sent in this trial after ``packetLog`` reached its limit.
    package var packetsLeftOut: Int { simulation.model.core.world.packetsLeftOut }

    /// A link by the names of its devices: `wifi mac → iphone`,
    /// `bluetooth …`, `lan …` (the local network), `uplink mac` (to the cloud), `downlink iphone`.
    public func linkName(_ id: LinkID) -> String {
        let devices = simulation.model.core.setup.devices
        func name(_ device: DeviceID) -> String {
            device.index < devices.count ? devices[device.index].name : "\(device)"
        }
        let kind = simulation.model.core.world.kind(of: id)
        switch (kind.source, kind.destination) {
        case let (.device(from), .device(to)): return "\(kind.shortName) \(name(from)) → \(name(to))"
        case let (.device(device), .cloud), let (.cloud, .device(device)): return "\(kind.shortName) \(name(device))"
        case (.cloud, .cloud): return kind.shortName  // no link runs from the cloud to itself
        }
    }

    /// The ends of a link by device name, in the direction packets travel
    /// on it; the cloud relay's end is `"cloud"` (an uplink runs from its
    /// device to the cloud, a downlink from the cloud to its device).
    public func linkEnds(_ id: LinkID) -> (from: String, to: String) {
        let devices = simulation.model.core.setup.devices
        func name(_ device: DeviceID) -> String {
            device.index < devices.count ? devices[device.index].name : "\(device)"
        }
        func end(_ node: NetworkNode) -> String {
            switch node {
            case let .device(device): return name(device)
            case .cloud: return "cloud"
            }
        }
        let kind = simulation.model.core.world.kind(of: id)
        return (end(kind.source), end(kind.destination))
    }
}
