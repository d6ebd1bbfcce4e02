import SimKernel

/// One step of the protocol or one callback, as it happened.
public struct TraceRecord: Hashable, Sendable, CustomStringConvertible {
    /// When it happened.
    public let time: SimInstant
    /// The device it happened on.
    public let device: String
    /// The app involved: its bundle ID, `"browser"`, or `"system"`.
    public let app: String
    /// The activity's label (type, and title in quotes).
    public let activity: String
    /// The machine's state before, or `""` for a callback that moves none.
    public let from: String
    /// The event or callback.
    public let event: String
    /// The machine's state after, or `""`.
    public let to: String
    /// More about it (an error code, a size, a rule).
    public let detail: String

    /// A record of the given fields.
    public init(
        time: SimInstant, device: String, app: String, activity: String, from: String, event: String, to: String,
        detail: String
    ) {
        self.time = time
        self.device = device
        self.app = app
        self.activity = activity
        self.from = from
        self.event = event
        self.to = to
        self.detail = detail
    }

    /// One line: time, device, app, activity, `from -event-> to`, detail.
    public var description: String {
        let transition = from.isEmpty && to.isEmpty ? event : "\(from) -\(event)-> \(to)"
        let tail = detail.isEmpty ? "" : "  (\(detail))"
        return "\(time.sinceStart.secondsText)  \(device)  \(app)  \(activity)  \(transition)\(tail)"
    }
}

extension SimDuration {
    /// Seconds with nine decimals, for traces: exact and sortable.
    var secondsText: String {
        let nanoseconds = self.nanoseconds
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        let fraction = String(magnitude % 1_000_000_000)
        return "\(sign)\(magnitude / 1_000_000_000).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)s"
    }
}

/// Why an activity was not offered on a device: the eligibility rule that
/// blocked it, checked in this order.
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
    /// Every rule holds, but no advertisement reached the device (out of
    /// radio range, or never scanning when one was sent).
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

    /// The latency `metric` measured, if the attempt reached both its
    /// milestones.
    public subscript(metric: LatencyMetric) -> SimDuration? { milestones.latency(metric) }

    /// The latency `metric` measured, if the attempt reached both its
    /// milestones.
    public func latency(_ metric: LatencyMetric) -> SimDuration? { milestones.latency(metric) }
}
