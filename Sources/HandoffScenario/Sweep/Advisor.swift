import Handoff
import SimKernel

/// Payload guidance: per network profile, the largest `userInfo` that
/// meets a latency and success target (by bisection over the size), and
/// the size above which continuation streams restore sooner than a
/// `userInfo` payload.
///
/// Both searches assume the measured figure changes monotonically with the
/// size, as it does for the transfer model (more bytes never arrive
/// sooner); each probe runs the scenario's trials at one size.
///
/// ```swift
/// let target = Advisor.Target(latency: .seconds(1), success: 0.99)
/// let advice = try Advisor(jobs: 2).advise(
///     bytes, file: "relay.json", profiles: ["WiFi", "3G"], target: target, options: SweepRunner.Options())
/// advice[0].largestPayload   // e.g. 49_152
/// ```
public struct Advisor: Sendable {
    /// What the payload must achieve.
    public struct Target: Hashable, Sendable {
        /// The latency whose percentile is bounded.
        public var metric: LatencyMetric
        /// Which percentile (95 for p95).
        public var percentile: Double
        /// The bound: the percentile must be at most this.
        public var latency: SimDuration
        /// The least share of trials that must continue.
        public var success: Double

        /// A target.
        public init(metric: LatencyMetric = .acceptToContinue, percentile: Double = 95, latency: SimDuration, success: Double) {
            self.metric = metric
            self.percentile = percentile
            self.latency = latency
            self.success = success
        }
    }

    /// The advice for one profile.
    public struct Advice: Hashable, Sendable {
        /// The profile (the file's own when none was named).
        public let profile: String
        /// The largest payload in bytes that meets the target, or nil when
        /// even the smallest size tried does not.
        public let largestPayload: Int?
        /// Whether the largest size tried (the `userInfo` limit) met the
        /// target, so the limit, not the target, is what binds.
        public let limitBinds: Bool
        /// The figures at ``largestPayload``: the percentile and the
        /// success rate.
        public let latencyAtLargest: SimDuration?
        /// The success rate at ``largestPayload``.
        public let successAtLargest: Double?
        /// The smallest size at which continuation streams reach "restored"
        /// sooner (p50) than `userInfo`, or nil when they are never sooner
        /// up to the limit.
        public let streamsSoonerFrom: Int?
        /// How many sizes were tried.
        package let probes: Int
    }

    /// Threads per probe.
    package var jobs: Int
    /// Sizes are found to within this many bytes.
    package var resolution: Int
    /// The smallest size tried.
    package var minimum: Int

    /// An advisor.
    public init(jobs: Int = 1, resolution: Int = 64, minimum: Int = 64) {
        self.jobs = max(1, jobs)
        self.resolution = max(1, resolution)
        self.minimum = max(1, minimum)
    }

