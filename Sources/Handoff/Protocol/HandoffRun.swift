import HandoffWorld
import SimKernel

/// One trial of a Handoff simulation, ready to run: the user-facing handle
/// around a `Simulation` of ``HandoffSimulation``.
///
/// ```swift
/// var run = try HandoffRun(setup: setup, seed: 42, trial: 3)
/// let tab = try run.createActivity(content, on: "mac", app: "com.example.browser")
/// try run.schedule(.becomeCurrent(tab), at: .zero)
/// try run.schedule(.accept(device: "iphone"), at: SimInstant(nanosecondsSinceStart: 3_000_000_000))
/// run.run(until: SimInstant(nanosecondsSinceStart: 60_000_000_000))
/// ```
///
/// Trial `k` of seed `s` draws from its own named random stream, so it gives
/// the same result whether it runs alone or among others.
public struct HandoffRun {
    /// The simulation: its model and scheduler.
    public var simulation: Simulation<HandoffSimulation>

    /// Trial `trial` of `setup` under `seed`.
    ///
    /// - Parameters:
    ///   - appDelegates: makes the app delegate of an app on a device; see
    ///     ``HandoffSimulation/init(setup:stream:appDelegates:appDelegatesKeepNoState:)``.
    ///   - appDelegatesKeepNoState: `appDelegates`' delegates keep no state
    ///     across trials, so ``reset(seed:trial:)`` keeps them.
    /// - Throws: ``HandoffError`` when the setup is invalid.
    public init(
        setup: HandoffSetup, seed: UInt64, trial: Int = 0,
        appDelegates: ((String, AppDescription) -> any HandoffAppDelegate)? = nil,
        appDelegatesKeepNoState: Bool = false
    ) throws(HandoffError) {
        let model = try HandoffSimulation(
            setup: setup, stream: RandomStreamKey(seed: seed).child("trial", trial), appDelegates: appDelegates,
            appDelegatesKeepNoState: appDelegatesKeepNoState)
        simulation = Simulation(model: model, expectedPendingEvents: 64)
    }

    /// The model.
    public var model: HandoffSimulation { simulation.model }

    /// Starts over as trial `trial` of `seed`, with no activities and no
    /// actions: the same as a new run of the same setup, but reusing this
    /// one's storage. Running many trials, reset one run instead of making
    /// a new one for each.
    public mutating func reset(seed: UInt64, trial: Int) {
        let stream = RandomStreamKey(seed: seed).numbersOnly.child(HandoffStreamNames.trial, trial)
        simulation.reset { model in model.reset(stream: stream) }
    }

    /// Creates an activity; see ``HandoffSimulation/createActivity(_:on:app:delegate:)``.
    public mutating func createActivity(
        _ content: ActivityContent, on device: String, app bundleID: String,
        delegate: (any UserActivityDelegate)? = nil
    ) throws(HandoffError) -> ActivityID {
        try simulation.model.createActivity(content, on: device, app: bundleID, delegate: delegate)
    }

    /// Schedules `action` at `time`; see
    /// ``HandoffSimulation/schedule(_:at:into:)``.
    public mutating func schedule(_ action: HandoffAction, at time: SimInstant) throws(HandoffError) {
        try simulation.model.schedule(action, at: time, into: &simulation.scheduler)
    }

    /// Runs until nothing is under way any more (every action done, no
    /// attempt in progress) or until `limit`, whichever comes first.
    ///
    /// Advertising never stops by itself while an activity is current, so
    /// a run always needs a limit.
    @discardableResult
    public mutating func run(until limit: SimInstant) -> StopReason {
        run(until: limit, maxEvents: .max)
    }

    /// Runs until nothing is under way any more, until `limit`, or until
    /// `maxEvents` events have run, whichever comes first.
    ///
    /// - Returns: ``StopReason/stopped`` when the run settled,
    ///   ``StopReason/reachedTime`` or ``StopReason/reachedEventLimit``
    ///   when a bound ended it first.
    @discardableResult
    public mutating func run(until limit: SimInstant, maxEvents: UInt64) -> StopReason {
        simulation.model.stopsWhenSettled = true
        return simulation.run(until: limit, maxEvents: maxEvents)
    }

    /// Every step and callback so far.
    public var trace: [TraceRecord] { simulation.model.trace }

    /// Illegal transitions so far.
    public var violations: [Violation] { simulation.model.violations }

    /// What happened to `activity` on `device`.
    public func summary(of activity: ActivityID, on device: String) -> ContinuationSummary? {
        simulation.model.summary(of: activity, on: device)
    }

    /// ``summary(of:on:)`` reading the model in place, for a caller that
    /// reads a summary after every trial.
    ///
    /// It changes nothing. Called on a run held in a variable, the
    /// non-mutating form makes the compiler copy the whole model (about
    /// 1.6 KB) first whenever it cannot prove that nothing writes to the
    /// variable during the call; through `inout` it need not.
    public mutating func summaryInPlace(of activity: ActivityID, on device: String) -> ContinuationSummary? {
        simulation.model.summaryInPlace(of: activity, on: device)
    }
}
