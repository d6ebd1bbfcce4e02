import SimKernel

/// One request/response round over continuation streams: the receiver asks
/// with `requestBytes`, the source answers with `responseBytes`.
public struct StreamRound: Hashable, Sendable {
    /// The request's size in bytes.
    public var requestBytes: Int
    /// The response's size in bytes.
    public var responseBytes: Int

    /// A round of the given sizes.
    public init(requestBytes: Int, responseBytes: Int) {
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
    }
}

/// How a scenario-described app behaves in its Handoff callbacks: the time
/// each takes and what it does.
///
/// The same behaviour serves the app as a receiver (its app delegate) and
/// as a source (its activity delegate).
public struct AppBehaviour: Hashable, Sendable {
    /// Time spent in `willContinueUserActivity`.
    public var willContinueTime: SimDuration
    /// What `willContinueUserActivity` returns (whether the app shows its
    /// own progress).
    public var notifiesUser: Bool
    /// Time spent in `continue`.
    public var continueTime: SimDuration
    /// What `continue` returns.
    public var handlesContinuation: Bool
    /// The restorable objects passed to the restoration handler.
    public var restorableObjects: [String]
    /// Delay between `continue` returning and the restoration handler call
    /// (or, with stream rounds, after the last response).
    public var restoreDelay: SimDuration
    /// Time each object spends in `restoreUserActivityState`.
    public var restoreTime: SimDuration
    /// Time spent in `userActivityWillSave`.
    public var saveTime: SimDuration
    /// Entries `userActivityWillSave` adds to `userInfo`.
    public var saveEntries: UserInfo
    /// Entries each responder adds in `updateUserActivityState`, by
    /// responder name.
    public var responderEntries: [String: UserInfo]
    /// Stream rounds the receiver runs after `continue` (only when the
    /// activity supports continuation streams); empty for none.
    public var streamRounds: [StreamRound]
    /// Time the source spends answering each stream request.
    public var streamResponseTime: SimDuration

    /// A behaviour; every time defaults to zero, the app handles the
    /// continuation and restores one object named `root`.
    public init(
        willContinueTime: SimDuration = .zero, notifiesUser: Bool = false, continueTime: SimDuration = .zero,
        handlesContinuation: Bool = true, restorableObjects: [String] = ["root"], restoreDelay: SimDuration = .zero,
        restoreTime: SimDuration = .zero, saveTime: SimDuration = .zero, saveEntries: UserInfo = UserInfo(),
        responderEntries: [String: UserInfo] = [:], streamRounds: [StreamRound] = [],
        streamResponseTime: SimDuration = .zero
    ) {
        self.willContinueTime = willContinueTime
        self.notifiesUser = notifiesUser
        self.continueTime = continueTime
        self.handlesContinuation = handlesContinuation
        self.restorableObjects = restorableObjects
        self.restoreDelay = restoreDelay
        self.restoreTime = restoreTime
        self.saveTime = saveTime
        self.saveEntries = saveEntries
        self.responderEntries = responderEntries
        self.streamRounds = streamRounds
        self.streamResponseTime = streamResponseTime
    }
}

/// The built-in app: plays an ``AppBehaviour`` as both app delegate and
/// activity delegate. Scenario files describe apps this way.
public final class ScriptedApp: HandoffAppDelegate, ContinuationStreamsDelegate, UserActivityDelegate {
    /// What the app does.
    public let behaviour: AppBehaviour
    /// Stream responses received so far, as the receiver.
    private var responsesReceived = 0
    /// The restorable objects, made once (``AppBehaviour/restorableObjects``).
    private let restorables: [any Restorable]

    /// An app that plays `behaviour`.
    public init(behaviour: AppBehaviour = AppBehaviour()) {
        self.behaviour = behaviour
        restorables = behaviour.restorableObjects.map { NamedRestorable(name: $0, restoreTime: behaviour.restoreTime) }
    }

