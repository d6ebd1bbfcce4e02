import HandoffWorld
import SimKernel

/// What a trace record observed: a state change, a delegate callback, a
/// protocol message, a milestone of the fetch, or another step of the
/// system — each with typed payloads, never text.
///
/// Every rendering (text, JSON, the sequence diagram, Perfetto) and every
/// expectation reads these cases; ``name`` is the event's identifier in
/// all of them and in scenario files' `events` and `callbacks`.
///
/// ```swift
/// if case let .system(.fetchFailed(error)) = record.event { print(error.code) }
/// ```
public enum TraceEvent: Hashable, Sendable {
    /// A step of one of the two state machines, legal or not (an illegal
    /// one has no state after it), with what caused it when that is known.
    case transition(StateTransition, TransitionNote?)
    /// The app changed an activity after invalidating it: illegal, and
    /// not applied.
    case illegalChange(ActivityChange.Kind)
    /// The app changed its activity (`needsSave`, `addUserInfoEntries`,
    /// `isEligibleForHandoff`).
    case change(ActivityChange)
    /// The system called the app or one of its objects.
    case callback(Callback)
    /// A protocol message left the device.
    case message(ProtocolMessage)
    /// The receiver's fetch reached a milestone (``Milestone/fetchStarted``,
    /// ``Milestone/resolved``, ``Milestone/connected``,
    /// ``Milestone/payloadArrived``), with what the trace says about it.
    case milestone(Milestone, MilestoneDetail)
    /// Another step of the system: discovery, advertising, the fetch's
    /// fallbacks and failures, the source's answers.
    case system(SystemEvent)
}

/// One step of a state machine: its state before, the event, and its state
/// after (`nil` when the machine does not allow the event there).
public enum StateTransition: Hashable, Sendable {
    /// A step of the source activity's machine (``SourceActivityMachine``).
    case source(
        from: SourceActivityMachine.State, event: SourceActivityMachine.Event, to: SourceActivityMachine.State?)
    /// A step of a continuation attempt's machine (``ContinuationMachine``).
    case continuation(
        from: ContinuationMachine.State, event: ContinuationMachine.Event, to: ContinuationMachine.State?)

    /// Whether the machine allowed the step.
    public var isLegal: Bool {
        switch self {
        case let .source(_, _, to): return to != nil
        case let .continuation(_, _, to): return to != nil
        }
    }
}

/// What caused a state change, or what it carried.
public enum TransitionNote: Hashable, Sendable {
    /// `superseded`: this other activity became current on the device.
    case becameCurrent(TraceActivity)
    /// `save`: the payload request of this receiving device.
    case requestedBy(TraceDevice)
    /// `continued`: the receiving device that continued the activity.
    case continuedBy(TraceDevice)
    /// `withdraw`: a more recently current activity is offered instead.
    case moreRecent(TraceActivity)
    /// `withdraw`: the source stopped advertising this long ago (the
    /// resume window).
    case advertisingEnded(ago: SimDuration)
    /// `withdraw`: the activity was invalidated.
    case activityInvalidated
    /// `withdraw`: the receiver lost the source device (nothing heard from
    /// it for the lost-device grace).
    case deviceLost(TraceDevice)
    /// `offer`: the offer opens in the browser.
    case inBrowser
    /// `launch`: how the app (or the browser) launches, and how long it
    /// takes.
    case launch(Launch, SimDuration)
    /// `openInBrowser`: the page that opens (`nil` when the activity has
    /// none).
    case webpage(WebpageURL?)
    /// `fail`: the error the app gets.
    case error(ContinuationError)
    /// `restore`: the restorable object, by its
    /// ``Restorable/restorationIdentifier``.
    case restoring(String)
    /// An illegal step, not applied.
    case illegal

    /// How a continuation launches.
    public enum Launch: Hashable, Sendable, CaseIterable {
        /// The app was running.
        case warm
        /// The app was not running.
        case cold
        /// The browser launches.
        case browser
    }
}

/// A change the app made to its activity.
public enum ActivityChange: Hashable, Sendable {
    /// `needsSave` set to this value.
    case needsSave(Bool)
    /// `addUserInfoEntries` with these keys (sorted).
    case addUserInfoEntries(keys: [String])
    /// `isEligibleForHandoff` set to this value.
    case eligibleForHandoff(Bool)

    /// The kind of change, without its value.
    public enum Kind: Hashable, Sendable, CaseIterable {
        /// Setting `needsSave`.
        case setNeedsSave
        /// Calling `addUserInfoEntries`.
        case addUserInfoEntries
        /// Setting `isEligibleForHandoff`.
        case isEligibleForHandoff
    }
}

