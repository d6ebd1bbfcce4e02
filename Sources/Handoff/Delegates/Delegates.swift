import SimKernel

/// The NSUserActivity error codes a failed continuation reports (the numbers
/// are Foundation's).
///
/// An open set of codes, so a struct with static members.
public struct ContinuationError: Error, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The numeric code.
    public let code: Int

    /// The error with `code`.
    public init(code: Int) { self.code = code }

    /// 4608 `NSUserActivityHandoffFailedError`: the activity's data is not
    /// available (the source went away, invalidated it, or lost the
    /// connection mid-transfer).
    public static let handoffFailed = ContinuationError(code: 4608)
    /// 4609 `NSUserActivityConnectionUnavailableError`: no connection to the
    /// source could be set up.
    public static let connectionUnavailable = ContinuationError(code: 4609)
    /// 4610 `NSUserActivityRemoteApplicationTimedOutError`: the source did
    /// not send the data in time.
    public static let remoteApplicationTimedOut = ContinuationError(code: 4610)
    /// 4611 `NSUserActivityHandoffUserInfoTooLargeError`: the data is larger
    /// than the limit.
    public static let handoffUserInfoTooLarge = ContinuationError(code: 4611)

    /// Foundation's name for the code, or the bare number for others.
    public var name: String {
        switch code {
        case 4608: return "handoffFailed"
        case 4609: return "connectionUnavailable"
        case 4610: return "remoteApplicationTimedOut"
        case 4611: return "handoffUserInfoTooLarge"
        default: return "error"
        }
    }

    public static func < (lhs: ContinuationError, rhs: ContinuationError) -> Bool { lhs.code < rhs.code }

    public var description: String { "\(code) \(name)" }
}

/// What a delegate callback can do besides returning a value: charge
/// simulated processing time, which delays whatever the system does next.
public struct CallbackContext: Sendable {
    /// The simulated instant of the call.
    public let now: SimInstant
    /// The name of the device the callback runs on.
    public let device: String
    /// The time charged so far in this callback.
    public private(set) var processingTime: SimDuration = .zero

    /// A context for a callback at `now` on `device`.
    public init(now: SimInstant, device: String) {
        self.now = now
        self.device = device
    }

    /// Adds `duration` of simulated processing to this callback.
    ///
    /// Negative durations count as zero.
    public mutating func charge(_ duration: SimDuration) {
        if duration > .zero { processingTime += duration }
    }
}

/// The context of `application(_:continue:restorationHandler:)`: charge
/// time, call the restoration handler (now or later), and ask for
/// continuation streams.
///
/// `getContinuationStreams` exists only here, because Apple allows it only
/// inside `continue`.
public struct ContinueContext: Sendable {
    /// The common callback context.
    public var callback: CallbackContext
    /// Restoration-handler calls: the objects, and the delay after the
    /// callback returns.
    public private(set) var restorations: [(objects: [String], delay: SimDuration)] = []
    /// Whether the app asked for continuation streams.
    public private(set) var requestedStreams = false

    /// A context for a `continue` callback at `now` on `device`.
    public init(now: SimInstant, device: String) {
        callback = CallbackContext(now: now, device: device)
    }

    /// A context whose restoration list reuses `storage`'s memory (emptied
    /// first), so a simulation running trial after trial does not allocate
    /// a new list each time.
    init(now: SimInstant, device: String, reusing storage: consuming [(objects: [String], delay: SimDuration)]) {
        callback = CallbackContext(now: now, device: device)
        restorations = consume storage
        restorations.removeAll(keepingCapacity: true)
    }

    /// Adds `duration` of simulated processing to this callback.
    public mutating func charge(_ duration: SimDuration) { callback.charge(duration) }

    /// Calls the restoration handler with the named restorable objects,
    /// `delay` after the callback returns; each gets
    /// `restoreUserActivityState`.
    public mutating func restore(_ objects: [String], after delay: SimDuration = .zero) {
        restorations.append((objects, delay > .zero ? delay : .zero))
    }

    /// `getContinuationStreams`: opens streams to the source once the
    /// callback returns. The app hears back through
    /// ``HandoffAppDelegate/continuationStreamsOpened(for:context:)`` or
    /// ``HandoffAppDelegate/continuationStreamsFailed(for:error:context:)``.
    public mutating func getContinuationStreams() { requestedStreams = true }
}

