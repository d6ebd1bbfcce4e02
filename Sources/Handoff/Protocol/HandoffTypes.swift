import HandoffWorld
import SimKernel

/// Something that happens at a chosen instant: what the user, an app or the
/// environment does.
public enum HandoffAction: Hashable, Sendable {
    /// The activity's app calls `becomeCurrent`.
    case becomeCurrent(ActivityID)
    /// The activity's app calls `resignCurrent`.
    case resignCurrent(ActivityID)
    /// The activity's app calls `invalidate`.
    case invalidate(ActivityID)
    /// The activity's app sets `needsSave`.
    case setNeedsSave(ActivityID, Bool)
    /// The activity's app calls `addUserInfoEntries`.
    case addUserInfoEntries(ActivityID, UserInfo)
    /// The activity's app sets `isEligibleForHandoff`.
    case setEligibleForHandoff(ActivityID, Bool)
    /// The user on `device` picks the activity offered there.
    case accept(device: String)
    /// A device's switches change (Handoff, Bluetooth, Wi-Fi).
    case setSettings(device: String, DeviceSettings)
    /// The user on `device` gives input (touches it, types): the device is
    /// in use, and its idle time starts over.
    case userInput(device: String)
    /// A device signs in to `account`, or out with `nil`.
    case setAccount(device: String, AccountID?)
}

/// An event of a Handoff simulation: a world event, a scheduled action, or
/// a protocol step of one continuation attempt.
package enum HandoffEvent: WorldEventRepresentable, Sendable {
    /// A packet, timer or advertisement of the world.
    case world(WorldEvent)
    /// The scheduled action at this index.
    case action(Int32)
    /// A protocol step of a continuation attempt.
    case step(attempt: Int32, ProtocolStep)
    /// The advertisement-key exchange of a device pair (receiver × source
    /// slot) has run out of time.
    case keyExchangeTimeout(pair: Int32, generation: UInt32)
    /// The source device's advertisement is due to be removed (it locked,
    /// dimmed or went idle); stale unless the generation is the device's.
    case advertisementRemoval(device: Int32, generation: UInt32)
    /// An activity's advertising ended `resumeWindow` ago: offers not yet
    /// accepted go away, unless it advertises again (a new generation).
    case resumeWindowEnded(activity: Int32, generation: UInt32)
    /// A paced advertisement update of the device is due.
    case advertisementUpdate(device: Int32, generation: UInt32)
    /// Time to check whether a receiver still hears a source device with
    /// offers there (receiver × device count + source).
    case presenceCheck(pair: Int32)
    /// A lost device's scan-stop time (receiver × device count + source).
    case scanStopDue(pair: Int32)
    /// The device's user may have gone idle; stale unless the generation
    /// is the device's.
    case userIdleDue(device: Int32, generation: UInt32)
    /// The activity's active-payload update is due.
    case activePayloadUpdate(activity: Int32)
}

