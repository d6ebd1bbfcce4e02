import HandoffScenario
import SimKernel

/// How far a metric may move before it counts as changed: relative (a
/// fraction of the baseline value) or absolute (in the metric's unit:
/// nanoseconds for latencies, a fraction for rates).
public struct Tolerance: Hashable, Sendable {
    /// The metrics it applies to: a metric's name
    /// (`acceptToContinue.p95`), a family (`acceptToContinue`, every
    /// percentile of it), or `*` for every metric.
    let pattern: String
    /// The allowed move, relative or absolute.
    let relative: Double?
    /// The allowed move in the metric's unit, if absolute.
    let absolute: Double?

    /// A tolerance.
    public init(pattern: String, relative: Double? = nil, absolute: Double? = nil) {
        self.pattern = pattern
        self.relative = relative
        self.absolute = absolute
    }

    /// Whether it applies to `metric`.
    func applies(to metric: String) -> Bool {
        pattern == "*" || pattern == metric || metric.hasPrefix(pattern + ".")
    }

    /// Reads `PATTERN=VALUE`: `5%` is relative, a duration (`2ms`) or a plain
    /// number (`0.01`) is absolute.
    package static func parse(_ text: String) -> Tolerance? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let pattern = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        guard !pattern.isEmpty, !value.isEmpty else { return nil }
        if value.hasSuffix("%"), case let .success(fraction) = Quantities.percentage(value) {
            return Tolerance(pattern: pattern, relative: fraction)
        }
        if let number = Double(value), number.isFinite, number >= 0 { return Tolerance(pattern: pattern, absolute: number) }
        if case let .success(duration) = Quantities.duration(value) {
            return Tolerance(pattern: pattern, absolute: Double(duration.nanoseconds))
        }
        return nil
    }
}

/// A baseline checked against a new measurement.
///
/// ```swift
/// let comparison = BaselineComparison(
///     baseline: old, now: new, tolerances: [Tolerance.parse("acceptToContinue.p95=5%")!])
/// comparison.hasRegression   // true if any figure got worse past its tolerance
/// ```
public struct BaselineComparison: Sendable {
    /// How a figure moved.
    public enum Change: String, Sendable {
        /// Worse than the baseline by more than the tolerance.
        case regression
        /// Better than the baseline by more than the tolerance.
        case improvement
        /// Recorded now but not in the baseline (a new scenario, pair or
        /// point).
        case added
        /// In the baseline but not recorded now.
        case removed
    }

    /// One changed figure.
    public struct Row: Sendable, Equatable {
        /// The scenario file.
        public let file: String
        /// The pair or sweep point.
        public let entry: String
        /// The metric (nil for a whole scenario or entry added or removed).
        public let metric: BaselineMetric?
        /// The baseline's value and the value now, where they exist.
        public let baseline: Double?
        /// The value now.
        public let now: Double?
        /// Which way it moved.
        public let change: Change
    }

    /// Every figure that moved past its tolerance, in scenario and entry
    /// order.
    public let rows: [Row]
    /// Things to know that are not figures: a scenario file that changed
    /// since the baseline, another seed or trial count, another tool
    /// version.
    public let notes: [String]

    /// Whether anything got worse.
    public var hasRegression: Bool { rows.contains { $0.change == .regression } }

    /// Compares `now` with `baseline`, allowing `tolerances` (the first that
    /// applies to a metric wins; none means exact).
    public init(baseline: Baseline, now: Baseline, tolerances: [Tolerance] = []) {
        var rows: [Row] = []
        var notes: [String] = []
        if baseline.toolVersion != now.toolVersion {
            notes.append("the baseline was made by handoff-sim \(baseline.toolVersion); this is \(now.toolVersion)")
        }
        for scenario in now.scenarios {
            guard let old = baseline.scenarios.first(where: { $0.file == scenario.file }) else {
                notes.append("\(scenario.file) is not in the baseline")
                rows.append(Row(file: scenario.file, entry: "", metric: nil, baseline: nil, now: nil, change: .added))
                continue
            }
            if old.digest != scenario.digest {
                notes.append("\(scenario.file) has changed since the baseline was made (its digest was \(old.digest.prefix(12))…, now \(scenario.digest.prefix(12))…): the figures below compare different versions of the scenario")
            }
            if old.seed != scenario.seed || old.trials != scenario.trials {
                notes.append("\(scenario.file): the baseline ran \(old.trials) trials under seed \(old.seed), now \(scenario.trials) under seed \(scenario.seed)")
            }
            for entry in scenario.entries {
                guard let oldEntry = old.entries.first(where: { $0.key == entry.key }) else {
                    rows.append(Row(file: scenario.file, entry: entry.key, metric: nil, baseline: nil, now: nil, change: .added))
                    continue
                }
                var metrics = oldEntry.metrics.map(\.metric)
                for (metric, _) in entry.metrics where !metrics.contains(metric) { metrics.append(metric) }
                for metric in metrics where metric != .trials {
                    let before = oldEntry.value(metric)
                    let after = entry.value(metric)
                    if let change = Self.change(metric: metric, before: before, after: after, tolerances: tolerances) {
                        rows.append(Row(file: scenario.file, entry: entry.key, metric: metric, baseline: before, now: after, change: change))
                    }
                }
            }
            for oldEntry in old.entries where !scenario.entries.contains(where: { $0.key == oldEntry.key }) {
                rows.append(Row(file: scenario.file, entry: oldEntry.key, metric: nil, baseline: nil, now: nil, change: .removed))
            }
        }
        self.rows = rows
        self.notes = notes
    }

    /// How one figure moved, or nil if it did not (within tolerance).
    static func change(metric: BaselineMetric, before: Double?, after: Double?, tolerances: [Tolerance]) -> Change? {
        switch (before, after) {
        case (nil, nil): return nil
        // A latency no trial reaches any more is worse; one that trials now reach is better.
        case (.some, nil): return .regression
        case (nil, .some): return .improvement
        case let (old?, new?):
            let moved = new - old
            if moved == 0 { return nil }
            if let tolerance = tolerances.first(where: { $0.applies(to: metric.name) }) {
                let allowed = tolerance.absolute ?? (tolerance.relative ?? 0) * abs(old)
                if abs(moved) <= allowed { return nil }
            }
            let worse = metric.direction == .lowerIsBetter ? moved > 0 : moved < 0
            return worse ? .regression : .improvement
        }
    }
}
