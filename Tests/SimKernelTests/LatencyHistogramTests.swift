import Foundation  // exp, for spreading test latencies over decades; qsort
import Testing
@testable import SimKernel

// Tests for LatencyHistogram: percentiles against an exact sort, exact
// summary statistics, merging, memory, and the bucket scale.

/// Percentiles in tenths of a percent, so that the exact rank can be computed
/// in integer arithmetic: p = tenths/10.
private let percentileTenths: [Int] = [0, 10, 250, 500, 900, 950, 990, 999, 1000]

/// The exact rank ⌈p/100 · n⌉ (at least 1) for p = tenths/10, in integers:
/// ⌈tenths · n / 1000⌉.
private func exactRank(tenths: Int, count: Int) -> Int {
    max(1, (tenths * count + 999) / 1000)
}

/// Latencies spread log-uniformly from 10 µs to 100 s, in nanoseconds (10⁴ … 10¹¹),
/// with a log-normal cluster around 2 ms on top.
private func latencies(count: Int, seed: UInt64) -> [Int64] {
    var rng = RandomStreamKey(seed: seed).generator("latencies")
    let cluster = try! LogNormalDistribution(mean: 2e6, standardDeviation: 1e6)
    return (0..<count).map { index in
        if index.isMultiple(of: 3) {
            return Int64(cluster.sample(using: &rng).rounded())
        }
        let logValue = Foundation.log(1e4) + rng.unitInterval() * (Foundation.log(1e11) - Foundation.log(1e4))
        return Int64(Foundation.exp(logValue).rounded())
    }
}

/// The values in increasing order. C's qsort, because the standard library's
/// generic sort, compiled without optimisation into a debug test build, takes
/// seconds for 10⁶ values.
private func sortedValues(_ values: [Int64]) -> [Int64] {
    var result = values
    result.withUnsafeMutableBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        qsort(base, buffer.count, MemoryLayout<Int64>.stride) { a, b in
            let x = a!.load(as: Int64.self), y = b!.load(as: Int64.self)
            return x < y ? -1 : (x > y ? 1 : 0)
        }
    }
    return result
}

private func histogram<S: Sequence>(of values: S) -> LatencyHistogram where S.Element == Int64 {
    var result = LatencyHistogram()
    for value in values { result.record(value) }
    return result
}

