/// The names of trace events: one identifier per kind of event, shared by
/// every rendering and by scenario files.
extension TraceEvent {
    /// A trace event's name, without its payload: what the text trace
    /// prints between the states (`payload arrived`, `continueUserActivity`,
    /// `offered -accept-> accepted`'s `accept`), the `event` field of the
    /// JSON and Perfetto renderings, and what a scenario's `events` and
    /// `callbacks` expectations list.
    ///
    /// The raw value is the name as written. Two events may share a name
    /// (the `accept` of an offer and an accept with nothing offered).
    public enum Name: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        // Source machine events.
        /// ``SourceActivityMachine/Event/becomeCurrent``.
        case becomeCurrent
        /// ``SourceActivityMachine/Event/resignCurrent``.
        case resignCurrent
        /// ``SourceActivityMachine/Event/superseded``.
        case superseded
        /// ``SourceActivityMachine/Event/save``.
        case save
        /// ``SourceActivityMachine/Event/continued``.
        case continued
        /// ``SourceActivityMachine/Event/invalidate``.
        case invalidate
        // Continuation machine events.
        /// ``ContinuationMachine/Event/offer``.
        case offer
        /// ``ContinuationMachine/Event/accept``, or an accept with nothing
        /// offered.
        case accept
        /// ``ContinuationMachine/Event/launch``.
        case launch
        /// ``ContinuationMachine/Event/willContinue``.
        case willContinue
        /// ``ContinuationMachine/Event/continue``.
        case `continue`
        /// ``ContinuationMachine/Event/restore``.
        case restore
        /// ``ContinuationMachine/Event/fail``.
        case fail
        /// ``ContinuationMachine/Event/withdraw``.
        case withdraw
        /// ``ContinuationMachine/Event/openInBrowser``.
        case openInBrowser
        /// ``SystemEvent/discovered(advertisementFrom:)``.
        case discover
        // Changes to an activity.
        /// ``ActivityChange/Kind/setNeedsSave`` after `invalidate`.
        case setNeedsSave
        /// ``ActivityChange/addUserInfoEntries(keys:)``, or the same after
        /// `invalidate`.
        case addUserInfoEntries
        /// ``ActivityChange/Kind/isEligibleForHandoff`` after `invalidate`.
        case isEligibleForHandoff
        /// ``ActivityChange/needsSave(_:)`` with `true`.
        case needsSaveTrue = "needsSave = true"
        /// ``ActivityChange/needsSave(_:)`` with `false`.
        case needsSaveFalse = "needsSave = false"
        /// ``ActivityChange/eligibleForHandoff(_:)`` with `true`.
        case isEligibleForHandoffTrue = "isEligibleForHandoff = true"
        /// ``ActivityChange/eligibleForHandoff(_:)`` with `false`.
        case isEligibleForHandoffFalse = "isEligibleForHandoff = false"
        // Callbacks.
        /// ``Callback/willContinueUserActivity(_:)``.
        case willContinueUserActivity
        /// ``Callback/continueUserActivity(_:)``.
        case continueUserActivity
        /// ``Callback/didFailToContinueUserActivity(_:)``.
        case didFailToContinueUserActivity
        /// ``Callback/restoreUserActivityState(_:)``.
        case restoreUserActivityState
        /// ``Callback/userActivityWillSave``.
        case userActivityWillSave
        /// ``Callback/updateUserActivityState(responder:)``.
        case updateUserActivityState
        /// ``Callback/sceneDidUpdate``.
        case sceneDidUpdate
        /// ``Callback/userActivityWasContinued(by:)``.
        case userActivityWasContinued
        /// ``Callback/didReceiveInputStream(from:)``.
        case didReceiveInputStream
        /// ``Callback/continuationStreamsOpened``.
        case continuationStreamsOpened
        /// ``Callback/continuationStreamsFailed(_:)``.
        case continuationStreamsFailed
        /// ``Callback/continuationStreamResponse(round:bytes:)``.
        case continuationStreamResponse
        /// ``Callback/getContinuationStreams``.
        case getContinuationStreams
        // Messages.
        /// ``ProtocolMessage/resolveQuery(number:on:)``.
        case resolve
        /// ``RapportMessage/pairVerifyM1``.
        case pairVerifyM1 = "Pair-Verify M1"
        /// ``RapportMessage/pairVerifyM2``.
        case pairVerifyM2 = "Pair-Verify M2"
        /// ``RapportMessage/pairVerifyM3``.
        case pairVerifyM3 = "Pair-Verify M3"
        /// ``RapportMessage/pairVerifyM4``.
        case pairVerifyM4 = "Pair-Verify M4"
        /// ``RapportMessage/systemInfoRequest``.
        case systemInfoRequest = "_systemInfo request"
        /// ``RapportMessage/systemInfoAnswer``.
        case systemInfoAnswer = "_systemInfo answer"
        /// ``RapportMessage/payloadRequest``.
        case payloadRequest = "payload request"
        /// ``ProtocolMessage/cloudRequest``.
        case request
        /// ``ProtocolMessage/payload(userInfoBytes:totalBytes:)``.
        case sendPayload = "send payload"
        /// ``ProtocolMessage/streamRequest(round:requestBytes:responseBytes:)``.
        case streamRequest = "stream request"
        /// ``ProtocolMessage/keyExchange(with:)``.
        case keyExchange = "key exchange"
        // Milestones.
        /// ``Milestone/advertised``.
        case advertised
        /// ``Milestone/offered``.
        case offered
        /// ``Milestone/accepted``.
        case accepted
        /// ``Milestone/fetchStarted``.
        case fetch
        /// ``Milestone/resolved``.
        case resolved
        /// ``Milestone/connecting``.
        case connecting
        /// ``Milestone/connected``.
        case connected
        /// ``Milestone/verified``.
        case verified
        /// ``Milestone/requested``.
        case requested
        /// ``Milestone/payloadArrived``.
        case payloadArrived = "payload arrived"
        /// ``Milestone/restored``.
        case restored
        /// ``Milestone/streamRequestSent``.
        case streamRequestSent
        /// ``Milestone/streamResponseArrived``.
        case streamResponseArrived
        // System steps.
        /// ``SystemEvent/notOffered(_:)``.
        case notOffered = "not offered"
        /// ``SystemEvent/notAdvertised(_:)``.
        case notAdvertised = "not advertised"
        /// ``SystemEvent/advertisementPaced(until:)``.
        case advertisementPaced = "advertisement update paced"
        /// ``SystemEvent/advertisementRemoved(_:)``.
        case advertisementRemoved = "advertisement removed"
        /// ``SystemEvent/advertisingAgain``.
        case advertisingAgain = "advertising again"
        /// ``SystemEvent/rapportTimedOut(after:)``.
        case rapportTimedOut = "Rapport timed out"
        /// ``SystemEvent/fetchOverCloud``.
        case fetchOverCloud = "fetch over the cloud"
        /// ``SystemEvent/relayDelivers(bytes:)``.
        case relayDelivers = "relay delivers"
        /// ``SystemEvent/relayStored(bytes:)``.
        case relayStored = "relay stored"
        /// ``SystemEvent/connectionFailed(_:)``.
        case connectionFailed = "connection failed"
        /// ``SystemEvent/fetchFailed(_:)``.
        case fetchFailed = "fetch failed"
        /// ``SystemEvent/keysExchanged(with:)``.
        case keysExchanged = "keys exchanged"
        /// ``SystemEvent/keyExchangeFailed(_:)``.
        case keyExchangeFailed = "key exchange failed"
        /// ``SystemEvent/payloadTimerFired(after:)``.
        case payloadTimer = "payload timer"
        /// ``SystemEvent/requestAgain``.
        case requestAgain = "request again"
        /// ``SystemEvent/fetchRefused(_:)``.
        case fetchRefused = "fetch refused"
        /// ``SystemEvent/saveWaitOver(update:wait:)``.
        case saveWaitOver = "save wait over"
        /// ``SystemEvent/userInfoOverRecommended(size:recommended:)``.
        case warning
        /// ``SystemEvent/continuedNoticeIgnored``.
        case continuedNoticeIgnored = "continued notice ignored"
        /// ``SystemEvent/deviceLost(_:lastHeard:grace:)``.
        case deviceLost = "device lost"
        /// ``SystemEvent/lostDeviceHeard(_:heard:scanStopDue:)``.
        case lostDeviceHeard = "lost device heard"
        /// ``SystemEvent/scanStopped(for:)``.
        case scanStopped = "scan stopped"
        /// ``SystemEvent/scanRestarted``.
        case scanRestarted = "scan restarted"
        /// ``SystemEvent/userInput``.
        case userInput = "user input"
        /// ``SystemEvent/userIdle(after:)``.
        case userIdle = "user idle"
        /// ``SystemEvent/activePayloadUpdate(interval:)``.
        case activePayloadUpdate = "active payload update"
        /// ``SystemEvent/keysOverCloud(with:)``.
        case keysOverCloud = "keys over the cloud"

