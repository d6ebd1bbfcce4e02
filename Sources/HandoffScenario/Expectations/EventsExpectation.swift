import Handoff
import ScenarioJSON

/// `"events": [...]`: every trace event on the device (protocol steps and
/// callbacks), in this exact order, in every trial or in a share of trials
/// within `"atLeast"`/`"atMost"`.
struct EventsExpectation: SequenceExpectation {
    static let key = "events"
    let expected: [TraceEvent.Name]
    let rate: RateBound?

    /// The names an `events` list may hold (every ``TraceEvent/Name``).
    static let allowed = TraceEvent.Name.allCases.map(\.rawValue)

    static func read(
        _ value: JSONNode, at path: JSONPath, in expectation: ObjectReader, rate: RateBound?, context: DecodingContext
    ) -> EventsExpectation? {
        readNames(value, at: path, allowed: allowed, context: context) { name in
            "unknown trace event \"\(name)\"; expected an event name such as \"payload arrived\""
        }.map { EventsExpectation(expected: $0, rate: rate) }
    }

    func compared(_ events: [TraceEvent.Name]) -> [TraceEvent.Name] { events }
    func question(subject: String, device: String) -> String { question(device: device, what: "events") }
}
