import HandoffWorld
import SimKernel

extension HandoffEngine {
    /// Everything about the protocol that changes during a trial: the
    /// trace, the activities and attempts, who offers and runs what, the
    /// advertising pacing, the key exchanges, the scheduled actions and the
    /// stream drawn from.
    ///
    /// What a run fixes (the setup, the apps' tables, the acceptance
    /// policies, the delegate factory) lives in the engine beside it. A
    /// reset replaces it with a new value (``rebuild(stream:keepsTrace:deviceCount:appCount:updatesPerWindow:keepingDelegates:into:)``):
    /// every field starts as in a new engine, and only buffers (and app
    /// delegates whose lifetime is the run) carry over, so a field added
    /// here can never leak from one trial into the next.
    struct TrialState {
        /// The stream this trial draws from.
        var stream: RandomStreamKey.Hashed
        /// Every step and callback so far (kept only while ``keepsTrace``).
        var trace: [TraceRecord] = []
        /// Whether ``trace`` keeps records (otherwise only ``traceCount``
        /// counts them).
        var keepsTrace = true
        /// The number of trace records produced.
        var traceCount = 0
        /// Illegal transitions; a run with any has failed.
        var violations: [Violation] = []
        /// Whether the last check found the run unsettled and nothing in
        /// the protocol has changed since (so the check can be skipped).
        var knownUnsettled = false
        /// The time of the latest event handled.
        var clock: SimInstant = .zero

        var activities: [SourceActivity] = []
        var attempts: [Attempt] = []
        /// The attempt offered on each device, if any.
        var visibleOffer: [Int?]
        /// Each device's current activity.
        var currentActivity: [ActivityID?]
        /// The most recently current activity each device has seen
        /// advertised and found eligible.
        var latestCandidate: [ActivityID?]
        /// Whether each device's user accepted while nothing was offered
        /// there.
        var acceptedWithoutOffer: [Bool]
        /// Whether each app is running on each device (device × app).
        var running: [Bool]
        /// App delegates per device × app, made on first use.
        var appDelegates: [HandoffDelegate?]
        /// The latest rule that kept each activity from each device
        /// (activity × device), recorded when an advertisement was rejected.
        var rejections: [NotOfferedReason?] = []
        /// The attempt of each activity on each device (activity × device).
        var attemptIndex: [Int?] = []
        /// Per world connection: what it is for.
        var connectionOwners: [ConnectionOwner] = []
        /// Per receiver × source device pair: the advertisement-key exchange.
        var keyExchanges: [KeyExchangeState]
        /// Per device: counts removal timers, so that a stale one is ignored.
        var removalGenerations: [UInt32]
        /// Per device: counts paced updates, so that a stale one is ignored.
        var updateGenerations: [UInt32]
        /// Per device: when its advertisement last started, or nil.
        var advertStartedAt: [SimInstant?]
        /// Per device × the policy's update count: the times of its latest
        /// updates, oldest first once full (a ring).
        var updateTimes: [SimInstant]
        /// Per device: updates recorded in ``updateTimes`` (at most the
        /// policy's count) and the ring's next slot.
        var updateCounts: [Int]
        var updateNext: [Int]
        /// Scheduled actions, by index.
        var actions: [HandoffAction] = []
        var actionsRemaining = 0
        /// Think-time generators per device, made on first use.
        var acceptanceGenerators: [Xoshiro256StarStar?]
        /// Per receiver × source device: whether a presence check is
        /// scheduled.
        var presenceCheckPending: [Bool]
        /// Per receiver × source device: the latest check that found the
        /// source not advertising Handoff (it counts as heard then).
        var presenceFloor: [SimInstant?]
        /// Per receiver × source device: when the receiver last heard the
        /// lost source (until its scan stops or it is heard again).
        var lostSince: [SimInstant?]
        /// Per device: its user's latest input.
        var lastInput: [SimInstant]
        /// Per device: whether its user has gone idle.
        var userIdle: [Bool]
        /// Per device: counts idle timers, so that a stale one is ignored.
        var idleGenerations: [UInt32]

        /// A state of no devices and no apps drawing from `stream` (what a
        /// rebuild starts from).
        private init(stream: RandomStreamKey.Hashed) {
            self.stream = stream
            visibleOffer = []
            currentActivity = []
            latestCandidate = []
            acceptedWithoutOffer = []
            running = []
            appDelegates = []
            keyExchanges = []
            removalGenerations = []
            updateGenerations = []
            advertStartedAt = []
            updateTimes = []
            updateCounts = []
            updateNext = []
            acceptanceGenerators = []
            presenceCheckPending = []
            presenceFloor = []
            lostSince = []
            lastInput = []
            userIdle = []
            idleGenerations = []
        }

