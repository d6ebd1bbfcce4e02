import Handoff
import HandoffWorld
import SimKernel

/// The words of a trace: every rendering of a `TraceRecord` (the text
/// trace, JSON, the sequence diagram, Perfetto) takes its text from here.
///
/// A record's event becomes four columns — the state before, the event's
/// name, the state after (both empty for anything but a state change) and
/// a detail — and a line of the text trace puts them after the time, the
/// device, the app and the activity:
///
/// ```
/// 1.461644016s  iphone  system  com.example.notes.editing "Shopping list"  fetch  (from mac, while the app launches)
/// ```
///
/// ```swift
/// for record in run.trace { print(TraceText.line(record)) }
/// ```
public enum TraceText {
    /// A record's event as text: `from -event-> to`, and a detail.
    public struct Columns: Hashable, Sendable {
        /// The machine's state before, or `""` for anything but a state
        /// change.
        public let from: String
        /// The event's name (`TraceEvent.Name`).
        public let event: String
        /// The machine's state after, or `""` (also for an illegal step).
        public let to: String
        /// More about it (an error, a size, a device), or `""`.
        public let detail: String

        /// `from -event-> to`, or the event alone when both states are
        /// empty.
        public var step: String { from.isEmpty && to.isEmpty ? event : "\(from) -\(event)-> \(to)" }
    }

    /// One line of the text trace: time, device, app, activity,
    /// `from -event-> to`, and the detail in parentheses.
    public static func line(_ record: TraceRecord) -> String {
        let columns = self.columns(record.event)
        let tail = columns.detail.isEmpty ? "" : "  (\(columns.detail))"
        return "\(Format.seconds(record.time))  \(record.device.name)  \(app(record.app))  "
            + "\(activity(record.activity))  \(columns.step)\(tail)"
    }

    /// The app as the trace names it: a bundle ID, `browser` or `system`.
    public static func app(_ app: TraceApp) -> String {
        switch app {
        case let .app(bundleID): return bundleID
        case .browser: return "browser"
        case .system: return "system"
        }
    }

    /// The activity's label, or `""` for a record without one.
    public static func activity(_ activity: TraceActivity?) -> String { activity?.label ?? "" }

    /// The columns of `event`.
    public static func columns(_ event: TraceEvent) -> Columns {
        let name = event.name.rawValue
        switch event {
        case let .transition(.source(from, _, to), note):
            return Columns(from: from.description, event: name, to: to?.description ?? "", detail: detail(note))
        case let .transition(.continuation(from, _, to), note):
            return Columns(from: from.description, event: name, to: to?.description ?? "", detail: detail(note))
        case .illegalChange:
            return Columns(
                from: SourceActivityMachine.State.invalidated.description, event: name, to: "",
                detail: detail(TransitionNote.illegal))
        case .system(.discovered):
            return Columns(from: "", event: name, to: "discovered", detail: detail(event))
        case .change, .callback, .message, .milestone, .system(.notOffered), .system(.acceptedWithoutOffer),
            .system(.notAdvertised), .system(.advertisementPaced), .system(.advertisementRemoved),
            .system(.advertisingAgain), .system(.rapportTimedOut), .system(.fetchOverCloud), .system(.relayDelivers),
            .system(.relayStored), .system(.connectionFailed), .system(.fetchFailed), .system(.keysExchanged),
            .system(.keyExchangeFailed), .system(.payloadTimerFired), .system(.requestAgain), .system(.fetchRefused),
            .system(.saveWaitOver), .system(.userInfoOverRecommended), .system(.continuedNoticeIgnored),
            .system(.deviceLost), .system(.lostDeviceHeard), .system(.scanStopped), .system(.scanRestarted),
            .system(.userInput), .system(.userIdle), .system(.activePayloadUpdate), .system(.keysOverCloud):
            return Columns(from: "", event: name, to: "", detail: detail(event))
        }
    }

