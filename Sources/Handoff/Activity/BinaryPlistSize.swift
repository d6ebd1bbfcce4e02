import Foundation

/// The size of a value encoded as a binary property list ("bplist00").
///
/// The layout follows CoreFoundation's binary writer (`__CFBinaryPlistWriteOrPresize`
/// in `CFBinaryPList.c`, the same code in Apple's CoreFoundation and in
/// swift-corelibs-foundation):
///
/// - an 8-byte header `bplist00`;
/// - the object table: every object is a marker byte (type in the high nibble,
///   a count in the low nibble) followed by its payload. When a count (of
///   characters, bytes or elements) is 15 or more, the nibble is `0xF` and the
///   count follows as an int object. Ints take 1, 2, 4 or 8 bytes (the smallest
///   that holds the value read as unsigned, so negative ints take 8); reals and
///   dates 8; ASCII strings one byte per character, any other string two bytes
///   per UTF-16 code unit; data its bytes; booleans one marker byte. Arrays,
///   sets and dictionaries hold object references (a dictionary all its key
///   references, then all its value references);
/// - the offset table: one offset per object, each in the smallest of
///   1, 2, 4 or 8 bytes that holds the offset *of the offset table itself*
///   (CoreFoundation sizes it from the end of the object table, which can be
///   one size larger than the largest object offset);
/// - a 32-byte trailer.
///
/// Object references use the smallest of 1, 2, 4 or 8 bytes that holds the
/// number of objects.
///
/// ## Uniquing (which objects are written once)
///
/// Since the rewrite of `_flattenPlist` (swift-corelibs-foundation
/// `Sources/CoreFoundation/CFBinaryPList.c`; Apple's CoreFoundation has the
/// same code), CoreFoundation uniques strings, numbers, dates and data **by
/// object identity**: its uniquing set is created with
/// `{0, retain, release, 0, 0, 0}` callbacks, that is with no equality or hash
/// function, so only the *same object* seen twice is written once. Arrays,
/// dictionaries and booleans are never uniqued; every occurrence is written.
/// (The 2008 writer used `CFEqual`, "`__plistUniquingEqual`", and so wrote
/// equal values once; that rule is gone.)
///
/// A `UserInfoValue` has no identity, so this model treats every occurrence
/// as its own object, like freshly bridged Swift values, except for the
/// numbers CoreFoundation's `CFNumberCreate` hands out as shared instances,
/// which therefore are written once however often they occur: the integers
/// −1 through 12 (its small-integer cache) and the doubles +0.0, 1.0, +∞, −∞
/// and NaN (its constant numbers). On Linux this is exact for any value built
/// from Swift values. On Apple platforms, tagged-pointer `NSString`s,
/// `NSNumber`s and `NSDate`s and shared Swift string storage give more equal
/// values one identity, so Apple's encoding of *repeated* equal values can be
/// smaller than this estimate.
///
/// ## Estimates
///
/// Values that are not property-list types are estimated: a URL as its
/// `absoluteString` written as a string object (`NSKeyedArchiver`'s wrapping
/// of `NSURL` is not modelled); a UUID as a 16-byte data object; null as the
/// one-byte null marker `0x00`; a set as the set marker `0xC_` with references
/// like an array. A `Float` stored as `.real` is counted as 8 bytes, where
/// CoreFoundation writes a 32-bit float in 4.
public enum BinaryPlistSize {
    /// Returns the number of bytes of `value` encoded as a binary property list.
    ///
    /// Exact for property-list values as CoreFoundation's binary writer lays
    /// them out (see the type's documentation for the uniquing rule); URL,
    /// UUID, null and set are estimated as documented there. Runs in time
    /// linear in the size of the value and does not recurse, so deep nesting
    /// is safe.
    public static func of(_ value: UserInfoValue) -> Int {
        var tally = Tally()
        var pending: [UserInfoValue] = [value]
        while let next = pending.popLast() {
            switch next {
            case let .string(string):
                tally.addObject(bytes: stringObjectSize(string))
            case let .integer(integer):
                if tally.sharedIntegerAlreadyWritten(integer) { continue }
                tally.addObject(bytes: 1 + intPayloadSize(UInt64(bitPattern: integer)))
            case let .real(real):
                if tally.sharedRealAlreadyWritten(real) { continue }
                tally.addObject(bytes: 9)
            case .boolean, .null:
                tally.addObject(bytes: 1)
            case let .data(data):
                tally.addObject(bytes: countedObjectSize(count: data.count, unitBytes: 1))
            case .date:
                tally.addObject(bytes: 9)
            case let .url(url):
                tally.addObject(bytes: stringObjectSize(url.absoluteString))
            case .uuid:
                tally.addObject(bytes: countedObjectSize(count: 16, unitBytes: 1))
            case let .array(elements):
                tally.addObject(bytes: countedObjectSize(count: elements.count, unitBytes: 0))
                tally.references += elements.count
                pending.append(contentsOf: elements)
            case let .set(elements):
                tally.addObject(bytes: countedObjectSize(count: elements.count, unitBytes: 0))
                tally.references += elements.count
                pending.append(contentsOf: elements)
            case let .dictionary(entries):
                tally.addObject(bytes: countedObjectSize(count: entries.count, unitBytes: 0))
                tally.references += 2 * entries.count
                // Summation is order-independent, so the dictionary's
                // iteration order cannot reach the result.
                for (key, entry) in entries {
                    tally.addObject(bytes: stringObjectSize(key))
                    pending.append(entry)
                }
            }
        }
        let referenceSize = byteCount(tally.objects)
        let objectTableEnd = 8 + tally.payloadBytes + tally.references * referenceSize
        let offsetSize = byteCount(objectTableEnd)
        return objectTableEnd + tally.objects * offsetSize + 32
    }