        /// The state at the start of a trial of `deviceCount` devices and
        /// `appCount` apps, drawing from `stream`.
        ///
        /// - Parameter updatesPerWindow: the advertising policy's update
        ///   count (the length of each device's ring of update times).
        init(stream: RandomStreamKey.Hashed, deviceCount: Int, appCount: Int, updatesPerWindow: Int) {
            self.stream = stream
            visibleOffer = Array(repeating: nil, count: deviceCount)
            currentActivity = Array(repeating: nil, count: deviceCount)
            latestCandidate = Array(repeating: nil, count: deviceCount)
            acceptedWithoutOffer = Array(repeating: false, count: deviceCount)
            running = Array(repeating: false, count: deviceCount * appCount)
            appDelegates = Array(repeating: nil, count: deviceCount * appCount)
            keyExchanges = Array(repeating: KeyExchangeState(), count: deviceCount * deviceCount)
            removalGenerations = Array(repeating: 0, count: deviceCount)
            updateGenerations = Array(repeating: 0, count: deviceCount)
            advertStartedAt = Array(repeating: nil, count: deviceCount)
            updateTimes = Array(repeating: .zero, count: deviceCount * max(1, updatesPerWindow))
            updateCounts = Array(repeating: 0, count: deviceCount)
            updateNext = Array(repeating: 0, count: deviceCount)
            acceptanceGenerators = Array(repeating: nil, count: deviceCount)
            presenceCheckPending = Array(repeating: false, count: deviceCount * deviceCount)
            presenceFloor = Array(repeating: nil, count: deviceCount * deviceCount)
            lostSince = Array(repeating: nil, count: deviceCount * deviceCount)
            lastInput = Array(repeating: .zero, count: deviceCount)
            userIdle = Array(repeating: false, count: deviceCount)
            idleGenerations = Array(repeating: 0, count: deviceCount)
        }

        /// Becomes the state at the start of a trial, exactly as
        /// ``init(stream:deviceCount:appCount:updatesPerWindow:)`` makes it
        /// (with `keepsTrace`), in the storage of this one's lists:
        /// allocating nothing once they have grown.
        ///
        /// The state is replaced by a new one; only buffers carry over (and
        /// the app delegates, when `keepingDelegates`).
        ///
        /// - Parameters:
        ///   - keepingDelegates: whether the app delegates carry over (their
        ///     lifetime is the run).
        ///   - pool: receives the attempts' restoration lists.
        mutating func rebuild(
            stream: RandomStreamKey.Hashed, keepsTrace: Bool, deviceCount: Int, appCount: Int,
            updatesPerWindow: Int, keepingDelegates: Bool, into pool: inout RestorationListPool
        ) {
            var new = TrialState(stream: stream)
            for index in attempts.indices { pool.keep(&attempts[index].restorations) }
            let pairs = deviceCount * deviceCount
            let apps = deviceCount * appCount
            new.keepsTrace = keepsTrace
            new.trace.takeStorage(of: &trace)
            new.violations.takeStorage(of: &violations)
            new.activities.takeStorage(of: &activities)
            new.attempts.takeStorage(of: &attempts)
            new.visibleOffer.takeStorage(of: &visibleOffer, repeating: nil, count: deviceCount)
            new.currentActivity.takeStorage(of: &currentActivity, repeating: nil, count: deviceCount)
            new.latestCandidate.takeStorage(of: &latestCandidate, repeating: nil, count: deviceCount)
            new.acceptedWithoutOffer.takeStorage(of: &acceptedWithoutOffer, repeating: false, count: deviceCount)
            new.running.takeStorage(of: &running, repeating: false, count: apps)
            if keepingDelegates {
                swap(&new.appDelegates, &appDelegates)
            } else {
                new.appDelegates.takeStorage(of: &appDelegates, repeating: nil, count: apps)
            }
            new.rejections.takeStorage(of: &rejections)
            new.attemptIndex.takeStorage(of: &attemptIndex)
            new.connectionOwners.takeStorage(of: &connectionOwners)
            new.keyExchanges.takeStorage(of: &keyExchanges, repeating: KeyExchangeState(), count: pairs)
            new.removalGenerations.takeStorage(of: &removalGenerations, repeating: 0, count: deviceCount)
            new.updateGenerations.takeStorage(of: &updateGenerations, repeating: 0, count: deviceCount)
            new.advertStartedAt.takeStorage(of: &advertStartedAt, repeating: nil, count: deviceCount)
            new.updateTimes.takeStorage(
                of: &updateTimes, repeating: .zero, count: deviceCount * max(1, updatesPerWindow))
            new.updateCounts.takeStorage(of: &updateCounts, repeating: 0, count: deviceCount)
            new.updateNext.takeStorage(of: &updateNext, repeating: 0, count: deviceCount)
            new.actions.takeStorage(of: &actions)
            new.acceptanceGenerators.takeStorage(of: &acceptanceGenerators, repeating: nil, count: deviceCount)
            new.presenceCheckPending.takeStorage(of: &presenceCheckPending, repeating: false, count: pairs)
            new.presenceFloor.takeStorage(of: &presenceFloor, repeating: nil, count: pairs)
            new.lostSince.takeStorage(of: &lostSince, repeating: nil, count: pairs)
            new.lastInput.takeStorage(of: &lastInput, repeating: .zero, count: deviceCount)
            new.userIdle.takeStorage(of: &userIdle, repeating: false, count: deviceCount)
            new.idleGenerations.takeStorage(of: &idleGenerations, repeating: 0, count: deviceCount)
            self = new
        }
    }
}