/// A delegate callback: the system calls the app, an activity's delegate
/// or a restorable object.
public enum Callback: Hashable, Sendable {
    /// `willContinueUserActivityWithType`, with what the delegate answered.
    case willContinueUserActivity(DelegateAnswer)
    /// `continue(_:restorationHandler:)`, with what the delegate answered.
    case continueUserActivity(DelegateAnswer)
    /// `didFailToContinueUserActivityWithType` with this error.
    case didFailToContinueUserActivity(ContinuationError)
    /// `restoreUserActivityState` on the object with this
    /// ``Restorable/restorationIdentifier``.
    case restoreUserActivityState(String)
    /// `userActivityWillSave` (the system then clears `needsSave`).
    case userActivityWillSave
    /// `updateUserActivityState` on this responder.
    case updateUserActivityState(responder: String)
    /// The scene delegate's update of the activity it is saving.
    case sceneDidUpdate
    /// `userActivityWasContinued`: this device continued the activity.
    case userActivityWasContinued(by: TraceDevice)
    /// `didReceiveInputStream`: this device opened continuation streams.
    case didReceiveInputStream(from: TraceDevice)
    /// The receiving app's continuation streams are open.
    case continuationStreamsOpened
    /// The receiving app's continuation streams failed with this error.
    case continuationStreamsFailed(ContinuationError)
    /// A continuation-stream response arrived at the receiving app.
    case continuationStreamResponse(round: Int, bytes: Int)
    /// The receiving app asked for continuation streams inside `continue`.
    case getContinuationStreams

    /// What a delegate answered.
    public enum DelegateAnswer: Hashable, Sendable {
        /// A scene delegate (its callbacks return nothing).
        case scene
        /// An application delegate returned this value.
        case returned(Bool)
    }
}

/// The interfaces a Bonjour browse for the source's service covers.
public enum BrowseInterfaces: Hashable, Sendable, CaseIterable {
    /// Wi-Fi peer-to-peer (AWDL) only.
    case peerToPeer
    /// The Wi-Fi network both devices are on, only.
    case localNetwork
    /// Peer-to-peer and the Wi-Fi network both devices are on.
    case peerToPeerAndLocalNetwork
}

/// A message of the protocol, as its sender sends it.
public enum ProtocolMessage: Hashable, Sendable {
    /// A Bonjour query for the source's `_companion-link._tcp` service on
    /// the interfaces the browse covers: the first (`number` 1) or a repeat.
    case resolveQuery(number: Int, on: BrowseInterfaces)
    /// A Rapport message of the fetch, framed, of this many bytes.
    case rapport(RapportMessage, bytes: Int)
    /// The payload request, over the cloud relay (IDS).
    case cloudRequest
    /// The source sends the payload: `userInfoBytes` of `userInfo`,
    /// `totalBytes` in all (envelope and framing).
    case payload(userInfoBytes: Int, totalBytes: Int)
    /// A continuation-stream request reached the source (its app answers
    /// `responseBytes`).
    case streamRequest(round: Int, requestBytes: Int, responseBytes: Int)
    /// The receiver starts the Bluetooth LE key exchange with this source,
    /// whose advertising key it does not know.
    case keyExchange(with: TraceDevice)
}

/// A Rapport message of the fetch, in the order they are sent.
public enum RapportMessage: Hashable, Sendable, CaseIterable {
    /// Pair-Verify M1, receiver → source.
    case pairVerifyM1
    /// Pair-Verify M2, source → receiver.
    case pairVerifyM2
    /// Pair-Verify M3, receiver → source.
    case pairVerifyM3
    /// Pair-Verify M4, source → receiver.
    case pairVerifyM4
    /// `_systemInfo` request, receiver → source.
    case systemInfoRequest
    /// `_systemInfo` answer, source → receiver.
    case systemInfoAnswer
    /// The payload request, receiver → source (Pair-Verify is done).
    case payloadRequest

    /// Whether the source sends it.
    public var isFromSource: Bool {
        self == .pairVerifyM2 || self == .pairVerifyM4 || self == .systemInfoAnswer
    }
}

/// What the trace says about a milestone of the fetch.
public enum MilestoneDetail: Hashable, Sendable {
    /// Nothing more.
    case none
    /// ``Milestone/fetchStarted``: the source device asked, while the app
    /// launches.
    case fetchFrom(TraceDevice)
    /// ``Milestone/resolved``: after this many Bonjour queries.
    case afterQueries(Int)
    /// ``Milestone/connected``: TCP over this path.
    case over(PathKind)
    /// ``Milestone/payloadArrived``: the fetch took this long.
    case fetchTook(SimDuration)
}

