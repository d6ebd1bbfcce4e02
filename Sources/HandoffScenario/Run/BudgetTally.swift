import Handoff
import SimKernel

/// The latency budgets of many trials, in memory fixed by the range of
/// accept → continue, never by the number of trials: per phase, the sum
/// over every trial, and the sums per band of accept → continue, so that
/// the share of each phase in the slowest trials can be read at the end.
///
/// Bands are 1/16 of an octave wide (a total `t` falls in band
/// ⌊16·log₂ t⌋, from the leading bit and the next four), so "the trials at
/// or above the p95" are those in the p95's band and above: their lowest
/// may lie up to 4.4% below the p95. Tallies of consecutive runs of trials
/// merge in trial order, so a result does not depend on how trials were cut
/// over threads.
package struct BudgetTally: Sendable, Equatable {
    /// Sub-bands per octave, as a power of two.
    static let bandBits = 4
    static let phases = LatencyBudget.Phase.allCases.count

    /// Trials with a budget.
    private(set) var trials = 0
    /// Nanoseconds per phase over every trial, exact.
    private(set) var sums = [WideSum](repeating: WideSum(), count: phases)
    /// The first band of ``counts``.
    private var firstBand = 0
    /// Trials per band, from ``firstBand``.
    private var counts: [Int] = []
    /// Nanoseconds per band and phase, `phases` per band, exact.
    private var bandSums: [WideSum] = []

    init() {}

    /// The band of a total of `nanoseconds` (at least 0).
    static func band(of nanoseconds: Int64) -> Int {
        let value = UInt64(max(nanoseconds, 0))
        guard value >= 1 << bandBits else { return Int(value) }
        let octave = 63 - value.leadingZeroBitCount
        let fraction = Int(value >> UInt64(octave - bandBits)) & ((1 << bandBits) - 1)
        return (octave - bandBits + 1) << bandBits + fraction
    }

    /// Adds one trial's budget.
    mutating func record(_ budget: LatencyBudget) {
        let band = Self.band(of: budget.total.nanoseconds)
        widen(toInclude: band)
        let row = (band - firstBand) * Self.phases
        counts[band - firstBand] += 1
        trials += 1
        for phase in LatencyBudget.Phase.allCases {
            let value = UInt64(max(budget[phase].nanoseconds, 0))
            sums[phase.rawValue].add(value)
            bandSums[row + phase.rawValue].add(value)
        }
    }

    /// Makes room for `band`.
    private mutating func widen(toInclude band: Int) {
        if counts.isEmpty {
            firstBand = band
            counts = [0]
            bandSums = [WideSum](repeating: WideSum(), count: Self.phases)
        } else if band < firstBand {
            let extra = firstBand - band
            counts.insert(contentsOf: repeatElement(0, count: extra), at: 0)
            bandSums.insert(contentsOf: repeatElement(WideSum(), count: extra * Self.phases), at: 0)
            firstBand = band
        } else if band >= firstBand + counts.count {
            let extra = band - firstBand - counts.count + 1
            counts.append(contentsOf: repeatElement(0, count: extra))
            bandSums.append(contentsOf: repeatElement(WideSum(), count: extra * Self.phases))
        }
    }

    /// Adds `later`, the tally of the trials right after these.
    mutating func merge(_ later: BudgetTally) {
        guard !later.counts.isEmpty else { return }
        widen(toInclude: later.firstBand)
        widen(toInclude: later.firstBand + later.counts.count - 1)
        trials += later.trials
        for phase in 0..<Self.phases { sums[phase].add(later.sums[phase]) }
        for index in later.counts.indices {
            let band = later.firstBand + index - firstBand
            counts[band] += later.counts[index]
            for phase in 0..<Self.phases {
                bandSums[band * Self.phases + phase].add(later.bandSums[index * Self.phases + phase])
            }
        }
    }

    /// The summary: the mean of each phase over every trial, and its share
    /// of the time of the trials at or above the `percentile`th (by
    /// accept → continue); nil without trials.
    package func summary(tailPercentile percentile: Double = 95) -> BudgetSummary? {
        guard trials > 0 else { return nil }
        // The band of the nearest-rank percentile.
        let rank = max(1, Int((percentile / 100 * Double(trials)).rounded(.up)))
        var seen = 0
        var tailStart = counts.count - 1
        for (index, count) in counts.enumerated() {
            seen += count
            if seen >= rank {
                tailStart = index
                break
            }
        }
        var tail = [Double](repeating: 0, count: Self.phases)
        var tailTrials = 0
        for index in tailStart..<counts.count {
            tailTrials += counts[index]
            for phase in 0..<Self.phases { tail[phase] += bandSums[index * Self.phases + phase].value }
        }
        let tailTotal = tail.reduce(0, +)
        let phases = LatencyBudget.Phase.allCases.map { phase in
            BudgetSummary.PhaseFigure(
                phase: phase, mean: SimDuration.nanoseconds(sums[phase.rawValue].mean(over: trials)),
                tailShare: tailTotal > 0 ? tail[phase.rawValue] / tailTotal : 0)
        }
        return BudgetSummary(trials: trials, tailPercentile: percentile, tailTrials: tailTrials, phases: phases)
    }

    /// The tally as text, for a partial sweep's JSON Lines: integers
    /// separated by spaces — the trials, the first band, the band count,
    /// each band's count, then each sum (every phase's, then every band's
    /// phases') as its high and low 64 bits.
    var encoded: String {
        var numbers: [String] = [String(trials), String(firstBand), String(counts.count)]
        numbers += counts.map(String.init)
        for sum in sums + bandSums { numbers += [String(sum.high), String(sum.low)] }
        return numbers.joined(separator: " ")
    }

    /// The tally `encoded` describes, or nil when the text is not one.
    init?(encoded: String) {
        let fields = encoded.split(separator: " ")
        guard fields.count >= 3, let trials = Int(fields[0]), trials >= 0, let first = Int(fields[1]),
              (0...Self.maximumBand).contains(first), let bands = Int(fields[2]), (0...Self.maximumBand + 1).contains(bands),
              first + bands <= Self.maximumBand + 1,
              fields.count == 3 + bands + 2 * Self.phases * (1 + bands)
        else { return nil }
        var counts: [Int] = []
        for field in fields[3..<(3 + bands)] {
            guard let count = Int(field), count >= 0 else { return nil }
            counts.append(count)
        }
        // Added without overflow: each count must fit in what the trials leave.
        var counted = 0
        for count in counts {
            guard count <= trials - counted else { return nil }
            counted += count
        }
        guard counted == trials, bands > 0 || trials == 0 else { return nil }
        var sums: [WideSum] = []
        var index = 3 + bands
        while index < fields.count {
            guard let high = UInt64(fields[index]), let low = UInt64(fields[index + 1]) else { return nil }
            sums.append(WideSum(high: high, low: low))
            index += 2
        }
        self.trials = trials
        self.firstBand = bands == 0 ? 0 : first
        self.counts = counts
        self.sums = Array(sums[0..<Self.phases])
        self.bandSums = Array(sums[Self.phases...])
    }

    /// The highest band a non-negative `Int64` falls in.
    static let maximumBand = band(of: .max)

    /// Why this tally (read from a file) is not one that trials of at most
    /// `longest` per phase can make, or nil when it is one: every band's
    /// time per phase is at most its trials times `longest`, and every
    /// phase's sum is its bands' total. With at most
    /// ``ScenarioDecoder/maximumTrials`` trials, every sum (merged ones
    /// too) then stays far below 2¹²⁸, and every mean below `longest`.
    func inconsistency(longest: SimDuration) -> String? {
        let limit = UInt64(max(longest.nanoseconds, 0))
        for phase in LatencyBudget.Phase.allCases {
            var total = WideSum()
            for (index, count) in counts.enumerated() {
                let sum = bandSums[index * Self.phases + phase.rawValue]
                let bound = UInt64(count).multipliedFullWidth(by: limit)
                guard (sum.high, sum.low) <= (bound.high, bound.low) else {
                    let trials = count == 1 ? "1 trial" : "\(count) trials"
                    return "\(phase) time in band \(firstBand + index) is more than \(trials) of at most \(limit) ns can take"
                }
                total.add(sum)
            }
            guard total == sums[phase.rawValue] else {
                return "\(phase) sum is not the total of its bands"
            }
        }
        return nil
    }
}

