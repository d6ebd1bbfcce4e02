import Foundation
import Handoff
@testable import HandoffReport
@testable import HandoffScenario
import HandoffWorld
import ScenarioJSON
import SimKernel
import Testing

/// Every trace rendering (text, JSON, SVG, Perfetto) is made from the typed
/// record, through ``TraceText``.
@Suite("Trace renderings")
struct TraceRenderingTests {
    static let mac = TraceDevice(id: DeviceID(0), name: "mac")
    static let iphone = TraceDevice(id: DeviceID(1), name: "iphone")
    static let other = TraceActivity(id: ActivityID(1), label: "com.example.other \"Other\"")

    /// The columns `from`, `event`, `to` and `detail`, written out.
    static func words(_ from: String, _ event: String, _ to: String, _ detail: String) -> TraceText.Columns {
        TraceText.Columns(from: from, event: event, to: to, detail: detail)
    }

    /// One event of every case, and of every name, with its columns in
    /// words as the trace must show them.
    static let samples: [(event: TraceEvent, words: TraceText.Columns)] = [
        (.transition(.source(from: .created, event: .becomeCurrent, to: .current), nil),
         words("created", "becomeCurrent", "current", "")),
        (.transition(.source(from: .current, event: .resignCurrent, to: .resigned), nil),
         words("current", "resignCurrent", "resigned", "")),
        (.transition(.source(from: .current, event: .superseded, to: .resigned), .becameCurrent(other)),
         words("current", "superseded", "resigned", "com.example.other \"Other\" became current")),
        (.transition(.source(from: .current, event: .save, to: .current), .requestedBy(iphone)),
         words("current", "save", "current", "requested by iphone")),
        (.transition(.source(from: .current, event: .continued, to: .current), .continuedBy(iphone)),
         words("current", "continued", "current", "by iphone")),
        (.transition(.source(from: .current, event: .invalidate, to: .invalidated), nil),
         words("current", "invalidate", "invalidated", "")),
        (.transition(.source(from: .invalidated, event: .becomeCurrent, to: nil), .illegal),
         words("invalidated", "becomeCurrent", "", "illegal transition")),
        (.transition(.continuation(from: .discovered, event: .offer, to: .offered), .inBrowser),
         words("discovered", "offer", "offered", "in the browser")),
        (.transition(.continuation(from: .offered, event: .accept, to: .accepted), nil),
         words("offered", "accept", "accepted", "")),
        (.transition(.continuation(from: .accepted, event: .launch, to: .launching), .launch(.cold, .milliseconds(400))),
         words("accepted", "launch", "launching", "cold launch, 400ms")),
        (.transition(.continuation(from: .launching, event: .willContinue, to: .willContinue), nil),
         words("launching", "willContinue", "willContinue", "")),
        (.transition(.continuation(from: .willContinue, event: .continue, to: .continued), nil),
         words("willContinue", "continue", "continued", "")),
        (.transition(.continuation(from: .continued, event: .restore, to: .restored), .restoring("root")),
         words("continued", "restore", "restored", "root")),
        (.transition(.continuation(from: .willContinue, event: .fail, to: .failed), .error(.handoffFailed)),
         words("willContinue", "fail", "failed", "4608 handoffFailed")),
        (.transition(.continuation(from: .offered, event: .withdraw, to: .withdrawn), .moreRecent(other)),
         words("offered", "withdraw", "withdrawn", "com.example.other \"Other\" is more recent")),
        (.transition(.continuation(from: .offered, event: .withdraw, to: .withdrawn), .advertisingEnded(ago: .seconds(10))),
         words("offered", "withdraw", "withdrawn", "advertising ended 10s ago")),
        (.transition(.continuation(from: .offered, event: .withdraw, to: .withdrawn), .activityInvalidated),
         words("offered", "withdraw", "withdrawn", "the activity was invalidated")),
        (.transition(.continuation(from: .offered, event: .withdraw, to: .withdrawn), .deviceLost(mac)),
         words("offered", "withdraw", "withdrawn", "mac was lost")),
        (.transition(.continuation(from: .launching, event: .openInBrowser, to: .inBrowser),
                     .webpage(try? WebpageURL("https://example.com/a"))),
         words("launching", "openInBrowser", "inBrowser", "https://example.com/a")),
        (.illegalChange(.setNeedsSave), words("invalidated", "setNeedsSave", "", "illegal transition")),
        (.illegalChange(.addUserInfoEntries), words("invalidated", "addUserInfoEntries", "", "illegal transition")),
        (.illegalChange(.isEligibleForHandoff), words("invalidated", "isEligibleForHandoff", "", "illegal transition")),
        (.change(.needsSave(true)), words("", "needsSave = true", "", "")),
        (.change(.needsSave(false)), words("", "needsSave = false", "", "")),
        (.change(.addUserInfoEntries(keys: ["a", "b"])), words("", "addUserInfoEntries", "", "a, b")),
        (.change(.eligibleForHandoff(true)), words("", "isEligibleForHandoff = true", "", "")),
        (.change(.eligibleForHandoff(false)), words("", "isEligibleForHandoff = false", "", "")),
        (.callback(.willContinueUserActivity(.returned(true))), words("", "willContinueUserActivity", "", "returned true")),
        (.callback(.continueUserActivity(.scene)), words("", "continueUserActivity", "", "scene")),
        (.callback(.didFailToContinueUserActivity(.connectionUnavailable)),
         words("", "didFailToContinueUserActivity", "", "4609 connectionUnavailable")),
        (.callback(.restoreUserActivityState("webView")), words("", "restoreUserActivityState", "", "webView")),
        (.callback(.userActivityWillSave), words("", "userActivityWillSave", "", "needsSave cleared")),
        (.callback(.updateUserActivityState(responder: "toolbar")), words("", "updateUserActivityState", "", "toolbar")),
        (.callback(.sceneDidUpdate), words("", "sceneDidUpdate", "", "")),
        (.callback(.userActivityWasContinued(by: iphone)), words("", "userActivityWasContinued", "", "iphone")),
        (.callback(.didReceiveInputStream(from: iphone)), words("", "didReceiveInputStream", "", "iphone")),
        (.callback(.continuationStreamsOpened), words("", "continuationStreamsOpened", "", "")),
        (.callback(.continuationStreamsFailed(.handoffFailed)), words("", "continuationStreamsFailed", "", "4608 handoffFailed")),
        (.callback(.continuationStreamResponse(round: 0, bytes: 1000)),
         words("", "continuationStreamResponse", "", "round 0: 1000 bytes")),
        (.callback(.getContinuationStreams), words("", "getContinuationStreams", "", "")),
        (.message(.resolveQuery(number: 1, on: .peerToPeer)), words("", "resolve", "", "_companion-link._tcp over peer-to-peer")),
        (.message(.resolveQuery(number: 1, on: .localNetwork)),
         words("", "resolve", "", "_companion-link._tcp over the local network")),
        (.message(.resolveQuery(number: 1, on: .peerToPeerAndLocalNetwork)),
         words("", "resolve", "", "_companion-link._tcp over peer-to-peer and the local network")),
        (.message(.resolveQuery(number: 2, on: .peerToPeer)), words("", "resolve", "", "query 2, no answer yet")),
        (.message(.rapport(.pairVerifyM1, bytes: 40)), words("", "Pair-Verify M1", "", "40 B")),
        (.message(.rapport(.pairVerifyM2, bytes: 160)), words("", "Pair-Verify M2", "", "160 B")),
        (.message(.rapport(.pairVerifyM3, bytes: 120)), words("", "Pair-Verify M3", "", "120 B")),
        (.message(.rapport(.pairVerifyM4, bytes: 8)), words("", "Pair-Verify M4", "", "8 B")),
        (.message(.rapport(.systemInfoRequest, bytes: 300)), words("", "_systemInfo request", "", "300 B")),
        (.message(.rapport(.systemInfoAnswer, bytes: 400)), words("", "_systemInfo answer", "", "400 B")),
        (.message(.rapport(.payloadRequest, bytes: 276)), words("", "payload request", "", "276 B")),
        (.message(.cloudRequest), words("", "request", "", "over the cloud relay")),
        (.message(.payload(userInfoBytes: 3072, totalBytes: 3400)),
         words("", "send payload", "", "3072 bytes of userInfo, 3400 in all")),
        (.message(.streamRequest(round: 0, requestBytes: 200, responseBytes: 1000)),
         words("", "stream request", "", "round 0: 200 bytes in, 1000 bytes out")),
        (.message(.keyExchange(with: mac)), words("", "key exchange", "", "new advertising key of mac: Bluetooth LE connection")),
        (.milestone(.advertised, .none), words("", "advertised", "", "")),
        (.milestone(.offered, .none), words("", "offered", "", "")),
        (.milestone(.accepted, .none), words("", "accepted", "", "")),
        (.milestone(.fetchStarted, .fetchFrom(mac)), words("", "fetch", "", "from mac, while the app launches")),
        (.milestone(.resolved, .afterQueries(1)), words("", "resolved", "", "after 1 query")),
        (.milestone(.connecting, .none), words("", "connecting", "", "")),
        (.milestone(.connected, .over(.wifiPeerToPeer)), words("", "connected", "", "TCP over wifiPeerToPeer")),
        (.milestone(.verified, .none), words("", "verified", "", "")),
        (.milestone(.requested, .none), words("", "requested", "", "")),
        (.milestone(.payloadArrived, .fetchTook(.milliseconds(120))), words("", "payload arrived", "", "fetch took 120ms")),
        (.milestone(.continued, .none), words("", "continued", "", "")),
        (.milestone(.restored, .none), words("", "restored", "", "")),
        (.milestone(.streamRequestSent, .none), words("", "streamRequestSent", "", "")),
        (.milestone(.streamResponseArrived, .none), words("", "streamResponseArrived", "", "")),
        (.system(.discovered(advertisementFrom: mac)), words("", "discover", "discovered", "advertisement from mac")),
        (.system(.notOffered(.differentAccount)), words("", "not offered", "", "the devices are on different iCloud accounts")),
        (.system(.acceptedWithoutOffer), words("", "accept", "", "nothing is offered")),
        (.system(.notAdvertised(.lowPowerMode)), words("", "not advertised", "", "Low Power Mode")),
        (.system(.advertisementPaced(until: .zero + .seconds(3))), words("", "advertisement update paced", "", "until 3s")),
        (.system(.advertisementRemoved(.locked)), words("", "advertisement removed", "", "the device locked")),
        (.system(.advertisementRemoved(.idle)), words("", "advertisement removed", "", "the system went idle")),
        (.system(.advertisementRemoved(.dimmed)), words("", "advertisement removed", "", "the screen dimmed")),
        (.system(.advertisementRemoved(.lockedNearbyOnly)),
         words("", "advertisement removed", "", "the iPhone locked: no Handoff advertisement (iOS 18.3 or later)")),
        (.system(.notAdvertised(.lockedNearbyOnly)),
         words("", "not advertised", "", "the iPhone locked: no Handoff advertisement (iOS 18.3 or later)")),
        (.system(.advertisingAgain), words("", "advertising again", "", "the device is in use")),
        (.system(.rapportTimedOut(after: .seconds(5))), words("", "Rapport timed out", "", "no payload after 5s")),
        (.system(.fetchOverCloud), words("", "fetch over the cloud", "", "IDS")),
        (.system(.relayDelivers(bytes: 607)), words("", "relay delivers", "", "607 bytes from Apple's servers")),
        (.system(.relayStored(bytes: 70_000)),
         words("", "relay stored", "", "70000 bytes, over the push limit: stored for download")),
        (.system(.connectionFailed(.setupTimedOut)), words("", "connection failed", "", "connection setup timed out")),
        (.system(.fetchFailed(.remoteApplicationTimedOut)), words("", "fetch failed", "", "4610 remoteApplicationTimedOut")),
        (.system(.keysExchanged(with: mac)), words("", "keys exchanged", "", "with mac")),
        (.system(.keyExchangeFailed(.timedOut(after: .seconds(15)))), words("", "key exchange failed", "", "no keys after 15s")),
        (.system(.keyExchangeFailed(.connection(.setupTimedOut))),
         words("", "key exchange failed", "", "connection setup timed out")),
        (.system(.payloadTimerFired(after: .seconds(11))), words("", "payload timer", "", "no payload after 11s")),
        (.system(.requestAgain), words("", "request again", "", "the answer already decided is sent again")),
        (.system(.fetchRefused(.unavailable)), words("", "fetch refused", "", "the activity is no longer available")),
        (.system(.fetchRefused(.missingKeys(["Url"]))), words("", "fetch refused", "", "required userInfo keys missing: Url")),
        (.system(.fetchRefused(.tooLarge(size: 70000, limit: 65536))),
         words("", "fetch refused", "", "userInfo is 70000 bytes, over the 65536-byte maximum")),
        (.system(.saveWaitOver(update: .seconds(2), wait: .seconds(1))),
         words("", "save wait over", "", "the app's update takes 2s; after 1s the payload is sent as it was")),
        (.system(.userInfoOverRecommended(size: 8192, recommended: 3072)),
         words("", "warning", "", "userInfo is 8192 bytes, over the recommended 3072 bytes: may cause slow transfers")),
        (.system(.continuedNoticeIgnored), words("", "continued notice ignored", "", "the activity was invalidated")),
        (.system(.deviceLost(mac, lastHeard: .zero + .seconds(2), grace: .seconds(5))),
         words("", "device lost", "", "nothing from mac since 2s, 5s grace over: its offers end")),
        (.system(.lostDeviceHeard(mac, heard: .zero + .seconds(12), scanStopDue: .zero + .seconds(22))),
         words("", "lost device heard", "", "mac heard at 12s while lost: scanning for it stops 10s after, at 22s")),
        (.system(.scanStopped(for: mac)), words("", "scan stopped", "", "no longer scanning for mac")),
        (.system(.scanRestarted), words("", "scan restarted", "", "lost devices can be found again")),
        (.system(.userInput), words("", "user input", "", "")),
        (.system(.userIdle(after: .seconds(120))), words("", "user idle", "", "no input for 2m")),
        (.system(.activePayloadUpdate(interval: .seconds(15))),
         words("", "active payload update", "", "needsSave while current (every 15s)")),
        (.system(.keysOverCloud(with: mac)), words("", "keys over the cloud", "", "Bluetooth LE failed: keys of mac through APNs")),
    ]

