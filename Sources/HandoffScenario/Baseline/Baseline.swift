import Handoff
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
        package let digest: String
        /// The seed and trials the figures come from.
        package let seed: UInt64
        /// Trials per entry.
        package let trials: Int
        /// The figures, one entry per pair or sweep point, in order.
        public let entries: [Entry]
    }

    /// The figures of one pair or sweep point.
    public struct Entry: Sendable, Equatable {
        /// What the entry is: "activity on ipad", or a sweep point
        /// "profile=WiFi, payload=3KiB".
        public let key: String
        /// Metric name → value, in a fixed order.
        public let metrics: [(name: String, value: Double)]

        /// Whether two entries have the same key and the same metrics,
        /// with the same values, in the same order.
        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.key == rhs.key && lhs.metrics.map(\.name) == rhs.metrics.map(\.name)
                && lhs.metrics.map(\.value) == rhs.metrics.map(\.value)
        }

        /// The value of `name`, if recorded.
        public func value(_ name: String) -> Double? { metrics.first { $0.name == name }?.value }
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
package enum MetricDirection: Sendable {
    /// Lower is better (latencies, failures).
    case lowerIsBetter
    /// Higher is better (success rate).
    case higherIsBetter
}

/// The metrics a baseline records and how they read.
package enum BaselineMetrics {
    /// The latency percentiles recorded, with their names.
    static let percentiles: [(name: String, percentile: Double)] = [
        ("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99), ("max", 100),
    ]

    /// Which way `metric` should go.
    package static func direction(of metric: String) -> MetricDirection {
        metric == "successRate" ? .higherIsBetter : .lowerIsBetter
    }

    /// The values `metric` can take: whole trials up to the most a scenario
    /// may ask for, latencies up to the longest simulated time in
    /// nanoseconds, shares from 0 to 1.
    package static func range(of metric: String) -> ClosedRange<Double> {
        if metric == "trials" { return 0...Double(ScenarioDecoder.maximumTrials) }
        if isLatency(metric) { return 0...Double(InputBounds.maximumDuration.nanoseconds) }
        return 0...1
    }

    /// Whether `metric` is a latency (in nanoseconds).
    package static func isLatency(_ metric: String) -> Bool {
        LatencyMetric.allCases.contains { metric.hasPrefix($0.rawValue + ".") }
    }

    /// The figures of an aggregate: trials, success rate, each outcome's
    /// share, and the latency percentiles in nanoseconds.
    package static func metrics(of aggregate: PointAggregate) -> [(name: String, value: Double)] {
        let trials = Double(max(aggregate.trials, 1))
        var metrics: [(String, Double)] = [
            ("trials", Double(aggregate.trials)),
            ("successRate", aggregate.successRate),
        ]
        for (code, count) in zip(PointAggregate.failureCodes, aggregate.failures) {
            metrics.append(("failed\(code)", Double(count) / trials))
        }
        metrics.append(("notOffered", Double(aggregate.notOffered) / trials))
        metrics.append(("otherOutcomes", Double(aggregate.otherOutcomes) / trials))
        for metric in LatencyMetric.allCases {
            let histogram = aggregate.histogram(metric)
            for (name, percentile) in percentiles {
                if let value = histogram.value(atPercentile: percentile) {
                    metrics.append(("\(metric.rawValue).\(name)", Double(value)))
                }
            }
        }
        return metrics
    }
}
