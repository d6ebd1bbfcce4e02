import HandoffWorld
import SimKernel

/// The trace, the violations and the state machines' steps, which every
/// role goes through; and scheduling an attempt's protocol steps.
extension ProtocolCore {
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

    /// Schedules `step` of `attempt` after `delay`.
    ///
    /// A step counts as work under way (keeping the run from settling)
    /// unless it only matters in a state that keeps the run going anyway: a
    /// fetch timeout matters only while fetching.
    mutating func later(
        _ step: ProtocolStep, of attempt: Int, after delay: SimDuration, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        if step.keepsRunGoing { attempts[attempt].pendingSteps += 1 }
        scheduler.schedule(.step(attempt: Int32(attempt), step), at: now + max(delay, .zero))
    }
}
