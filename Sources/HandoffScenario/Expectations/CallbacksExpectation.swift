import Handoff
import ScenarioJSON

/// `"callbacks": [...]`: the app-facing callbacks and calls on the device,
/// in this exact order, in every trial or in a share of trials within
/// `"atLeast"`/`"atMost"`.
struct CallbacksExpectation: SequenceExpectation {
    static let key = "callbacks"
    let expected: [TraceEvent.Name]
    let rate: RateBound?

    /// The names a `callbacks` list may hold
    /// (``TraceEvent/Name/scenarioCallbacks``).
    static let allowed = TraceEvent.Name.scenarioCallbacks.map(\.rawValue)

    static func read(
        _ value: JSONNode, at path: JSONPath, in expectation: ObjectReader, rate: RateBound?, context: DecodingContext
    ) -> CallbacksExpectation? {
        readNames(value, at: path, allowed: allowed, context: context) { name in
            "unknown callback \"\(name)\"; expected one of \(allowed.joined(separator: ", "))"
        }.map { CallbacksExpectation(expected: $0, rate: rate) }
    }

    func compared(_ events: [TraceEvent.Name]) -> [TraceEvent.Name] { events.filter(\.isScenarioCallback) }
    func question(subject: String, device: String) -> String { question(device: device, what: "callbacks") }
}
