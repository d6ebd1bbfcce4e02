import Handoff
import SimKernel

/// One dimension of a sweep: a name and the values it takes, as written.
public struct SweepAxis: Hashable, Sendable {
    /// `payload`, `profile`, or the JSON path of the parameter
    /// (`network.wifiPeerToPeer.loss`).
    public let name: String
    /// The values, as written (`"3KiB"`, `"Very Bad Network"`, `"0.01"`).
    public let values: [String]

    /// An axis.
    init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }
}

/// What happened over the trials of one sweep point: counts by outcome and
/// a histogram per latency. Merging two aggregates of disjoint trials gives
/// exactly the aggregate of all of them.
public struct PointAggregate: Sendable, Equatable {
    /// Trials run.
    public var trials: UInt64 = 0
    /// Simulation events those trials handled (a measure of the work done).
    package var events: UInt64 = 0
    /// Continued in the app.
    public var continued: UInt64 = 0
    /// Continued in the browser.
    public var continuedInBrowser: UInt64 = 0
    /// `didFail` by code: 4608, 4609, 4610, 4611, in that order.
    public var failures: [UInt64] = [0, 0, 0, 0]
    /// Never offered (any rule).
    public var notOffered: UInt64 = 0
    /// Offered, then withdrawn, never accepted or still under way when the
    /// trial ended.
    package var otherOutcomes: UInt64 = 0
    /// A histogram per latency metric, in ``LatencyMetric/allCases``
    /// order (read and written through the subscript).
    private var latencies = [LatencyHistogram](repeating: LatencyHistogram(), count: LatencyMetric.allCases.count)
    /// The latency budgets of the trials that continued.
    package var budget = BudgetTally()

    /// The error codes of ``failures``, in order.
    public static let failureCodes = [4608, 4609, 4610, 4611]

    /// An empty aggregate.
    init() {}

    /// Continued trials (app or browser) over all trials; 0 when none ran.
    public var successRate: Double {
        trials == 0 ? 0 : Double(continued + continuedInBrowser) / Double(trials)
    }

    /// The histogram of `metric`.
    package func histogram(_ metric: LatencyMetric) -> LatencyHistogram { self[metric] }

    /// The histogram of `metric`.
    public subscript(metric: LatencyMetric) -> LatencyHistogram {
        get { latencies[Self.slot(metric)] }
        set { latencies[Self.slot(metric)] = newValue }
    }

    /// The place of `metric` in ``latencies``: its place in
    /// ``LatencyMetric/allCases``.
    private static func slot(_ metric: LatencyMetric) -> Int {
        LatencyMetric.allCases.firstIndex(of: metric) ?? 0
    }

    /// Adds one trial's summary.
    mutating func record(_ summary: ContinuationSummary?) {
        trials += 1
        switch summary?.outcome {
        case .continued?: continued += 1
        case .continuedInBrowser?: continuedInBrowser += 1
        case let .failed(error)?:
            if let index = Self.failureCodes.firstIndex(of: error.code) {
                failures[index] += 1
            } else {
                otherOutcomes += 1
            }
        case .notOffered?: notOffered += 1
        case .withdrawn?, .notAccepted?, .unfinished?, nil: otherOutcomes += 1
        }
        guard let milestones = summary?.milestones else { return }
        for (index, metric) in LatencyMetric.allCases.enumerated() {
            if let value = milestones.latency(metric) { latencies[index].record(value) }
        }
        if let budget = summary?.budget { self.budget.record(budget) }
    }

    /// Keeps only the non-empty buckets of each histogram where that takes
    /// less memory (``LatencyHistogram/compact()``): how an aggregate is
    /// kept once its trials are in, so that a sweep holding many of them
    /// (every point under each of a fit's bootstrap replicates) holds a
    /// few counts per trial, not the range of buckets between a point's
    /// fastest and slowest trial.
    mutating func compact() {
        for index in latencies.indices { latencies[index].compact() }
    }

    /// Adds every trial of `other`.
    package mutating func merge(_ other: PointAggregate) {
        trials += other.trials
        events += other.events
        continued += other.continued
        continuedInBrowser += other.continuedInBrowser
        for index in failures.indices { failures[index] += other.failures[index] }
        notOffered += other.notOffered
        otherOutcomes += other.otherOutcomes
        for index in latencies.indices { latencies[index].merge(other.latencies[index]) }
        budget.merge(other.budget)
    }
}

/// One point of a sweep: its coordinates and what its trials showed.
public struct SweepPoint: Sendable, Equatable {
    /// The value of each axis, in ``SweepResult/axes`` order.
    public let coordinates: [String]
    /// The payload at this point in bytes (the transfer size of the
    /// activity), whether or not payload is an axis.
    public let payloadBytes: Int
    /// The internet profile at this point (`WiFi` unless set).
    public let profile: String
    /// What the trials showed.
    public var aggregate: PointAggregate
    /// Every trial's sample, in trial order, when the runner recorded them
    /// (``SweepRunner/recordsSamples``); empty otherwise.
    package var samples: [TrialSample] = []
    /// What the same trials showed under each bootstrap replicate of the
    /// overlay's fit, in the overlay's order (empty without replicates).
    /// Their budgets and event counts are not kept.
    package var replicates: [PointAggregate] = []

