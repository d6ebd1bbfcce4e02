import Testing
@testable import SimKernel

@Suite("Simulated time: parsing and printing durations")
struct SimDurationTests {
    @Test("durations read as people write them", arguments: [
        ("250ms", Int64(250_000_000)),
        ("1.5s", 1_500_000_000),
        ("2m", 120_000_000_000),
        ("900us", 900_000),
        ("900µs", 900_000),
        ("900μs", 900_000),
        ("17ns", 17),
        ("1h", 3_600_000_000_000),
        ("1.25h", 4_500_000_000_000),
        ("3min", 180_000_000_000),
        ("1m30s", 90_000_000_000),
        ("0", 0),
        ("0s", 0),
        ("0.000000001s", 1),
        (".5s", 500_000_000),
        ("5.s", 5_000_000_000),
        ("1.500000000000000000000s", 1_500_000_000),
        ("9223372036.854775807s", Int64.max),
    ])
    func parsesWrittenDurations(text: String, nanoseconds: Int64) throws {
        #expect(try SimDuration(parsing: text).nanoseconds == nanoseconds)
    }

    @Test("printing uses the largest exact unit", arguments: [
        (Int64(250_000_000), "250ms"),
        (1_500_000_000, "1.5s"),
        (120_000_000_000, "2m"),
        (900_000, "900us"),
        (17, "17ns"),
        (0, "0s"),
        (3_600_000_000_000, "1h"),
        (90_000_000_000, "90s"),
        (1_000_000_001, "1.000000001s"),
        (1_234_500, "1.2345ms"),
        (-250_000_000, "-250ms"),
    ])
    func printsDurations(nanoseconds: Int64, text: String) {
        #expect(SimDuration(nanoseconds: nanoseconds).description == text)
    }

    @Test("every non-negative duration survives printing and reading back")
    func roundTrips() throws {
        var generator = Xoshiro256StarStar(seed: 2024)
        var samples: [Int64] = [0, 1, 999, 1_000, 60_000_000_000, Int64.max, Int64.max - 1]
        for _ in 0..<20_000 {
            // Mix magnitudes: shift a random value right by a random amount.
            let shift = generator.uniform(below: 63)
            samples.append(Int64(bitPattern: generator.next() >> 1) >> Int64(shift))
        }
        for value in samples {
            let duration = SimDuration(nanoseconds: value)
            #expect(try SimDuration(parsing: duration.description) == duration, "\(value) printed as \(duration)")
        }
    }

    @Test("malformed input is rejected with a message saying what is wrong", arguments: [
        ("", "invalid duration \"\": the text is empty; expected a number followed by a unit (ns, us, ms, s, m, h), e.g. \"250ms\" or \"1.5s\""),
        ("250", "invalid duration \"250\": missing unit after \"250\"; expected one of ns, us, ms, s, m, h"),
        ("5sec", "invalid duration \"5sec\": unknown unit \"sec\"; expected one of ns, us, ms, s, m, h"),
        ("5 ms", "invalid duration \"5 ms\": unexpected space; write the number and unit together, e.g. \"250ms\""),
        ("ms", "invalid duration \"ms\": expected a number at \"ms\", e.g. \"250ms\" or \"1.5s\""),
        ("-5ms", "invalid duration \"-5ms\": a duration cannot be negative"),
        ("1.2.3s", "invalid duration \"1.2.3s\": a number has more than one decimal point"),
        (".s", "invalid duration \".s\": \".\" is not a number; write e.g. \"0.5s\""),
        ("0.5ns", "invalid duration \"0.5ns\": finer than one nanosecond; simulated time is whole nanoseconds"),
        ("1.0000000001s", "invalid duration \"1.0000000001s\": finer than one nanosecond; simulated time is whole nanoseconds"),
        ("5ms ", "invalid duration \"5ms \": unexpected space; write the number and unit together, e.g. \"250ms\""),
        (" 5ms", "invalid duration \" 5ms\": unexpected space; write the number and unit together, e.g. \"250ms\""),
        ("5x", "invalid duration \"5x\": unknown unit \"x\"; expected one of ns, us, ms, s, m, h"),
        // The form is checked before the value: a malformed text with a
        // number too long (or too fine) is reported as malformed.
        ("99999999999999999999min1hms", "invalid duration \"99999999999999999999min1hms\": unknown unit \"hms\"; expected one of ns, us, ms, s, m, h"),
        ("0.5ns5", "invalid duration \"0.5ns5\": missing unit after \"5\"; expected one of ns, us, ms, s, m, h"),
    ])
    func rejectsMalformedInput(text: String, message: String) {
        #expect(throws: SimKernelError.self) { try SimDuration(parsing: text) }
        do {
            _ = try SimDuration(parsing: text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("durations beyond Int64 nanoseconds are rejected, not wrapped", arguments: [
        "9223372036.854775808s", "9223372037s", "2562048h", "99999999999999999999ns", "5000000000000000000ns5000000000000000000ns",
    ])
    func rejectsOverflow(text: String) {
        #expect(throws: SimKernelError.durationOverflow(input: text)) { try SimDuration(parsing: text) }
    }

    @Test("instants and durations combine as expected")
    func instantArithmetic() {
        let start = SimInstant.zero + .milliseconds(250)
        #expect(start.nanosecondsSinceStart == 250_000_000)
        #expect((start + .seconds(1)) - start == .seconds(1))
        #expect(start.description == "250ms")
        #expect(SimInstant.distantFuture.advanced(byChecked: .nanoseconds(1)) == nil)
        #expect(start.advanced(byChecked: .microseconds(1)) == SimInstant(nanosecondsSinceStart: 250_001_000))
    }
}