    /// The detail of a state change.
    static func detail(_ note: TransitionNote?) -> String {
        guard let note else { return "" }
        switch note {
        case let .becameCurrent(activity): return "\(activity.label) became current"
        case let .requestedBy(device): return "requested by \(device.name)"
        case let .continuedBy(device): return "by \(device.name)"
        case let .moreRecent(activity): return "\(activity.label) is more recent"
        case let .advertisingEnded(ago): return "advertising ended \(ago) ago"
        case .activityInvalidated: return "the activity was invalidated"
        case let .deviceLost(device): return "\(device.name) was lost"
        case .inBrowser: return "in the browser"
        case let .launch(kind, duration):
            switch kind {
            case .warm: return "warm launch, \(duration)"
            case .cold: return "cold launch, \(duration)"
            case .browser: return "browser, \(duration)"
            }
        case let .webpage(url): return url?.description ?? ""
        case let .error(error): return error.description
        case let .restoring(name): return name
        case .illegal: return "illegal transition"
        }
    }

    /// The detail of anything but a state change.
    static func detail(_ event: TraceEvent) -> String {
        switch event {
        case let .transition(_, note): return detail(note)
        case .illegalChange: return detail(TransitionNote.illegal)
        case let .change(change):
            switch change {
            case let .addUserInfoEntries(keys): return keys.joined(separator: ", ")
            case .needsSave, .eligibleForHandoff: return ""
            }
        case let .callback(callback): return detail(callback)
        case let .message(message): return detail(message)
        case let .milestone(_, milestone):
            switch milestone {
            case .none: return ""
            case let .fetchFrom(device): return "from \(device.name), while the app launches"
            case let .afterQueries(count): return "after \(count) quer\(count == 1 ? "y" : "ies")"
            case let .over(path): return "TCP over \(path)"
            case let .fetchTook(duration): return "fetch took \(duration)"
            }
        case let .system(system): return detail(system)
        }
    }

    static func detail(_ callback: Callback) -> String {
        switch callback {
        case let .willContinueUserActivity(answer), let .continueUserActivity(answer):
            switch answer {
            case .scene: return "scene"
            case let .returned(value): return "returned \(value)"
            }
        case let .didFailToContinueUserActivity(error), let .continuationStreamsFailed(error): return error.description
        case let .restoreUserActivityState(name): return name
        case .userActivityWillSave: return "needsSave cleared"
        case let .updateUserActivityState(responder): return responder
        case let .userActivityWasContinued(device), let .didReceiveInputStream(device): return device.name
        case let .continuationStreamResponse(round, bytes): return "round \(round): \(bytes) bytes"
        case .sceneDidUpdate, .continuationStreamsOpened, .getContinuationStreams: return ""
        }
    }

    static func detail(_ message: ProtocolMessage) -> String {
        switch message {
        case let .resolveQuery(number, interfaces):
            guard number == 1 else { return "query \(number), no answer yet" }
            switch interfaces {
            case .peerToPeer: return "_companion-link._tcp over peer-to-peer"
            case .localNetwork: return "_companion-link._tcp over the local network"
            case .peerToPeerAndLocalNetwork: return "_companion-link._tcp over peer-to-peer and the local network"
            }
        case let .rapport(_, bytes): return "\(bytes) B"
        case .cloudRequest: return "over the cloud relay"
        case let .payload(userInfoBytes, totalBytes): return "\(userInfoBytes) bytes of userInfo, \(totalBytes) in all"
        case let .streamRequest(round, requestBytes, responseBytes):
            return "round \(round): \(requestBytes) bytes in, \(responseBytes) bytes out"
        case let .keyExchange(device): return "new advertising key of \(device.name): Bluetooth LE connection"
        }
    }