    /// Charges `willContinueTime`; returns `notifiesUser`.
    public func application(willContinueUserActivityWithType type: String, context: inout CallbackContext) -> Bool {
        context.charge(behaviour.willContinueTime)
        return behaviour.notifiesUser
    }

    /// Charges `continueTime`; unless `handlesContinuation` is false, asks for
    /// streams when the activity allows them and there are `streamRounds`, or
    /// else restores the `restorableObjects` after `restoreDelay`.
    public func application(continue activity: ContinuedActivity, context: inout ContinueContext) -> Bool {
        context.charge(behaviour.continueTime)
        guard behaviour.handlesContinuation else { return false }
        if activity.supportsContinuationStreams, !behaviour.streamRounds.isEmpty {
            context.getContinuationStreams()
        } else if !behaviour.restorableObjects.isEmpty {
            context.restore(restorables, after: behaviour.restoreDelay)
        }
        return true
    }

    /// Does nothing.
    public func application(
        didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext
    ) {}

    /// Sends the first round's request.
    public func continuationStreamsOpened(for activity: ContinuedActivity, context: inout StreamContext) {
        responsesReceived = 0
        if let first = behaviour.streamRounds.first { context.request(bytes: first.requestBytes) }
    }

    /// Falls back to what the payload alone allows: restores the objects.
    public func continuationStreamsFailed(
        for activity: ContinuedActivity, error: ContinuationError, context: inout StreamContext
    ) {
        // Fall back to what the payload alone allows.
        if !behaviour.restorableObjects.isEmpty {
            context.restore(restorables, after: behaviour.restoreDelay)
        }
    }

    /// Sends the next round's request, or closes the streams and restores.
    public func continuationStreamResponse(
        _ response: StreamResponse, for activity: ContinuedActivity, context: inout StreamContext
    ) {
        responsesReceived += 1
        if responsesReceived < behaviour.streamRounds.count {
            context.request(bytes: behaviour.streamRounds[responsesReceived].requestBytes)
        } else {
            context.closeStreams()
            if !behaviour.restorableObjects.isEmpty {
                context.restore(restorables, after: behaviour.restoreDelay)
            }
        }
    }

    /// Charges `saveTime` and adds `saveEntries`.
    public func userActivityWillSave(_ activity: inout ActivityContent, context: inout CallbackContext) {
        context.charge(behaviour.saveTime)
        activity.addUserInfoEntries(behaviour.saveEntries)
    }

    /// Adds the responder's `responderEntries`.
    public func updateUserActivityState(
        _ activity: inout ActivityContent, responder: String, context: inout CallbackContext
    ) {
        if let entries = behaviour.responderEntries[responder] { activity.addUserInfoEntries(entries) }
    }

    /// Does nothing.
    public func userActivityWasContinued(_ activity: ActivityContent, by device: String, context: inout CallbackContext) {}

    /// Does nothing.
    public func userActivity(
        _ activity: ActivityContent, didReceiveStreamsFrom device: String, context: inout CallbackContext
    ) {}

    /// Charges `streamResponseTime`; answers with the round's `responseBytes`.
    public func userActivity(
        _ activity: ActivityContent, respondToStreamRequest round: Int, requestBytes: Int,
        context: inout CallbackContext
    ) -> Int {
        context.charge(behaviour.streamResponseTime)
        guard round < behaviour.streamRounds.count else { return 0 }
        return behaviour.streamRounds[round].responseBytes
    }
}

/// A restorable object of a scripted app: its name, and the time its
/// `restoreUserActivityState` takes.
final class NamedRestorable: Restorable {
    let restorationIdentifier: String
    let restoreTime: SimDuration

    init(name: String, restoreTime: SimDuration) {
        restorationIdentifier = name
        self.restoreTime = restoreTime
    }

    func restoreUserActivityState(_ activity: ContinuedActivity, context: inout CallbackContext) {
        context.charge(restoreTime)
    }
}
