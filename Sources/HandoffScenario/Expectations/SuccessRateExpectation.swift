import Handoff
import ScenarioJSON

/// `"successRate": "99%"` (or `true` with `"atLeast"`/`"atMost"`): the
/// share of trials that continued, in the app or the browser, keeps the
/// bound.
struct SuccessRateExpectation: ShareExpectation {
    static let key = "successRate"
    let bound: RateBound
    var rate: RateBound? { bound }

    static func read(
        _ value: JSONNode, at path: JSONPath, in expectation: ObjectReader, rate: RateBound?, context: DecodingContext
    ) -> SuccessRateExpectation? {
        let kind: SuccessRateExpectation?
        if case .bool(true) = value.value, let rate {
            kind = SuccessRateExpectation(bound: rate)
        } else if let fraction = context.fraction(value, path) {
            kind = SuccessRateExpectation(bound: .atLeast(fraction))
        } else {
            kind = nil
        }
        if rate != nil, !(value.value == .bool(true)) {
            context.report(path, at: value.position, "give the rate either as \"successRate\": \"99%\" or with \"atLeast\"/\"atMost\", not both")
        }
        return kind
    }

    func counts(_ outcome: ContinuationOutcome) -> Bool { outcome == .continued || outcome == .continuedInBrowser }
    var countedWords: String { "continued (app or browser)" }
    func question(subject: String, device: String) -> String { question(saying: "success rate \(subject)") }
}
