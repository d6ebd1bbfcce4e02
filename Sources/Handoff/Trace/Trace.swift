import HandoffWorld
import SimKernel

/// One observation of a run: when, where (device, app, activity) and what
/// (a typed ``TraceEvent``).
///
/// A record holds no text. The CLI's `replay` renders it as a line of text,
/// as JSON, as a row of a sequence diagram or as a Perfetto event
/// (HandoffReport's `TraceText` and the renderings built on it); tests and
/// expectations match its enum cases.
///
/// ```swift
/// let continued = run.trace.contains { record in
///     record.device.name == "ipad" && record.event == .callback(.continueUserActivity(.returned(true)))
/// }
/// ```
public struct TraceRecord: Hashable, Sendable {
    /// When it happened.
    public let time: SimInstant
    /// The device it happened on.
    public let device: TraceDevice
    /// The app involved: an app, the browser, or the system.
    public let app: TraceApp
    /// The activity it concerns; `nil` only for an accept with nothing
    /// offered.
    public let activity: TraceActivity?
    /// What happened.
    public let event: TraceEvent

    /// A record of the given fields.
    public init(time: SimInstant, device: TraceDevice, app: TraceApp, activity: TraceActivity?, event: TraceEvent) {
        self.time = time
        self.device = device
        self.app = app
        self.activity = activity
        self.event = event
    }
}

/// A device as a trace names it: its identifier in the world and its name.
public struct TraceDevice: Hashable, Sendable {
    /// The device's identifier (its index in the world's device list).
    public let id: DeviceID
    /// The device's name (`"iphone"`).
    public let name: String

    /// The device `id`, named `name`.
    public init(id: DeviceID, name: String) {
        self.id = id
        self.name = name
    }
}

/// The app a trace record concerns.
public enum TraceApp: Hashable, Sendable {
    /// An installed app, by its bundle ID.
    case app(bundleID: String)
    /// The browser (a web page continued without a native app).
    case browser
    /// The system itself (discovery, the fetch, advertising).
    case system
}

/// An activity as a trace names it: its identifier in the run and its
/// label for renderings.
public struct TraceActivity: Hashable, Sendable {
    /// The activity's identifier in the run.
    public let id: ActivityID
    /// Its type, and its title in quotes when it has one
    /// (``ActivityContent/label``).
    public let label: String

    /// The activity `id`, labelled `label`.
    public init(id: ActivityID, label: String) {
        self.id = id
        self.label = label
    }
}

