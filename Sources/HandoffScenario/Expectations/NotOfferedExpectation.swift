import Handoff
import ScenarioJSON

/// `"notOffered": "noApp"`: the activity is not offered, for this reason,
/// in every trial or in a share of trials within `"atLeast"`/`"atMost"`.
struct NotOfferedExpectation: ShareExpectation {
    static let key = "notOffered"
    let reason: NotOfferedReason
    let rate: RateBound?

    static func read(
        _ value: JSONNode, at path: JSONPath, in expectation: ObjectReader, rate: RateBound?, context: DecodingContext
    ) -> NotOfferedExpectation? {
        context.choice(value, path, what: "reason", among: NotOfferedReason.allCases.map(\.rawValue))
            .flatMap(NotOfferedReason.init(rawValue:))
            .map { NotOfferedExpectation(reason: $0, rate: rate) }
    }

    func counts(_ outcome: ContinuationOutcome) -> Bool { outcome == .notOffered(reason) }
    var countedWords: String { "not offered (\(reason.rawValue))" }
    func question(subject: String, device: String) -> String {
        question(saying: "\(subject) is not offered because \(reason.rawValue)")
    }
}
