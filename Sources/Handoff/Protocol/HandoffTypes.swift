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
}

/// A protocol step that comes due after a delay (a launch, processing time
/// charged by a callback, a timeout, a user's think time).
package enum ProtocolStep: Hashable, Sendable {
    /// The user's think time is over: accept the offer.
    case accept
    /// The app (or browser) finished launching.
    case launched
    /// `willContinue` returned: ask the source for the data.
    case startFetch
    /// The fetch took too long.
    case fetchTimeout
    /// The source finished saving: send the payload or an error.
    case sourceSend
    /// `continue` returned.
    case continueReturned
    /// The restoration handler is called with the objects of this call.
    case restore(Int32)
    /// A stream callback returned: send its requests.
    case streamSend
    /// The source finished answering stream request `round`.
    case streamRespond(Int32)

    /// Whether a scheduled step of this kind is work under way. A fetch
    /// timeout is not: it matters only while fetching, which keeps the run
    /// going by itself, and counting it would keep every finished trial
    /// alive for the whole timeout.
    var keepsRunGoing: Bool {
        switch self {
        case .fetchTimeout: return false
        default: return true
        }
    }
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
    let delegate: any UserActivityDelegate
}

/// One continuation attempt and its bookkeeping.
struct Attempt {
    let receiver: DeviceID
    let activity: ActivityID
    let target: ContinuationTarget
    var state: ContinuationMachine.State = .discovered
    /// When the offered activity started advertising.
    var advertisingSince: SimInstant?
    var offeredAt: SimInstant?
    var acceptedAt: SimInstant?
    var continuedAt: SimInstant?
    var restoredAt: SimInstant?
    var failure: ContinuationError?
    var connection: ConnectionID?
    var streamConnection: ConnectionID?
    /// The source's answer, decided when the request arrived and sent after
    /// its processing time: the payload, or an error.
    var pendingReply: Result<Int, ContinuationError>?
    /// What `continue` receives.
    var delivered: ContinuedActivity?
    /// Restoration-handler calls not yet made.
    var restorations: [(objects: [String], delay: SimDuration)] = []
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
}
