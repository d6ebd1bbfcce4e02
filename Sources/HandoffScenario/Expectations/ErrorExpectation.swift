import Handoff
import ScenarioJSON

/// `"error": 4611` (or its name, `"handoffUserInfoTooLarge"`): `didFail`
/// with this error in every trial, or in a share of trials within
/// `"atLeast"`/`"atMost"`.
struct ErrorExpectation: ShareExpectation {
    static let key = "error"
    let error: ContinuationError
    let rate: RateBound?

    static func read(
        _ value: JSONNode, at path: JSONPath, in expectation: ObjectReader, rate: RateBound?, context: DecodingContext
    ) -> ErrorExpectation? {
        let known: [ContinuationError] = [.handoffFailed, .connectionUnavailable, .remoteApplicationTimedOut,
                                          .handoffUserInfoTooLarge]
        let expected = "an error code (" + known.map { "\($0.code) \($0.name)" }.joined(separator: ", ") + ")"
        switch value.value {
        case let .number(number):
            if let code = number.int64Value, let error = known.first(where: { Int64($0.code) == code }) {
                return ErrorExpectation(error: error, rate: rate)
            }
        case let .string(text):
            if let error = known.first(where: { $0.name == text }) { return ErrorExpectation(error: error, rate: rate) }
            context.report(path, at: value.position,
                           "expected \(expected), found \"\(text)\"" + context.didYouMean(text, among: known.map(\.name)))
            return nil
        case .null, .bool, .array, .object:
            break
        }
        context.mismatch(value, path, expected: expected)
        return nil
    }

    func counts(_ outcome: ContinuationOutcome) -> Bool { outcome == .failed(error) }
    var countedWords: String { "failed with \(error.code)" }
    func question(subject: String, device: String) -> String { question(saying: "\(subject) fails with \(error)") }
}