// The trial's fields under their own names, so the protocol's code reads
// `attempts[i]` rather than `trial.attempts[i]`.
extension HandoffEngine {
    /// Every step and callback so far (kept only while ``keepsTrace``).
    package internal(set) var trace: [TraceRecord] {
        _read { yield trial.trace }
        _modify { yield &trial.trace }
    }
    /// Whether ``trace`` keeps records (otherwise only ``traceCount``
    /// counts them).
    package internal(set) var keepsTrace: Bool {
        get { trial.keepsTrace }
        set { trial.keepsTrace = newValue }
    }
    /// The number of trace records produced.
    package internal(set) var traceCount: Int {
        get { trial.traceCount }
        set { trial.traceCount = newValue }
    }
    /// Illegal transitions; a run with any has failed.
    package internal(set) var violations: [Violation] {
        _read { yield trial.violations }
        _modify { yield &trial.violations }
    }
    /// The time of the latest event handled.
    package internal(set) var clock: SimInstant {
        get { trial.clock }
        set { trial.clock = newValue }
    }
    var stream: RandomStreamKey.Hashed {
        get { trial.stream }
        set { trial.stream = newValue }
    }
    var knownUnsettled: Bool {
        get { trial.knownUnsettled }
        set { trial.knownUnsettled = newValue }
    }
    var activities: [SourceActivity] {
        _read { yield trial.activities }
        _modify { yield &trial.activities }
    }
    var attempts: [Attempt] {
        _read { yield trial.attempts }
        _modify { yield &trial.attempts }
    }
    var visibleOffer: [Int?] {
        _read { yield trial.visibleOffer }
        _modify { yield &trial.visibleOffer }
    }
    var currentActivity: [ActivityID?] {
        _read { yield trial.currentActivity }
        _modify { yield &trial.currentActivity }
    }
    var latestCandidate: [ActivityID?] {
        _read { yield trial.latestCandidate }
        _modify { yield &trial.latestCandidate }
    }
    var acceptedWithoutOffer: [Bool] {
        _read { yield trial.acceptedWithoutOffer }
        _modify { yield &trial.acceptedWithoutOffer }
    }
    var running: [Bool] {
        _read { yield trial.running }
        _modify { yield &trial.running }
    }
    var appDelegates: [HandoffDelegate?] {
        _read { yield trial.appDelegates }
        _modify { yield &trial.appDelegates }
    }
    var rejections: [NotOfferedReason?] {
        _read { yield trial.rejections }
        _modify { yield &trial.rejections }
    }
    var attemptIndex: [Int?] {
        _read { yield trial.attemptIndex }
        _modify { yield &trial.attemptIndex }
    }
    var connectionOwners: [ConnectionOwner] {
        _read { yield trial.connectionOwners }
        _modify { yield &trial.connectionOwners }
    }
    var keyExchanges: [KeyExchangeState] {
        _read { yield trial.keyExchanges }
        _modify { yield &trial.keyExchanges }
    }
    var removalGenerations: [UInt32] {
        _read { yield trial.removalGenerations }
        _modify { yield &trial.removalGenerations }
    }
    var updateGenerations: [UInt32] {
        _read { yield trial.updateGenerations }
        _modify { yield &trial.updateGenerations }
    }
    var advertStartedAt: [SimInstant?] {
        _read { yield trial.advertStartedAt }
        _modify { yield &trial.advertStartedAt }
    }
    var updateTimes: [SimInstant] {
        _read { yield trial.updateTimes }
        _modify { yield &trial.updateTimes }
    }
    var updateCounts: [Int] {
        _read { yield trial.updateCounts }
        _modify { yield &trial.updateCounts }
    }
    var updateNext: [Int] {
        _read { yield trial.updateNext }
        _modify { yield &trial.updateNext }
    }
    var actions: [HandoffAction] {
        _read { yield trial.actions }
        _modify { yield &trial.actions }
    }
    var actionsRemaining: Int {
        get { trial.actionsRemaining }
        set { trial.actionsRemaining = newValue }
    }
    var acceptanceGenerators: [Xoshiro256StarStar?] {
        _read { yield trial.acceptanceGenerators }
        _modify { yield &trial.acceptanceGenerators }
    }
    var presenceCheckPending: [Bool] {
        _read { yield trial.presenceCheckPending }
        _modify { yield &trial.presenceCheckPending }
    }
    var presenceFloor: [SimInstant?] {
        _read { yield trial.presenceFloor }
        _modify { yield &trial.presenceFloor }
    }
    var lostSince: [SimInstant?] {
        _read { yield trial.lostSince }
        _modify { yield &trial.lostSince }
    }
    var lastInput: [SimInstant] {
        _read { yield trial.lastInput }
        _modify { yield &trial.lastInput }
    }
    var userIdle: [Bool] {
        _read { yield trial.userIdle }
        _modify { yield &trial.userIdle }
    }
    var idleGenerations: [UInt32] {
        _read { yield trial.idleGenerations }
        _modify { yield &trial.idleGenerations }
    }
}