@Suite("Latency histogram")
struct LatencyHistogramTests {
    @Test("percentiles of 10⁶ latencies (10 µs … 100 s) are never below the exact sort and within 1/1024 (< 0.1 %) above it")
    func percentilesOfWideLatencies() {
        let values = latencies(count: 1_000_000, seed: 1)
        let recorded = histogram(of: values)
        let sorted = sortedValues(values)
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0 <= $1 } && sorted.count == values.count)
        for tenths in percentileTenths {
            let exact = sorted[exactRank(tenths: tenths, count: sorted.count) - 1]
            let percentile = Double(tenths) / 10
            guard let reported = recorded.value(atPercentile: percentile) else {
                Issue.record("no value at p\(percentile)")
                continue
            }
            #expect(reported >= exact, "p\(percentile): reported \(reported) below the exact \(exact)")
            // Bucket width 2^b with lowest value ≥ 1024·2^b, so reported − exact < exact/1024.
            #expect((reported - exact) * 1024 <= exact, "p\(percentile): reported \(reported), exact \(exact)")
            #expect(Double(reported - exact) <= 0.001 * Double(exact))
        }
        #expect(recorded.value(atPercentile: 100) == sorted.last)
    }

    @Test("percentiles of small integers (below 2048) are exact")
    func percentilesOfSmallIntegersAreExact() {
        var rng = Xoshiro256StarStar(seed: 2)
        let values = (0..<200_000).map { _ in Int64(rng.uniform(below: 2048)) }
        let recorded = histogram(of: values)
        let sorted = sortedValues(values)
        for tenths in percentileTenths {
            let exact = sorted[exactRank(tenths: tenths, count: sorted.count) - 1]
            #expect(recorded.value(atPercentile: Double(tenths) / 10) == exact, "p\(Double(tenths) / 10)")
        }
        // Every percentile from 0 to 100 in steps of 0.5, too.
        for halfPercent in 0...200 {
            let exact = sorted[max(1, (halfPercent * sorted.count + 199) / 200) - 1]
            #expect(recorded.value(atPercentile: Double(halfPercent) / 2) == exact)
        }
    }

    @Test("percentile 0 reports the exact minimum and percentile 100 the exact maximum", arguments: [
        [Int64(2048), 5000, 9000],
        [1_000_000, 1_000_001, 2_000_000, 99_999_999_999],
        [3, 4_000_000_000_000, 4_000_000_000_001],
        [123_456_789],
    ])
    func extremePercentilesAreExact(values: [Int64]) {
        // The documentation promises that 0 gives the minimum and 100 the
        // maximum, even when they are not at the edge of their bucket.
        let recorded = histogram(of: values)
        #expect(recorded.value(atPercentile: 0) == values.min())
        #expect(recorded.value(atPercentile: 100) == values.max())
    }

    @Test("the rank is ⌈p/100 · n⌉, at least 1, and whole products are not pushed up by binary rounding")
    func rankDefinition() {
        #expect(LatencyHistogram.rank(percentile: 95, count: 1000) == 950)
        #expect(LatencyHistogram.rank(percentile: 99.9, count: 1_000_000) == 999_000)
        #expect(LatencyHistogram.rank(percentile: 99.99, count: 10_000) == 9_999)
        #expect(LatencyHistogram.rank(percentile: 0.1, count: 1000) == 1)
        #expect(LatencyHistogram.rank(percentile: 33.3, count: 10) == 4)  // 3.33 → 4
        #expect(LatencyHistogram.rank(percentile: 50, count: 3) == 2)  // 1.5 → 2
        #expect(LatencyHistogram.rank(percentile: 0, count: 5) == 1)
        #expect(LatencyHistogram.rank(percentile: 100, count: 5) == 5)
        #expect(LatencyHistogram.rank(percentile: 1e-9, count: 5) == 1)
        // Every tenth of a percent for many counts agrees with the integer formula.
        for count in [1, 2, 3, 7, 10, 99, 100, 101, 999, 1000, 1001, 12_345, 1_000_000, 999_999_937] {
            for tenths in 0...1000 {
                let expected = UInt64(exactRank(tenths: tenths, count: count))
                let actual = LatencyHistogram.rank(percentile: Double(tenths) / 10, count: UInt64(count))
                #expect(actual == expected, "p\(Double(tenths) / 10) of \(count)")
                if actual != expected { return }
            }
        }
    }

    @Test("a percentile just above a whole rank moves to the next rank, so the value is never below the exact one")
    func rankJustAboveWholeNumber() {
        // 50.00000001 % of 10⁸ is 50 000 000.01: the exact rank is 50 000 001,
        // the first of the 2s. Reporting 1 would be below the exact value.
        var recorded = LatencyHistogram()
        recorded.record(1, times: 50_000_000)
        recorded.record(2, times: 50_000_000)
        #expect(LatencyHistogram.rank(percentile: 50.000_000_01, count: 100_000_000) == 50_000_001)
        #expect(recorded.value(atPercentile: 50.000_000_01) == 2)
        #expect(recorded.value(atPercentile: 50) == 1)
        // 50.00000003 % of 10⁹ is 500 000 000.3.
        #expect(LatencyHistogram.rank(percentile: 50.000_000_03, count: 1_000_000_000) == 500_000_001)
    }

    @Test("count, min, max, sum and mean are exact")
    func summaryStatisticsAreExact() {
        let values = latencies(count: 1_000_000, seed: 3)
        let recorded = histogram(of: values)
        // All values are below 2·10¹¹, so the sum of 10⁶ fits in Int64.
        var exactSum: Int64 = 0
        var smallest = Int64.max, largest = Int64.min
        for value in values {
            exactSum += value
            smallest = min(smallest, value)
            largest = max(largest, value)
        }
        #expect(recorded.count == UInt64(values.count))
        #expect(recorded.min == smallest)
        #expect(recorded.max == largest)
        #expect(recorded.minimum == smallest && recorded.maximum == largest)
        #expect(recorded.exactSum.high == 0 && recorded.exactSum.low == UInt64(exactSum))
        #expect(recorded.sum == Double(exactSum))
        #expect(recorded.mean == Double(exactSum) / Double(values.count))
        #expect(!recorded.isEmpty)
        #expect(recorded.buckets.reduce(UInt64(0)) { $0 + $1.count } == recorded.count)
    }

    @Test("the sum is exact beyond 64 bits")
    func sumBeyondSixtyFourBits() {
        var recorded = LatencyHistogram()
        recorded.record(.max, times: 4)  // 4·(2⁶³ − 1) = 2⁶⁵ − 4
        #expect(recorded.exactSum.high == 1)
        #expect(recorded.exactSum.low == UInt64.max - 3)
        recorded.record(.max)
        recorded.record(.max)
        recorded.record(4)  // total 6·(2⁶³ − 1) + 4 = 3·2⁶⁴ − 2
        #expect(recorded.exactSum.high == 2)
        #expect(recorded.exactSum.low == UInt64.max - 1)
        #expect(recorded.sum == 3 * 0x1.0p64)  // −2 is lost in the Double
        #expect(recorded.count == 7)
    }

    // MARK: Merging

    /// Value sets over overlapping, nested and disjoint ranges.
    static func mergeInputs() -> [[Int64]] {
        var rng = Xoshiro256StarStar(seed: 4)
        func spread(_ count: Int, _ range: ClosedRange<Int64>) -> [Int64] {
            (0..<count).map { _ in rng.uniform(in: range) }
        }
        return [
            spread(20_000, 10_000...1_000_000),  // a wide range
            spread(10_000, 100_000...200_000),  // nested inside the first
            spread(10_000, 1_000_000_000...10_000_000_000),  // disjoint, above
            spread(5_000, 0...100),  // disjoint, below
            spread(5_000, 500_000...5_000_000_000),  // overlapping two others
        ]
    }

    @Test("merging equals recording everything into one histogram, for every pair of ranges")
    func mergeEqualsCombinedRecording() {
        let inputs = Self.mergeInputs()
        for (i, first) in inputs.enumerated() {
            for (j, second) in inputs.enumerated() {
                var merged = histogram(of: first)
                merged.merge(histogram(of: second))
                let combined = histogram(of: first + second)
                #expect(merged == combined, "merging set \(j) into set \(i)")
                #expect(merged.count == combined.count && merged.exactSum == combined.exactSum)
                #expect(merged.value(atPercentile: 99) == combined.value(atPercentile: 99))
                #expect(histogram(of: first).merging(histogram(of: second)) == combined)
            }
        }
    }

    @Test("merging is commutative and associative")
    func mergeIsCommutativeAndAssociative() {
        let parts = Self.mergeInputs().map { histogram(of: $0) }
        for a in parts.indices {
            for b in parts.indices where b > a {
                #expect(parts[a].merging(parts[b]) == parts[b].merging(parts[a]), "\(a) + \(b)")
                for c in parts.indices where c > b {
                    // (a + b) + c, a + (b + c) and (c + a) + b all hold the same values.
                    let left = parts[a].merging(parts[b]).merging(parts[c])
                    let right = parts[a].merging(parts[b].merging(parts[c]))
                    let rotated = parts[c].merging(parts[a]).merging(parts[b])
                    #expect(left == right, "(\(a) + \(b)) + \(c)")
                    #expect(left == rotated, "(\(c) + \(a)) + \(b)")
                }
            }
        }
    }

    @Test("merging into or from an empty histogram gives the other one")
    func mergeWithEmpty() {
        let values = Self.mergeInputs()[0]
        let full = histogram(of: values)
        var fromEmpty = LatencyHistogram()
        fromEmpty.merge(full)
        #expect(fromEmpty == full)
        #expect(fromEmpty.value(atPercentile: 50) == full.value(atPercentile: 50))
        var intoFull = full
        intoFull.merge(LatencyHistogram())
        #expect(intoFull == full)
        #expect(LatencyHistogram().merging(LatencyHistogram()) == LatencyHistogram())
        #expect(LatencyHistogram().merging(LatencyHistogram()).isEmpty)
        // A merged histogram keeps working: record more after merging.
        fromEmpty.record(5)
        #expect(fromEmpty == histogram(of: values + [5]))
    }

    @Test("equality ignores the order of recording and the memory layout")
    func equalityIgnoresOrder() {
        let values: [Int64] = [50_000, 7, 3_000_000_000, 2049, 50_000, 0]
        #expect(histogram(of: values) == histogram(of: values.reversed()))
        #expect(histogram(of: values) == histogram(of: values.sorted()))
        #expect(histogram(of: values) != histogram(of: values.dropLast()))
        // Same buckets, different exact values: not equal (min and sum differ).
        #expect(histogram(of: [2048]) != histogram(of: [2049]))
        #expect(histogram(of: [2048]).buckets == histogram(of: [2049]).buckets)
    }

    // MARK: Memory, empty histograms, repeated values

    @Test("memory depends on the range of values, not their number: 10³ and 10⁶ samples allocate the same buckets")
    func memoryDoesNotGrowWithSamples() {
        var rng = Xoshiro256StarStar(seed: 5)
        let range: ClosedRange<Int64> = 1_000...10_000_000_000
        var few = LatencyHistogram()
        var many = LatencyHistogram()
        // Both see the ends of the range, so both cover the same buckets.
        few.record(range.lowerBound)
        few.record(range.upperBound)
        many.record(range.lowerBound)
        many.record(range.upperBound)
        for _ in 0..<1_000 { few.record(rng.uniform(in: range)) }
        for _ in 0..<1_000_000 { many.record(rng.uniform(in: range)) }
        #expect(few.allocatedBucketCount == many.allocatedBucketCount)
        // Exactly the buckets from the smallest to the largest value.
        let span = LatencyHistogram.index(of: UInt64(range.upperBound)) - LatencyHistogram.index(of: UInt64(range.lowerBound)) + 1
        #expect(many.allocatedBucketCount == span)
        #expect(many.allocatedBucketCount <= LatencyHistogram.maximumBucketCount)
        // A few thousand buckets for seven decades of latency.
        #expect(many.allocatedBucketCount < 30_000)
    }

    @Test("the whole Int64 range takes the documented 55 296 buckets")
    func maximumBucketCount() {
        #expect(LatencyHistogram.maximumBucketCount == 55_296)
        var recorded = LatencyHistogram()
        recorded.record(0)
        recorded.record(.max)
        #expect(recorded.allocatedBucketCount == LatencyHistogram.maximumBucketCount)
    }

    @Test("an empty histogram has no percentiles, min, max or mean")
    func emptyHistogram() {
        let empty = LatencyHistogram()
        for percentile in [0.0, 50, 99.9, 100] {
            #expect(empty.value(atPercentile: percentile) == nil)
        }
        #expect(empty.min == nil)
        #expect(empty.max == nil)
        #expect(empty.mean == nil)
        #expect(empty.count == 0)
        #expect(empty.sum == 0)
        #expect(empty.isEmpty)
        #expect(empty.buckets.isEmpty)
        #expect(empty.allocatedBucketCount == 0)
    }

    @Test("record(_:times:) equals recording the value that many times")
    func recordTimesEqualsRepeatedRecording() {
        let runs: [(Int64, UInt64)] = [(5, 3), (3_000, 7), (1_000_000_000, 1_000), (0, 2), (5, 1), (Int64.max, 2)]
        var batched = LatencyHistogram()
        var repeated = LatencyHistogram()
        for (value, times) in runs {
            batched.record(value, times: times)
            for _ in 0..<times { repeated.record(value) }
        }
        #expect(batched == repeated)
        #expect(batched.count == 1_015)
        #expect(batched.exactSum == repeated.exactSum)
        for percentile in [0.0, 1, 50, 99, 100] {
            #expect(batched.value(atPercentile: percentile) == repeated.value(atPercentile: percentile))
        }
        // times: 0 records nothing.
        var none = LatencyHistogram()
        none.record(42, times: 0)
        #expect(none.isEmpty && none.min == nil && none == LatencyHistogram())
    }

    @Test("recording a SimDuration records its nanoseconds")
    func recordDuration() {
        var byDuration = LatencyHistogram()
        byDuration.record(SimDuration.milliseconds(420))
        byDuration.record(SimDuration(nanoseconds: 610_000_000))
        #expect(byDuration == histogram(of: [420_000_000, 610_000_000]))
        #expect(byDuration.value(atPercentile: 95) == 610_000_000)
    }

    // MARK: Buckets

    @Test("each bucket contains exactly the values recorded in it, and widths are at most 1/1024 of the values")
    func bucketsContainTheirValues() {
        var rng = Xoshiro256StarStar(seed: 6)
        // Log-uniform over the whole Int64 range, plus edge values.
        var values: [Int64] = [0, 1, 2047, 2048, 2049, 4095, 4096, .max, .max - 1]
        for _ in 0..<100_000 {
            values.append(Int64(bitPattern: rng.next() >> 1) >> Int64(rng.uniform(below: 63)))
        }
        let recorded = histogram(of: values)
        let buckets = recorded.buckets
        let sorted = values.sorted()
        var position = 0
        for (offset, bucket) in buckets.enumerated() {
            #expect(bucket.lowestValue <= bucket.highestValue)
            if offset > 0 { #expect(buckets[offset - 1].highestValue < bucket.lowestValue, "buckets overlap") }
            // Width: exact (1) below 2048, else 2^b with lowest ≥ 1024·2^b.
            let width = UInt64(bucket.highestValue - bucket.lowestValue) + 1
            if bucket.lowestValue < 2048 {
                #expect(width == 1)
            } else {
                #expect(width * 1024 <= UInt64(bucket.lowestValue), "bucket \(bucket)")
            }
            // The values in [lowest, highest] are exactly the bucket's count.
            var inBucket: UInt64 = 0
            while position < sorted.count && sorted[position] <= bucket.highestValue {
                #expect(sorted[position] >= bucket.lowestValue, "\(sorted[position]) is in no bucket")
                inBucket += 1
                position += 1
            }
            #expect(inBucket == bucket.count, "bucket \(bucket)")
        }
        #expect(position == sorted.count, "values above the last bucket")
        #expect(buckets.last?.highestValue == .max)
        #expect(buckets.first?.lowestValue == 0)
    }

    @Test("the bucket scale is contiguous: every index's highest value is one below the next index's lowest")
    func bucketScaleIsContiguous() {
        var previousHighest: UInt64? = nil
        for index in 0..<LatencyHistogram.maximumBucketCount {
            let lowest = LatencyHistogram.lowestValue(ofIndex: index)
            let highest = LatencyHistogram.highestValue(ofIndex: index)
            if let previousHighest, previousHighest + 1 != lowest {
                Issue.record("gap or overlap before index \(index): \(previousHighest) then \(lowest)")
                return
            }
            if LatencyHistogram.index(of: lowest) != index || LatencyHistogram.index(of: highest) != index {
                Issue.record("index \(index) does not map back from its values \(lowest)…\(highest)")
                return
            }
            previousHighest = highest
        }
        #expect(LatencyHistogram.lowestValue(ofIndex: 0) == 0)
        #expect(previousHighest == UInt64(Int64.max))
        // Values below 2048 have their own bucket.
        for value in UInt64(0)..<2048 { #expect(LatencyHistogram.index(of: value) == Int(value)) }
    }

    @Test("Int64.max can be recorded and is reported exactly")
    func recordsInt64Max() {
        var recorded = LatencyHistogram()
        recorded.record(.max)
        #expect(recorded.count == 1)
        #expect(recorded.min == .max && recorded.max == .max)
        for percentile in [0.0, 50, 100] { #expect(recorded.value(atPercentile: percentile) == .max) }
        #expect(recorded.exactSum.high == 0 && recorded.exactSum.low == UInt64(Int64.max))
        #expect(recorded.buckets.count == 1)
        #expect(recorded.buckets.first?.highestValue == .max)
        #expect(recorded.allocatedBucketCount == 1)
        // With small values too: p100 is still exactly Int64.max.
        recorded.record(1)
        #expect(recorded.value(atPercentile: 100) == .max)
        #expect(recorded.value(atPercentile: 50) == 1)
    }

    @Test("recording a negative value stops the process")
    func negativeValueIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            var recorded = LatencyHistogram()
            recorded.record(-1)
        }
    }

    @Test("a percentile outside 0…100 stops the process")
    func percentileOutOfRangeIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            var recorded = LatencyHistogram()
            recorded.record(1)
            _ = recorded.value(atPercentile: 100.5)
        }
    }
}

