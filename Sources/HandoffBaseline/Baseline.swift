import Handoff
import HandoffScenario
import SimKernel

/// Simulated figures recorded for later comparison: per scenario, per
/// observed (activity, device) pair, and per sweep point of files with a
/// `sweep` block. Runs are deterministic, so an unchanged model and
/// scenario give exactly the same figures.
public struct Baseline: Sendable, Equatable {
    /// One scenario file's figures.
    public struct Scenario: Sendable, Equatable {
        /// The file as it was named when the baseline was made.
        public let file: String
        /// The scenario's name.
        public let name: String
        /// The SHA-256 of the file then (and of its overlays' values, see
        /// ``Scenario/digest``).
        let digest: String
        /// The seed and trials the figures come from.
        let seed: UInt64
        /// Trials per entry.
        let trials: Int
        /// The figures, one entry per pair or sweep point, in order.
        public let entries: [Entry]
    }

    /// The figures of one pair or sweep point.
    public struct Entry: Sendable, Equatable {
        /// What the entry is: "activity on ipad", or a sweep point
        /// "profile=WiFi, payload=3KiB".
        public let key: String
        /// Metric → value, in a fixed order.
        public let metrics: [(metric: BaselineMetric, value: Double)]

        /// Whether two entries have the same key and the same metrics,
        /// with the same values, in the same order.
        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.key == rhs.key && lhs.metrics.map(\.metric) == rhs.metrics.map(\.metric)
                && lhs.metrics.map(\.value) == rhs.metrics.map(\.value)
        }

        /// The value of `metric`, if recorded.
        public func value(_ metric: BaselineMetric) -> Double? { metrics.first { $0.metric == metric }?.value }
    }

    /// The version of the tool that made it.
    public let toolVersion: String
    /// Every scenario, in the order they were run.
    public let scenarios: [Scenario]

    /// A baseline.
    public init(toolVersion: String, scenarios: [Scenario]) {
        self.toolVersion = toolVersion
        self.scenarios = scenarios
    }
}

/// Which way a metric should go.
enum MetricDirection: Sendable {
    /// Lower is better (latencies, failures).
    case lowerIsBetter
    /// Higher is better (success rate).
    case higherIsBetter
}

/// A figure a baseline records for a pair or a sweep point.
///
/// Its ``name`` is its key in a baseline file: `trials`, `successRate`,
/// `failed4610`, `notOffered`, `otherOutcomes`, `acceptToContinue.p95`.
public enum BaselineMetric: Hashable, Sendable, CustomStringConvertible {
    /// The trials the figures come from.
    case trials
    /// The share of trials that continued (in the app or the browser).
    case successRate
    /// The share of trials that failed with this error code (4608–4611).
    case failed(code: Int)
    /// The share of trials in which the activity was never offered.
    case notOffered
    /// The share of trials that ended any other way.
    case otherOutcomes
    /// A percentile of a latency, in nanoseconds.
    case latency(LatencyMetric, BaselinePercentile)

    /// The failure codes a baseline records a share for.
    static let failureCodes = PointAggregate.failureCodes

    /// Every metric a baseline records, in the order it records them.
    static let all: [BaselineMetric] =
        [.trials, .successRate] + failureCodes.map { .failed(code: $0) } + [.notOffered, .otherOutcomes]
        + LatencyMetric.allCases.flatMap { metric in BaselinePercentile.allCases.map { .latency(metric, $0) } }

    /// The metric's key in a baseline file.
    public var name: String {
        switch self {
        case .trials: "trials"
        case .successRate: "successRate"
        case let .failed(code): "failed\(code)"
        case .notOffered: "notOffered"
        case .otherOutcomes: "otherOutcomes"
        case let .latency(metric, percentile): "\(metric.rawValue).\(percentile.rawValue)"
        }
    }

    /// The metric's ``name``.
    public var description: String { name }

    /// The metric whose key is `name`, if a baseline records one.
    public init?(name: String) {
        guard let metric = Self.all.first(where: { $0.name == name }) else { return nil }
        self = metric
    }

    /// Which way the metric should go.
    var direction: MetricDirection {
        switch self {
        case .successRate: .higherIsBetter
        case .trials, .failed, .notOffered, .otherOutcomes, .latency: .lowerIsBetter
        }
    }

    /// The values the metric can take: whole trials up to the most a
    /// scenario may ask for, latencies up to the longest simulated time in
    /// nanoseconds, shares from 0 to 1.
    var range: ClosedRange<Double> {
        switch self {
        case .trials: 0...Double(ScenarioDecoder.maximumTrials)
        case .latency: 0...Double(InputBounds.maximumDuration.nanoseconds)
        case .successRate, .failed, .notOffered, .otherOutcomes: 0...1
        }
    }
}

/// The percentiles of a latency a baseline records.
public enum BaselinePercentile: String, CaseIterable, Hashable, Sendable {
    /// The median.
    case p50
    /// The 90th percentile.
    case p90
    /// The 95th percentile.
    case p95
    /// The 99th percentile.
    case p99
    /// The largest value.
    case max

    /// The percentile (100 for the maximum).
    public var percentile: Double {
        switch self {
        case .p50: 50
        case .p90: 90
        case .p95: 95
        case .p99: 99
        case .max: 100
        }
    }
}

/// The metrics a baseline records, from an aggregate.
enum BaselineMetrics {
    /// The figures of an aggregate: trials, success rate, each outcome's
    /// share, and the latency percentiles in nanoseconds.
    static func metrics(of aggregate: PointAggregate) -> [(metric: BaselineMetric, value: Double)] {
        let trials = Double(max(aggregate.trials, 1))
        var metrics: [(BaselineMetric, Double)] = [
            (.trials, Double(aggregate.trials)),
            (.successRate, aggregate.successRate),
        ]
        for (code, count) in zip(PointAggregate.failureCodes, aggregate.failures) {
            metrics.append((.failed(code: code), Double(count) / trials))
        }
        metrics.append((.notOffered, Double(aggregate.notOffered) / trials))
        metrics.append((.otherOutcomes, Double(aggregate.otherOutcomes) / trials))
        for metric in LatencyMetric.allCases {
            let histogram = aggregate.histogram(metric)
            for percentile in BaselinePercentile.allCases {
                if let value = histogram.value(atPercentile: percentile.percentile) {
                    metrics.append((.latency(metric, percentile), Double(value)))
                }
            }
        }
        return metrics
    }
}
