import Foundation
import Handoff
@testable import HandoffReport
@testable import HandoffScenario
import HandoffWorld
import SimKernel
import Testing

/// Every trace rendering (text, JSON, SVG, Perfetto) is made from the typed
/// record, through ``TraceText``.
@Suite("Trace renderings")
struct TraceRenderingTests {
    static let mac = TraceDevice(id: DeviceID(0), name: "mac")
    static let iphone = TraceDevice(id: DeviceID(1), name: "iphone")
    static let other = TraceActivity(id: ActivityID(1), label: "com.example.other \"Other\"")

    /// One event of every case, and of every name.
    static let samples: [TraceEvent] = [
        .transition(.source(from: .created, event: .becomeCurrent, to: .current), nil),
        .transition(.source(from: .current, event: .resignCurrent, to: .resigned), nil),
        .transition(.source(from: .current, event: .superseded, to: .resigned), .becameCurrent(other)),
        .transition(.source(from: .current, event: .save, to: .current), .requestedBy(iphone)),
        .transition(.source(from: .current, event: .continued, to: .current), .continuedBy(iphone)),
        .transition(.source(from: .current, event: .invalidate, to: .invalidated), nil),
        .transition(.source(from: .invalidated, event: .becomeCurrent, to: nil), .illegal),
        .transition(.continuation(from: .discovered, event: .offer, to: .offered), .inBrowser),
        .transition(.continuation(from: .offered, event: .accept, to: .accepted), nil),
        .transition(.continuation(from: .accepted, event: .launch, to: .launching), .launch(.cold, .milliseconds(400))),
        .transition(.continuation(from: .launching, event: .willContinue, to: .willContinue), nil),
        .transition(.continuation(from: .willContinue, event: .continue, to: .continued), nil),
        .transition(.continuation(from: .continued, event: .restore, to: .restored), .restoring("root")),
        .transition(.continuation(from: .willContinue, event: .fail, to: .failed), .error(.handoffFailed)),
        .transition(.continuation(from: .offered, event: .withdraw, to: .withdrawn), .moreRecent(other)),
        .transition(.continuation(from: .offered, event: .withdraw, to: .withdrawn), .advertisingEnded(ago: .seconds(10))),
        .transition(.continuation(from: .offered, event: .withdraw, to: .withdrawn), .activityInvalidated),
        .transition(.continuation(from: .offered, event: .withdraw, to: .withdrawn), .deviceLost(mac)),
        .transition(.continuation(from: .launching, event: .openInBrowser, to: .inBrowser),
                    .webpage(try? WebpageURL("https://example.com/a"))),
        .illegalChange(.setNeedsSave),
        .illegalChange(.addUserInfoEntries),
        .illegalChange(.isEligibleForHandoff),
        .change(.needsSave(true)),
        .change(.needsSave(false)),
        .change(.addUserInfoEntries(keys: ["a", "b"])),
        .change(.eligibleForHandoff(true)),
        .change(.eligibleForHandoff(false)),
        .callback(.willContinueUserActivity(.returned(true))),
        .callback(.continueUserActivity(.scene)),
        .callback(.didFailToContinueUserActivity(.connectionUnavailable)),
        .callback(.restoreUserActivityState("webView")),
        .callback(.userActivityWillSave),
        .callback(.updateUserActivityState(responder: "toolbar")),
        .callback(.sceneDidUpdate),
        .callback(.userActivityWasContinued(by: iphone)),
        .callback(.didReceiveInputStream(from: iphone)),
        .callback(.continuationStreamsOpened),
        .callback(.continuationStreamsFailed(.handoffFailed)),
        .callback(.continuationStreamResponse(round: 0, bytes: 1000)),
        .callback(.getContinuationStreams),
        .message(.resolveQuery(number: 1, on: .peerToPeer)),
        .message(.resolveQuery(number: 1, on: .localNetwork)),
        .message(.resolveQuery(number: 1, on: .peerToPeerAndLocalNetwork)),
        .message(.resolveQuery(number: 2, on: .peerToPeer)),
        .message(.rapport(.pairVerifyM1, bytes: 40)),
        .message(.rapport(.pairVerifyM2, bytes: 160)),
        .message(.rapport(.pairVerifyM3, bytes: 120)),
        .message(.rapport(.pairVerifyM4, bytes: 8)),
        .message(.rapport(.systemInfoRequest, bytes: 300)),
        .message(.rapport(.systemInfoAnswer, bytes: 400)),
        .message(.rapport(.payloadRequest, bytes: 276)),
        .message(.cloudRequest),
        .message(.payload(userInfoBytes: 3072, totalBytes: 3400)),
        .message(.streamRequest(round: 0, requestBytes: 200, responseBytes: 1000)),
        .message(.keyExchange(with: mac)),
        .milestone(.advertised, .none),
        .milestone(.offered, .none),
        .milestone(.accepted, .none),
        .milestone(.fetchStarted, .fetchFrom(mac)),
        .milestone(.resolved, .afterQueries(1)),
        .milestone(.connecting, .none),
        .milestone(.connected, .over(.wifiPeerToPeer)),
        .milestone(.verified, .none),
        .milestone(.requested, .none),
        .milestone(.payloadArrived, .fetchTook(.milliseconds(120))),
        .milestone(.continued, .none),
        .milestone(.restored, .none),
        .milestone(.streamRequestSent, .none),
        .milestone(.streamResponseArrived, .none),
        .system(.discovered(advertisementFrom: mac)),
        .system(.notOffered(.differentAccount)),
        .system(.acceptedWithoutOffer),
        .system(.notAdvertised(.lowPowerMode)),
        .system(.advertisementPaced(until: .zero + .seconds(3))),
        .system(.advertisementRemoved(.locked)),
        .system(.advertisementRemoved(.idle)),
        .system(.advertisementRemoved(.dimmed)),
        .system(.advertisementRemoved(.lockedNearbyOnly)),
        .system(.notAdvertised(.lockedNearbyOnly)),
        .system(.advertisingAgain),
        .system(.rapportTimedOut(after: .seconds(5))),
        .system(.fetchOverCloud), .system(.relayDelivers(bytes: 607)), .system(.relayStored(bytes: 70_000)),
        .system(.connectionFailed(.setupTimedOut)),
        .system(.fetchFailed(.remoteApplicationTimedOut)),
        .system(.keysExchanged(with: mac)),
        .system(.keyExchangeFailed(.timedOut(after: .seconds(15)))),
        .system(.keyExchangeFailed(.connection(.setupTimedOut))),
        .system(.payloadTimerFired(after: .seconds(11))),
        .system(.requestAgain),
        .system(.fetchRefused(.unavailable)),
        .system(.fetchRefused(.missingKeys(["Url"]))),
        .system(.fetchRefused(.tooLarge(size: 70000, limit: 65536))),
        .system(.saveWaitOver(update: .seconds(2), wait: .seconds(1))),
        .system(.userInfoOverRecommended(size: 8192, recommended: 3072)),
        .system(.continuedNoticeIgnored),
        .system(.deviceLost(mac, lastHeard: .zero + .seconds(2), grace: .seconds(5))),
        .system(.scanStopped(for: mac)),
        .system(.scanRestarted),
        .system(.userInput),
        .system(.userIdle(after: .seconds(120))),
        .system(.activePayloadUpdate(interval: .seconds(15))),
        .system(.keysOverCloud(with: mac)),
    ]

