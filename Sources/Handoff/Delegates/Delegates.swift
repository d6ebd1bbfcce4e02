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

    /// Ordered by code.
    public static func < (lhs: ContinuationError, rhs: ContinuationError) -> Bool { lhs.code < rhs.code }

    /// The code and its name: `4609 connectionUnavailable`.
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
public struct ContinueContext {
    /// The common callback context.
    public var callback: CallbackContext
    /// Restoration-handler calls: the objects, and the delay after the
    /// callback returns.
    public private(set) var restorations: [(objects: [any Restorable], delay: SimDuration)] = []
    /// Whether the app asked for continuation streams.
    public private(set) var requestedStreams = false

    /// A context for a `continue` callback at `now` on `device`.
    public init(now: SimInstant, device: String) {
        callback = CallbackContext(now: now, device: device)
    }

    /// A context whose restoration list reuses `storage`'s memory (emptied
    /// first), so a simulation running trial after trial does not allocate
    /// a new list each time.
    init(now: SimInstant, device: String, reusing storage: consuming [(objects: [any Restorable], delay: SimDuration)]) {
        callback = CallbackContext(now: now, device: device)
        restorations = consume storage
        restorations.removeAll(keepingCapacity: true)
    }

    /// Adds `duration` of simulated processing to this callback.
    public mutating func charge(_ duration: SimDuration) { callback.charge(duration) }

    /// Calls the restoration handler with `objects`, `delay` after the
    /// callback returns: each gets
    /// ``Restorable/restoreUserActivityState(_:context:)``, in order.
    public mutating func restore(_ objects: [any Restorable], after delay: SimDuration = .zero) {
        restorations.append((objects, delay > .zero ? delay : .zero))
    }

    /// `getContinuationStreams`: opens streams to the source once the
    /// callback returns. The app hears back through
    /// ``ContinuationStreamsDelegate/continuationStreamsOpened(for:context:)``
    /// or ``ContinuationStreamsDelegate/continuationStreamsFailed(for:error:context:)``.
    public mutating func getContinuationStreams() { requestedStreams = true }
}

/// The context of a receiving app's stream callbacks: charge time, send
/// requests to the source, and restore.
public struct StreamContext {
    /// The common callback context.
    public var callback: CallbackContext
    /// Requests to send, in order: their sizes in bytes.
    public private(set) var requests: [Int] = []
    /// Restoration-handler calls, as in ``ContinueContext``.
    public private(set) var restorations: [(objects: [any Restorable], delay: SimDuration)] = []
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