/// A protocol step that comes due after a delay (a launch, processing time
/// charged by a callback, a timeout, a user's think time).
package enum ProtocolStep: Hashable, Sendable {
    /// The user's think time is over: accept the offer.
    case accept
    /// The app (or browser) finished launching.
    case launched
    /// `willContinue` returned: the app is ready for the data.
    case appReady
    /// The Bonjour resolve has had no answer for a while: ask again (the
    /// argument is the number of the query this repeat follows; −1 for the
    /// first query, after the new question's hold-back).
    case resolveRetry(Int32)
    /// The Bonjour resolve answered from the receiver's cache (nothing on
    /// the air).
    case resolvedFromCache
    /// A device finished handling a fetch message and sends the next one.
    case fetchSend(FetchMessage)
    /// Rapport's request timeout: fall back to the cloud, or give up.
    case rapportDeadline
    /// The payload timer: the fetch failed with 4610.
    case fetchTimeout
    /// The source finished saving: send the payload or an error.
    case sourceSend
    /// The receiver finished decoding the payload.
    case payloadDecoded
    /// `continue` returned.
    case continueReturned
    /// The restoration handler is called with the objects of this call.
    case restore(Int32)
    /// A stream callback returned: send its requests.
    case streamSend
    /// The source finished answering stream request `round`.
    case streamRespond(Int32)
    /// The cloud relay hands a message it received on one leg to the other
    /// device's leg, after its delay: the message's kind (a
    /// `MessageKind` raw value), its argument (an error code) and size,
    /// packed small so that events stay small.
    case relayForward(to: RelayLeg, kind: UInt8, argument: UInt16, bytes: Int32)

    /// Whether a scheduled step of this kind is work under way. Timers are
    /// not: they matter only while the fetch runs, which keeps the run
    /// going by itself, and counting them would keep every finished trial
    /// alive until they fire.
    var keepsRunGoing: Bool {
        switch self {
        case .fetchTimeout, .rapportDeadline, .resolveRetry: return false
        case .accept, .launched, .appReady, .resolvedFromCache, .fetchSend, .sourceSend, .payloadDecoded, .continueReturned,
            .restore, .streamSend, .streamRespond, .relayForward:
            return true
        }
    }
}

/// A message of the fetch, in the order Rapport sends them.
package enum FetchMessage: UInt8, Hashable, Sendable {
    /// Pair-Verify M1, receiver → source.
    case pairVerify1 = 1
    /// Pair-Verify M2, source → receiver.
    case pairVerify2
    /// Pair-Verify M3, receiver → source.
    case pairVerify3
    /// Pair-Verify M4, source → receiver.
    case pairVerify4
    /// `_systemInfo` request, receiver → source.
    case systemInfoRequest
    /// `_systemInfo` answer, source → receiver.
    case systemInfoAnswer
    /// The payload request, receiver → source.
    case request

    /// Whether the source sends it.
    var isFromSource: Bool { self == .pairVerify2 || self == .pairVerify4 || self == .systemInfoAnswer }

    /// The message that answers this one, or `nil` for the request (served
    /// by the source's save).
    var next: FetchMessage? { FetchMessage(rawValue: rawValue + 1) }
}

/// Where the fetch of one attempt is.
enum FetchStage: Hashable, Sendable {
    /// Not started (before the accept).
    case idle
    /// Resolving the source's Rapport service over peer-to-peer.
    case resolving
    /// Connecting and exchanging Rapport messages.
    case rapport
    /// Asking over the cloud relay (IDS).
    case cloud
    /// The payload has arrived; the receiver is decoding it.
    case decoding
    /// The payload has arrived and is decoded.
    case arrived
    /// The fetch failed with this error.
    case failed(ContinuationError)
}

/// What a connection of the world is for.
enum ConnectionOwner: Hashable, Sendable {
    /// Nothing (a slot not yet used).
    case none
    /// The fetch of this attempt.
    case fetch(Int)
    /// The continuation streams of this attempt.
    case streams(Int)
    /// The advertisement-key exchange of this device-pair slot.
    case keyExchange(Int)
    /// One leg of this attempt's fetch through the cloud relay: the
    /// receiver's or the source's connection to Apple's servers.
    case relay(Int, RelayLeg)
}

/// A device's leg of a relayed fetch: its persistent connection to Apple's
/// servers (the device initiates; the server is the responder).
package enum RelayLeg: UInt8, Hashable, Sendable {
    /// The receiver's connection to the servers.
    case receiver
    /// The source's connection to the servers.
    case source
}

/// The advertisement-key exchange of one receiver–source pair.
struct KeyExchangeState: Sendable {
    /// The connection of the exchange under way.
    var connection: ConnectionID?
    /// Counts the exchanges started, so that a stale timeout is ignored.
    var generation: UInt32 = 0
    /// When the last exchange failed.
    var failedAt: SimInstant?
    /// The activity whose advertisement started it (for the trace).
    var activity: ActivityID?
    /// The exchange's connection through the cloud relay, once its
    /// Bluetooth LE connection has failed.
    var cloudConnection: ConnectionID?
}