        /// The name as written.
        public var description: String { rawValue }

        /// The app-facing callbacks and calls a scenario's `callbacks`
        /// expectation may list, in the order its messages list them.
        public static let scenarioCallbacks: [Name] = [
            .willContinueUserActivity, .continueUserActivity, .restoreUserActivityState,
            .didFailToContinueUserActivity, .userActivityWillSave, .updateUserActivityState,
            .userActivityWasContinued, .getContinuationStreams, .continuationStreamsOpened,
            .continuationStreamsFailed, .didReceiveInputStream, .continuationStreamResponse,
        ]

        /// Whether a scenario's `callbacks` expectation counts the event
        /// (every callback but `sceneDidUpdate`).
        public var isScenarioCallback: Bool {
            switch self {
            case .willContinueUserActivity, .continueUserActivity, .restoreUserActivityState,
                .didFailToContinueUserActivity, .userActivityWillSave, .updateUserActivityState,
                .userActivityWasContinued, .getContinuationStreams, .continuationStreamsOpened,
                .continuationStreamsFailed, .didReceiveInputStream, .continuationStreamResponse:
                return true
            case .becomeCurrent, .resignCurrent, .superseded, .save, .continued, .invalidate, .offer, .accept, .launch,
                .willContinue, .continue, .restore, .fail, .withdraw, .openInBrowser, .discover, .setNeedsSave,
                .addUserInfoEntries, .isEligibleForHandoff, .needsSaveTrue, .needsSaveFalse, .isEligibleForHandoffTrue,
                .isEligibleForHandoffFalse, .sceneDidUpdate, .resolve, .pairVerifyM1, .pairVerifyM2, .pairVerifyM3,
                .pairVerifyM4, .systemInfoRequest, .systemInfoAnswer, .payloadRequest, .request, .sendPayload,
                .streamRequest, .keyExchange, .advertised, .offered, .accepted, .fetch, .resolved, .connecting, .connected,
                .verified, .requested, .payloadArrived, .restored, .streamRequestSent, .streamResponseArrived, .notOffered,
                .notAdvertised, .advertisementPaced, .advertisementRemoved, .advertisingAgain, .rapportTimedOut,
                .fetchOverCloud, .relayDelivers, .relayStored, .connectionFailed, .fetchFailed, .keysExchanged,
                .keyExchangeFailed, .payloadTimer, .requestAgain, .fetchRefused, .saveWaitOver, .warning,
                .continuedNoticeIgnored, .deviceLost, .lostDeviceHeard, .scanStopped, .scanRestarted, .userInput,
                .userIdle, .activePayloadUpdate, .keysOverCloud:
                return false
            }
        }
    }

    /// The event's name.
    public var name: Name {
        switch self {
        case let .transition(.source(_, event, _), _): return Name(event)
        case let .transition(.continuation(_, event, _), _): return Name(event)
        case let .illegalChange(kind):
            switch kind {
            case .setNeedsSave: return .setNeedsSave
            case .addUserInfoEntries: return .addUserInfoEntries
            case .isEligibleForHandoff: return .isEligibleForHandoff
            }
        case let .change(change):
            switch change {
            case let .needsSave(value): return value ? .needsSaveTrue : .needsSaveFalse
            case .addUserInfoEntries: return .addUserInfoEntries
            case let .eligibleForHandoff(value): return value ? .isEligibleForHandoffTrue : .isEligibleForHandoffFalse
            }
        case let .callback(callback): return callback.name
        case let .message(message): return message.name
        case let .milestone(milestone, _): return Name(milestone)
        case let .system(event): return event.name
        }
    }

    /// The milestone of the continuation attempt this event marks, if any:
    /// the offer (``Milestone/offered``), the accept, the fetch's
    /// milestones, the payload request (``Milestone/requested``), `continue`,
    /// each restore (``Milestone/restored``) and the first stream
    /// response.
    public var milestone: Milestone? {
        switch self {
        case let .transition(.continuation(_, event, .some), _):
            switch event {
            case .offer: return .offered
            case .accept: return .accepted
            case .continue: return .continued
            case .restore: return .restored
            case .launch, .willContinue, .fail, .withdraw, .openInBrowser: return nil
            }
        case .message(.rapport(.payloadRequest, _)), .message(.cloudRequest): return .requested
        case let .milestone(milestone, _): return milestone
        case .callback(.continuationStreamResponse(round: 0, _)): return .streamResponseArrived
        case .transition(.source, _), .transition(.continuation(_, _, nil), _), .illegalChange, .change, .system,
            .message(.resolveQuery), .message(.rapport(.pairVerifyM1, _)), .message(.rapport(.pairVerifyM2, _)),
            .message(.rapport(.pairVerifyM3, _)), .message(.rapport(.pairVerifyM4, _)),
            .message(.rapport(.systemInfoRequest, _)), .message(.rapport(.systemInfoAnswer, _)), .message(.payload),
            .message(.streamRequest), .message(.keyExchange),
            .callback(.willContinueUserActivity), .callback(.continueUserActivity), .callback(.didFailToContinueUserActivity),
            .callback(.restoreUserActivityState), .callback(.userActivityWillSave), .callback(.updateUserActivityState),
            .callback(.sceneDidUpdate), .callback(.userActivityWasContinued), .callback(.didReceiveInputStream),
            .callback(.continuationStreamsOpened), .callback(.continuationStreamsFailed),
            .callback(.continuationStreamResponse), .callback(.getContinuationStreams):
            return nil
        }
    }
}

