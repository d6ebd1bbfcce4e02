import Foundation  // the platform's libm log and exp, as the reference
import Testing
@testable import SimKernel

// PortableMath's log and exp are documented as accurate to within one unit in
// the last place. The platform's libm (glibc, Apple's libm) is at least as
// accurate, so the two may differ by at most 1 ulp: if PortableMath were off
// by more, some input would show a difference of 2 ulps or more.

/// The distance in units in the last place between two finite doubles of the
/// same sign (the difference of their bit patterns; 0 when they are equal).
private func ulpDistance(_ a: Double, _ b: Double) -> UInt64 {
    if a == b { return 0 }
    precondition(a.isFinite && b.isFinite, "ulp distance needs finite values, got \(a) and \(b)")
    // Map to a monotonic integer line: negative values count down from zero.
    func ordered(_ x: Double) -> Int64 {
        let magnitude = Int64(bitPattern: x.magnitude.bitPattern)
        return x.sign == .minus ? -magnitude : magnitude
    }
    let difference = ordered(a).subtractingReportingOverflow(ordered(b)).partialValue
    return difference.magnitude
}

/// Input ranges for log.
enum LogInputs: String, CaseIterable, Sendable {
    /// Positive normal doubles with a uniformly random exponent in 1e-300 … 1e300.
    case wide
    /// Positive subnormals (random bit patterns below 2⁻¹⁰²²).
    case subnormal
    /// 1 ± a small random offset: the hardest case for cancellation.
    case nearOne
    /// Mantissas near √2, where the range reduction switches branches.
    case nearSquareRootOfTwo

    func draw(_ rng: inout Xoshiro256StarStar) -> Double {
        switch self {
        case .wide:
            // 1e-300 ≈ 2^-996.6 and 1e300 ≈ 2^996.6.
            let exponent = Int(rng.uniform(in: -996...996))
            return Double(sign: .plus, exponent: exponent, significand: 1 + rng.unitInterval())
        case .subnormal:
            return Double(bitPattern: rng.uniform(below: 1 << 52 - 1) + 1)
        case .nearOne:
            let scale = Double(sign: .plus, exponent: -Int(rng.uniform(in: 1...52)), significand: 1)
            return 1 + (rng.unitInterval() - 0.5) * scale
        case .nearSquareRootOfTwo:
            let offset = (rng.unitInterval() - 0.5) * 0x1.0p-20
            let exponent = Int(rng.uniform(in: -20...20))
            return Double(sign: .plus, exponent: exponent, significand: 2.0.squareRoot() + offset)
        }
    }
}

/// Input ranges for exp.
enum ExpInputs: String, CaseIterable, Sendable {
    /// Uniform over [−745, 709]: the whole finite, non-zero range.
    case wide
    /// [−745, −708]: results are subnormal.
    case subnormalResults
    /// |x| < 1, including tiny arguments.
    case small
    /// Near multiples of ln 2, where the reduction picks k.
    case nearMultiplesOfLn2

    func draw(_ rng: inout Xoshiro256StarStar) -> Double {
        switch self {
        case .wide:
            return -745 + rng.unitInterval() * (709 + 745)
        case .subnormalResults:
            return -745 + rng.unitInterval() * 37
        case .small:
            let scale = Double(sign: .plus, exponent: -Int(rng.uniform(in: 0...40)), significand: 1)
            return (2 * rng.unitInterval() - 1) * scale
        case .nearMultiplesOfLn2:
            let k = Double(rng.uniform(in: -1070...1020))
            return k * 0.693_147_180_559_945_3 / 2 + (rng.unitInterval() - 0.5) * 1e-6
        }
    }
}

@Suite("PortableMath: log and exp, portable to the last bit")
struct PortableMathTests {
    static let inputCount = 100_000

    /// The largest distance in ulps between `ours` and `libm` over
    /// ``inputCount`` inputs drawn by `draw`, and the input where it occurs.
    static func worstDistance(
        stream: String, seed: UInt64, draw: (inout Xoshiro256StarStar) -> Double,
        ours: (Double) -> Double, libm: (Double) -> Double
    ) -> (input: Double, distance: UInt64) {
        var rng = RandomStreamKey(seed: seed).generator(stream)
        var worst: (input: Double, distance: UInt64) = (0, 0)
        for _ in 0..<inputCount {
            let x = draw(&rng)
            let distance = ulpDistance(ours(x), libm(x))
            if distance > worst.distance { worst = (x, distance) }
        }
        return worst
    }