/// The context of a receiving app's stream callbacks: charge time, send
/// requests to the source, and restore.
public struct StreamContext: Sendable {
    /// The common callback context.
    public var callback: CallbackContext
    /// Requests to send, in order: their sizes in bytes.
    public private(set) var requests: [Int] = []
    /// Restoration-handler calls, as in ``ContinueContext``.
    public private(set) var restorations: [(objects: [String], delay: SimDuration)] = []
    /// Whether the app closes the streams after this callback.
    public private(set) var closesStreams = false

    /// A context for a stream callback at `now` on `device`.
    public init(now: SimInstant, device: String) {
        callback = CallbackContext(now: now, device: device)
    }

    /// Adds `duration` of simulated processing to this callback.
    public mutating func charge(_ duration: SimDuration) { callback.charge(duration) }

    /// Sends a request of `bytes` to the source over the output stream once
    /// the callback returns.
    public mutating func request(bytes: Int) { requests.append(max(bytes, 0)) }

    /// Calls the restoration handler with the named objects, `delay` after
    /// the callback returns.
    public mutating func restore(_ objects: [String], after delay: SimDuration = .zero) {
        restorations.append((objects, delay > .zero ? delay : .zero))
    }

    /// Closes the streams once the callback returns.
    public mutating func closeStreams() { closesStreams = true }
}

/// An activity as the receiving app sees it in `continue`.
public struct ContinuedActivity: Hashable, Sendable {
    /// The activity type.
    public let activityType: String
    /// The title.
    public let title: String?
    /// The data sent by the source (a document URL rewritten for this
    /// device; empty for a web page handed to a native app).
    public let userInfo: UserInfo
    /// The web page, if any.
    public let webpageURL: WebpageURL?
    /// Whether the source allows continuation streams.
    public let supportsContinuationStreams: Bool
    /// The source device's name.
    public let sourceDevice: String

    /// An activity as delivered (public so app tests can call their
    /// controllers directly).
    public init(
        activityType: String, title: String?, userInfo: UserInfo, webpageURL: WebpageURL?,
        supportsContinuationStreams: Bool, sourceDevice: String
    ) {
        self.activityType = activityType
        self.title = title
        self.userInfo = userInfo
        self.webpageURL = webpageURL
        self.supportsContinuationStreams = supportsContinuationStreams
        self.sourceDevice = sourceDevice
    }
}

/// A stream response as the receiving app sees it.
public struct StreamResponse: Hashable, Sendable {
    /// Which request it answers, from 0.
    public let round: Int
    /// The request's size in bytes.
    public let requestBytes: Int
    /// The response's size in bytes.
    public let responseBytes: Int

    /// A response of round `round`.
    public init(round: Int, requestBytes: Int, responseBytes: Int) {
        self.round = round
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
    }
}

/// The app delegate's Handoff callbacks (`UIApplicationDelegate` /
/// `NSApplicationDelegate`), for the app on one receiving device.
///
/// Every method has a default that behaves like an app that implements
/// nothing but accepts the continuation. Implement it with a class holding
/// your real controller to run your code through the simulation; each
/// callback can charge simulated processing time through its context.
///
/// ```swift
/// final class BrowserController: HandoffAppDelegate {
///     var restoredURL: String?
///     func continueUserActivity(_ activity: ContinuedActivity, context: inout ContinueContext) -> Bool {
///         if case let .string(url)? = activity.userInfo["Url"] { restoredURL = url }
///         context.charge(.milliseconds(20))
///         context.restore(["tab"])
///         return true
///     }
/// }
/// ```
public protocol HandoffAppDelegate: AnyObject {
    /// `application(_:willContinueUserActivityWithType:)`: a continuation is
    /// starting. Return `true` if the app told the user itself.
    func willContinueUserActivity(withType type: String, context: inout CallbackContext) -> Bool

    /// `application(_:continue:restorationHandler:)`: the data arrived.
    /// Return `true` if the app handled the activity.
    func continueUserActivity(_ activity: ContinuedActivity, context: inout ContinueContext) -> Bool

    /// `application(_:didFailToContinueUserActivityWithType:error:)`.
    func didFailToContinueUserActivity(
        withType type: String, error: ContinuationError, context: inout CallbackContext)

    /// `restoreUserActivityState(_:)` on the restorable object `object`.
    func restoreUserActivityState(_ activity: ContinuedActivity, object: String, context: inout CallbackContext)