    @Test("the samples cover every event name")
    func samplesCoverEveryName() {
        let covered = Set(Self.samples.map(\.name))
        #expect(TraceEvent.Name.allCases.filter { !covered.contains($0) } == [])
    }

    /// A replay of a shipped scenario with `event` recorded on the iPhone's
    /// system at the end.
    static func replay(with event: TraceEvent) throws -> (TrialReplay, Scenario, TraceRecord) {
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
        return (replay, scenario, record)
    }

    @Test("each event renders in text, JSON, SVG and Perfetto from its columns", arguments: samples)
    func rendersInEveryFormat(_ event: TraceEvent) throws {
        let (replay, scenario, record) = try Self.replay(with: event)
        let columns = TraceText.columns(event)
        #expect(columns.event == event.name.rawValue)
        #expect(!columns.step.isEmpty)

        let text = TraceReport.render(replay, scenario: scenario)
        #expect(text.contains("\n" + TraceText.line(record) + "\n"))

        let json = TraceJSON.render(replay, scenario: scenario, packets: false)
        func field(_ key: String, _ value: String) -> String {
            "\"\(key)\": " + JSONOutput.string(value).render(pretty: false)
        }
        let fields = [
            field("from", columns.from), field("event", columns.event), field("to", columns.to),
            field("detail", columns.detail),
        ]
        #expect(json.contains(fields.joined(separator: ",\n      ")))

        let svg = TraceDiagram.svg(replay, scenario: scenario)
        var label = columns.from.isEmpty && columns.to.isEmpty ? columns.event : "\(columns.from) → \(columns.to) (\(columns.event))"
        if !columns.detail.isEmpty { label += " — " + columns.detail }
        let shown = label.count > 110 ? String(label.prefix(109)) + "…" : label
        #expect(svg.contains(">" + TraceDiagram.escape(shown) + "</text>"))

        let perfetto = TracePerfetto.render(replay, scenario: scenario)
        #expect(perfetto.contains("\"name\": " + JSONOutput.string(columns.step).render(pretty: false)))
        #expect(perfetto.contains("\"detail\": " + JSONOutput.string(columns.detail).render(pretty: false)))
    }

    @Test("the columns of a record are its typed payload in words")
    func columnsFromPayload() {
        #expect(TraceText.columns(.system(.discovered(advertisementFrom: Self.mac)))
            == TraceText.Columns(from: "", event: "discover", to: "discovered", detail: "advertisement from mac"))
        #expect(TraceText.columns(.transition(.continuation(from: .willContinue, event: .fail, to: .failed), .error(.handoffFailed)))
            == TraceText.Columns(from: "willContinue", event: "fail", to: "failed", detail: ContinuationError.handoffFailed.description))
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
        let failing = Self.samples.filter(TraceText.isFailure).map(\.name)
        #expect(Set(failing) == [
            .fail, .notOffered, .rapportTimedOut, .connectionFailed, .fetchFailed, .keyExchangeFailed, .fetchRefused,
        ])
    }
}
