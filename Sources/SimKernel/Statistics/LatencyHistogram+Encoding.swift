// A compact, exact text form of a histogram, for results that are written
// on one machine and merged on another.

extension LatencyHistogram {
    /// The histogram as text, exactly: `h1;count;min;max;sumHigh;sumLow;first;counts`
    /// where `counts` lists the bucket counts from bucket `first` on,
    /// comma-separated, with a run of k empty buckets written `zk`.
    ///
    /// The same histogram always gives the same text, and
    /// ``init(encoded:)`` reads it back to an equal histogram.
    ///
    /// ```swift
    /// var h = LatencyHistogram()
    /// h.record(5); h.record(5); h.record(9)
    /// h.encoded   // "h1;3;5;9;0;19;5;2,z3,1"
    /// ```
    public var encoded: String {
        guard count > 0 else { return "h1;0" }
        var parts: [String] = []
        var first = 0
        var previous: Int?
        for (index, bucketCount) in nonEmptyBuckets {
            if let previous {
                let zeros = index - previous - 1
                if zeros > 0 { parts.append(zeros == 1 ? "0" : "z\(zeros)") }
            } else {
                first = index
            }
            parts.append(String(bucketCount))
            previous = index
        }
        return "h1;\(count);\(minimum);\(maximum);\(sumHigh);\(sumLow);\(first);" + parts.joined(separator: ",")
    }

    /// Reads a histogram written by ``encoded``.
    ///
    /// The histogram read keeps only its non-empty buckets, so its memory
    /// grows with the text, never with the runs of empty buckets the text
    /// skips (`z55000` takes no memory).
    ///
    /// - Throws: ``SimKernelError/malformedHistogram(_:)`` when the text is
    ///   not one, or is inconsistent (counts that do not add up, values
    ///   outside the buckets).
    public init(encoded text: String) throws(SimKernelError) {
        self.init()
        let fields = text.split(separator: ";", omittingEmptySubsequences: false)
        guard fields.first == "h1" else { throw .malformedHistogram(text) }
        if fields.count == 2, fields[1] == "0" { return }
        guard fields.count == 8, let total = UInt64(fields[1]), total > 0, let low = Int64(fields[2]), low >= 0,
            let high = Int64(fields[3]), high >= low, let sumHigh = UInt64(fields[4]), let sumLow = UInt64(fields[5]),
            let first = Int(fields[6]), first >= 0, first < Self.maximumBucketCount
        else { throw .malformedHistogram(text) }
        // The non-empty buckets: their indices and counts (a 0 in the
        // text is an empty bucket, kept out like a run of them).
        var indices: [UInt16] = []
        var values: [UInt64] = []
        var next = first
        var sum: UInt64 = 0
        for part in fields[7].split(separator: ",", omittingEmptySubsequences: false) {
            if part.hasPrefix("z") {
                guard let run = Int(part.dropFirst()), run > 1, run <= Self.maximumBucketCount - next else {
                    throw .malformedHistogram(text)
                }
                next += run
            } else {
                guard let value = UInt64(part), next < Self.maximumBucketCount else { throw .malformedHistogram(text) }
                if value > 0 {
                    let (added, overflow) = sum.addingReportingOverflow(value)
                    guard !overflow else { throw .malformedHistogram(text) }
                    sum = added
                    indices.append(UInt16(next))
                    values.append(value)
                }
                next += 1
            }
        }
        // The first and the last bucket written hold values.
        guard indices.first.map(Int.init) == first, let last = indices.last, Int(last) == next - 1 else {
            throw .malformedHistogram(text)
        }
        guard sum == total, Self.index(of: UInt64(low)) == first, Self.index(of: UInt64(high)) == Int(last)
        else { throw .malformedHistogram(text) }
        counts = values
        sparseIndices = indices
        firstIndex = 0
        count = total
        minimum = low
        maximum = high
        self.sumHigh = sumHigh
        self.sumLow = sumLow
    }
}
