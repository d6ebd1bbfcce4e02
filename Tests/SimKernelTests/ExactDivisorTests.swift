import SimKernel
import Testing

/// ExactDivisor gives the same quotient and remainder as `/` and `%`.
@Suite("Exact divisor")
struct ExactDivisorTests {
    /// Divisors at the edges and in between: 1, powers of two and their
    /// neighbours, link rates, scan intervals, the largest values.
    static let divisors: [UInt64] = [
        1, 2, 3, 7, 10, 1 << 32 - 1, 1 << 32, 1 << 32 + 1, 1_000_000, 2_000_000, 54_000_000,
        1_000_000_000, 1_280_000_000, UInt64.max / 3, 1 << 63, UInt64.max - 1, UInt64.max,
    ]

    @Test("matches / and % at the edges", arguments: divisors)
    func edges(divisor: UInt64) {
        let exact = ExactDivisor(divisor)
        let dividends: [UInt64] = [
            0, 1, divisor - 1, divisor, divisor &+ 1, divisor &* 2, divisor &* 2 &- 1,
            UInt64.max, UInt64.max - 1, UInt64.max / 2, 1 << 33, 8_000_000_000 * 1500,
        ]
        for dividend in dividends {
            let (quotient, remainder) = exact.divide(dividend)
            #expect(quotient == dividend / divisor, "\(dividend) / \(divisor)")
            #expect(remainder == dividend % divisor, "\(dividend) % \(divisor)")
        }
    }

    @Test("matches / and % for 200,000 random pairs of every magnitude")
    func random() {
        var generator = Xoshiro256StarStar(seed: 2026)
        for _ in 0..<200_000 {
            // Random magnitudes, so small and large divisors and dividends all occur.
            let divisor = max(generator.next() >> generator.uniform(below: 64), 1)
            let dividend = generator.next() >> generator.uniform(below: 64)
            let (quotient, remainder) = ExactDivisor(divisor).divide(dividend)
            #expect(quotient == dividend / divisor && remainder == dividend % divisor, "\(dividend) / \(divisor)")
        }
    }
}