extension TraceEvent.Name {
    /// The name of a source machine event.
    init(_ event: SourceActivityMachine.Event) {
        switch event {
        case .becomeCurrent: self = .becomeCurrent
        case .resignCurrent: self = .resignCurrent
        case .superseded: self = .superseded
        case .save: self = .save
        case .continued: self = .continued
        case .invalidate: self = .invalidate
        }
    }

    /// The name of a continuation machine event.
    init(_ event: ContinuationMachine.Event) {
        switch event {
        case .offer: self = .offer
        case .accept: self = .accept
        case .launch: self = .launch
        case .willContinue: self = .willContinue
        case .continue: self = .continue
        case .restore: self = .restore
        case .fail: self = .fail
        case .withdraw: self = .withdraw
        case .openInBrowser: self = .openInBrowser
        }
    }

    /// The name of a milestone event (``Milestone/continued`` shares the
    /// source's `continued`).
    init(_ milestone: Milestone) {
        switch milestone {
        case .advertised: self = .advertised
        case .offered: self = .offered
        case .accepted: self = .accepted
        case .fetchStarted: self = .fetch
        case .resolved: self = .resolved
        case .connecting: self = .connecting
        case .connected: self = .connected
        case .verified: self = .verified
        case .requested: self = .requested
        case .payloadArrived: self = .payloadArrived
        case .continued: self = .continued
        case .restored: self = .restored
        case .streamRequestSent: self = .streamRequestSent
        case .streamResponseArrived: self = .streamResponseArrived
        }
    }
}

