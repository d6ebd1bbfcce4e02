import Foundation
import SimKernel
import Testing

/// The two-sample Kolmogorov–Smirnov distance, and the measured data the
/// model is fitted against.
@Suite("Kolmogorov–Smirnov")
struct KolmogorovSmirnovTests {
    @Test("distances worked by hand, ties included")
    func byHand() {
        #expect(KolmogorovSmirnov.distance([1, 2, 3], [3, 2, 1]) == 0)
        #expect(KolmogorovSmirnov.distance([1, 2, 3], [4, 5]) == 1)
        #expect(KolmogorovSmirnov.distance([1, 2, 3, 4], [3, 4, 5, 6]) == 0.5)
        // After 1: 2/3 against 1/3; after 2: both 1.
        #expect(abs(KolmogorovSmirnov.distance([1, 1, 2], [1, 2, 2]) - 1.0 / 3) < 1e-15)
        #expect(KolmogorovSmirnov.distance([], [1]) == 0)
        // Symmetric.
        #expect(KolmogorovSmirnov.distance([5, 1, 9, 2], [3, 3, 8]) == KolmogorovSmirnov.distance([3, 3, 8], [5, 1, 9, 2]))
    }

    @Test("the 5 % critical value is 1.358 √((n + m)/(n m))")
    func criticalValue() {
        #expect(abs(KolmogorovSmirnov.criticalValue(1500, 1500) - 1.3581 * (2.0 / 1500).squareRoot()) < 1e-4)
        #expect(KolmogorovSmirnov.criticalValue(100, 100, alpha: 0.01) > KolmogorovSmirnov.criticalValue(100, 100))
    }

    @Test("two samples of one distribution stay under the critical value; a shifted one does not")
    func samples() throws {
        var generator = Xoshiro256StarStar(seed: 7)
        let normal = try NormalDistribution(mean: 0, standardDeviation: 1)
        let a = (0..<2000).map { _ in normal.sample(using: &generator) }
        let b = (0..<2000).map { _ in normal.sample(using: &generator) }
        let shifted = b.map { $0 + 0.2 }
        let critical = KolmogorovSmirnov.criticalValue(2000, 2000)
        #expect(KolmogorovSmirnov.distance(a, b) < critical)
        #expect(KolmogorovSmirnov.distance(a, shifted) > critical)
    }

    /// The repository's copy of the measured peer-to-peer timings.
    static func measured(_ file: String) throws -> [[String: Double]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("calibration/data/\(file)"), encoding: .utf8)
        let lines = text.split(whereSeparator: \.isNewline)
        let header = lines[0].split(separator: ",").map(String.init)
        return lines.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",").map { Double($0)! }))
        }
    }

    static func nearestRank(_ sorted: [Double], _ percentile: Double) -> Double {
        sorted[Int(LatencyHistogram.rank(percentile: percentile, count: UInt64(sorted.count))) - 1]
    }

    @Test("the shipped measurements have the quantiles their README lists, and AWDL is far from the cable")
    func shippedMeasurements() throws {
        let awdl = try Self.measured("privatedrop-awdl.csv")
        let cable = try Self.measured("privatedrop-cable.csv")
        #expect(awdl.count == 1500 && cable.count == 1500)
        let percentiles: [Double] = [5, 25, 50, 75, 95, 99]
        let awdlNetwork = awdl.map { $0["network_ms"]! }.sorted()
        let cableNetwork = cable.map { $0["network_ms"]! }.sorted()
        #expect(percentiles.map { Self.nearestRank(awdlNetwork, $0) } == [124, 183, 316, 438, 1196, 1623])
        #expect(percentiles.map { Self.nearestRank(cableNetwork, $0) } == [93, 101, 103, 104, 108, 110])
        for row in awdl + cable {
            #expect(row["network_ms"] == row["request_response_ms"]! - row["receiver_processing_ms"]!)
        }
        let throughput = awdl.map { $0["upload_bytes"]! * 8 / ($0["upload_ms"]! / 1000) / 1e6 }.sorted()
        #expect(abs(Self.nearestRank(throughput, 50) - 96.3) < 0.05)
        #expect(KolmogorovSmirnov.distance(awdlNetwork, cableNetwork) > 0.8)
    }
}
