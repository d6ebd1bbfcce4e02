/// A mergeable histogram of non-negative integer values (nanoseconds), in
/// HDR-style log-linear buckets at three significant decimal digits.
///
/// Values below 2048 are counted exactly; above that, each power-of-two
/// range is split into 1024 equal sub-buckets, so every value is known to
/// within 1/1024 (< 0.1 %) of itself. Percentiles report the highest value
/// equivalent to the bucket they fall in, clamped to the recorded minimum and
/// maximum, so a reported p95 is never below the true p95.
///
/// Memory is fixed by the range of values recorded, never by how many:
/// while recording, the counts cover only the buckets between the smallest
/// and the largest value seen (at most 55 296 buckets for the whole `Int64`
/// range, typically a few thousand for one latency distribution). A
/// histogram read from text, and one compacted once its values are in,
/// keeps only its non-empty buckets, so a few values far apart take a few
/// counts, not the range between them. Count, sum, minimum and maximum are
/// exact, and merging two histograms gives exactly the histogram of all
/// their values together, so results from separate cores or machines
/// combine without loss.
///
/// ```swift
/// var latency = LatencyHistogram()
/// latency.record(SimDuration.milliseconds(420))
/// latency.record(SimDuration.milliseconds(610))
/// print(latency.value(atPercentile: 95))   // 610 ms, in ns (to 3 digits)
/// ```
///
/// Not guaranteed: percentile values are exact only up to the bucket width;
/// use ``count``, ``sum``, ``min`` and ``max`` where exactness matters.
public struct LatencyHistogram: Sendable {
    /// log₂ of the sub-buckets in the lower half of each bucket (1024).
    static let subBucketHalfCountMagnitude = 10
    static let subBucketHalfCount = 1 << subBucketHalfCountMagnitude
    /// Values below this are counted exactly (2048).
    static let subBucketCount = 2 << subBucketHalfCountMagnitude
    static let subBucketMask = UInt64(subBucketCount - 1)
    /// The number of bucket indices that cover `0...Int64.max`.
    public static let maximumBucketCount = index(of: UInt64(Int64.max)) + 1

    /// The bucket counts. Dense (``sparseIndices`` empty, as while
    /// recording): the counts of bucket indices
    /// `firstIndex ..< firstIndex + counts.count`. Sparse (``sparseIndices``
    /// not empty): `counts[i]` is the count of bucket `sparseIndices[i]`,
    /// none of them 0.
    var counts: [UInt64]
    /// The bucket index of `counts[0]` when dense.
    var firstIndex: Int
    /// When sparse, the index of each non-empty bucket, increasing; empty
    /// when dense. (Every index is below ``maximumBucketCount``, 55 296,
    /// so it fits in 16 bits.)
    var sparseIndices: [UInt16]

    /// The number of values recorded.
    public internal(set) var count: UInt64
    /// The smallest value recorded (`Int64.max` when empty).
    public internal(set) var minimum: Int64
    /// The largest value recorded (0 when empty).
    public internal(set) var maximum: Int64
    // The exact sum as a 128-bit unsigned integer.
    var sumLow: UInt64
    var sumHigh: UInt64

    /// An empty histogram.
    public init() {
        counts = []
        firstIndex = 0
        sparseIndices = []
        count = 0
        minimum = .max
        maximum = 0
        sumLow = 0
        sumHigh = 0
    }

    /// The bucket index of `value`.
    static func index(of value: UInt64) -> Int {
        let powerOfTwoCeiling = 64 - (value | subBucketMask).leadingZeroBitCount
        let bucket = powerOfTwoCeiling - (subBucketHalfCountMagnitude + 1)
        let subBucket = Int(value >> UInt64(bucket))
        return ((bucket + 1) << subBucketHalfCountMagnitude) + (subBucket - subBucketHalfCount)
    }

    /// The smallest value that falls in bucket `index`.
    static func lowestValue(ofIndex index: Int) -> UInt64 {
        var bucket = (index >> subBucketHalfCountMagnitude) - 1
        var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucket < 0 {
            subBucket -= subBucketHalfCount
            bucket = 0
        }
        return UInt64(subBucket) << UInt64(bucket)
    }

    /// The largest value that falls in bucket `index`.
    static func highestValue(ofIndex index: Int) -> UInt64 {
        let bucket = Swift.max((index >> subBucketHalfCountMagnitude) - 1, 0)
        return lowestValue(ofIndex: index) + (UInt64(1) << UInt64(bucket)) - 1
    }

    /// Records one value.
    ///
    /// - Precondition: `value >= 0`.
    /// - Complexity: O(1), except when the value widens the recorded range,
    ///   which grows the counts once to cover it.
    public mutating func record(_ value: Int64) {
        record(value, times: 1)
    }

    /// Records a duration, in nanoseconds.
    ///
    /// - Precondition: the duration is not negative.
    public mutating func record(_ duration: SimDuration) {
        record(duration.nanoseconds, times: 1)
    }

