import HandoffWorld
import SimKernel

/// Scheduled actions, handed to the roles they concern, and the steps that
/// take more than one role: the user's acceptance, a device's settings
/// changing, and the user's input.
extension HandoffEngine {
    /// Performs a scheduled action, then counts it as the user's input on
    /// its device when it is one (see ``OfferLifetimeRole/inputDevice(of:core:)``).
    mutating func perform(_ action: HandoffAction, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        act(action, now: now, scheduler: &scheduler)
        // The user's input (and the app's calls, made while it is used)
        // starts the device's idle time over.
        if let device = lifetime.inputDevice(of: action, core: core) {
            userGaveInput(on: device, now: now, scheduler: &scheduler)
        }
    }

    /// What `action` itself does.
    mutating func act(_ action: HandoffAction, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        switch action {
        case let .becomeCurrent(id):
            source.becomeCurrent(id, now: now, core: &core, scheduler: &scheduler)
        case let .resignCurrent(id):
            source.resignCurrent(id, now: now, core: &core, scheduler: &scheduler)
        case let .invalidate(id):
            if source.invalidate(id, now: now, core: &core, scheduler: &scheduler) {
                // Offers not yet picked go away everywhere.
                receiver.withdrawOffers(of: id, note: .activityInvalidated, now: now, core: &core)
            }
        case let .setNeedsSave(id, value):
            source.setNeedsSave(id, value, now: now, core: &core, scheduler: &scheduler)
        case let .addUserInfoEntries(id, entries):
            source.addUserInfoEntries(id, entries, now: now, core: &core)
        case let .setEligibleForHandoff(id, value):
            source.setEligibleForHandoff(id, value, now: now, core: &core)
        case let .accept(name):
            if let attempt = receiver.offerPicked(on: core.deviceNumber(name) ?? 0, now: now, core: &core) {
                accept(attempt, now: now, scheduler: &scheduler)
            }
        case let .setSettings(name, settings):
            let device = DeviceID(core.deviceNumber(name) ?? 0)
            let old = core.world.deviceTable.settings(of: device)
            core.world.setSettings(settings, of: device)
            settingsChanged(of: device, from: old, to: settings, now: now, scheduler: &scheduler)
        case let .setAccount(name, account):
            core.world.setAccount(account, of: DeviceID(core.deviceNumber(name) ?? 0), at: now)
        case let .userInput(name):
            core.traceCount += 1
            if core.keepsTrace {
                let device = core.deviceNumber(name) ?? 0
                core.keep(now, device: DeviceID(device), app: .system, activity: source.currentActivity[device],
                          .system(.userInput))
            }
        }
    }

    /// The user accepted `attempt`: the receiver takes the offer down, the
    /// source's presence need no longer be watched for it, the system
    /// launches the app (or the browser) and, for an app, starts fetching
    /// the payload at the same instant.
    mutating func accept(_ attempt: Int, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard receiver.accept(attempt, now: now, core: &core) else { return }
        lifetime.offerAccepted(attempt, core: &core)
        receiver.launch(attempt, now: now, core: &core, scheduler: &scheduler)
        if case .app = core.attempts[attempt].target, fetch.startFetch(attempt, now: now, core: &core, scheduler: &scheduler) {
            receiver.fetchEnded(attempt, now: now, core: &core, scheduler: &scheduler)
        }
    }

    /// A device's switches or state changed: as a receiver, a screen-on
    /// or Bluetooth coming on restarts its stopped scans; as a source, see
    /// ``SourceRole/conditionsChanged(of:from:idle:to:idle:now:core:scheduler:)``.
    /// An unlock, a screen-on or leaving the explicit idle state is input.
    mutating func settingsChanged(
        of device: DeviceID, from old: DeviceSettings, to new: DeviceSettings, now: SimInstant,
        scheduler: inout Scheduler<HandoffEvent>
    ) {
        if (old.screen != .on && new.screen == .on) || (!old.bluetoothEnabled && new.bluetoothEnabled) {
            lifetime.restartScanning(on: device, now: now, core: &core)
        }
        let idle = lifetime.userIdle[device.index]
        source.conditionsChanged(
            of: device, from: old, idle: idle, to: new, idle: idle, now: now, core: &core, scheduler: &scheduler)
        if (old.screen != .on && new.screen == .on) || (old.idle && !new.idle) {
            userGaveInput(on: device, now: now, scheduler: &scheduler)
        }
    }

    /// The user on `device` gave input now: the idle time starts over, and
    /// a device whose user was idle is in use again, which the source's
    /// advertising hears of.
    mutating func userGaveInput(on device: DeviceID, now: SimInstant, scheduler: inout Scheduler<HandoffEvent>) {
        guard lifetime.userGaveInput(on: device, now: now, core: core, scheduler: &scheduler) else { return }
        let settings = core.world.deviceTable.settings(of: device)
        source.conditionsChanged(
            of: device, from: settings, idle: true, to: settings, idle: false, now: now, core: &core, scheduler: &scheduler)
    }
}