extension Callback {
    /// The callback's name.
    public var name: TraceEvent.Name {
        switch self {
        case .willContinueUserActivity: return .willContinueUserActivity
        case .continueUserActivity: return .continueUserActivity
        case .didFailToContinueUserActivity: return .didFailToContinueUserActivity
        case .restoreUserActivityState: return .restoreUserActivityState
        case .userActivityWillSave: return .userActivityWillSave
        case .updateUserActivityState: return .updateUserActivityState
        case .sceneDidUpdate: return .sceneDidUpdate
        case .userActivityWasContinued: return .userActivityWasContinued
        case .didReceiveInputStream: return .didReceiveInputStream
        case .continuationStreamsOpened: return .continuationStreamsOpened
        case .continuationStreamsFailed: return .continuationStreamsFailed
        case .continuationStreamResponse: return .continuationStreamResponse
        case .getContinuationStreams: return .getContinuationStreams
        }
    }
}

extension ProtocolMessage {
    /// The message's name.
    public var name: TraceEvent.Name {
        switch self {
        case .resolveQuery: return .resolve
        case let .rapport(message, _):
            switch message {
            case .pairVerifyM1: return .pairVerifyM1
            case .pairVerifyM2: return .pairVerifyM2
            case .pairVerifyM3: return .pairVerifyM3
            case .pairVerifyM4: return .pairVerifyM4
            case .systemInfoRequest: return .systemInfoRequest
            case .systemInfoAnswer: return .systemInfoAnswer
            case .payloadRequest: return .payloadRequest
            }
        case .cloudRequest: return .request
        case .payload: return .sendPayload
        case .streamRequest: return .streamRequest
        case .keyExchange: return .keyExchange
        }
    }
}

