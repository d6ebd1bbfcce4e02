import SimKernel

/// An iCloud account, named by its Apple Account identifier.
public struct AccountID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The account's name, e.g. `"alice@icloud.com"`.
    public let name: String

    /// The account named `name`.
    public init(_ name: String) { self.name = name }

    public init(stringLiteral value: String) { self.name = value }

    public static func < (lhs: AccountID, rhs: AccountID) -> Bool { lhs.name < rhs.name }

    public var description: String { name }
}

/// Which account a device was signed in to, over time.
///
/// The history starts with the account at time zero and records every sign
/// in and sign out in time order, so it answers "who was signed in at t?"
/// for any past instant, not only for now.
public struct AccountHistory: Hashable, Sendable {
    /// One change of the signed-in account.
    public struct Change: Hashable, Sendable {
        /// When the change took effect.
        public let instant: SimInstant
        /// The account signed in from then on; `nil` after signing out.
        public let account: AccountID?
    }

    /// Every change in time order; the first is at time zero.
    public private(set) var changes: [Change]

    /// A history that starts with `account` signed in (or none).
    public init(initial account: AccountID?) {
        changes = [Change(instant: .zero, account: account)]
    }

    /// A history that starts with `account` signed in (or none), in the
    /// storage of `old`'s changes (`old` is left without them).
    init(initial account: AccountID?, reusing old: inout AccountHistory) {
        changes = .reusing(&old.changes)
        changes.append(Change(instant: .zero, account: account))
    }

    /// The account signed in now (after the last change).
    public var current: AccountID? { changes[changes.count - 1].account }

    /// The account signed in at `instant`: the last change at or before it.
    ///
    /// - Complexity: O(log k) for k changes.
    public func account(at instant: SimInstant) -> AccountID? {
        var low = 0
        var high = changes.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if changes[middle].instant <= instant { low = middle } else { high = middle - 1 }
        }
        return changes[low].account
    }

    /// Records that `account` (or nobody) is signed in from `instant` on.
    ///
    /// - Precondition: `instant` is not before the last change (the world
    ///   records changes as simulated time moves forward).
    mutating func record(_ account: AccountID?, at instant: SimInstant) {
        precondition(instant >= changes[changes.count - 1].instant, "account changes must be recorded in time order")
        changes.append(Change(instant: instant, account: account))
    }
}

/// Which pairs of devices have exchanged keys, and under which account.
///
/// Devices on the same account exchange keys on first contact; later
/// contacts under the same account skip that round. Trust belongs to the
/// account: after either device signs in to a different account (or signs
/// out and back in to another), the pair must exchange keys again.
struct PairTrust: Sendable {
    private let deviceCount: Int
    /// The account each unordered pair last exchanged keys under, in a
    /// row-major matrix indexed by (smaller index, larger index).
    private var trustedUnder: [AccountNumber?]

    init(deviceCount: Int) {
        self.deviceCount = deviceCount
        trustedUnder = Array(repeating: nil, count: deviceCount * deviceCount)
    }

    private func slot(_ a: DeviceID, _ b: DeviceID) -> Int {
        min(a.index, b.index) * deviceCount + max(a.index, b.index)
    }

    /// The account the pair exchanged keys under, if any.
    func account(_ a: DeviceID, _ b: DeviceID) -> AccountNumber? { trustedUnder[slot(a, b)] }

    /// No exchange yet, in `old`'s storage (`old` is left without it).
    init(deviceCount: Int, reusing old: inout PairTrust) {
        self.deviceCount = deviceCount
        trustedUnder = .reusing(&old.trustedUnder, repeating: nil, count: deviceCount * deviceCount)
    }

    /// Records a completed key exchange under `account`.
    mutating func record(_ a: DeviceID, _ b: DeviceID, account: AccountNumber) {
        trustedUnder[slot(a, b)] = account
    }
}
