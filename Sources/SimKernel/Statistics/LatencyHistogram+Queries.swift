// Percentiles, merging, bucket listing and equality.

extension LatencyHistogram {
    /// The value at `percentile` (0 to 100): the smallest recorded value such
    /// that at least `percentile` % of the values are at or below it, to
    /// three significant digits.
    ///
    /// The rank is ⌈percentile/100 · count⌉ (at least 1), as for an exact
    /// sort. The result is the highest value in the bucket holding that rank,
    /// clamped to [``min``, ``max``]: within 1/1024 above the exact value,
    /// never below it. `0` gives the minimum and `100` the maximum.
    ///
    /// - Returns: `nil` when the histogram is empty.
    /// - Precondition: `0 <= percentile <= 100`.
    /// - Complexity: O(b) for b allocated buckets.
    public func value(atPercentile percentile: Double) -> Int64? {
        range(atPercentile: percentile)?.upperBound
    }

    /// The range known to hold the exact value at `percentile`: the bucket
    /// holding that rank, clamped to [``min``, ``max``].
    ///
    /// ``value(atPercentile:)`` is this range's upper end. A bound checked
    /// on the range (an upper bound on its upper end, a lower bound on its
    /// lower end) never passes when the exact value would fail it.
    ///
    /// - Returns: `nil` when the histogram is empty.
    /// - Precondition: `0 <= percentile <= 100`.
    /// - Complexity: O(b) for b allocated buckets.
    public func range(atPercentile percentile: Double) -> ClosedRange<Int64>? {
        precondition(percentile >= 0 && percentile <= 100, "percentile must be in 0...100, got \(percentile)")
        guard count > 0 else { return nil }
        let rank = Self.rank(percentile: percentile, count: count)
        // The first and last ranks are the minimum and maximum, known exactly
        // (their buckets can reach beyond them).
        if rank == 1 { return minimum...minimum }
        if rank == count { return maximum...maximum }
        var seen: UInt64 = 0
        for (index, bucketCount) in nonEmptyBuckets {
            seen &+= bucketCount
            if seen >= rank {
                let clamp = { (value: UInt64) in Int64(Swift.min(Swift.max(value, UInt64(minimum)), UInt64(maximum))) }
                return clamp(Self.lowestValue(ofIndex: index))...clamp(Self.highestValue(ofIndex: index))
            }
        }
        return maximum...maximum
    }

    /// The 1-based rank of `percentile` among `count` sorted values.
    ///
    /// ⌈p/100 · n⌉, computed so that products that are whole in exact
    /// arithmetic (95 % of 1000) are not pushed up by binary rounding. The
    /// tolerance is a few units in the last place, the size of that rounding,
    /// so a real fraction of a rank (50.00000001 % of 10⁸) still rounds up.
    public static func rank(percentile: Double, count: UInt64) -> UInt64 {
        let exact = percentile / 100 * Double(count)
        let nearest = exact.rounded()
        let tolerance = 8 * Double.ulpOfOne * Swift.max(1, exact)
        let rank = Swift.abs(exact - nearest) <= tolerance ? nearest : exact.rounded(.up)
        return Swift.min(Swift.max(UInt64(rank), 1), count)
    }

    /// Adds every value recorded in `other`.
    ///
    /// Afterwards this histogram equals one that recorded both sets of
    /// values; merging is exact, commutative and associative. When either
    /// holds only its non-empty buckets (read from text or compacted), so
    /// does the result.
    ///
    /// - Complexity: O(b) for the buckets of both.
    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        if counts.isEmpty {
            self = other
            return
        }
        if sparseIndices.isEmpty, other.sparseIndices.isEmpty {
            widen(toInclude: other.firstIndex)
            widen(toInclude: other.firstIndex + other.counts.count - 1)
            let offset = other.firstIndex - firstIndex
            for (position, bucketCount) in other.counts.enumerated() where bucketCount > 0 {
                counts[offset + position] &+= bucketCount
            }
        } else {
            mergeSparse(other)
        }
        count &+= other.count
        minimum = Swift.min(minimum, other.minimum)
        maximum = Swift.max(maximum, other.maximum)
        addToSum(low: other.sumLow, high: other.sumHigh)
    }

    /// Sets the counts to the non-empty buckets of both, sparse.
    private mutating func mergeSparse(_ other: LatencyHistogram) {
        var indices: [UInt16] = []
        var merged: [UInt64] = []
        var mine = nonEmptyBuckets
        var theirs = other.nonEmptyBuckets
        var left = mine.next()
        var right = theirs.next()
        while left != nil || right != nil {
            let index: Int
            let bucketCount: UInt64
            if let l = left, let r = right, l.index == r.index {
                (index, bucketCount) = (l.index, l.count &+ r.count)
                left = mine.next()
                right = theirs.next()
            } else if let l = left, right.map({ l.index < $0.index }) ?? true {
                (index, bucketCount) = l
                left = mine.next()
            } else if let r = right {
                (index, bucketCount) = r
                right = theirs.next()
            } else {
                break
            }
            indices.append(UInt16(index))
            merged.append(bucketCount)
        }
        sparseIndices = indices
        counts = merged
        firstIndex = 0
    }

    /// Returns a histogram holding the values of both.
    public func merging(_ other: LatencyHistogram) -> LatencyHistogram {
        var result = self
        result.merge(other)
        return result
    }

    /// One non-empty bucket: the range of values it stands for and how many
    /// values fell in it.
    public struct Bucket: Hashable, Sendable {
        /// The bucket's index in the full log-linear scale.
        public let index: Int
        /// The smallest value in the bucket.
        public let lowestValue: Int64
        /// The largest value in the bucket.
        public let highestValue: Int64
        /// How many recorded values fell in it.
        public let count: UInt64
    }

    /// The non-empty buckets in increasing order of value.
    public var buckets: [Bucket] {
        nonEmptyBuckets.map { index, bucketCount in
            Bucket(
                index: index,
                lowestValue: Int64(Self.lowestValue(ofIndex: index)),
                highestValue: Int64(Self.highestValue(ofIndex: index)),
                count: bucketCount)
        }
    }
}

extension LatencyHistogram: Equatable {
    /// Two histograms are equal when they recorded the same multiset of
    /// buckets with the same exact count, sum, minimum and maximum, however
    /// their memory happens to be laid out.
    public static func == (lhs: LatencyHistogram, rhs: LatencyHistogram) -> Bool {
        lhs.count == rhs.count && lhs.minimum == rhs.minimum && lhs.maximum == rhs.maximum
            && lhs.sumLow == rhs.sumLow && lhs.sumHigh == rhs.sumHigh && lhs.buckets == rhs.buckets
    }
}
