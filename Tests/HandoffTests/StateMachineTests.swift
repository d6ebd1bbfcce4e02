import Handoff
import HandoffWorld
import SimKernel
import Testing

/// The two machines' tables, and illegal transitions caught in real runs.
@Suite("Activity state machines")
struct StateMachineTests {
    typealias Source = SourceActivityMachine
    typealias Continuation = ContinuationMachine

    @Test("the source machine allows exactly the transitions of its table")
    func sourceTable() {
        let legal: [Source.State: [Source.Event: Source.State]] = [
            .created: [.becomeCurrent: .current, .invalidate: .invalidated],
            .current: [
                .becomeCurrent: .current, .resignCurrent: .resigned, .superseded: .resigned, .save: .current,
                .continued: .current, .invalidate: .invalidated,
            ],
            .resigned: [.becomeCurrent: .current, .save: .resigned, .continued: .resigned, .invalidate: .invalidated],
            .invalidated: [:],
        ]
        for state in Source.State.allCases {
            for event in Source.Event.allCases {
                #expect(Source.transition(from: state, on: event) == legal[state]?[event], "\(state) + \(event)")
            }
        }
    }

    @Test("the continuation machine allows exactly the transitions of its table")
    func continuationTable() {
        let legal: [Continuation.State: [Continuation.Event: Continuation.State]] = [
            .discovered: [.offer: .offered, .withdraw: .withdrawn],
            .offered: [.offer: .offered, .accept: .accepted, .withdraw: .withdrawn],
            .accepted: [.launch: .launching],
            .launching: [.willContinue: .willContinue, .openInBrowser: .inBrowser],
            .willContinue: [.continue: .continued, .fail: .failed],
            .continued: [.restore: .restored],
            .restored: [.restore: .restored],
        ]
        for state in Continuation.State.allCases {
            for event in Continuation.Event.allCases {
                #expect(Continuation.transition(from: state, on: event) == legal[state]?[event], "\(state) + \(event)")
            }
        }
    }

    @Test("after willContinue exactly one of continue and fail can follow")
    func oneOutcomeAfterWillContinue() {
        for first in [Continuation.Event.continue, .fail] {
            let state = Continuation.State.willContinue
            guard let after = Continuation.transition(from: state, on: first) else {
                Issue.record("\(first) must be legal from \(state)")
                continue
            }
            #expect(Continuation.transition(from: after, on: .continue) == nil)
            #expect(Continuation.transition(from: after, on: .fail) == nil)
        }
    }

    @Test("becomeCurrent after invalidate is a violation naming device, activity, state and event")
    func becomeCurrentAfterInvalidate() throws {
        let (run, _) = try runTab(
            setup: monkeySetup(), actions: [(1, { .invalidate($0) }), (2, { .becomeCurrent($0) })])
        let violation = try #require(run.violations.first)
        #expect(run.violations.count == 1)
        #expect(violation.device == "iphone")
        #expect(violation.activity == #"com.xamarin.monkeybrowser.tab1 "Weather""#)
        #expect(violation.state == "invalidated")
        #expect(violation.event == "becomeCurrent")
        #expect(violation.step == .transition(.source(from: .invalidated, event: .becomeCurrent, to: nil)))
        #expect(violation.time == at(2))
        #expect(violation.description.contains("invalidated") && violation.description.contains("becomeCurrent"))
    }

    @Test("each change to an invalidated activity is a violation", arguments: [
        "resignCurrent", "invalidate", "setNeedsSave", "addUserInfoEntries", "isEligibleForHandoff",
    ])
    func changesAfterInvalidate(change: String) throws {
        let action: (ActivityID) -> HandoffAction
        switch change {
        case "resignCurrent": action = { .resignCurrent($0) }
        case "invalidate": action = { .invalidate($0) }
        case "setNeedsSave": action = { .setNeedsSave($0, true) }
        case "addUserInfoEntries": action = { .addUserInfoEntries($0, ["Url": "https://example.com"]) }
        default: action = { .setEligibleForHandoff($0, true) }
        }
        let (run, _) = try runTab(setup: monkeySetup(), actions: [(1, { .invalidate($0) }), (2, action)])
        #expect(run.violations.map(\.event) == [change])
        #expect(run.violations.first?.state == "invalidated")
    }

    @Test("resignCurrent on an activity that was never current is a violation")
    func resignBeforeCurrent() throws {
        let run = try HandoffRun(setup: monkeySetup(), seed: 1)
        let activity = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.resignCurrent(activity), at: at(1))
        run.run(until: at(5))
        #expect(run.violations.map(\.state) == ["created"])
        #expect(run.violations.map(\.event) == ["resignCurrent"])
    }

    @Test("making another activity current supersedes the first, which stops being advertised")
    func supersede() throws {
        let run = try HandoffRun(setup: monkeySetup(), seed: 1)
        let first = try run.createActivity(tabActivity(0), on: "iphone", app: monkeyBrowserID)
        let second = try run.createActivity(tabActivity(1), on: "iphone", app: monkeyBrowserID)
        try run.schedule(.becomeCurrent(first), at: .zero)
        try run.schedule(.becomeCurrent(second), at: at(0.001))
        try run.schedule(.accept(device: "ipad"), at: at(acceptTime))
        run.run(until: at(30))
        #expect(run.state(of: first) == .resigned)
        #expect(run.state(of: second) == .current)
        #expect(run.summary(of: second, on: "ipad")?.outcome == .continued)
        #expect(run.summary(of: first, on: "ipad")?.outcome == .notOffered(.supersededBeforeReceived))
        #expect(run.violations.isEmpty)
    }

    @Test("resignCurrent stops advertising but leaves the offer; the accepted fetch still succeeds")
    func resignKeepsOffer() throws {
        let (run, activity) = try runTab(setup: monkeySetup(), actions: [(acceptTime - 0.5, { .resignCurrent($0) })])
        #expect(run.state(of: activity) == .resigned)
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .continued)
    }

    @Test("invalidate withdraws an offer not yet accepted")
    func invalidateWithdraws() throws {
        let (run, activity) = try runTab(setup: monkeySetup(), actions: [(acceptTime - 0.5, { .invalidate($0) })])
        #expect(run.summary(of: activity, on: "ipad")?.outcome == .withdrawn)
        #expect(run.trace.contains { $0.event == .transition(
            .continuation(from: .offered, event: .withdraw, to: .withdrawn), .activityInvalidated) })
        #expect(run.trace.contains { $0.event == .system(.acceptedWithoutOffer) && $0.activity == nil })
    }
}