    /// The streams asked for in `continue` are open.
    func continuationStreamsOpened(for activity: ContinuedActivity, context: inout StreamContext)

    /// The streams asked for in `continue` could not be opened.
    func continuationStreamsFailed(for activity: ContinuedActivity, error: ContinuationError, context: inout StreamContext)

    /// The source answered a stream request.
    func continuationStreamResponse(_ response: StreamResponse, for activity: ContinuedActivity, context: inout StreamContext)
}

extension HandoffAppDelegate {
    public func willContinueUserActivity(withType type: String, context: inout CallbackContext) -> Bool { false }

    public func continueUserActivity(_ activity: ContinuedActivity, context: inout ContinueContext) -> Bool {
        context.restore(["root"])
        return true
    }

    public func didFailToContinueUserActivity(
        withType type: String, error: ContinuationError, context: inout CallbackContext
    ) {}

    public func restoreUserActivityState(_ activity: ContinuedActivity, object: String, context: inout CallbackContext) {}

    public func continuationStreamsOpened(for activity: ContinuedActivity, context: inout StreamContext) {
        context.closeStreams()
    }

    public func continuationStreamsFailed(
        for activity: ContinuedActivity, error: ContinuationError, context: inout StreamContext
    ) {}

    public func continuationStreamResponse(
        _ response: StreamResponse, for activity: ContinuedActivity, context: inout StreamContext
    ) {}
}

/// The activity delegate's callbacks (`NSUserActivityDelegate`) and the
/// responders' `updateUserActivityState`, for one source activity.
///
/// Every method has a default that does nothing and answers stream requests
/// with nothing.
public protocol UserActivityDelegate: AnyObject {
    /// `userActivityWillSave(_:)`: bring the activity up to date before it
    /// is sent (called when `needsSave` is set; the system clears it).
    func userActivityWillSave(_ activity: inout ActivityContent, context: inout CallbackContext)

    /// `updateUserActivityState(_:)` on the responder `responder` of a
    /// responder-managed activity, after the system cleared `userInfo`.
    func updateUserActivityState(_ activity: inout ActivityContent, responder: String, context: inout CallbackContext)

    /// `userActivityWasContinued(_:)`: another device continued it.
    func userActivityWasContinued(_ activity: ActivityContent, by device: String, context: inout CallbackContext)

    /// `userActivity(_:didReceive:outputStream:)`: the receiver opened
    /// continuation streams.
    func userActivity(_ activity: ActivityContent, didReceiveStreamsFrom device: String, context: inout CallbackContext)

    /// A stream request arrived: return the size of the answer in bytes.
    func userActivity(
        _ activity: ActivityContent, respondToStreamRequest round: Int, requestBytes: Int,
        context: inout CallbackContext
    ) -> Int
}

extension UserActivityDelegate {
    public func userActivityWillSave(_ activity: inout ActivityContent, context: inout CallbackContext) {}

    public func updateUserActivityState(
        _ activity: inout ActivityContent, responder: String, context: inout CallbackContext
    ) {}

    public func userActivityWasContinued(_ activity: ActivityContent, by device: String, context: inout CallbackContext) {}

    public func userActivity(
        _ activity: ActivityContent, didReceiveStreamsFrom device: String, context: inout CallbackContext
    ) {}

    public func userActivity(
        _ activity: ActivityContent, respondToStreamRequest round: Int, requestBytes: Int,
        context: inout CallbackContext
    ) -> Int { 0 }
}

/// Keeps the memory of one restoration list from trial to trial, so that a
/// run reset for trial after trial does not allocate a new list for every
/// `continue` callback: the list of a finished attempt is kept at a reset
/// and handed to the next ``ContinueContext``.
struct RestorationListPool {
    private var spare: [(objects: [String], delay: SimDuration)] = []

    /// A context for a `continue` callback at `now` on `device`, whose
    /// restoration list uses the kept memory.
    mutating func continueContext(now: SimInstant, device: String) -> ContinueContext {
        var list: [(objects: [String], delay: SimDuration)] = []
        swap(&list, &spare)
        return ContinueContext(now: now, device: device, reusing: list)
    }

    /// Keeps `list`'s memory if it is larger than what is kept.
    mutating func keep(_ list: inout [(objects: [String], delay: SimDuration)]) {
        if list.capacity > spare.capacity { swap(&spare, &list) }
    }
}
