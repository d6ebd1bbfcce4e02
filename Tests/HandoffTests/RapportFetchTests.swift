import Handoff
import HandoffWorld
import SimKernel
import Testing

/// The fetch as Rapport does it, each rule with its source.
@Suite("Rapport fetch")
struct RapportFetchTests {
    /// The trace record of the first `event` on `device`.
    func first(_ event: TraceEvent.Name, on device: String, in run: HandoffRun) throws -> TraceRecord {
        try #require(run.trace.first { $0.name == event && $0.device.name == device })
    }

    // Apple developer documentation: willContinue comes "possibly before
    // the data associated with that activity is available"; scene(_:continue:)
    // only "after it receives all of the data". So the fetch and the launch
    // overlap, and continue waits for both.
    @Test("the fetch starts at the accept, in parallel with the launch; continue waits for the app and the data")
    func fetchParallelToLaunch() throws {
        // A slow app: the data is in long before the app is up.
        var slowApp = try monkeyBrowserApp()
        slowApp.coldLaunch = .fixed(.seconds(2))
        let (slow, _) = try runTab(setup: monkeySetup(apps: [slowApp]))
        let accept = try first(.accept, on: "ipad", in: slow)
        #expect(try first(.fetch, on: "ipad", in: slow).time == accept.time)
        let arrived = try first(.payloadArrived, on: "ipad", in: slow)
        let willContinue = try first(.willContinue, on: "ipad", in: slow)
        #expect(arrived.time < willContinue.time)
        #expect(willContinue.time == accept.time + .seconds(2))
        // The scripted app's willContinue returns at once: continue follows it.
        #expect(try first(.`continue`, on: "ipad", in: slow).time == willContinue.time)

        // A slow link: the app is up long before the data.
        var quickApp = try monkeyBrowserApp()
        quickApp.coldLaunch = .fixed(.milliseconds(10))
        let (slowLink, _) = try runTab(setup: monkeySetup(apps: [quickApp]), content: {
            var content = tabActivity(0)
            content.payloadSize = 60 * 1024
            return content
        }())
        let up = try first(.willContinue, on: "ipad", in: slowLink)
        let data = try first(.payloadArrived, on: "ipad", in: slowLink)
        #expect(up.time < data.time)
        // …after decoding it (PayloadCoding).
        let decode = HandoffConfiguration().coding.decodeTime(bytes: 60 * 1024 + HandoffConfiguration().envelopeBytes)
        #expect(try first(.`continue`, on: "ipad", in: slowLink).time == data.time + decode)
    }

