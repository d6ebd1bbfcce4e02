import HandoffWorld
import SimKernel
import Testing

// Helpers shared by the world's validation tests. Each computes its figure
// independently of the library, so the tests compare two derivations.

/// ⌈bytes · 8 · 10⁹ / rate⌉: the serialisation delay of one packet in
/// nanoseconds (exact in Int64 for the sizes and rates the tests use).
func independentSerialisation(bytes: Int, bitsPerSecond rate: Int64) -> Int64 {
    (Int64(bytes) * 8 * 1_000_000_000 + rate - 1) / rate
}

/// The sizes of the pieces `bytes` splits into at most `piece` bytes each:
/// full pieces, then the rest; nothing at all is one empty piece.
func pieceSizes(_ bytes: Int, piece: Int) -> [Int] {
    var sizes: [Int] = []
    var remaining = bytes
    repeat {
        let size = min(remaining, piece)
        sizes.append(size)
        remaining -= size
    } while remaining > 0
    return sizes
}

/// A way to build something with one invalid setting.
struct InvalidParameterCase: Sendable, CustomTestStringConvertible {
    /// The setting the error must name.
    let setting: String
    /// Builds the invalid value; must throw.
    let make: @Sendable () throws -> Void
    var testDescription: String { setting }
}

/// Expects `invalid.make()` to throw ``WorldError/invalidParameter`` naming
/// `invalid.setting`, with a description that starts with the setting.
func expectInvalidParameter(_ invalid: InvalidParameterCase) {
    let error = #expect(throws: WorldError.self) { try invalid.make() }
    guard case let .invalidParameter(name, _, _)? = error else {
        Issue.record("expected invalidParameter, got \(String(describing: error))")
        return
    }
    #expect(name == invalid.setting)
    #expect(error?.description.hasPrefix("\(invalid.setting): ") == true, "\(String(describing: error))")
}

// Constants and instants used by several test files.

/// z for a two-sided 99% normal bound.
let z99 = 2.576

/// The instant `value` seconds after the start.
func seconds(_ value: Int64) -> SimInstant { .zero + .seconds(value) }

/// The instant `value` milliseconds after the start.
func milliseconds(_ value: Int64) -> SimInstant { .zero + .milliseconds(value) }