/// An exact sum of non-negative 64-bit values, in 128 bits.
struct WideSum: Sendable, Equatable {
    var high: UInt64 = 0
    var low: UInt64 = 0

    mutating func add(_ value: UInt64) {
        let (sum, carry) = low.addingReportingOverflow(value)
        low = sum
        if carry { high &+= 1 }
    }

    mutating func add(_ other: WideSum) {
        add(other.low)
        high &+= other.high
    }

    /// The sum as a floating-point number.
    var value: Double { Double(high) * 0x1.0p64 + Double(low) }

    /// The sum over `count` (> 0), rounded to an integer, at most `Int64.max`.
    func mean(over count: Int) -> Int64 {
        if high == 0 {
            // (low + count / 2) / count, rounded half up, without overflow.
            let divisor = UInt64(count)
            let (quotient, remainder) = low.quotientAndRemainder(dividingBy: divisor)
            return Int64(clamping: remainder >= divisor - divisor / 2 ? quotient + 1 : quotient)
        }
        return Int64(min(value / Double(count), 9.2e18).rounded())
    }
}

/// Where accept → continue went over many trials, phase by phase (see
/// `LatencyBudget`): each phase's mean over the trials that continued,
/// and its share of the time of the slowest trials.
public struct BudgetSummary: Hashable, Sendable {
    /// One phase's figures.
    public struct PhaseFigure: Hashable, Sendable {
        /// The phase.
        public let phase: LatencyBudget.Phase
        /// Its mean over every trial that continued (zero in a trial whose
        /// critical path does not go through it), to the nanosecond.
        public let mean: SimDuration
        /// Its share (0…1) of the time of the trials at or above the
        /// ``BudgetSummary/tailPercentile``.
        public let tailShare: Double
    }

    /// The trials that continued.
    public let trials: Int
    /// The percentile the tail starts at (95: "the p95 trials").
    public let tailPercentile: Double
    /// The trials in the tail: at or above the percentile's band, 1/16 of
    /// an octave wide, so a few may lie up to 4.4% below it.
    public let tailTrials: Int
    /// Every phase, in `LatencyBudget.Phase` order (the means add up to
    /// the mean of accept → continue, to rounding).
    public let phases: [PhaseFigure]

    /// The phases that take any time, largest tail share first (ties in
    /// phase order).
    public var ranked: [PhaseFigure] {
        phases.filter { $0.mean > .zero || $0.tailShare > 0 }
            .sorted { ($1.tailShare, $0.phase.rawValue) < ($0.tailShare, $1.phase.rawValue) }
    }
}
