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
        var first = 0
        while first < counts.count, counts[first] == 0 { first += 1 }
        var last = counts.count - 1
        while last > first, counts[last] == 0 { last -= 1 }
        var parts: [String] = []
        var zeros = 0
        for index in first...last {
            if counts[index] == 0 {
                zeros += 1
                continue
            }
            if zeros > 0 {
                parts.append(zeros == 1 ? "0" : "z\(zeros)")
                zeros = 0
            }
            parts.append(String(counts[index]))
        }
        return "h1;\(count);\(minimum);\(maximum);\(sumHigh);\(sumLow);\(firstIndex + first);" + parts.joined(separator: ",")
    }

    /// Reads a histogram written by ``encoded``.
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
        var values: [UInt64] = []
        for part in fields[7].split(separator: ",", omittingEmptySubsequences: false) {
            if part.hasPrefix("z") {
                guard let run = Int(part.dropFirst()), run > 1, run <= Self.maximumBucketCount - values.count else {
                    throw .malformedHistogram(text)
                }
                values.append(contentsOf: repeatElement(0, count: run))
            } else {
                guard let value = UInt64(part) else { throw .malformedHistogram(text) }
                values.append(value)
            }
        }
        guard let firstCount = values.first, firstCount > 0, let lastCount = values.last, lastCount > 0,
            first + values.count <= Self.maximumBucketCount
        else { throw .malformedHistogram(text) }
        var sum: UInt64 = 0
        for value in values {
            let (next, overflow) = sum.addingReportingOverflow(value)
            guard !overflow else { throw .malformedHistogram(text) }
            sum = next
        }
        guard sum == total, Self.index(of: UInt64(low)) == first,
            Self.index(of: UInt64(high)) == first + values.count - 1
        else { throw .malformedHistogram(text) }
        counts = values
        firstIndex = first
        count = total
        minimum = low
        maximum = high
        self.sumHigh = sumHigh
        self.sumLow = sumLow
    }
}