/// The text form of a histogram reads back exactly.
@Suite("Latency histogram encoding")
struct LatencyHistogramEncodingTests {
    @Test("the documented example")
    func example() throws {
        var histogram = LatencyHistogram()
        histogram.record(5)
        histogram.record(5)
        histogram.record(9)
        #expect(histogram.encoded == "h1;3;5;9;0;19;5;2,z3,1")
        #expect(try LatencyHistogram(encoded: histogram.encoded) == histogram)
        #expect(LatencyHistogram().encoded == "h1;0")
        #expect(try LatencyHistogram(encoded: "h1;0") == LatencyHistogram())
    }

    @Test("random histograms survive the round trip exactly, merges included")
    func roundTrip() throws {
        var generator = Xoshiro256StarStar(seed: 5)
        for _ in 0..<200 {
            var histogram = LatencyHistogram()
            let values = Int(generator.uniform(below: 300))
            for _ in 0..<values {
                histogram.record(Int64(generator.next() >> (1 + generator.uniform(below: 62))))
            }
            let decoded = try LatencyHistogram(encoded: histogram.encoded)
            #expect(decoded == histogram)
            #expect(decoded.encoded == histogram.encoded)
            #expect(decoded.exactSum == histogram.exactSum)
            #expect(decoded.value(atPercentile: 95) == histogram.value(atPercentile: 95))
            var merged = decoded
            merged.merge(histogram)
            var twice = histogram
            twice.merge(histogram)
            #expect(merged == twice)
        }
    }