/// A step of the system that is neither a state change, a callback, a
/// message nor a milestone.
public enum SystemEvent: Hashable, Sendable {
    /// An eligible advertisement from this source arrived: the attempt is
    /// `discovered`.
    case discovered(advertisementFrom: TraceDevice)
    /// The activity is not offered on the device, for this reason.
    case notOffered(NotOfferedReason)
    /// The user accepted with nothing offered.
    case acceptedWithoutOffer
    /// The activity became current but is not advertised (Low Power Mode).
    case notAdvertised(AdvertisingStop)
    /// An advertisement update must wait until this instant (the pacing of
    /// updates).
    case advertisementPaced(until: SimInstant)
    /// The advertisement stopped, for this reason.
    case advertisementRemoved(AdvertisingStop)
    /// The device is in use again: its current activity is advertised again.
    case advertisingAgain
    /// Rapport's request timeout: no payload after this long.
    case rapportTimedOut(after: SimDuration)
    /// The fetch falls back to the cloud relay (IDS).
    case fetchOverCloud
    /// After its delay, the cloud relay delivers a message of `bytes`
    /// bytes down this device's connection to Apple's servers.
    case relayDelivers(bytes: Int)
    /// The payload of `bytes` bytes is over the relay's inline limit: the
    /// relay stores it and tells this device, which downloads it.
    case relayStored(bytes: Int)
    /// The fetch's connection failed.
    case connectionFailed(ConnectionFailure)
    /// The fetch failed with this error.
    case fetchFailed(ContinuationError)
    /// The key exchange with this source completed.
    case keysExchanged(with: TraceDevice)
    /// The key exchange failed.
    case keyExchangeFailed(KeyExchangeFailure)
    /// The payload timer fired: no payload after this long.
    case payloadTimerFired(after: SimDuration)
    /// A payload request arrived again; the answer already decided is sent
    /// again.
    case requestAgain
    /// The source refuses the fetch.
    case fetchRefused(FetchRefusal)
    /// The app's update took `update`, longer than the source waits
    /// (`wait`): the payload is sent as it was.
    case saveWaitOver(update: SimDuration, wait: SimDuration)
    /// The payload is larger than Apple recommends: `size` bytes over
    /// `recommended`.
    case userInfoOverRecommended(size: Int, recommended: Int)
    /// The receiver's notice that it continued arrived after the activity
    /// was invalidated: ignored.
    case continuedNoticeIgnored
    /// The receiver heard nothing from this device for `grace` since
    /// `lastHeard`: the device is removed and its offers there end.
    case deviceLost(TraceDevice, lastHeard: SimInstant, grace: SimDuration)
    /// The receiver heard this lost device again (its latest
    /// advertisement at `heard`) without finding it again, so its scan
    /// for the device goes on: it stops `scanStopAfterLoss` after that
    /// advertisement, at `scanStopDue`.
    ///
    /// Recorded when the scan stop was due, once for the latest
    /// advertisement heard before then (the one that moves the stop), not
    /// for every advertisement.
    case lostDeviceHeard(TraceDevice, heard: SimInstant, scanStopDue: SimInstant)
    /// The receiver stopped scanning for this lost device; it hears it
    /// again only once its scanning restarts.
    case scanStopped(for: TraceDevice)
    /// The receiver's scanning restarted (its screen came on, or Bluetooth
    /// did): lost devices can be found again.
    case scanRestarted
    /// The user on the device gave input (the device is in use).
    case userInput
    /// The device's user has given no input for this long: the system
    /// goes idle.
    case userIdle(after: SimDuration)
    /// The activity is current and dirty: the system asks the app for an
    /// update, as it does every `interval`.
    case activePayloadUpdate(interval: SimDuration)
    /// The Bluetooth LE connection of the key exchange failed: the keys
    /// are asked for through the cloud relay (APNs).
    case keysOverCloud(with: TraceDevice)

    /// Why a device stops (or does not start) advertising.
    public enum AdvertisingStop: Hashable, Sendable, CaseIterable {
        /// Low Power Mode is on.
        case lowPowerMode
        /// The system went idle.
        case idle
        /// The device locked.
        case locked
        /// The screen dimmed.
        case dimmed
        /// The iPhone locked and, on iOS 18.3 or later, sends no Handoff
        /// advertisement (only one of an unidentified Continuity type 0x16,
        /// furiousMAC/continuity issue 10).
        case lockedNearbyOnly
    }

    /// How a key exchange failed.
    public enum KeyExchangeFailure: Hashable, Sendable {
        /// No keys arrived within this time.
        case timedOut(after: SimDuration)
        /// Its connection failed.
        case connection(ConnectionFailure)
    }

    /// Why the source refuses a fetch.
    public enum FetchRefusal: Hashable, Sendable {
        /// The activity is no longer available (invalidated, or the source
        /// left the account or turned Handoff off).
        case unavailable
        /// The `userInfo` lacks these required keys.
        case missingKeys([String])
        /// The `userInfo` is `size` bytes, over the `limit`.
        case tooLarge(size: Int, limit: Int)
    }
}