    @Test("log agrees with libm within 1 ulp over 10⁵ random inputs", arguments: LogInputs.allCases)
    func logMatchesLibm(inputs: LogInputs) {
        let worst = Self.worstDistance(
            stream: "log-\(inputs.rawValue)", seed: 1, draw: inputs.draw, ours: PortableMath.log, libm: Foundation.log)
        #expect(worst.distance <= 1, "log(\(worst.input)) is \(worst.distance) ulps from libm")
    }

    @Test("exp agrees with libm within 1 ulp over 10⁵ random inputs", arguments: ExpInputs.allCases)
    func expMatchesLibm(inputs: ExpInputs) {
        let worst = Self.worstDistance(
            stream: "exp-\(inputs.rawValue)", seed: 2, draw: inputs.draw, ours: PortableMath.exp, libm: Foundation.exp)
        #expect(worst.distance <= 1, "exp(\(worst.input)) is \(worst.distance) ulps from libm")
    }

    @Test("log and exp agree with libm within 1 ulp at the edges of their ranges", arguments: [
        // log: extremes of the double range and the subnormal boundary.
        Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, Double.leastNormalMagnitude.nextDown,
        Double.greatestFiniteMagnitude, 1.0.nextUp, 1.0.nextDown, 2.0.squareRoot(), 2.0.squareRoot().nextUp,
        0.5, 2, 10, 0.1, 3,
    ])
    func logEdges(x: Double) {
        #expect(ulpDistance(PortableMath.log(x), Foundation.log(x)) <= 1)
    }

    @Test("exp agrees with libm within 1 ulp at the edges of its range", arguments: [
        709.782_712_893_383_973_096, 709.78, 709.0, 708.4, -708.39, -708.4, -740, -744.4, -745.0, -745.13,
        0x1.0p-28, -0x1.0p-28, 0x1.0p-29, 1e-300, -1e-300, 0.346_573_590_279_972_6, 0.35, -0.35, 1, -1, 0.5,
    ])
    func expEdges(x: Double) {
        #expect(ulpDistance(PortableMath.exp(x), Foundation.exp(x)) <= 1, "exp(\(x))")
    }

    @Test("special values: log(0) = −∞, log(−1) = NaN, log(∞) = ∞, log(1) = 0, exp(0) = 1, exp(±1000) = ∞ and 0")
    func specialValues() {
        #expect(PortableMath.log(0) == -.infinity)
        #expect(PortableMath.log(-0.0) == -.infinity)
        #expect(PortableMath.log(-1).isNaN)
        #expect(PortableMath.log(-.leastNonzeroMagnitude).isNaN)
        #expect(PortableMath.log(-.infinity).isNaN)
        #expect(PortableMath.log(.nan).isNaN)
        #expect(PortableMath.log(.infinity) == .infinity)
        #expect(PortableMath.log(1) == 0)
        #expect(PortableMath.log(1).sign == .plus)

        #expect(PortableMath.exp(0) == 1)
        #expect(PortableMath.exp(-0.0) == 1)
        #expect(PortableMath.exp(-1000) == 0)
        #expect(PortableMath.exp(-.infinity) == 0)
        #expect(PortableMath.exp(1000) == .infinity)
        #expect(PortableMath.exp(.infinity) == .infinity)
        #expect(PortableMath.exp(.nan).isNaN)
        // Just past the documented thresholds (ln of the largest double, and
        // of half the smallest subnormal).
        #expect(PortableMath.exp(709.79) == .infinity)
        #expect(PortableMath.exp(-745.14) == 0)
        #expect(PortableMath.exp(709.782_712_893_383_973_096).isFinite)
        #expect(PortableMath.exp(-745.13) > 0)
    }

    @Test("exact powers of two: log(2^k) is k·ln 2 within 2 ulps", arguments: [
        -1074, -1022, -100, -1, 1, 10, 100, 1023,
    ])
    func powersOfTwo(k: Int) {
        let x = Double(sign: .plus, exponent: k, significand: 1)
        // k·ln 2 rounded twice (ln 2, then the product) is within 1 ulp of the
        // truth, and log within 1 ulp: 2 ulps apart at most.
        let expected = Double(k) * 0.693_147_180_559_945_309_417_232_121_458
        #expect(abs(PortableMath.log(x) - expected) <= 2 * expected.ulp)
    }

