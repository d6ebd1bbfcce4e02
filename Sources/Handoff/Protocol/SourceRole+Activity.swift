import HandoffWorld
import SimKernel

/// The app's changes to its activities on the source device, and the
/// active payload's periodic update.
extension SourceRole {
    // MARK: The app's changes

    /// Whether the app may still change the activity; after `invalidate`
    /// nothing is legal, so a change is a violation.
    func isAlive(_ id: ActivityID, doing change: ActivityChange.Kind, now: SimInstant, core: inout ProtocolCore) -> Bool {
        guard !SourceActivityMachine.allowsChanges(in: core.activities[id.index].state) else { return true }
        core.recordIllegalChange(now, activity: id, change: change)
        return false
    }

    /// The app sets `needsSave`: a dirty current activity gets its active
    /// payload updates.
    func setNeedsSave(
        _ id: ActivityID, _ value: Bool, now: SimInstant, core: inout ProtocolCore,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        guard isAlive(id, doing: .setNeedsSave, now: now, core: &core) else { return }
        core.activities[id.index].content.needsSave = value
        core.record(now, device: core.activities[id.index].device, app: .source(id), activity: id,
                    .change(.needsSave(value)))
        if value { schedulePayloadUpdate(of: id, now: now, core: &core, scheduler: &scheduler) }
    }

    /// The app calls `addUserInfoEntries`.
    func addUserInfoEntries(_ id: ActivityID, _ entries: UserInfo, now: SimInstant, core: inout ProtocolCore) {
        guard isAlive(id, doing: .addUserInfoEntries, now: now, core: &core) else { return }
        core.activities[id.index].content.addUserInfoEntries(entries)
        core.record(now, device: core.activities[id.index].device, app: .source(id), activity: id,
                    .change(.addUserInfoEntries(keys: core.keepsTrace ? entries.keys : [])))
    }

    /// The app sets `isEligibleForHandoff`.
    func setEligibleForHandoff(_ id: ActivityID, _ value: Bool, now: SimInstant, core: inout ProtocolCore) {
        guard isAlive(id, doing: .isEligibleForHandoff, now: now, core: &core) else { return }
        core.activities[id.index].content.isEligibleForHandoff = value
        core.record(now, device: core.activities[id.index].device, app: .source(id), activity: id,
                    .change(.eligibleForHandoff(value)))
    }

    // MARK: The active payload

    /// Schedules the next active-payload update of `id` if it is current
    /// and dirty: at the next multiple of the interval since it became
    /// current.
    ///
    /// UAUserActivityDefaults: "active payload update interval" 15 s. An
    /// assumption: while the activity is current and `needsSave`, the
    /// system calls `userActivityWillSave` on that schedule (clearing
    /// `needsSave`), so a later fetch sends the latest saved payload
    /// without asking again unless the app marked it dirty since.
    func schedulePayloadUpdate(
        of id: ActivityID, now: SimInstant, core: inout ProtocolCore, scheduler: inout Scheduler<HandoffEvent>
    ) {
        let device = core.activities[id.index].device
        guard !core.activities[id.index].payloadUpdatePending, currentActivity[device.index] == id,
            core.activities[id.index].content.needsSave, let start = core.activities[id.index].lastBecameCurrent
        else { return }
        let interval = core.setup.configuration.advertising.activePayloadUpdateInterval.nanoseconds
        let ticks = (now - start).nanoseconds / interval + 1
        core.activities[id.index].payloadUpdatePending = true
        scheduler.schedule(
            .activePayloadUpdate(activity: Int32(id.index)),
            at: start + .nanoseconds(min(ticks, Int64.max / interval) * interval))
    }

    /// An active-payload update of `id` is due: if it is still current and
    /// dirty, the app saves (`userActivityWillSave`) and `needsSave` is
    /// cleared.
    func activePayloadUpdateDue(_ id: ActivityID, now: SimInstant, core: inout ProtocolCore) {
        core.activities[id.index].payloadUpdatePending = false
        let device = core.activities[id.index].device
        guard currentActivity[device.index] == id, core.activities[id.index].state == .current,
            core.activities[id.index].content.needsSave
        else { return }
        core.record(now, device: device, app: .system, activity: id,
                    .system(.activePayloadUpdate(interval: core.setup.configuration.advertising.activePayloadUpdateInterval)))
        guard core.apply(.save, to: id, now: now) else { return }
        var content = core.activities[id.index].content
        var context = CallbackContext(now: now, device: core.deviceName(device))
        core.activities[id.index].delegate.userActivityWillSave(&content, context: &context)
        content.needsSave = false
        core.activities[id.index].content = content
        core.record(now, device: device, app: .source(id), activity: id, .callback(.userActivityWillSave))
    }
}