    // seemoo-lab/handoff-authentication-swift: Bonjour resolve of
    // _companion-link._tcp, a TCP connection, Pair-Verify in two round
    // trips, _systemInfo, then the payload request; frames carry a 4 B
    // header and, once encrypted, a 16 B tag.
    @Test("resolve, TCP, Pair-Verify in two round trips, _systemInfo, then the request, each framed")
    func rapportSteps() throws {
        let (run, _) = try runTab(setup: monkeySetup())
        var steps = run.trace.filter { $0.app == .system }.map { "\($0.device.name): \($0.name)" }
        // From cold, AWDL may take longer than the query's 1 s repeat to
        // carry the answer: the repeats are the same step.
        steps = steps.enumerated().filter { $0.offset == 0 || $0.element != "ipad: resolve" || steps[$0.offset - 1] != $0.element }
            .map(\.element)
        #expect(steps == [
            "ipad: fetch", "ipad: resolve", "ipad: resolved", "ipad: connected",
            "ipad: Pair-Verify M1", "iphone: Pair-Verify M2", "ipad: Pair-Verify M3", "iphone: Pair-Verify M4",
            "ipad: _systemInfo request", "iphone: _systemInfo answer", "ipad: payload request", "ipad: payload arrived",
        ])
        let rapport = RapportParameters()
        let sizes = run.trace.compactMap { record -> ProtocolMessage? in
            guard case let .message(message) = record.event, case let .rapport(kind, _) = message,
                kind != .payloadRequest
            else { return nil }
            return message
        }
        #expect(sizes == [
            .rapport(.pairVerifyM1, bytes: rapport.pairVerifyBytes[0] + 4),
            .rapport(.pairVerifyM2, bytes: rapport.pairVerifyBytes[1] + 4),
            .rapport(.pairVerifyM3, bytes: rapport.pairVerifyBytes[2] + 4),
            .rapport(.pairVerifyM4, bytes: rapport.pairVerifyBytes[3] + 4),
            .rapport(.systemInfoRequest, bytes: rapport.systemInfoRequestBytes + 20),
            .rapport(.systemInfoAnswer, bytes: rapport.systemInfoAnswerBytes + 20),
        ])
        let sent = try first(.sendPayload, on: "iphone", in: run)
        let configuration = HandoffConfiguration()
        let userInfo = tabActivity(0).transferSize
        #expect(sent.event == .message(.payload(
            userInfoBytes: userInfo, totalBytes: userInfo + configuration.envelopeBytes + 20)))
    }

    // PrivateDrop raw sender logs: a browse answered from the Bonjour cache
    // in 3–5 ms, nothing on the air; the browse still switches AWDL on
    // (itlwm issue log: "Adding PTR: _companion-link._tcp … Enabling AWDL").
    @Test("a cached resolve answers locally after its time with no query on the air, then Rapport connects")
    func cachedResolveSkipsTheAir() throws {
        var setup = try monkeySetup()
        setup.configuration.rapport.resolveCached = true
        setup.configuration.rapport.cachedResolveTime = .milliseconds(4)
        let (run, _) = try runTab(setup: setup)
        let steps = run.trace.filter { $0.app == .system }.map { "\($0.device.name): \($0.name)" }
        #expect(Array(steps.prefix(3)) == ["ipad: fetch", "ipad: resolved", "ipad: connected"])
        #expect(!steps.contains("ipad: resolve"))
        let fetch = try first(.fetch, on: "ipad", in: run)
        #expect(try first(.resolved, on: "ipad", in: run).time == fetch.time + .milliseconds(4))
        // Not cached: a query goes out first.
        let (queried, _) = try runTab(setup: monkeySetup())
        #expect(queried.trace.contains { $0.name == .resolve && $0.device.name == "ipad" })
    }

    // seemoo-lab/owl daemon/core.c: unicast to a peer not yet known is
    // dropped. From cold, the browse switches AWDL on, the cached answer
    // comes before the pair is synchronised, so the SYN is dropped and TCP
    // sends it again after its initial timeout (1 s); warm, the SYN only
    // waits for a shared slot (at most slots 1–7, 459 ms).
    @Test("cold AWDL with a cached resolve loses the first SYN (peer unknown); warm AWDL does not", arguments: [UInt64(1), 2, 3])
    func warmAgainstCold(seed: UInt64) throws {
        func fetchTime(_ start: PeerToPeerSchedule.Start) throws -> SimDuration {
            var setup = try monkeySetup()
            setup.configuration.rapport.resolveCached = true
            setup.world.wifiPeerToPeer.schedule?.start = start
            setup.world.wifiPeerToPeer.schedule?.excursionDuration = .zero
            let (run, _) = try runTab(setup: setup, seed: seed)
            return try first(.payloadArrived, on: "ipad", in: run).time - first(.fetch, on: "ipad", in: run).time
        }
        let cold = try fetchTime(.cold)
        let warm = try fetchTime(.warm)
        #expect(cold > .seconds(1))
        #expect(warm < .milliseconds(800))
    }

    // sharingd (SDActivityPayloadManager): the Rapport request timeout is
    // min(timeout, 5 s); the request can then go over IDS.
    @Test("Rapport times out after min(t, 5 s), then the request goes over the cloud relay (IDS)", arguments: [3, 10])
    func rapportThenCloud(timeout: Int64) throws {
        var setup = try monkeySetup()
        setup.configuration.fetchTimeout = .seconds(timeout)
        setup.world.wifiPeerToPeer.loss = .bernoulli(1)
        // The relay's own delay fixed, so the fallback fits in the 1 s the
        // payload timer leaves after Rapport gives up at t = 3 s.
        setup.configuration.relay.delay = .fixed(.milliseconds(100))
        let (run, activity) = try runTab(setup: setup)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
        let fetch = try first(.fetch, on: "ipad", in: run)
        let timedOut = try first(.rapportTimedOut, on: "ipad", in: run)
        #expect(timedOut.time - fetch.time == .seconds(min(timeout, 5)))
        let cloud = try first(.fetchOverCloud, on: "ipad", in: run)
        #expect(cloud.time == timedOut.time)
        #expect(try first(.payloadArrived, on: "ipad", in: run).time > cloud.time)
    }

    // sharingd: the payload timer is the timeout + 1 s.
    @Test("without any path, the payload timer fails the fetch with 4610 at t + 1 s")
    func payloadTimer() throws {
        var setup = try monkeySetup(adjust: { devices in
            for index in devices.indices { devices[index].internet = .hundredPercentLoss }
        })
        setup.configuration.fetchTimeout = .seconds(4)
        setup.world.wifiPeerToPeer.loss = .bernoulli(1)
        let (run, activity) = try runTab(setup: setup)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .failed(.remoteApplicationTimedOut))
        let fetch = try first(.fetch, on: "ipad", in: run)
        #expect(try first(.fail, on: "ipad", in: run).time - fetch.time == .seconds(5))
    }

    // UASharingAdvertiser: the source checks the encoded payload, warns
    // above a recommended maximum and refuses above the maximum (−110,
    // which reaches the app as 4611: an assumption).
    @Test("the source checks the encoded userInfo: a warning above the recommended maximum, 4611 above the maximum")
    func sizeCheckAtSource() throws {
        var content = tabActivity(0)
        content.payloadSize = 8 * 1024
        let (warned, activity) = try runTab(setup: monkeySetup(), content: content)
        #expect(warned.summary(of: activity, on: "ipad")?.outcome == .continued)
        let warning = try first(.warning, on: "iphone", in: warned)
        guard case let .system(.userInfoOverRecommended(size, recommended)) = warning.event else {
            Issue.record("expected a warning about the size, got \(warning.event)")
            return
        }
        #expect(size > recommended && recommended == 3072)

        content.payloadSize = 65 * 1024
        let (refused, tooLarge) = try runTab(setup: monkeySetup(), content: content)
        #expect(refused.summary(of: tooLarge, on: "ipad")?.outcome == .failed(.handoffUserInfoTooLarge))
        #expect(try first(.fetchRefused, on: "iphone", in: refused).app == .system)
        #expect(!refused.trace.contains { $0.name == .sendPayload })
    }

    // sharingd (SDActivityPayloadManager): the key request times out after
    // 15 s and is not repeated within 5 s.
    @Test("a key exchange that gets no answer fails after its timeout and is not tried again within 5 s")
    func keyExchangeTimeout() throws {
        var setup = try monkeySetup()
        setup.configuration.keyExchange.firstContact = true
        setup.configuration.keyExchange.timeout = .seconds(2)
        // The Bluetooth LE connection's packets take 30 s; advertisements still arrive.
        setup.world.bluetooth.latency = .seconds(30)
        let run = try HandoffRun(setup: setup, seed: 1)
        let activity = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(activity), at: .zero)
        // An accept due at the end keeps the run going until then.
        try run.schedule(.accept(device: "ipad"), at: at(20))
        run.run(until: at(20))
        let starts = run.trace.filter { $0.name == .keyExchange }.map(\.time)
        let failures = run.trace.filter { $0.name == .keyExchangeFailed }.map(\.time)
        #expect(starts.count >= 2)
        #expect(failures.first == starts.first.map { $0 + .seconds(2) })
        for (failure, next) in zip(failures, starts.dropFirst()) {
            #expect(next - failure >= .seconds(5))
        }
        #expect(!run.trace.contains { $0.name == .offer })
        // Reported as such, not as out of range.
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .notOffered(.keysNotExchanged))
    }
}
