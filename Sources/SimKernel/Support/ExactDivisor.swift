/// Division of 64-bit unsigned integers by one fixed divisor, with the
/// divide instruction replaced by a multiplication by a reciprocal worked out
/// once. The results are exact: the same quotient and remainder as `/` and
/// `%`.
///
/// A hardware 64-bit division takes tens of cycles; this takes a few. Use it
/// where one divisor is applied per event (a link's serialisation time, a
/// scan schedule's phase).
///
/// With d the divisor and m = ⌊(2⁶⁴ − 1)/d⌋ ≥ (2⁶⁴ − d)/d, for any
/// n < 2⁶⁴ the estimate q̂ = ⌊n · m / 2⁶⁴⌋ is at most n/d (as m ≤ 2⁶⁴/d)
/// and greater than n · m / 2⁶⁴ − 1 ≥ n/d − n/2⁶⁴ − 1 > n/d − 2, so it is
/// ⌊n/d⌋ or one less. One correction by the remainder makes it exact.
///
/// ```swift
/// let byTen = ExactDivisor(10)
/// byTen.divide(1234)   // (quotient: 123, remainder: 4)
/// ```
package struct ExactDivisor: Hashable, Sendable {
    /// The divisor; always positive.
    package let divisor: UInt64
    @usableFromInline let reciprocal: UInt64

    /// A divider by `divisor`, which must be positive.
    package init(_ divisor: UInt64) {
        precondition(divisor > 0, "division by zero")
        self.divisor = divisor
        reciprocal = UInt64.max / divisor
    }

    /// `dividend / divisor` and `dividend % divisor`.
    @inlinable @inline(__always)
    package func divide(_ dividend: UInt64) -> (quotient: UInt64, remainder: UInt64) {
        var quotient = dividend.multipliedFullWidth(by: reciprocal).high
        var remainder = dividend &- quotient &* divisor
        if remainder >= divisor {
            quotient &+= 1
            remainder &-= divisor
        }
        return (quotient, remainder)
    }
}