/// Why an activity was not offered on a device: the eligibility rule that
/// blocked it (the rules are checked in the order listed), or, when every
/// rule allowed it, why no advertisement of it reached the device.
public enum NotOfferedReason: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// The activity never became current, so it was never advertised.
    case neverCurrent
    /// The receiver is an Apple Watch: watchOS sends activities but never
    /// receives them.
    case receiverIsWatch
    /// Handoff is off on the source device.
    case handoffDisabledOnSource
    /// Handoff is off on the receiving device.
    case handoffDisabledOnReceiver
    /// Bluetooth is off on the source device.
    case bluetoothOffOnSource
    /// Bluetooth is off on the receiving device.
    case bluetoothOffOnReceiver
    /// Wi-Fi is off on the source device and the payload goes peer to peer.
    case wifiOffOnSource
    /// Wi-Fi is off on the receiving device and the payload goes peer to peer.
    case wifiOffOnReceiver
    /// One of the two devices is signed out of iCloud.
    case notSignedIn
    /// The two devices are signed in to different iCloud accounts.
    case differentAccount
    /// The activity's `isEligibleForHandoff` is false.
    case notEligibleForHandoff
    /// The activity's `expirationDate` has passed.
    case expired
    /// No app on the receiver has the source app's Team ID and declares the
    /// activity type, and the activity has no web page to open instead.
    case noSuitableApp
    /// Every rule holds and the activity was advertised, but no
    /// advertisement reached the device, which was out of radio range when
    /// the trial ended (or never scanning when one was sent).
    case outOfRange
    /// A more recently current activity from another device is offered
    /// instead.
    case supersededByMoreRecent
    /// Advertisements reached the device under a key it did not know, and
    /// the first-contact advertisement-key exchange over Bluetooth LE never
    /// completed (it failed or timed out, or was still under way).
    case keysNotExchanged
    /// The user on the device accepted before anything was offered there,
    /// in radio range of the source, and nothing was offered afterwards (the
    /// trial settled first).
    case acceptedBeforeOffer
    /// The source never advertised the activity: it was in Low Power Mode
    /// while the activity was current.
    case sourceInLowPowerMode
    /// The source never advertised the activity: it is an iPhone on iOS
    /// 18.3 or later, locked while the activity was current (it sends no
    /// Handoff advertisement then).
    case sourceLocked
    /// The source never advertised the activity: another activity became
    /// current there while this one's advertisement waited for the
    /// source's update pacing.
    case supersededWhilePaced
    /// The source never advertised the activity: the app resigned or
    /// invalidated it while its advertisement waited for the source's
    /// update pacing.
    case resignedWhilePaced
    /// The activity was advertised, and the device was in radio range, but
    /// another activity became current on the source before an
    /// advertisement of this one reached it.
    case supersededBeforeReceived
    /// The activity was advertised, and the device was in radio range, but
    /// the app resigned or invalidated it before an advertisement of it
    /// reached the device.
    case resignedBeforeReceived
    /// The activity was advertised, and the device was in radio range, but
    /// the source removed its advertisement (it went idle, locked or dimmed,
    /// or Low Power Mode came on) before one reached the device.
    case advertisementRemovedFirst
    /// The device was in radio range and the activity still advertised when
    /// the trial ended, before an advertisement reached the device (a
    /// trial without a `duration` ends once nothing is under way, and a
    /// device whose user never accepts keeps nothing under way).
    case trialEndedFirst

    /// The rule in words.
    public var description: String {
        switch self {
        case .neverCurrent: return "the activity never became current"
        case .receiverIsWatch: return "watchOS does not receive Handoff"
        case .handoffDisabledOnSource: return "Handoff is off on the source"
        case .handoffDisabledOnReceiver: return "Handoff is off on the receiver"
        case .bluetoothOffOnSource: return "Bluetooth is off on the source"
        case .bluetoothOffOnReceiver: return "Bluetooth is off on the receiver"
        case .wifiOffOnSource: return "Wi-Fi is off on the source (peer-to-peer path)"
        case .wifiOffOnReceiver: return "Wi-Fi is off on the receiver (peer-to-peer path)"
        case .notSignedIn: return "a device is not signed in to iCloud"
        case .differentAccount: return "the devices are on different iCloud accounts"
        case .notEligibleForHandoff: return "isEligibleForHandoff is false"
        case .expired: return "the activity's expirationDate has passed"
        case .noSuitableApp: return "no app with the same Team ID declares the activity type, and there is no webpageURL"
        case .keysNotExchanged: return "the advertisement-key exchange with the source never completed"
        case .outOfRange: return "no advertisement reached the device (out of range)"
        case .supersededByMoreRecent: return "a more recently current activity is offered instead"
        case .acceptedBeforeOffer: return "the user accepted before anything was offered on this device"
        case .sourceInLowPowerMode: return "the source was in Low Power Mode and never advertised it"
        case .sourceLocked: return "the source, an iPhone on iOS 18.3 or later, was locked and never advertised it"
        case .supersededWhilePaced:
            return "another activity became current on the source while this one's advertisement was paced: it was never advertised"
        case .resignedWhilePaced:
            return "it resigned or was invalidated while its advertisement was paced: it was never advertised"
        case .supersededBeforeReceived:
            return "another activity became current on the source before an advertisement of this one reached the device (in range)"
        case .resignedBeforeReceived:
            return "it resigned or was invalidated before an advertisement of it reached the device (in range)"
        case .advertisementRemovedFirst:
            return "the source removed its advertisement (idle, locked, dimmed or Low Power Mode) before one reached the device (in range)"
        case .trialEndedFirst:
            return "the trial ended before an advertisement reached the device (in range; give the scenario a duration to observe longer)"
        }
    }
}

/// How a continuation attempt on one device ended.
public enum ContinuationOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The app's `continue` was called.
    case continued
    /// The activity's web page opened in the browser.
    case continuedInBrowser
    /// `didFailToContinueUserActivity` was called with this error.
    case failed(ContinuationError)
    /// The activity was never offered on the device, for this reason.
    case notOffered(NotOfferedReason)
    /// The activity was offered but the offer was withdrawn before the user
    /// picked it.
    case withdrawn
    /// Offered, and the user never picked it.
    case notAccepted
    /// The run ended while the attempt was still under way.
    case unfinished

    /// The outcome in words, as reports print it.
    public var description: String {
        switch self {
        case .continued: return "continued"
        case .continuedInBrowser: return "continued in browser"
        case let .failed(error): return "failed (\(error))"
        case let .notOffered(reason): return "not offered: \(reason)"
        case .withdrawn: return "withdrawn"
        case .notAccepted: return "offered, not accepted"
        case .unfinished: return "unfinished"
        }
    }
}

/// What happened to one activity on one receiving device, with its
/// latencies.
public struct ContinuationSummary: Hashable, Sendable {
    /// The receiving device.
    public let device: String
    /// The activity.
    public let activity: ActivityID
    /// How it ended.
    public let outcome: ContinuationOutcome
    /// When the attempt reached each milestone (none for a device the
    /// activity was never offered on).
    public let milestones: MilestoneTimes
    /// Where accept → continue went, phase by phase (nil unless the
    /// attempt continued, in the app or in the browser).
    public let budget: LatencyBudget?

    /// A summary.
    public init(
        device: String, activity: ActivityID, outcome: ContinuationOutcome, milestones: MilestoneTimes,
        budget: LatencyBudget? = nil
    ) {
        self.device = device
        self.activity = activity
        self.outcome = outcome
        self.milestones = milestones
        self.budget = budget
    }

    /// The latency `metric` measured, if the attempt reached both its
    /// milestones.
    public subscript(metric: LatencyMetric) -> SimDuration? { milestones.latency(metric) }

    /// The latency `metric` measured, if the attempt reached both its
    /// milestones.
    public func latency(_ metric: LatencyMetric) -> SimDuration? { milestones.latency(metric) }
}