    /// Advice for each of `profiles` (or the file's own profile when
    /// empty), for the scenario file `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The scenario file's bytes.
    ///   - file: The file's name, as errors name it.
    ///   - profiles: Network profiles to advise for, or none for the file's
    ///     own.
    ///   - target: The latency and success the advice must keep.
    ///   - options: Trials, seed, activity and device, as for a sweep.
    /// - Returns: One piece of advice per profile, in the order given.
    /// - Throws: ``ScenarioError`` as
    ///   ``SweepRunner/prepare(_:file:payloads:profiles:parameters:options:)``
    ///   and ``SweepRunner/run(_:progress:)`` throw it (a trial's error
    ///   after the size it happened at).
    public func advise(
        _ bytes: [UInt8], file: String, profiles: [String], target: Target, options: SweepRunner.Options
    ) throws(ScenarioError) -> [Advice] {
        // Prepare once to validate the file and resolve the activity and device.
        let probe = try SweepRunner.prepare(bytes, file: file, payloads: [String(minimum)], options: options)
        let limit = probe.base.setup.configuration.userInfoLimit
        guard minimum <= limit else {
            throw ScenarioError(
                .badValue, "the smallest size (\(minimum) bytes) is over the userInfo limit (\(limit) bytes)")
        }
        let runner = SweepRunner(jobs: jobs)
        let trials = options.shard?.trials(of: probe.trials) ?? 0..<probe.trials
        var results: [Advice] = []
        for profile in profiles.isEmpty ? [nil] : profiles.map(Optional.some) {
            var probes = 0
            /// The aggregate at `size`, sent as userInfo or over streams.
            func measure(_ size: Int, streams: Bool) throws(ScenarioError) -> PointAggregate {
                probes += 1
                var parameters: [(path: String, values: [String])] = []
                if streams {
                    parameters.append((probe.activityPath + ".supportsContinuationStreams", ["true"]))
                    for index in probe.base.setup.apps.indices {
                        parameters.append((
                            "apps[\(index)].behaviour.streamRounds",
                            ["[{\"request\": 100, \"response\": \(size)}]"]))
                    }
                }
                let payload = streams ? 0 : size
                let prepared = try SweepRunner.prepare(
                    bytes, file: file, payloads: [String(payload)], profiles: profile.map { [$0] } ?? [],
                    parameters: parameters, options: options)
                switch runner.runPoint(
                    prepared.points[0], activity: prepared.activity, device: prepared.device, trials: trials,
                    seed: prepared.seed)
                {
                case let .success(aggregate): return aggregate
                case let .failure(failure): throw failure.prefixed("at \(size) bytes: ")
                }
            }
            func meets(_ aggregate: PointAggregate) -> Bool {
                guard aggregate.successRate >= target.success,
                    let value = aggregate.histogram(target.metric).value(atPercentile: target.percentile)
                else { return false }
                return value <= target.latency.nanoseconds
            }
            // Largest size meeting the target: bisection between a size that
            // meets it and one that does not.
            var largest: (size: Int, aggregate: PointAggregate)?
            var limitBinds = false
            let atLimit = try measure(limit, streams: false)
            if meets(atLimit) {
                largest = (limit, atLimit)
                limitBinds = true
            } else {
                let atMinimum = try measure(minimum, streams: false)
                if meets(atMinimum) {
                    var low = (size: minimum, aggregate: atMinimum)
                    var high = limit
                    while high - low.size > resolution {
                        let middle = low.size + (high - low.size) / 2
                        let aggregate = try measure(middle, streams: false)
                        if meets(aggregate) { low = (middle, aggregate) } else { high = middle }
                    }
                    largest = low
                }
            }
            // Where streams overtake userInfo (p50 accept → restored).
            func streamsSooner(_ size: Int) throws(ScenarioError) -> Bool {
                let direct = try measure(size, streams: false)
                let streamed = try measure(size, streams: true)
                guard let viaStreams = streamed[.acceptToRestored].value(atPercentile: 50) else { return false }
                guard let viaUserInfo = direct[.acceptToRestored].value(atPercentile: 50) else { return true }
                return viaStreams < viaUserInfo
            }
            var crossover: Int?
            if try !streamsSooner(limit) {
                crossover = nil
            } else if try streamsSooner(minimum) {
                crossover = minimum
            } else {
                var low = minimum
                var high = limit
                while high - low > resolution {
                    let middle = low + (high - low) / 2
                    if try streamsSooner(middle) { high = middle } else { low = middle }
                }
                crossover = high
            }
            let profileName = profile ?? probe.points[0].scenario.setup.devices.first { $0.name == probe.device }?.internet.name ?? ""
            results.append(Advice(
                profile: profileName, largestPayload: largest?.size, limitBinds: limitBinds,
                latencyAtLargest: largest?.aggregate.histogram(target.metric).value(atPercentile: target.percentile)
                    .map(SimDuration.nanoseconds),
                successAtLargest: largest?.aggregate.successRate, streamsSoonerFrom: crossover, probes: probes))
        }
        return results
    }
}