    @Test("malformed or inconsistent text is refused", arguments: [
        "", "h2;0", "h1", "h1;3;5;9;0;19;5;2,z3", "h1;3;5;9;0;19;5;2,z3,1,0", "h1;3;9;5;0;19;5;2,z3,1",
        "h1;3;5;9;0;19;6;2,z3,1", "h1;3;5;9;0;19;5;2,z1,1,1", "h1;3;5;9;0;19;5;2,x,1", "h1;-3;5;9;0;19;5;3",
    ])
    func refused(text: String) {
        #expect(throws: SimKernelError.malformedHistogram(text)) { try LatencyHistogram(encoded: text) }
    }
}

// MARK: Memory of histograms read from text or compacted

@Suite("Histograms that keep only their non-empty buckets")
struct SparseLatencyHistogramTests {
    /// Seven days in nanoseconds: the longest latency a sweep records.
    static let week: Int64 = 7 * 24 * 3_600 * 1_000_000_000

    @Test("a histogram read from text holds only its non-empty buckets, however long the run of empty ones between them")
    func decodedHistogramIsSparse() throws {
        var wide = LatencyHistogram()
        wide.record(1)
        wide.record(Self.week)
        // Dense, the two values take the 41 036 buckets between them.
        #expect(wide.allocatedBucketCount == 41_036)
        #expect(wide.encoded.contains(",z41034,"))
        let decoded = try LatencyHistogram(encoded: wide.encoded)
        #expect(decoded.allocatedBucketCount == 2)
        #expect(decoded == wide)
        #expect(decoded.encoded == wide.encoded)
        for percentile in [0.0, 25, 50, 75, 100] {
            #expect(decoded.value(atPercentile: percentile) == wide.value(atPercentile: percentile))
        }
        // Explicit empty buckets in the text take no memory either.
        let zeros = try LatencyHistogram(encoded: "h1;3;5;9;0;19;5;2,0,0,0,1")
        #expect(zeros.allocatedBucketCount == 2)
        #expect(zeros.encoded == "h1;3;5;9;0;19;5;2,z3,1")
    }

