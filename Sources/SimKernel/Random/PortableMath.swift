/// The elementary functions the distributions and CUBIC's window need,
/// computed with IEEE 754 basic operations only.
///
/// `log`, `exp` and `cbrt` from the platform's C library (glibc on Linux, Apple's
/// libm on macOS) are not required to round identically, and a last-bit
/// difference in a sampled delay can reorder events. These implementations
/// use only `+ − × ÷` (and, for the cube root, fused multiply-add), exact
/// scaling by powers of two and bit manipulation, which IEEE 754 defines
/// exactly, so every platform computes the same bits.
/// `log` and `exp` follow the classic argument-reduction and
/// minimax-polynomial scheme (as in fdlibm); all are accurate to within one
/// unit in the last place.
///
/// This is the single place to change if a different portable
/// implementation is ever wanted.
public enum PortableMath {
    // ln 2 split in two so that k·ln2Hi is exact for |k| < 2¹¹.
    @usableFromInline static let ln2Hi = 6.931_471_803_691_238_164_90e-01
    @usableFromInline static let ln2Lo = 1.908_214_929_270_587_700_02e-10
    @usableFromInline static let log2e = 1.442_695_040_888_963_387_00e+00

    // Minimax coefficients of log(1+f) in s = f/(2+f).
    @usableFromInline static let lg1 = 6.666_666_666_666_735_130e-01
    @usableFromInline static let lg2 = 3.999_999_999_940_941_908e-01
    @usableFromInline static let lg3 = 2.857_142_874_366_239_149e-01
    @usableFromInline static let lg4 = 2.222_219_843_214_978_396e-01
    @usableFromInline static let lg5 = 1.818_357_216_161_805_012e-01
    @usableFromInline static let lg6 = 1.531_383_769_920_937_332e-01
    @usableFromInline static let lg7 = 1.479_819_860_511_658_591e-01

    // Minimax coefficients of r·(e^r+1)/(e^r−1) on [−ln2/2, ln2/2].
    @usableFromInline static let p1 = 1.666_666_666_666_660_190_37e-01
    @usableFromInline static let p2 = -2.777_777_777_701_559_338_42e-03
    @usableFromInline static let p3 = 6.613_756_321_437_934_361_17e-05
    @usableFromInline static let p4 = -1.653_390_220_546_525_153_90e-06
    @usableFromInline static let p5 = 4.138_136_797_057_238_460_39e-08