    /// Calls the restoration handler with `objects`, `delay` after the
    /// callback returns.
    public mutating func restore(_ objects: [any Restorable], after delay: SimDuration = .zero) {
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

/// An object the app hands to the restoration handler
/// (`UIResponder.restoreUserActivityState(_:)`): a view controller, a
/// document, a tab. The system calls it back with the activity once the
/// handler runs.
///
/// Every requirement must be implemented: a callback with a slightly wrong
/// signature is a compile error, not a method that is never called.
public protocol Restorable: AnyObject {
    /// The object's name in traces (`"editor"`, `"tab 2"`).
    var restorationIdentifier: String { get }

    /// `restoreUserActivityState(_:)`: restore the state the activity
    /// carries.
    func restoreUserActivityState(_ activity: ContinuedActivity, context: inout CallbackContext)
}

/// A receiving app's Handoff callbacks in the scene lifecycle
/// (`UISceneDelegate`), the lifecycle iOS, iPadOS and visionOS apps use: the
/// system calls the scene, and restoration is the app's own business.
///
/// Every requirement must be implemented (there are no defaults), so a
/// callback with a slightly wrong signature — a missing `context:`, a
/// context that is not `inout` — does not compile. Write the callbacks you
/// do not need with empty bodies; ``DefaultSceneDelegate``, a final class,
/// is a ready-made delegate for apps whose callbacks a test does not
/// exercise.
///
/// ```swift
/// final class NotesScene: HandoffSceneDelegate {
///     let editor = EditorController()
///     func scene(willContinueUserActivityWithType type: String, context: inout CallbackContext) {}
///     func scene(continue activity: ContinuedActivity, context: inout ContinueContext) {
///         context.charge(.milliseconds(20))
///         context.restore([editor])
///     }
///     func scene(didFailToContinueUserActivityWithType type: String, error: ContinuationError,
///                context: inout CallbackContext) {}
///     func scene(didUpdate activity: inout ActivityContent, context: inout CallbackContext) {}
/// }
/// ```
public protocol HandoffSceneDelegate: AnyObject {
    /// `scene(_:willContinueUserActivityWithType:)`: a continuation is
    /// starting; the system shows its own progress.
    func scene(willContinueUserActivityWithType type: String, context: inout CallbackContext)

    /// `scene(_:continue:)`: the data arrived; the activity is the scene's
    /// to handle. Restore through `context`.
    func scene(continue activity: ContinuedActivity, context: inout ContinueContext)

    /// `scene(_:didFailToContinueUserActivityWithType:error:)`.
    func scene(didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext)

    /// `scene(_:didUpdate:)`, on the source device: the system has brought
    /// the activity up to date before sending it (after
    /// ``UserActivityDelegate/userActivityWillSave(_:context:)``); a last
    /// chance to add data.
    func scene(didUpdate activity: inout ActivityContent, context: inout CallbackContext)
}

/// A receiving app's Handoff callbacks in the app-delegate lifecycle
/// (`NSApplicationDelegate` on macOS; `UIApplicationDelegate` on iOS apps
/// without scenes, which Apple marks as available through iOS 26).
///
/// Every requirement must be implemented (there are no defaults), so a
/// near-miss does not compile. ``DefaultAppDelegate``, a final class, is a
/// ready-made delegate with the default answers.
///
/// ```swift
/// final class BrowserController: HandoffAppDelegate {
///     let tab = TabController()
///     func application(willContinueUserActivityWithType type: String, context: inout CallbackContext) -> Bool {
///         false
///     }
///     func application(continue activity: ContinuedActivity, context: inout ContinueContext) -> Bool {
///         context.charge(.milliseconds(20))
///         context.restore([tab])
///         return true
///     }
///     func application(didFailToContinueUserActivityWithType type: String, error: ContinuationError,
///                      context: inout CallbackContext) {}
/// }
/// ```
public protocol HandoffAppDelegate: AnyObject {
    /// `application(_:willContinueUserActivityWithType:)`: a continuation is
    /// starting. Return `true` if the app told the user itself.
    func application(willContinueUserActivityWithType type: String, context: inout CallbackContext) -> Bool

    /// `application(_:continue:restorationHandler:)`: the data arrived.
    /// Return `true` if the app handled the activity; restore through
    /// `context` (the restoration handler).
    func application(continue activity: ContinuedActivity, context: inout ContinueContext) -> Bool

    /// `application(_:didFailToContinueUserActivityWithType:error:)`.
    func application(
        didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext)
}

/// The receiving app's side of continuation streams, for an app that asks
/// for them (``ContinueContext/getContinuationStreams()``). Adopt it beside
/// ``HandoffSceneDelegate`` or ``HandoffAppDelegate``; an app delegate that
/// does not closes the streams as soon as they open.
public protocol ContinuationStreamsDelegate: AnyObject {
    /// The streams asked for in `continue` are open.
    func continuationStreamsOpened(for activity: ContinuedActivity, context: inout StreamContext)

    /// The streams asked for in `continue` could not be opened.
    func continuationStreamsFailed(for activity: ContinuedActivity, error: ContinuationError, context: inout StreamContext)

    /// The source answered a stream request.
    func continuationStreamResponse(_ response: StreamResponse, for activity: ContinuedActivity, context: inout StreamContext)
}

/// The delegate an app on a device runs with, in its lifecycle: what an
/// ``AppDelegateFactory`` returns.
public enum HandoffDelegate {
    /// The scene lifecycle (`UISceneDelegate`): the default of iOS, iPadOS
    /// and visionOS apps.
    case scene(any HandoffSceneDelegate)
    /// The app-delegate lifecycle (`NSApplicationDelegate`,
    /// `UIApplicationDelegate`): macOS apps, and iOS apps without scenes.
    case application(any HandoffAppDelegate)

    /// The delegate object, whichever the lifecycle.
    var object: AnyObject {
        switch self {
        case let .scene(delegate): return delegate
        case let .application(delegate): return delegate
        }
    }
}

/// A scene delegate with every callback at its default: nothing is
/// restored, and the source adds nothing.
///
/// It is `final`: to handle a callback, conform to
/// ``HandoffSceneDelegate`` and implement every requirement. A subclass
/// could add a near-miss (`scene(continueActivity:context:)` without
/// `override`) that compiles and is never called; a conformance with a
/// near-miss does not compile.
public final class DefaultSceneDelegate: HandoffSceneDelegate {
    /// A delegate with the defaults.
    public init() {}

    /// Does nothing: the system shows its own progress.
    public func scene(willContinueUserActivityWithType type: String, context: inout CallbackContext) {}

    /// Handles the activity and restores nothing.
    public func scene(continue activity: ContinuedActivity, context: inout ContinueContext) {}

    /// Does nothing.
    public func scene(
        didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext
    ) {}

    /// Adds nothing.
    public func scene(didUpdate activity: inout ActivityContent, context: inout CallbackContext) {}
}

/// An app delegate with every callback at its default: the system shows
/// its own progress, the activity is handled and nothing is restored.
///
/// It is `final`, as ``DefaultSceneDelegate`` is: to handle a callback,
/// conform to ``HandoffAppDelegate`` and implement every requirement.
public final class DefaultAppDelegate: HandoffAppDelegate {
    /// A delegate with the defaults.
    public init() {}

    /// Returns `false`: the system shows its own progress.
    public func application(willContinueUserActivityWithType type: String, context: inout CallbackContext) -> Bool {
        false
    }

    /// Returns `true` (handled) and restores nothing.
    public func application(continue activity: ContinuedActivity, context: inout ContinueContext) -> Bool { true }

    /// Does nothing.
    public func application(
        didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext
    ) {}
}

/// The activity delegate's callbacks (`NSUserActivityDelegate`) and the
/// responders' `updateUserActivityState`, for one source activity.
///
/// Every requirement must be implemented (a near-miss does not compile);
/// write the callbacks you do not need with empty bodies.
/// ``DefaultUserActivityDelegate``, a final class, is a ready-made one with
/// the defaults.
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

/// An activity delegate with every callback at its default: it adds
/// nothing and answers stream requests with nothing.
///
/// It is `final`, as ``DefaultSceneDelegate`` is: to handle a callback,
/// conform to ``UserActivityDelegate`` and implement every requirement.
public final class DefaultUserActivityDelegate: UserActivityDelegate {
    /// A delegate with the defaults.
    public init() {}

    /// Adds nothing.
    public func userActivityWillSave(_ activity: inout ActivityContent, context: inout CallbackContext) {}

    /// Adds nothing.
    public func updateUserActivityState(
        _ activity: inout ActivityContent, responder: String, context: inout CallbackContext
    ) {}

    /// Does nothing.
    public func userActivityWasContinued(_ activity: ActivityContent, by device: String, context: inout CallbackContext) {}

    /// Does nothing.
    public func userActivity(
        _ activity: ActivityContent, didReceiveStreamsFrom device: String, context: inout CallbackContext
    ) {}

    /// Answers with nothing: 0 bytes.
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
    private var spare: [(objects: [any Restorable], delay: SimDuration)] = []

    /// A context for a `continue` callback at `now` on `device`, whose
    /// restoration list uses the kept memory.
    mutating func continueContext(now: SimInstant, device: String) -> ContinueContext {
        var list: [(objects: [any Restorable], delay: SimDuration)] = []
        swap(&list, &spare)
        return ContinueContext(now: now, device: device, reusing: list)
    }

    /// Keeps `list`'s memory if it is larger than what is kept.
    mutating func keep(_ list: inout [(objects: [any Restorable], delay: SimDuration)]) {
        if list.capacity > spare.capacity { swap(&spare, &list) }
    }
}