    @Test("exp(log(x)) returns x to within a relative error of 1e-13")
    func roundTrip() {
        var rng = Xoshiro256StarStar(seed: 3)
        for _ in 0..<10_000 {
            let x = Double(sign: .plus, exponent: Int(rng.uniform(in: -900...900)), significand: 1 + rng.unitInterval())
            let back = PortableMath.exp(PortableMath.log(x))
            // The relative error of exp(y) is about |y|·ulp(1) from rounding y = log x.
            #expect(abs(back - x) <= 1e-13 * x, "exp(log(\(x))) = \(back)")
        }
    }

    @Test("log is monotonic: sorted inputs give non-decreasing outputs")
    func logIsMonotonic() {
        var rng = Xoshiro256StarStar(seed: 4)
        var inputs = (0..<20_000).map { _ in LogInputs.nearOne.draw(&rng) }
        inputs += (0..<20_000).map { _ in LogInputs.nearSquareRootOfTwo.draw(&rng) }
        inputs.sort()
        let outputs = inputs.map(PortableMath.log)
        #expect(zip(outputs, outputs.dropFirst()).allSatisfy { $0 <= $1 })
    }

    static let goldenLogs: [(Double, UInt64)] = [
        (2.0, 0x3FE6_2E42_FEFA_39EF),
        (10.0, 0x4002_6BB1_BBB5_5516),
        (0.5, 0xBFE6_2E42_FEFA_39EF),
        (0.1, 0xC002_6BB1_BBB5_5515),
        (3.0, 0x3FF1_93EA_7AAD_030A),  // 1 ulp above glibc's correctly rounded value: pinned anyway
        (1e-300, 0xC085_9634_47F8_7FB5),
        (1e300, 0x4085_9634_47F8_7FB5),
        (Double.leastNonzeroMagnitude, 0xC087_4385_446D_71C3),  // 2⁻¹⁰⁷⁴
        (1.000_000_1, 0x3E7A_D7F2_847B_6492),
        (1.797_693_134_862_315_7e308, 0x4086_2E42_FEFA_39EF),
    ]

    @Test("golden bit patterns of log pin cross-platform determinism", arguments: goldenLogs)
    func logGoldenBits(x: Double, bits: UInt64) {
        // Computed once by a transcription of PortableMath into Python (IEEE
        // doubles, the same operations in the same order). These bits must
        // be identical on every platform and compiler: a sampled delay that
        // differs in its last bit can reorder events and change a simulation.
        #expect(PortableMath.log(x).bitPattern == bits, "log(\(x)) = \(PortableMath.log(x))")
    }

    static let goldenExps: [(Double, UInt64)] = [
        (1.0, 0x4005_BF0A_8B14_576A),  // 1 ulp above e as rounded by glibc: pinned anyway
        (-1.0, 0x3FD7_8B56_362C_EF38),
        (0.5, 0x3FFA_6129_8E1E_069C),
        (-0.1, 0x3FEC_F46D_99D5_2B3A),
        (2.5, 0x4028_5D6F_D931_E0BB),
        (700.0, 0x7F0D_945D_F4F8_EC8E),
        (709.78, 0x7FEF_E9CE_5C4C_52B4),
        (-708.5, 0x000E_6CF6_D088_97AC),  // subnormal result
        (-740.0, 0x0000_0000_0000_0055),  // deep subnormal result
        (1e-10, 0x3FF0_0000_0006_DF38),
    ]

    @Test("golden bit patterns of exp pin cross-platform determinism", arguments: goldenExps)
    func expGoldenBits(x: Double, bits: UInt64) {
        // As above: computed once, hard-coded to pin cross-platform determinism.
        #expect(PortableMath.exp(x).bitPattern == bits, "exp(\(x)) = \(PortableMath.exp(x))")
    }

    // MARK: erfc and Φ

    @Test("erfc matches the platform's erfc to 1e-12 relative error from −6 to 26, through both of its methods")
    func erfcMatchesPlatform() {
        var worst = 0.0
        var worstAt = 0.0
        for step in 0...32_000 {
            let x = -6 + Double(step) / 1000
            let expected = Foundation.erfc(x)
            let relative = abs(PortableMath.erfc(x) - expected) / expected
            if relative > worst {
                worst = relative
                worstAt = x
            }
        }
        #expect(worst < 1e-12, "worst relative error \(worst) at x = \(worstAt)")
    }

