import Foundation
import Handoff
import HandoffWorld
import SimKernel
import Testing

/// Every legal path through the protocol, with its exact callback order.
@Suite("Continuation paths")
struct ContinuationPathTests {
    /// The events on `device` from the accept on.
    func fromAccept(_ run: HandoffRun, on device: String = "ipad") -> [TraceEvent.Name] {
        let events = callbackOrder(run.trace, on: device)
        guard let start = events.firstIndex(of: .accept) else { return events }
        return Array(events[start...])
    }

    /// A receiving controller that keeps what it was given.
    final class Recorder: HandoffAppDelegate, ContinuationStreamsDelegate {
        var continued: [ContinuedActivity] = []
        var responses: [StreamResponse] = []
        let rounds: [Int]
        let root = RestorableObject("root")
        init(streamRequests rounds: [Int] = []) { self.rounds = rounds }

        func application(willContinueUserActivityWithType type: String, context: inout CallbackContext) -> Bool {
            false
        }

        func application(continue activity: ContinuedActivity, context: inout ContinueContext) -> Bool {
            continued.append(activity)
            if rounds.isEmpty {
                context.restore([root])
            } else {
                context.getContinuationStreams()
            }
            return true
        }

        func application(
            didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext
        ) {}

        func continuationStreamsOpened(for activity: ContinuedActivity, context: inout StreamContext) {
            context.request(bytes: rounds[0])
        }

        func continuationStreamsFailed(for activity: ContinuedActivity, error: ContinuationError, context: inout StreamContext) {}

        func continuationStreamResponse(
            _ response: StreamResponse, for activity: ContinuedActivity, context: inout StreamContext
        ) {
            responses.append(response)
            if responses.count < rounds.count {
                context.request(bytes: rounds[responses.count])
            } else {
                context.closeStreams()
                context.restore([root])
            }
        }
    }