    /// The natural logarithm of `x`.
    ///
    /// `log(0) = −∞`, `log(+∞) = +∞`, and `log(x) = NaN` for negative `x` or NaN.
    ///
    /// - Complexity: O(1), a dozen multiplications.
    @inlinable
    public static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x == .infinity { return .infinity }
        var value = x
        var exponent = 0
        if value.isSubnormal {
            value *= 0x1.0p54
            exponent = -54
        }
        // value = 2^e · m with m in [1, 2); then fold m into (√2/2, √2].
        let bits = value.bitPattern
        exponent += Int((bits >> 52) & 0x7FF) - 1023
        var mantissa = Double(bitPattern: (bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000)
        if mantissa > 1.414_213_562_373_095_1 {
            mantissa *= 0.5
            exponent += 1
        }
        let f = mantissa - 1  // exact (Sterbenz)
        let k = Double(exponent)
        let s = f / (2 + f)
        let z = s * s
        let w = z * z
        let evenTerms = w * (lg2 + w * (lg4 + w * lg6))
        let oddTerms = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)))
        let r = oddTerms + evenTerms
        let halfSquare = 0.5 * f * f
        return k * ln2Hi - ((halfSquare - (s * (halfSquare + r) + k * ln2Lo)) - f)
    }

    /// e raised to the power `x`.
    ///
    /// Overflows to `+∞` above about 709.78 and underflows to 0 below about
    /// −745.13; `exp(NaN) = NaN`.
    ///
    /// - Complexity: O(1), a dozen multiplications.
    @inlinable
    public static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.782_712_893_383_973_096 { return .infinity }
        if x < -745.133_219_101_941_108_42 { return 0 }
        if abs(x) < 0x1.0p-28 { return 1 + x }
        // x = k·ln2 + r with |r| ≤ ln2/2.
        let k = Int((x * log2e + (x < 0 ? -0.5 : 0.5)).rounded(.towardZero))
        let kd = Double(k)
        let hi = x - kd * ln2Hi
        let lo = kd * ln2Lo
        let r = hi - lo
        let t = r * r
        let c = r - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))))
        let y = 1 - ((lo - (r * c) / (2 - c)) - hi)
        return Double(sign: .plus, exponent: k, significand: y)
    }
    /// The complementary error function erfc(x) = 1 − erf(x), to better
    /// than 1e-12 relative error wherever the result is a normal number,
    /// and bit-identical on every platform.
    ///
    /// Below |x| = 2 it sums the Taylor series of erf (terms fall fast
    /// there, so cancellation costs at most two digits); from 2 on it
    /// evaluates the continued fraction of erfc by the modified Lentz
    /// method, which converges quickly for large arguments and keeps the
    /// tiny tail values accurate in relative terms. Only `+ − × ÷` and
    /// ``exp(_:)`` are used, so every platform gets the same bits.
    ///
    /// - Complexity: O(1): at most 200 steps of either loop, and far fewer
    ///   away from |x| = 2.
    public static func erfc(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x == .infinity { return 0 }
        if x == -.infinity { return 2 }
        let magnitude = abs(x)
        let tail: Double  // erfc(|x|)
        if magnitude < 2 {
            // erf(x) = 2/√π · Σ (−1)ⁿ x^(2n+1) / (n! (2n+1)).
            let square = magnitude * magnitude
            var power = magnitude  // (−1)ⁿ x^(2n+1) / n!
            var sum = magnitude
            var n = 0.0
            while true {
                n += 1
                power *= -square / n
                let term = power / (2 * n + 1)
                let next = sum + term
                if next == sum { break }
                sum = next
            }
            tail = 1 - sum * twoOverRootPi
        } else if magnitude > 27.3 {
            // exp(−x²) underflows: erfc(x) < 1e-325.
            tail = 0
        } else {
            // erfc(x) = exp(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))),
            // evaluated as b₀ + a₁/(b₁ + a₂/(b₂ + …)) with every bᵢ = x and
            // aᵢ = i/2, by the modified Lentz method.
            let tiny = 1e-300
            var value = magnitude
            var c = magnitude
            var d = 0.0
            var i = 1.0
            while i < 200 {
                let a = i / 2
                d = magnitude + a * d
                if d == 0 { d = tiny }
                c = magnitude + a / c
                if c == 0 { c = tiny }
                d = 1 / d
                let delta = c * d
                value *= delta
                if abs(delta - 1) < 1e-16 { break }
                i += 1
            }
            tail = exp(-magnitude * magnitude) / (value * rootPi)
        }
        return x < 0 ? 2 - tail : tail
    }

    /// The real cube root of `x`.
    ///
    /// The argument is scaled by an exact power of eight into [1, 8);
    /// Newton's iteration on y³ = m from 2, above the root, falls
    /// monotonically onto it and stops when a step no longer lowers the
    /// estimate; the last bits are then settled towards the neighbour whose
    /// cube is nearer (the cube's rounding error taken exactly with fused
    /// multiply-adds), and the root scaled back. Only `+ − × ÷`, fused
    /// multiply-add (an IEEE 754 basic operation, rounded once) and exact
    /// scaling by powers of two are used, so every platform gets the same
    /// bits; the result is within one unit in the last place.
    /// `cbrt(−x) = −cbrt(x)`; 0, ±∞ and NaN are returned as they are.
    ///
    /// - Complexity: O(1): about six Newton steps.
    public static func cbrt(_ x: Double) -> Double {
        if x.isNaN || x.isInfinite || x == 0 { return x }
        let exponent = Int(x.exponent)
        // floor(exponent / 3), so that m = |x|·2^(−3k) is in [1, 8).
        let k = exponent >= 0 ? exponent / 3 : -((-exponent + 2) / 3)
        let m = Double(sign: .plus, exponent: -3 * k, significand: x.magnitude)
        var root = 2.0
        while true {
            let next = root - (root * root * root - m) / (3 * root * root)
            if !(next < root) { break }
            root = next
        }
        // Rounding may stop the iteration a few units from the root, on
        // either side: step to whichever neighbour cubes nearer to m, the
        // cube's error taken exactly by fused multiply-adds.
        func miss(_ y: Double) -> Double { cubeResidual(y, m).magnitude }
        for _ in 0..<8 {
            let here = miss(root)
            if miss(root.nextDown) < here {
                root = root.nextDown
            } else if miss(root.nextUp) < here {
                root = root.nextUp
            } else {
                break
            }
        }
        return Double(sign: x.sign, exponent: k, significand: root)
    }

    /// y³ − m to about twice double precision: y² and y²·y each split into
    /// their rounded value and its exact error by a fused multiply-add (an
    /// IEEE 754 basic operation, rounded once).
    @usableFromInline
    static func cubeResidual(_ y: Double, _ m: Double) -> Double {
        let square = y * y
        let squareError = (-square).addingProduct(y, y)
        let cube = square * y
        let cubeError = (-cube).addingProduct(square, y)
        return (cube - m) + (cubeError + squareError * y)
    }

    @usableFromInline static let twoOverRootPi = 1.128_379_167_095_512_573_90
    @usableFromInline static let rootPi = 1.772_453_850_905_516_027_30
}