    @Test("erfc's special values: erfc(0) = 1, ±∞ give 0 and 2, NaN stays NaN, deep tails are 0, symmetry 2 − erfc(x)")
    func erfcSpecialValues() {
        #expect(PortableMath.erfc(0) == 1)
        #expect(PortableMath.erfc(.infinity) == 0)
        #expect(PortableMath.erfc(-.infinity) == 2)
        #expect(PortableMath.erfc(.nan).isNaN)
        #expect(PortableMath.erfc(40) == 0)
        #expect(PortableMath.erfc(-40) == 2)
        for x in [0.3, 1.7, 2.0, 3.5] {
            #expect(abs(PortableMath.erfc(-x) - (2 - PortableMath.erfc(x))) < 1e-15)
        }
    }

    @Test("Φ(z) = ½·erfc(−z/√2): Φ(0) = ½, Φ(1) ≈ 0.8413447461, Φ(−3) ≈ 0.0013498980, Φ(1.96) ≈ 0.9750021049")
    func standardNormalCumulativeProbability() {
        #expect(NormalDistribution.standardCumulativeProbability(0) == 0.5)
        #expect(abs(NormalDistribution.standardCumulativeProbability(1) - 0.841_344_746_068_543) < 1e-12)
        #expect(abs(NormalDistribution.standardCumulativeProbability(-3) - 0.001_349_898_031_630_095) < 1e-15)
        #expect(abs(NormalDistribution.standardCumulativeProbability(1.96) - 0.975_002_104_851_780) < 1e-12)
    }
}

@Suite("PortableMath: the cube root CUBIC's K needs, portable to the last bit")
struct PortableCubeRootTests {
    static func draw(_ rng: inout Xoshiro256StarStar) -> Double {
        let exponent = Int(rng.uniform(in: -1070...1020))
        let sign: FloatingPointSign = rng.unitInterval() < 0.5 ? .minus : .plus
        return Double(sign: sign, exponent: exponent, significand: 1 + rng.unitInterval())
    }

    // glibc's cbrt is itself up to a few ulps off (cbrt(3.6867878395739727e-28)
    // is 2.5 ulps below the root), so libm is a loose reference; the exact
    // test is the next one.
    @Test("cbrt agrees with libm within 3 ulps over 10⁵ random inputs of any exponent and sign")
    func cbrtMatchesLibm() {
        let worst = PortableMathTests.worstDistance(
            stream: "cbrt", seed: 3, draw: Self.draw, ours: PortableMath.cbrt, libm: Foundation.cbrt)
        #expect(worst.distance <= 3, "cbrt(\(worst.input)) is \(worst.distance) ulps from libm")
    }

    @Test("cbrt is within 1 ulp of the root: the root lies between the cubes of its two neighbours, over 10⁵ inputs")
    func cbrtBracketsTheRoot() {
        var rng = RandomStreamKey(seed: 4).generator("cbrt-bracket")
        for _ in 0..<PortableMathTests.inputCount {
            // Exponents whose cubes stay normal, so that the residual is exact.
            let x = Double(
                sign: .plus, exponent: Int(rng.uniform(in: -900...900)), significand: 1 + rng.unitInterval())
            let root = PortableMath.cbrt(x)
            let below = PortableMath.cubeResidual(root.nextDown, x)
            let above = PortableMath.cubeResidual(root.nextUp, x)
            guard below < 0, above > 0 else {
                Issue.record("cbrt(\(x)) = \(root) is more than 1 ulp from the root")
                return
            }
        }
    }

    @Test("cbrt of a perfect cube is exact; 0, ±∞ and NaN pass through", arguments: [
        (27.0, 3.0), (-8.0, -2.0), (1.0, 1.0), (0.001, 0.1), (1e27, 1e9), (75.0, Foundation.cbrt(75.0)),
    ])
    func exactCubes(x: Double, root: Double) {
        #expect(ulpDistance(PortableMath.cbrt(x), root) <= 1)
    }

    @Test("cbrt's special values")
    func specialValues() {
        #expect(PortableMath.cbrt(0) == 0)
        #expect(PortableMath.cbrt(.infinity) == .infinity)
        #expect(PortableMath.cbrt(-.infinity) == -.infinity)
        #expect(PortableMath.cbrt(.nan).isNaN)
        #expect(PortableMath.cbrt(27) == 3)
        #expect(PortableMath.cbrt(-1e-300) < 0)
    }
}