    /// A point.
    init(coordinates: [String], payloadBytes: Int, profile: String, aggregate: PointAggregate) {
        self.coordinates = coordinates
        self.payloadBytes = payloadBytes
        self.profile = profile
        self.aggregate = aggregate
    }
}

extension SweepPoint {
    /// The 95% interval of `metric`'s percentile at this point over the
    /// fit's bootstrap replicates: the 2.5th and 97.5th percentiles
    /// (nearest rank) of the values the replicates give on the same
    /// trials. Nil when the sweep ran no replicates.
    ///
    /// ```swift
    /// if let interval = point.interval(.acceptToContinue, atPercentile: 95) { print(interval) }
    /// ```
    public func interval(_ metric: LatencyMetric, atPercentile percentile: Double) -> PercentileInterval? {
        guard !replicates.isEmpty else { return nil }
        return PercentileInterval(replicates.map { $0[metric].value(atPercentile: percentile) })
    }
}

/// A percentile's 95% interval over a fit's bootstrap replicates: the 2.5th
/// and 97.5th percentiles (nearest rank) of the values the replicates give,
/// a replicate under which no trial reached the metric counting as above
/// every value.
public struct PercentileInterval: Hashable, Sendable {
    /// The low end in nanoseconds (nil: no trial reached the metric there).
    public let low: Int64?
    /// The high end in nanoseconds (nil: no trial reached the metric there).
    public let high: Int64?
    /// How many replicates.
    public let replicates: Int

    /// The percentiles a sweep gives intervals for (whole numbers: JSON Lines
    /// names them `p50` … `p99`).
    package static let percentiles: [Double] = [50, 90, 95, 99]

    /// The interval of `values` (at least one), nil counting as above
    /// every value.
    init(_ values: [Int64?]) {
        let sorted = values.sorted { ($0 ?? .max) < ($1 ?? .max) }
        let count = sorted.count
        func rank(_ fraction: Double) -> Int { min(count - 1, max(0, Int((fraction * Double(count)).rounded(.up)) - 1)) }
        low = sorted[rank(0.025)]
        high = sorted[rank(0.975)]
        replicates = count
    }
}

/// Which slice of the trials a partial result holds: the `index`-th (from
/// 0) of `count` disjoint slices.
public struct Shard: Hashable, Sendable, CustomStringConvertible {
    /// The slice, from 0.
    public let index: Int
    /// How many slices.
    public let count: Int

    /// The most slices a sweep may be cut into: 1,000,000.
    package static let maximumCount = 1_000_000

    /// The `index`-th of `count` slices, or nil unless
    /// 1 ≤ `count` ≤ 1,000,000 and 0 ≤ `index` < `count`.
    public init?(index: Int, count: Int) {
        guard (1...Self.maximumCount).contains(count), index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// The trials of this slice among `trials` (≥ 0): a contiguous range,
    /// the slices together covering every trial once. Computed in 128 bits,
    /// so it never overflows.
    package func trials(of trials: Int) -> Range<Int> {
        let trials = max(0, trials)
        func boundary(_ slice: Int) -> Int {
            count.dividingFullWidth(trials.multipliedFullWidth(by: slice)).quotient
        }
        return boundary(index)..<boundary(index + 1)
    }

    /// `i/n`.
    public var description: String { "\(index)/\(count)" }
}

/// The result of a sweep (or one shard of it).
public struct SweepResult: Sendable, Equatable {
    /// The scenario file.
    public let file: String
    /// The scenario's name.
    public let name: String
    /// The SHA-256 of the scenario file (and of its overlays' values,
    /// see ``Scenario/digest``).
    let digest: String
    /// The seed: trial k of every point draws from stream (seed, k).
    public let seed: UInt64
    /// Trials per point (all shards together).
    public let trials: Int
    /// The activity measured and the device it is measured on.
    public let activity: String
    /// The receiving device measured.
    public let device: String
    /// The axes, outermost first; the last varies fastest.
    public let axes: [SweepAxis]
    /// Every point, in axis order.
    public var points: [SweepPoint]
    /// The slice of trials this result holds; nil for all of them.
    package let shard: Shard?
    /// The path the fetch takes, in words, when internet profiles do not
    /// shape it (`peer-to-peer Wi-Fi (AWDL)`); nil on the cloud relay, or
    /// when not known. Charts label such a sweep's series by it rather
    /// than by a profile that cannot apply.
    package var fixedPath: String?
    /// How many bootstrap replicates of the overlay's fit every point also
    /// ran (0: none, so no intervals).
    public var replicates: Int { points.first?.replicates.count ?? 0 }

    /// A sweep result.
    init(
        file: String, name: String, digest: String, seed: UInt64, trials: Int, activity: String, device: String,
        axes: [SweepAxis], points: [SweepPoint], shard: Shard?
    ) {
        self.file = file
        self.name = name
        self.digest = digest
        self.seed = seed
        self.trials = trials
        self.activity = activity
        self.device = device
        self.axes = axes
        self.points = points
        self.shard = shard
    }
}