    /// Running totals of one size computation.
    private struct Tally {
        /// Objects in the object table.
        var objects = 0
        /// Bytes of the object table other than object references.
        var payloadBytes = 0
        /// Object references held by arrays, sets and dictionaries.
        var references = 0
        /// Bit `i + 1` set once the shared integer `i` (−1...12) is written.
        var sharedIntegers: UInt16 = 0
        /// Bits for the shared doubles +0.0, 1.0, +∞, −∞, NaN once written.
        var sharedReals: UInt8 = 0

        mutating func addObject(bytes: Int) {
            objects += 1
            payloadBytes += bytes
        }

        /// Whether `integer` is one of CoreFoundation's cached numbers that
        /// has already been written (and marks it written otherwise).
        mutating func sharedIntegerAlreadyWritten(_ integer: Int64) -> Bool {
            guard integer >= -1, integer <= 12 else { return false }
            let bit = UInt16(1) << UInt16(integer + 1)
            defer { sharedIntegers |= bit }
            return sharedIntegers & bit != 0
        }

        /// Whether `real` is one of CoreFoundation's constant numbers that
        /// has already been written (and marks it written otherwise).
        mutating func sharedRealAlreadyWritten(_ real: Double) -> Bool {
            let bit: UInt8
            if real.isNaN {
                bit = 1 << 4
            } else if real == .infinity {
                bit = 1 << 3
            } else if real == -.infinity {
                bit = 1 << 2
            } else if real == 1.0 {
                bit = 1 << 1
            } else if real.bitPattern == 0 {
                bit = 1 // +0.0 only: CoreFoundation compares the bit pattern.
            } else {
                return false
            }
            defer { sharedReals |= bit }
            return sharedReals & bit != 0
        }
    }

    /// The payload bytes of an int holding `value` read as unsigned.
    private static func intPayloadSize(_ value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    /// A marker with a count nibble, the extra int object when the count is
    /// 15 or more, and `count * unitBytes` payload bytes.
    private static func countedObjectSize(count: Int, unitBytes: Int) -> Int {
        let extra = count >= 15 ? 1 + intPayloadSize(UInt64(count)) : 0
        return 1 + extra + count * unitBytes
    }

    /// A string object: ASCII one byte per character, otherwise UTF-16.
    private static func stringObjectSize(_ string: String) -> Int {
        let utf8 = string.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            return countedObjectSize(count: utf8.count, unitBytes: 1)
        }
        return countedObjectSize(count: string.utf16.count, unitBytes: 2)
    }

    /// CoreFoundation's `_byteCount`: the smallest of 1, 2, 4, 8 bytes that
    /// holds `value`.
    private static func byteCount(_ value: Int) -> Int {
        intPayloadSize(UInt64(value))
    }
}