extension SystemEvent {
    /// The step's name.
    public var name: TraceEvent.Name {
        switch self {
        case .discovered: return .discover
        case .notOffered: return .notOffered
        case .acceptedWithoutOffer: return .accept
        case .notAdvertised: return .notAdvertised
        case .advertisementPaced: return .advertisementPaced
        case .advertisementRemoved: return .advertisementRemoved
        case .advertisingAgain: return .advertisingAgain
        case .rapportTimedOut: return .rapportTimedOut
        case .fetchOverCloud: return .fetchOverCloud
        case .relayDelivers: return .relayDelivers
        case .relayStored: return .relayStored
        case .connectionFailed: return .connectionFailed
        case .fetchFailed: return .fetchFailed
        case .keysExchanged: return .keysExchanged
        case .keyExchangeFailed: return .keyExchangeFailed
        case .payloadTimerFired: return .payloadTimer
        case .requestAgain: return .requestAgain
        case .fetchRefused: return .fetchRefused
        case .saveWaitOver: return .saveWaitOver
        case .userInfoOverRecommended: return .warning
        case .continuedNoticeIgnored: return .continuedNoticeIgnored
        case .deviceLost: return .deviceLost
        case .lostDeviceHeard: return .lostDeviceHeard
        case .scanStopped: return .scanStopped
        case .scanRestarted: return .scanRestarted
        case .userInput: return .userInput
        case .userIdle: return .userIdle
        case .activePayloadUpdate: return .activePayloadUpdate
        case .keysOverCloud: return .keysOverCloud
        }
    }
}