    @Test("the samples cover every event name")
    func samplesCoverEveryName() {
        let covered = Set(Self.samples.map(\.event.name))
        #expect(TraceEvent.Name.allCases.filter { !covered.contains($0) } == [])
    }

    /// A replay of a shipped scenario with `event` recorded on the iPhone's
    /// system at the end.
    static func replay(with event: TraceEvent) throws -> (TrialReplay, Scenario) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let file = root + "/scenarios/payload-3kib.json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        guard case let .success(scenario) = ScenarioDecoder.decode(Array(text.utf8), file: file) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let base = try ScenarioRunner.replay(scenario, seed: 1, trial: 0)
        let record = TraceRecord(
            time: (base.trace.last?.time ?? .zero) + .milliseconds(1), device: iphone, app: .system,
            activity: TraceActivity(id: ActivityID(0), label: scenario.activities[0].content.label), event: event)
        let replay = TrialReplay(
            trial: base.trial, seed: base.seed, trace: base.trace + [record], summaries: base.summaries,
            violations: base.violations, failure: base.failure, packets: [], linkNames: [], linkEnds: [], packetsLeftOut: 0)
        return (replay, scenario)
    }

    @Test("each event renders in text, JSON, SVG and Perfetto in the same words", arguments: samples)
    func rendersInEveryFormat(_ event: TraceEvent, _ words: TraceText.Columns) throws {
        let (replay, scenario) = try Self.replay(with: event)
        #expect(TraceText.columns(event) == words)
        // `from -event-> to`, or the event alone; the detail in parentheses.
        let step = words.from.isEmpty && words.to.isEmpty ? words.event : "\(words.from) -\(words.event)-> \(words.to)"
        let tail = words.detail.isEmpty ? "" : "  (\(words.detail))"

        // The record is the iPhone system's, on the scenario's activity.
        let text = TraceReport.render(replay, scenario: scenario)
        let label = scenario.activities[0].content.label
        #expect(text.contains("s  iphone  system  \(label)  \(step)\(tail)\n"))

        let json = TraceJSON.render(replay, scenario: scenario, packets: false)
        func field(_ key: String, _ value: String) -> String {
            "\"\(key)\": " + JSONOutput.string(value).render(pretty: false)
        }
        let fields = [
            field("from", words.from), field("event", words.event), field("to", words.to), field("detail", words.detail),
        ]
        #expect(json.contains(fields.joined(separator: ",\n      ")))

        let svg = TraceDiagram.svg(replay, scenario: scenario)
        var shown = words.from.isEmpty && words.to.isEmpty ? words.event : "\(words.from) → \(words.to) (\(words.event))"
        if !words.detail.isEmpty { shown += " — " + words.detail }
        if shown.count > 110 { shown = String(shown.prefix(109)) + "…" }
        #expect(svg.contains(">" + Escape.xml(shown) + "</text>"))

        let perfetto = TracePerfetto.render(replay, scenario: scenario)
        #expect(perfetto.contains("\"name\": " + JSONOutput.string(step).render(pretty: false)))
        #expect(perfetto.contains("\"detail\": " + JSONOutput.string(words.detail).render(pretty: false)))
    }

    @Test("the columns of a record are its typed payload in words")
    func columnsFromPayload() {
        #expect(TraceText.columns(.system(.discovered(advertisementFrom: Self.mac)))
            == TraceText.Columns(from: "", event: "discover", to: "discovered", detail: "advertisement from mac"))
        #expect(
            TraceText.columns(.transition(.continuation(from: .willContinue, event: .fail, to: .failed), .error(.handoffFailed)))
                == TraceText.Columns(from: "willContinue", event: "fail", to: "failed", detail: "4608 handoffFailed"))
        #expect(TraceText.columns(.transition(.source(from: .invalidated, event: .becomeCurrent, to: nil), .illegal)).step
            == "invalidated -becomeCurrent-> ")
        #expect(TraceText.columns(.milestone(.resolved, .afterQueries(3))).detail == "after 3 queries")
        #expect(TraceText.columns(.milestone(.resolved, .afterQueries(1))).detail == "after 1 query")
        #expect(TraceText.columns(.message(.streamRequest(round: 2, requestBytes: 10, responseBytes: 20))).detail
            == "round 2: 10 bytes in, 20 bytes out")
    }

    @Test("Perfetto pairs a stream round by its typed round, on the receiving app's lane")
    func streamRoundSlices() {
        let activity = TraceActivity(id: ActivityID(0), label: "a")
        func record(_ ms: Int64, _ device: TraceDevice, _ event: TraceEvent) -> TraceRecord {
            TraceRecord(time: .zero + .milliseconds(ms), device: device, app: .app(bundleID: "b"), activity: activity, event: event)
        }
        let trace = [
            record(1, Self.mac, .message(.streamRequest(round: 0, requestBytes: 1, responseBytes: 2))),
            record(2, Self.mac, .message(.streamRequest(round: 1, requestBytes: 1, responseBytes: 2))),
            record(3, Self.iphone, .callback(.continuationStreamResponse(round: 1, bytes: 2))),
            record(4, Self.iphone, .callback(.continuationStreamResponse(round: 0, bytes: 2))),
        ]
        let slices = TracePerfetto.slices(trace)
        #expect(slices.map(\.name) == ["stream round 0", "stream round 1"])
        #expect(slices.map(\.start) == [0, 1])
        #expect(slices.map(\.end) == [3, 2])
    }

    @Test("the diagram reds failures by case: failed steps, timeouts, refusals, not offered")
    func failures() {
        let failing = Self.samples.map(\.event).filter(TraceText.isFailure).map(\.name)
        #expect(Set(failing) == [
            .fail, .notOffered, .rapportTimedOut, .connectionFailed, .fetchFailed, .keyExchangeFailed, .fetchRefused,
        ])
    }
}