    static func detail(_ event: SystemEvent) -> String {
        switch event {
        case let .discovered(source): return "advertisement from \(source.name)"
        case let .notOffered(reason): return reason.description
        case .acceptedWithoutOffer: return "nothing is offered"
        case let .notAdvertised(stop), let .advertisementRemoved(stop):
            switch stop {
            case .lowPowerMode: return "Low Power Mode"
            case .idle: return "the system went idle"
            case .locked: return "the device locked"
            case .dimmed: return "the screen dimmed"
            case .lockedNearbyOnly: return "the iPhone locked: no Handoff advertisement (iOS 18.3 or later)"
            }
        case let .advertisementPaced(until): return "until \(until)"
        case .advertisingAgain: return "the device is in use"
        case let .rapportTimedOut(after), let .payloadTimerFired(after): return "no payload after \(after)"
        case .fetchOverCloud: return "IDS"
        case let .relayDelivers(bytes): return "\(bytes) bytes from Apple's servers"
        case let .relayStored(bytes): return "\(bytes) bytes, over the push limit: stored for download"
        case let .connectionFailed(failure): return failure.description
        case let .fetchFailed(error): return error.description
        case let .keysExchanged(source): return "with \(source.name)"
        case let .keyExchangeFailed(failure):
            switch failure {
            case let .timedOut(after): return "no keys after \(after)"
            case let .connection(failure): return failure.description
            }
        case .requestAgain: return "the answer already decided is sent again"
        case let .fetchRefused(refusal):
            switch refusal {
            case .unavailable: return "the activity is no longer available"
            case let .missingKeys(keys): return "required userInfo keys missing: \(keys.joined(separator: ", "))"
            case let .tooLarge(size, limit): return "userInfo is \(size) bytes, over the \(limit)-byte maximum"
            }
        case let .saveWaitOver(update, wait):
            return "the app's update takes \(update); after \(wait) the payload is sent as it was"
        case let .userInfoOverRecommended(size, recommended):
            return "userInfo is \(size) bytes, over the recommended \(recommended) bytes: may cause slow transfers"
        case .continuedNoticeIgnored: return "the activity was invalidated"
        case let .deviceLost(device, lastHeard, grace):
            return "nothing from \(device.name) since \(lastHeard), \(grace) grace over: its offers end"
        case let .lostDeviceHeard(device, heard, scanStopDue):
            return "\(device.name) heard at \(heard) while lost: "
                + "scanning for it stops \(scanStopDue - heard) after, at \(scanStopDue)"
        case let .scanStopped(device): return "no longer scanning for \(device.name)"
        case .scanRestarted: return "lost devices can be found again"
        case .userInput: return ""
        case let .userIdle(after): return "no input for \(after)"
        case let .activePayloadUpdate(interval): return "needsSave while current (every \(interval))"
        case let .keysOverCloud(device): return "Bluetooth LE failed: keys of \(device.name) through APNs"
        }
    }

    /// Whether `event` is a failure (the diagram draws it red): a failed
    /// continuation, fetch, connection or key exchange, a timeout, a
    /// refusal, an activity not offered.
    static func isFailure(_ event: TraceEvent) -> Bool {
        switch event {
        case .transition(.continuation(_, .fail, _), _), .transition(.continuation(_, _, .failed?), _):
            return true
        case .system(.fetchFailed), .system(.connectionFailed), .system(.keyExchangeFailed),
            .system(.rapportTimedOut), .system(.notOffered), .system(.fetchRefused):
            return true
        case .transition(.source, _), .transition(.continuation(_, .offer, _), _),
            .transition(.continuation(_, .accept, _), _), .transition(.continuation(_, .launch, _), _),
            .transition(.continuation(_, .willContinue, _), _), .transition(.continuation(_, .continue, _), _),
            .transition(.continuation(_, .restore, _), _), .transition(.continuation(_, .withdraw, _), _),
            .transition(.continuation(_, .openInBrowser, _), _), .illegalChange, .change, .callback, .message, .milestone,
            .system(.discovered), .system(.acceptedWithoutOffer), .system(.notAdvertised), .system(.advertisementPaced),
            .system(.advertisementRemoved), .system(.advertisingAgain), .system(.fetchOverCloud), .system(.relayDelivers),
            .system(.relayStored), .system(.keysExchanged), .system(.payloadTimerFired), .system(.requestAgain),
            .system(.saveWaitOver), .system(.userInfoOverRecommended), .system(.continuedNoticeIgnored),
            .system(.deviceLost), .system(.lostDeviceHeard), .system(.scanStopped), .system(.scanRestarted),
            .system(.userInput), .system(.userIdle), .system(.activePayloadUpdate), .system(.keysOverCloud):
            return false
        }
    }
}
