import Handoff
import ScenarioJSON
import SimKernel

/// `"latency": "acceptToContinue", "percentile": 95, "below": "1.5s"`: the
/// percentile (nearest rank, over the trials that reached the metric's
/// end) of a latency keeps the bound (`"below"` or `"above"`).
struct LatencyExpectation: PercentileExpectation {
    static let key = "latency"
    static let otherKeys = ["percentile", "below", "above"]
    /// The percentiles an expectation may name, from 0.001 to 100 (p0.001
    /// is the minimum at up to 100,000 trials). `schema/scenario.schema.json`
    /// states the same bounds (`minimum`, `maximum`), the message names them
    /// and `SchemaTests` compares the three.
    static let percentiles: ClosedRange<Double> = 0.001...100
    let metric: LatencyMetric
    let percentile: Double
    let bound: DurationBound

    static func read(
        _ value: JSONNode, at path: JSONPath, in expectation: ObjectReader, rate: RateBound?, context: DecodingContext
    ) -> LatencyExpectation? {
        let metric = context.choice(value, path, what: "latency", among: LatencyMetric.allCases.map(\.rawValue))
            .flatMap(LatencyMetric.init(rawValue:))
        let percentile = expectation.required("percentile", what: "which percentile, such as 95", {
            context.number(
                $0, $1, in: percentiles,
                expected: "a percentile from \(percentiles.lowerBound) to \(Int(percentiles.upperBound))")
        })
        let below = expectation.optional("below") { context.duration($0, $1) }
        let above = expectation.optional("above") { context.duration($0, $1) }
        let bound: DurationBound?
        switch (below, above) {
        case let (below?, nil): bound = .below(below)
        case let (nil, above?): bound = .above(above)
        case (.some, .some):
            context.report(expectation.path, at: expectation.node.position, "give either \"below\" or \"above\", not both")
            bound = nil
        case (nil, nil):
            if !expectation.has("below"), !expectation.has("above") {
                context.report(expectation.path, at: expectation.node.position,
                               "missing required key \"below\" (the bound, such as \"1.5s\"; or \"above\")")
            }
            bound = nil
        }
        guard let metric, let percentile, let bound else { return nil }
        return LatencyExpectation(metric: metric, percentile: percentile, bound: bound)
    }

    func question(subject: String, device: String) -> String {
        let label = percentile == percentile.rounded() ? String(Int64(percentile)) : "\(percentile)"
        return "\(metric.rawValue) p\(label) \(subject) \(bound)"
    }
}