/// Where a continuation goes on the receiver.
enum ContinuationTarget: Hashable, Sendable {
    /// The app at this index in the setup's list.
    case app(Int)
    /// The browser, opening the activity's `webpageURL`.
    case browser
}

/// A source activity and its bookkeeping.
struct SourceActivity {
    let id: ActivityID
    let device: DeviceID
    let app: Int
    var content: ActivityContent
    var state: SourceActivityMachine.State = .created
    /// When it last became current (its adverts' start).
    var lastBecameCurrent: SimInstant?
    /// Bumped whenever its advertising restarts; adverts carry it.
    var advertGeneration: UInt32 = 0
    /// Whether its advertising has ended and so has the resume window
    /// after it (cleared when it is advertised again): no receiver can
    /// discover it any more until then.
    var advertisingOver = false
    /// Whether an active-payload update is scheduled for it.
    var payloadUpdatePending = false
    /// Whether its advertising started at least once in this trial.
    var everAdvertised = false
    /// Why its device last did not start, or stopped, advertising it while
    /// it was current (Low Power Mode, a locked iPhone that sends Nearby
    /// Info only, the device idle, locked or dimmed); nil once it is
    /// advertised again.
    var advertisingStop: SystemEvent.AdvertisingStop?
    /// How it last stopped being current; nil while it is current (and
    /// before it ever was).
    var currentEnded: CurrentEnd?
    let delegate: any UserActivityDelegate

    /// How an activity stopped being current.
    enum CurrentEnd {
        /// Another activity on its device became current.
        case superseded
        /// The app resigned or invalidated it.
        case resignedOrInvalidated
    }
}

/// One continuation attempt and its bookkeeping.
struct Attempt {
    let receiver: DeviceID
    let activity: ActivityID
    let target: ContinuationTarget
    var state: ContinuationMachine.State = .discovered
    /// When the attempt reached each milestone.
    var milestones = MilestoneTimes()
    /// The moments its latency budget is cut at.
    var marks = BudgetMarks()
    var failure: ContinuationError?
    /// Where the fetch is.
    var fetchStage: FetchStage = .idle
    /// Whether `willContinue` has returned (the app is ready for the data).
    var appReady = false
    /// Bonjour queries sent.
    var resolveQueries = 0
    /// The path the fetch (and then the streams) runs over: the configured
    /// path, the local network when the source resolved there first, or the
    /// cloud relay after a fallback.
    var rapportPath: PathKind = .wifiPeerToPeer
    /// The source's leg of a relayed fetch, once the relay has reached it.
    var sourceLeg: ConnectionID?
    /// The side of ``replyConnection`` the source sends from.
    var replySide: ConnectionSide = .responder
    /// The connection the payload comes over (Rapport's, then the cloud's).
    var connection: ConnectionID?
    /// The connection the source answers on: the one its request came over.
    var replyConnection: ConnectionID?
    var streamConnection: ConnectionID?
    /// The source's answer, decided when the request arrived and sent after
    /// its processing time: the payload, or an error.
    var pendingReply: Result<Int, ContinuationError>?
    /// What `continue` receives.
    var delivered: ContinuedActivity?
    /// Restoration-handler calls not yet made.
    var restorations: [(objects: [any Restorable], delay: SimDuration)] = []
    /// Stream requests waiting for their callback to return.
    var queuedRequests: [Int] = []
    /// Stream request sizes by round.
    var requestSizes: [Int] = []
    /// Stream responses decided by the source, by round.
    var responseSizes: [Int: Int] = [:]
    var closesStreamsWhenIdle = false
    var outstandingRequests = 0
    /// Steps scheduled but not yet run (the attempt is busy while any are).
    var pendingSteps = 0
    /// Whether the "continued" notice is on its way to the source.
    var noticeInFlight = false

    /// Whether the fetch is under way.
    var isFetching: Bool {
        switch fetchStage {
        case .resolving, .rapport, .cloud: return true
        case .idle, .decoding, .arrived, .failed: return false
        }
    }
}
