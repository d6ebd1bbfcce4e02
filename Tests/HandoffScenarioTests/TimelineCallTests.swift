import Handoff
@testable import HandoffScenario
import Testing

/// A timeline call on an activity in every state the source machine has:
/// a call the state admits validates and runs without a violation; one it
/// does not is refused by validation at the call's `action` (exit 65), so
/// a file `validate` accepts never reaches an illegal transition.
@Suite("Timeline calls in every source state")
struct TimelineCallTests {
    /// How activity "a" (on the mac, beside "b") is brought into a state
    /// by the timeline's first entries.
    struct Lead: CustomStringConvertible, Sendable {
        let description: String
        let state: SourceActivityMachine.State
        let entries: [String]
    }

    static let leads: [Lead] = [
        Lead(description: "created", state: .created, entries: []),
        Lead(description: "current", state: .current, entries: [#""action": "becomeCurrent", "activity": "a""#]),
        Lead(description: "resigned by resignCurrent", state: .resigned, entries: [
            #""action": "becomeCurrent", "activity": "a""#, #""action": "resignCurrent", "activity": "a""#,
        ]),
        Lead(description: "resigned by another activity becoming current", state: .resigned, entries: [
            #""action": "becomeCurrent", "activity": "a""#, #""action": "becomeCurrent", "activity": "b""#,
        ]),
        Lead(description: "invalidated while current", state: .invalidated, entries: [
            #""action": "becomeCurrent", "activity": "a""#, #""action": "invalidate", "activity": "a""#,
        ]),
        Lead(description: "invalidated before it was current", state: .invalidated, entries: [
            #""action": "invalidate", "activity": "a""#,
        ]),
    ]

    /// Every call a timeline can make on an activity, with the source
    /// machine's event (nil: a change to the activity).
    static let calls: [(action: String, event: SourceActivityMachine.Event?)] = [
        (#""action": "becomeCurrent""#, .becomeCurrent),
        (#""action": "resignCurrent""#, .resignCurrent),
        (#""action": "invalidate""#, .invalidate),
        (#""action": "setNeedsSave", "value": true"#, nil),
        (#""action": "addUserInfoEntries", "entries": {"k": 1}"#, nil),
        (#""action": "setEligibleForHandoff", "value": false"#, nil),
    ]

    static let cases: [(Lead, Int)] = leads.flatMap { lead in calls.indices.map { (lead, $0) } }

    /// The scenario: the lead's entries a second apart, the call on "a",
    /// then "b" current and the iPhone accepting.
    static func scenario(_ lead: Lead, call: String) -> String {
        var entries = lead.entries
        entries.append(call + #", "activity": "a""#)
        entries.append(#""action": "becomeCurrent", "activity": "b""#)
        entries.append(#""action": "accept", "device": "iphone""#)
        let timeline = entries.enumerated().map { #"{"at": "\#($0.offset)s", \#($0.element)}"# }
        return """
            {
              "name": "calls",
              "trials": 3,
              "apps": [{"bundleID": "com.example.notes", "teamID": "ABCDE12345", "activityTypes": ["com.example.notes.editing"]}],
              "devices": [
                {"name": "mac", "kind": "mac", "apps": ["com.example.notes"]},
                {"name": "iphone", "kind": "iPhone", "apps": ["com.example.notes"], "position": [1.5, 0]}
              ],
              "activities": [
                {"name": "a", "device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing"},
                {"name": "b", "device": "mac", "app": "com.example.notes", "type": "com.example.notes.editing"}
              ],
              "timeline": [
                \(timeline.joined(separator: ",\n    "))
              ],
              "expect": [{"outcome": "continued", "activity": "b"}]
            }
            """
    }

    @Test("a call the state admits runs without a violation; any other is refused at its action", arguments: cases)
    func call(lead: Lead, callIndex: Int) throws {
        let call = Self.calls[callIndex]
        let admitted = call.event.map { SourceActivityMachine.transition(from: lead.state, on: $0) != nil }
            ?? SourceActivityMachine.allowsChanges(in: lead.state)
        let text = Self.scenario(lead, call: call.action)
        switch decode(text) {
        case let .success(scenario):
            #expect(admitted, "validation accepted a call the state \(lead.state) does not admit: \(call.action)")
            let result = ScenarioRunner().run(scenario)
            #expect(result.failure == nil, "\(result.failure.map { "\($0)" } ?? "")")
        case let .failure(problems):
            #expect(!admitted, "\(problems)")
            #expect(problems.problems.map(\.path) == ["$.timeline[\(lead.entries.count)].action"], "\(problems)")
            #expect(problems.problems.allSatisfy { $0.message.contains("when it is \(lead.state)") }, "\(problems)")
        }
    }

    @Test("a refused call changes nothing: the calls after it are checked against the states the run would have")
    func refusedCallChangesNothing() throws {
        // "a" invalidated; becomeCurrent refused; "b" becoming current does
        // not supersede "a" (it was never current again), and "b" resigns.
        let text = Self.scenario(
            Lead(description: "", state: .invalidated, entries: [#""action": "becomeCurrent", "activity": "a""#, #""action": "invalidate", "activity": "a""#]),
            call: #""action": "becomeCurrent""#
        ).replacingOccurrences(of: #"{"at": "4s", "action": "accept", "device": "iphone"}"#,
                               with: #"{"at": "4s", "action": "resignCurrent", "activity": "b"}, {"at": "5s", "action": "resignCurrent", "activity": "b"}"#)
        let found = problems(text)
        #expect(found.count == 2, "\(found)")
        #expect(found.first?.contains("$.timeline[2].action") == true, "\(found)")
        #expect(found.last?.contains(#"$.timeline[5].action: expected a call that activity "b" admits, found "resignCurrent" at 5s, when it is resigned (since resignCurrent at $.timeline[4])"#) == true, "\(found)")
    }
}