    @Test("compacting changes no answer: text, percentiles, buckets, equality, merges and later records", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func compactingKeepsEveryAnswer(seed: UInt64) throws {
        var rng = Xoshiro256StarStar(seed: seed)
        func random(_ values: Int) -> LatencyHistogram {
            var histogram = LatencyHistogram()
            for _ in 0..<values {
                // Log-uniform over 1 ns to a week, so values land far apart.
                let exponent = rng.uniform(in: 0...46)
                histogram.record(rng.uniform(in: 0...(Int64(1) << exponent)))
            }
            return histogram
        }
        let a = random(40), b = random(7), c = random(1)
        var compactA = a, compactB = b, compactC = c
        compactA.compact()
        compactB.compact()
        compactC.compact()
        #expect(compactA.allocatedBucketCount <= 40 && compactB.allocatedBucketCount <= 7)
        for (dense, sparse) in [(a, compactA), (b, compactB), (c, compactC)] {
            #expect(sparse == dense)
            #expect(sparse.encoded == dense.encoded)
            #expect(sparse.buckets == dense.buckets)
            #expect(sparse.allocatedBucketCount <= dense.allocatedBucketCount)
            for percentile in [0.0, 1, 10, 50, 90, 95, 99, 99.9, 100] {
                #expect(sparse.range(atPercentile: percentile) == dense.range(atPercentile: percentile))
            }
        }
        // Every mix of dense and sparse merges to the dense merge.
        let merged = a.merging(b).merging(c)
        for pair in [(compactA, b), (a, compactB), (compactA, compactB)] {
            let mixed = pair.0.merging(pair.1).merging(compactC)
            #expect(mixed == merged)
            #expect(mixed.encoded == merged.encoded)
        }
        #expect(LatencyHistogram().merging(compactA) == a)
        #expect(compactA.merging(LatencyHistogram()) == a)
        // Recording after compaction, new buckets and old.
        var later = compactA
        var reference = a
        for value in [Int64(0), 1, 3_000, Self.week, 3_000, 12_345_678] {
            later.record(value)
            reference.record(value)
        }
        #expect(later == reference)
        #expect(later.encoded == reference.encoded)
    }

    @Test("compacting keeps a histogram dense when its buckets are mostly full")
    func compactingKeepsFullRangesDense() {
        var full = LatencyHistogram()
        for value in Int64(100)..<1_100 { full.record(value) }
        full.compact()
        #expect(full.allocatedBucketCount == 1_000)
        #expect(full.sparseIndices.isEmpty)
    }
}