    @Test("no suitable app but a web page: the page opens in the browser")
    func browserFallback() throws {
        var content = tabActivity(0)
        try content.setWebpageURL("https://www.weather.com/today")
        let setup = try monkeySetup(adjust: { $0[1].installedApps = [] })
        let (run, activity) = try runTab(setup: setup, content: content)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continuedInBrowser)
        #expect(fromAccept(run) == [.accept, .launch, .openInBrowser])
        let opening = try #require(run.trace.first { $0.name == .openInBrowser })
        guard case let .transition(_, .webpage(url)) = opening.event else {
            Issue.record("expected the web page, got \(opening.event)")
            return
        }
        #expect(url?.description == "https://www.weather.com/today")
        // The browser takes its own launch time, drawn from its distribution.
        let summary = try #require(run.summary(of: activity, on: "ipad"))
        let accepted = try #require(run.trace.first { $0.name == .accept }?.time)
        let opened = try #require(run.trace.first { $0.name == .openInBrowser }?.time)
        #expect(summary[.acceptToContinue] == opened - accepted)
        #expect(try #require(run.trace.first { $0.name == .launch }).event == .transition(
            .continuation(from: .accepted, event: .launch, to: .launching), .launch(.browser, opened - accepted)))
    }

    @Test("a webpageURL that is not http or https is rejected as on Apple platforms",
          arguments: ["ftp://example.com/file", "mailto:someone@example.com", "monkey://tab1"])
    func nonWebSchemesRejected(url: String) {
        var content = tabActivity(0)
        #expect(throws: HandoffError.unsupportedURLScheme(url: url)) { try content.setWebpageURL(url) }
    }

    /// A web page on www.xamarin.com handed off from the browser, with the
    /// app's entitlement entry and the domain's AASA file as given.
    func browsingWeb(claims: Bool, listed: Bool) throws -> (HandoffRun, ActivityID) {
        var app = try monkeyBrowserApp()
        if claims { app.associatedDomains = [try AssociatedDomain(parsing: "activitycontinuation:www.xamarin.com")] }
        let safari = try AppDescription(bundleID: "com.apple.mobilesafari", teamID: TeamID("APPLE12345"))
        var setup = try monkeySetup(apps: [app, safari], adjust: { $0[0].installedApps = ["com.apple.mobilesafari"] })
        setup.siteAssociations = SiteAssociations([
            try SiteAssociation(domain: "www.xamarin.com", activityContinuationApps: listed ? [app.appID] : []),
        ])
        var content = ActivityContent(type: browsingWebActivityType, title: "Xamarin", userInfo: ["Scroll": 120])
        try content.setWebpageURL("https://www.xamarin.com/handoff")
        let run = try HandoffRun(setup: setup, seed: 5)
        let activity = try run.createActivity(content, on: "iphone", app: "com.apple.mobilesafari")
        try run.schedule(.becomeCurrent(activity), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: at(acceptTime))
        run.run(until: at(30))
        return (run, activity)
    }

    @Test("browser → native: allowed when the app claims the domain and the AASA file lists it")
    func browsingWebAllowed() throws {
        let (run, activity) = try browsingWeb(claims: true, listed: true)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
        #expect(fromAccept(run).contains(.continueUserActivity))
        let delivered = try #require(run.trace.first { $0.name == .continueUserActivity })
        #expect(delivered.app == .app(bundleID: monkeyBrowserID))
    }

    @Test("browser → native: refused without the entitlement or the AASA listing, so the browser opens",
          arguments: [(false, true), (true, false), (false, false)])
    func browsingWebRefused(claims: Bool, listed: Bool) throws {
        let (run, activity) = try browsingWeb(claims: claims, listed: listed)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continuedInBrowser)
    }

    @Test("browser → native delivers an empty userInfo and the page URL")
    func browsingWebDeliversURLOnly() throws {
        var app = try monkeyBrowserApp()
        app.associatedDomains = [try AssociatedDomain(parsing: "activitycontinuation:www.xamarin.com")]
        let safari = try AppDescription(bundleID: "com.apple.mobilesafari", teamID: TeamID("APPLE12345"))
        var setup = try monkeySetup(apps: [app, safari], adjust: { $0[0].installedApps = ["com.apple.mobilesafari"] })
        setup.siteAssociations = SiteAssociations([
            try SiteAssociation(domain: "www.xamarin.com", activityContinuationApps: [app.appID]),
        ])
        var content = ActivityContent(type: browsingWebActivityType, userInfo: ["Scroll": 120])
        try content.setWebpageURL("https://www.xamarin.com/handoff")
        let recorder = Recorder()
        let run = try HandoffRun(setup: setup, seed: 5, appDelegates: { _, _ in .application(recorder) })
        let activity = try run.createActivity(content, on: "iphone", app: "com.apple.mobilesafari")
        try run.schedule(.becomeCurrent(activity), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: at(acceptTime))
        run.run(until: at(30))
        let received = try #require(recorder.continued.first)
        #expect(received.activityType == browsingWebActivityType)
        #expect(received.userInfo.isEmpty)
        #expect(received.webpageURL?.absoluteString == "https://www.xamarin.com/handoff")
    }

    @Test("continuation streams: request/response rounds after continue, then restore")
    func streams() throws {
        let recorder = Recorder(streamRequests: [200, 300])
        let source = ScriptedApp(behaviour: AppBehaviour(streamRounds: [
            StreamRound(requestBytes: 200, responseBytes: 1_000_000), StreamRound(requestBytes: 300, responseBytes: 5000),
        ]))
        let (run, activity) = try runTab(
            setup: monkeySetup(), content: tabActivity(0, supportsStreams: true), delegates: { _, _ in .application(recorder) },
            activityDelegate: source)
        #expect(run.violations.isEmpty)
        #expect(fromAccept(run) == [
            .accept, .launch, .willContinue, .willContinueUserActivity, .continue, .continueUserActivity,
            .getContinuationStreams, .continuationStreamsOpened, .continuationStreamResponse,
            .continuationStreamResponse, .restore, .restoreUserActivityState,
        ])
        #expect(callbackOrder(run.trace, on: "iphone").contains(.didReceiveInputStream))
        #expect(recorder.responses == [
            StreamResponse(round: 0, requestBytes: 200, responseBytes: 1_000_000),
            StreamResponse(round: 1, requestBytes: 300, responseBytes: 5000),
        ])
        // A megabyte over the 100 Mbit/s peer link takes at least 80 ms more than the payload.
        let summary = try #require(run.summary(of: activity, on: "ipad"))
        let continued = try #require(summary[.acceptToContinue])
        let restored = try #require(summary[.acceptToRestored])
        #expect(restored - continued > .milliseconds(80))
    }

    @Test("getContinuationStreams on an activity without stream support fails the streams, not the continuation")
    func streamsNotSupported() throws {
        let recorder = Recorder(streamRequests: [200])
        let (run, activity) = try runTab(
            setup: monkeySetup(), content: tabActivity(0, supportsStreams: false), delegates: { _, _ in .application(recorder) })
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
        #expect(callbackOrder(run.trace, on: "ipad").contains(.continuationStreamsFailed))
        #expect(!callbackOrder(run.trace, on: "iphone").contains(.didReceiveInputStream))
    }

    @Test("needsSave: willSave runs before the payload is sent, its entries arrive, and needsSave is cleared")
    func needsSaveOrdering() throws {
        var content = tabActivity(0)
        content.needsSave = true
        let saver = ScriptedApp(behaviour: AppBehaviour(saveTime: .milliseconds(40), saveEntries: ["Scroll": 512]))
        let recorder = Recorder()
        var setup = try monkeySetup()
        setup.configuration.sourceSaveTime = .fixed(.zero)
        let (run, activity) = try runTab(
            setup: setup, content: content, delegates: { _, _ in .application(recorder) }, activityDelegate: saver)
        #expect(callbackOrder(run.trace, on: "iphone") == [
            .becomeCurrent, .save, .userActivityWillSave, .sendPayload, .continued, .userActivityWasContinued,
        ])
        #expect(recorder.continued.first?.userInfo["Scroll"] == 512)
        #expect(run.content(of: activity).needsSave == false)
        // The payload leaves exactly the charged 40 ms after the request
        // arrived, plus its encoding (PayloadCoding).
        let save = try #require(run.trace.first { $0.name == .save })
        let send = try #require(run.trace.first { $0.name == .sendPayload })
        #expect(send.time - save.time == .milliseconds(40) + encodeTime(of: send))
        #expect(encodeTime(of: send) > .zero)
    }

    @Test("document-based: the document URL is rewritten for the receiver's container")
    func documentActivity() throws {
        let editor = try AppDescription(
            bundleID: "com.example.editor", teamID: TeamID("EDITOR1234"), platforms: [.macOS, .iPadOS],
            documentTypes: [DocumentType(
                name: "Rich Text", contentTypes: ["com.example.rtfd"],
                ubiquitousActivityType: "com.example.editor.editing")])
        let setup = try monkeySetup(apps: [editor], adjust: { devices in
            devices[0].kind = .mac
            devices[0].installedApps = ["com.example.editor"]
            devices[1].installedApps = ["com.example.editor"]
        })
        let recorder = Recorder()
        let run = try HandoffRun(setup: setup, seed: 2, appDelegates: { _, _ in .application(recorder) })
        let content = ActivityContent(type: "com.example.editor.editing", documentPath: "Documents/Report.rtfd")
        let activity = try run.createActivity(content, on: "iphone", app: "com.example.editor")
        try run.schedule(.becomeCurrent(activity), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: at(acceptTime))
        run.run(until: at(30))
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
        guard case let .url(source)? = run.content(of: activity).userInfo[documentURLKey],
            case let .url(received)? = recorder.continued.first?.userInfo[documentURLKey]
        else {
            Issue.record("the document URL is missing")
            return
        }
        #expect(source.path == "/Users/iphone/Library/Mobile Documents/iCloud~com~example~editor/Documents/Report.rtfd")
        #expect(received.path
            == "/private/var/mobile/Library/Mobile Documents/iCloud~com~example~editor/Documents/Report.rtfd")
    }

    @Test("responder-managed: userInfo is cleared, then every responder adds its state")
    func responderManaged() throws {
        var content = tabActivity(0)
        content.responders = ["tabView", "toolbar"]
        content.addUserInfoEntries(["Stale": "left over"])
        let source = ScriptedApp(behaviour: AppBehaviour(responderEntries: [
            "tabView": ["Url": "https://www.weather.com/radar"], "toolbar": ["Zoom": 2],
        ]))
        let recorder = Recorder()
        let (run, _) = try runTab(
            setup: monkeySetup(), content: content, delegates: { _, _ in .application(recorder) }, activityDelegate: source)
        #expect(callbackOrder(run.trace, on: "iphone") == [
            .becomeCurrent, .save, .updateUserActivityState, .updateUserActivityState, .sendPayload, .continued,
            .userActivityWasContinued,
        ])
        #expect(run.trace.filter { $0.name == .updateUserActivityState }.map(\.event) == [
            .callback(.updateUserActivityState(responder: "tabView")), .callback(.updateUserActivityState(responder: "toolbar")),
        ])
        let received = try #require(recorder.continued.first)
        #expect(received.userInfo == ["Url": "https://www.weather.com/radar", "Zoom": 2])
    }

    @Test("accepting with think time: the user accepts on their own after the offer")
    func thinkTimeAcceptance() throws {
        var configuration = HandoffConfiguration()
        configuration.defaultAcceptance = .after(.milliseconds(1500))
        let run = try HandoffRun(setup: monkeySetup(configuration: configuration), seed: 4)
        let activity = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(activity), at: .zero)
        run.run(until: at(30))
        let accept = try #require(run.trace.first { $0.name == .accept })
        let offer = try #require(run.trace.first { $0.name == .offer })
        #expect(accept.time - offer.time == .milliseconds(1500))
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    @Test("a think-time accept still pending keeps the run going after the activity resigns")
    func pendingAcceptKeepsRunGoing() throws {
        var configuration = HandoffConfiguration()
        configuration.defaultAcceptance = .after(.seconds(3))
        let run = try HandoffRun(setup: monkeySetup(configuration: configuration), seed: 1)
        let activity = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(activity), at: .zero)
        // Run in 100 ms steps until the offer is made (discovery time
        // depends on the scan phase the seed draws).
        var clock = 0.0
        while run.trace.first(where: { $0.name == .offer }) == nil, clock < 10 {
            clock += 0.1
            run.run(until: at(clock))
        }
        let offer = try #require(run.trace.first { $0.name == .offer })
        // Resign once offered (well before the accept, 3 s after the offer);
        // nothing is current any more, but the accept is due.
        try run.schedule(.resignCurrent(activity), at: at(clock))
        run.run(until: at(60))
        let accept = try #require(run.trace.first { $0.name == .accept })
        #expect(accept.time - offer.time == .seconds(3))
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    // Apple Platform Security, "Handoff security": on first contact with a
    // new advertising key the receiver exchanges keys with the source over
    // a Bluetooth LE connection before it can read the advertisement.
    @Test("first contact: the advertisement-key exchange over Bluetooth LE comes before the first offer, once")
    func trustSpeedsUpSecondContact() throws {
        var setup = try monkeySetup()
        setup.configuration.keyExchange.firstContact = true
        let run = try HandoffRun(setup: setup, seed: 9)
        let first = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        let second = try run.createActivity(tabActivity(1), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(first), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: at(acceptTime))
        try run.schedule(.becomeCurrent(second), at: at(5))
        try run.schedule(.accept(device: "ipad"), at: at(8))
        run.run(until: at(30))
        #expect(run.summary(of: first, on: "ipad")?.outcome == .continued)
        #expect(run.summary(of: second, on: "ipad")?.outcome == .continued)
        // One exchange, on the iPad, before the first offer; none for the second.
        let steps = systemSteps(run.trace, on: "ipad")
        #expect(steps.filter { $0 == .keyExchange }.count == 1)
        #expect(steps.filter { $0 == .keysExchanged }.count == 1)
        let exchanged = try #require(run.trace.first { $0.name == .keysExchanged })
        let offers = run.trace.filter { $0.name == .offer }
        #expect(offers.count == 2)
        #expect(offers[0].time > exchanged.time)
        // The first offer waits for the exchange and the next advertisement;
        // the second comes with the first advertisement heard.
        let firstDiscovery = try #require(run.summary(of: first, on: "ipad")?[.advertToOffered])
        let secondDiscovery = try #require(run.summary(of: second, on: "ipad")?[.advertToOffered])
        #expect(firstDiscovery > secondDiscovery)
    }
}
