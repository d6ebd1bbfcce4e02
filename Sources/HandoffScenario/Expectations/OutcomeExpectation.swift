import Handoff
import ScenarioJSON

/// `"outcome": "continued"`: the attempt ends this way in every trial, or
/// in a share of trials within `"atLeast"`/`"atMost"`.
struct OutcomeExpectation: ShareExpectation {
    static let key = "outcome"
    let outcome: OutcomeKind
    let rate: RateBound?

    static func read(
        _ value: JSONNode, at path: JSONPath, in expectation: ObjectReader, rate: RateBound?, context: DecodingContext
    ) -> OutcomeExpectation? {
        context.choice(value, path, what: "outcome", among: OutcomeKind.allCases.map(\.rawValue))
            .flatMap(OutcomeKind.init(rawValue:))
            .map { OutcomeExpectation(outcome: $0, rate: rate) }
    }

    func counts(_ outcome: ContinuationOutcome) -> Bool { self.outcome.matches(outcome) }
    var countedWords: String { outcome.rawValue }
    func question(subject: String, device: String) -> String { question(saying: "outcome \(subject) is \(outcome.rawValue)") }
}