    /// Records `value` as if it were recorded `times` times.
    ///
    /// - Precondition: `value >= 0`.
    public mutating func record(_ value: Int64, times: UInt64) {
        precondition(value >= 0, "LatencyHistogram records non-negative values only, got \(value)")
        guard times > 0 else { return }
        let bucketIndex = Self.index(of: UInt64(value))
        if !sparseIndices.isEmpty {
            recordSparse(bucketIndex, times: times)
        } else {
            if counts.isEmpty {
                counts = [0]
                firstIndex = bucketIndex
            } else {
                widen(toInclude: bucketIndex)
            }
            counts[bucketIndex - firstIndex] &+= times
        }
        count &+= times
        if value < minimum { minimum = value }
        if value > maximum { maximum = value }
        let product = UInt64(value).multipliedFullWidth(by: times)
        addToSum(low: product.low, high: product.high)
    }

    mutating func addToSum(low: UInt64, high: UInt64) {
        let (newLow, carry) = sumLow.addingReportingOverflow(low)
        sumLow = newLow
        sumHigh &+= high &+ (carry ? 1 : 0)
    }

    /// Adds `times` to bucket `bucketIndex` of a sparse histogram, inserting
    /// the bucket in order when it is new.
    ///
    /// - Complexity: O(log k) to find it, O(k) to insert a new one, for k
    ///   non-empty buckets.
    private mutating func recordSparse(_ bucketIndex: Int, times: UInt64) {
        let key = UInt16(bucketIndex)
        var low = 0
        var high = sparseIndices.count
        while low < high {
            let middle = (low + high) / 2
            if sparseIndices[middle] < key { low = middle + 1 } else { high = middle }
        }
        if low < sparseIndices.count, sparseIndices[low] == key {
            counts[low] &+= times
        } else {
            sparseIndices.insert(key, at: low)
            counts.insert(times, at: low)
        }
    }

    /// Grows the counts of a dense histogram so that `bucketIndex` is
    /// covered (nothing to do when it already is, as when ``merge(_:)``
    /// meets an overlapping range).
    mutating func widen(toInclude bucketIndex: Int) {
        if bucketIndex < firstIndex {
            counts.insert(contentsOf: repeatElement(0, count: firstIndex - bucketIndex), at: 0)
            firstIndex = bucketIndex
        } else if bucketIndex >= firstIndex + counts.count {
            counts.append(contentsOf: repeatElement(0, count: bucketIndex - (firstIndex + counts.count) + 1))
        }
    }

    /// Whether nothing has been recorded.
    public var isEmpty: Bool { count == 0 }

    /// The smallest value recorded, or `nil` when empty.
    public var min: Int64? { count == 0 ? nil : minimum }

    /// The largest value recorded, or `nil` when empty.
    public var max: Int64? { count == 0 ? nil : maximum }

    /// The exact sum of the values recorded, as a `Double` (exact up to 2⁵³).
    public var sum: Double { Double(sumHigh) * 0x1.0p64 + Double(sumLow) }

    /// The exact sum as high and low 64-bit words of a 128-bit integer.
    public var exactSum: (high: UInt64, low: UInt64) { (sumHigh, sumLow) }

    /// The mean of the values recorded, or `nil` when empty.
    public var mean: Double? { count == 0 ? nil : sum / Double(count) }

    /// The number of bucket counts the histogram currently holds memory
    /// for: the buckets from the smallest to the largest value while
    /// recording, the non-empty ones once read from text or compacted.
    public var allocatedBucketCount: Int { counts.count }

    /// Keeps only the non-empty buckets, when that takes less memory than
    /// the range from the smallest to the largest value.
    ///
    /// Nothing a histogram reports changes (its text, percentiles, buckets,
    /// equality and merges are the same); recording afterwards stays exact
    /// but costs O(k) for a new bucket among k. Call it once the values
    /// are in, before keeping many histograms: a few values far apart then
    /// take a few counts, not the tens of thousands of buckets between them.
    ///
    /// - Complexity: O(b) for b allocated buckets.
    package mutating func compact() {
        guard sparseIndices.isEmpty, !counts.isEmpty else { return }
        var nonEmpty = 0
        for bucketCount in counts where bucketCount > 0 { nonEmpty += 1 }
        // A sparse bucket takes 10 bytes (index and count), a dense one 8.
        guard nonEmpty * 10 < counts.count * 8 else { return }
        var indices: [UInt16] = []
        var kept: [UInt64] = []
        indices.reserveCapacity(nonEmpty)
        kept.reserveCapacity(nonEmpty)
        for (offset, bucketCount) in counts.enumerated() where bucketCount > 0 {
            indices.append(UInt16(firstIndex + offset))
            kept.append(bucketCount)
        }
        sparseIndices = indices
        counts = kept
        firstIndex = 0
    }

    /// The non-empty buckets' indices and counts, in increasing order of
    /// index, whichever way the counts are held.
    struct NonEmptyBuckets: Sequence, IteratorProtocol {
        let histogram: LatencyHistogram
        var position = 0

        init(_ histogram: LatencyHistogram) { self.histogram = histogram }

        mutating func next() -> (index: Int, count: UInt64)? {
            let counts = histogram.counts
            if histogram.sparseIndices.isEmpty {
                while position < counts.count {
                    let current = position
                    position += 1
                    if counts[current] > 0 { return (histogram.firstIndex + current, counts[current]) }
                }
                return nil
            }
            guard position < counts.count else { return nil }
            defer { position += 1 }
            return (Int(histogram.sparseIndices[position]), counts[position])
        }
    }

    /// The non-empty buckets, in increasing order of index.
    var nonEmptyBuckets: NonEmptyBuckets { NonEmptyBuckets(self) }
}
