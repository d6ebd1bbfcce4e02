import SimKernel

/// An account interned as a small number: equal accounts, equal numbers.
///
/// Numbers are given in order of first appearance (the devices' accounts at
/// time zero, in device order, then accounts first signed in to during a
/// run), so they are the same in every trial of a setup.
package struct AccountNumber: Hashable, Sendable {
    /// The number.
    package let value: Int32
}

/// Every device of a world and its state now: how it was described, its
/// switches, the account signed in (with its history), its internet access
/// and how it moves. The world owns the only copy; the layers above read it
/// through the world.
///
/// Where devices are is read here too: ``distance(between:and:at:)``, for
/// advertising's reception and the links' loss by distance alike.
///
/// - Invariant: a device's ``account(of:)`` is the number of the current
///   account of its ``accountHistory(of:)``.
package struct DeviceTable: Sendable {
    /// One device's row: how it was described (fixed for a run) and its
    /// state now (``DeviceState``, rebuilt at a reset).
    struct Row: Sendable {
        let description: DeviceDescription
        let initialAccount: AccountNumber?
        var now: DeviceState
    }

    /// What changes about a device during a trial.
    struct DeviceState: Sendable {
        var settings: DeviceSettings
        var account: AccountNumber?
        var history: AccountHistory

        /// The device as described, at time zero.
        init(_ description: DeviceDescription, account: AccountNumber?) {
            settings = description.settings
            self.account = account
            history = AccountHistory(initial: description.account)
        }

        /// The device at time zero with `settings` and `account` (whose
        /// name is `accountName`), in the storage of `old`'s account
        /// history (`old` is left without it).
        init(
            settings: DeviceSettings, account: AccountNumber?, named accountName: AccountID?,
            reusing old: inout DeviceState
        ) {
            self.settings = settings
            self.account = account
            history = AccountHistory(initial: accountName, reusing: &old.history)
        }
    }

    private(set) var rows: [Row]
    /// The interned accounts: number `n` is `accountNames[n]`. The first
    /// ``initialAccountCount`` come from the setup; later ones from sign-ins
    /// during a run, forgotten at a reset.
    private var accountNames: [AccountID]
    private let initialAccountCount: Int
    /// The device numbers by name, for worlds of many devices.
    private let indexByName: [String: Int]
    /// Whether any setting changed since the table was made or reset.
    private(set) var settingsChanged = false
    /// Per ordered device pair: the distance between two devices that both
    /// stay put, or −1 if either moves. Saves a square root per packet.
    private let fixedDistances: [Double]

    /// The table of `devices`, in order.
    init(_ devices: [DeviceDescription]) {
        var names: [AccountID] = []
        var rows: [Row] = []
        rows.reserveCapacity(devices.count)
        for device in devices {
            let account = device.account.map { Self.intern($0, into: &names) }
            rows.append(Row(description: device, initialAccount: account, now: DeviceState(device, account: account)))
        }
        self.rows = rows
        accountNames = names
        initialAccountCount = names.count
        var indexByName: [String: Int] = [:]
        for (index, device) in devices.enumerated() { indexByName[device.name] = index }
        self.indexByName = indexByName
        fixedDistances = Self.fixedDistances(devices.map(\.mobility))
    }

    /// ``fixedDistances`` for the given mobilities.
    static func fixedDistances(_ mobilities: [Mobility]) -> [Double] {
        var distances: [Double] = []
        distances.reserveCapacity(mobilities.count * mobilities.count)
        for a in mobilities {
            for b in mobilities {
                if case let .stationary(p) = a, case let .stationary(q) = b {
                    distances.append(p.distance(to: q))
                } else {
                    distances.append(-1)
                }
            }
        }
        return distances
    }

    /// The number of `account`, interning it if it is new.
    private static func intern(_ account: AccountID, into names: inout [AccountID]) -> AccountNumber {
        if let known = names.firstIndex(of: account) { return AccountNumber(value: Int32(known)) }
        names.append(account)
        return AccountNumber(value: Int32(names.count - 1))
    }

    /// Every device back as it was at time zero: each row's state rebuilt
    /// from its description, and the accounts first signed in to during
    /// the trial forgotten.
    ///
    /// - Complexity: O(devices).
    mutating func reset() {
        if accountNames.count > initialAccountCount { accountNames.removeLast(accountNames.count - initialAccountCount) }
        for index in rows.indices {
            let settings = rows[index].description.settings
            let accountName = rows[index].description.account
            rows[index].now = DeviceState(
                settings: settings, account: rows[index].initialAccount, named: accountName, reusing: &rows[index].now)
        }
        settingsChanged = false
    }

    // MARK: Reading

    /// The number of devices.
    package var count: Int { rows.count }

    /// The device named `name`, if there is one.
    ///
    /// - Complexity: O(1) on average; a scan for a few devices.
    package func device(named name: String) -> DeviceID? {
        if rows.count <= 8 { return rows.firstIndex { $0.description.name == name }.map(DeviceID.init) }
        return indexByName[name].map(DeviceID.init)
    }

    /// The device's name.
    package func name(of device: DeviceID) -> String { rows[device.index].description.name }

    /// The device's platform.
    package func platform(of device: DeviceID) -> Platform { rows[device.index].description.kind.platform }

    /// How the device was described.
    package func description(of device: DeviceID) -> DeviceDescription { rows[device.index].description }

    /// The device's switches now.
    package func settings(of device: DeviceID) -> DeviceSettings { rows[device.index].now.settings }

    /// The number of the account signed in on the device now, if any.
    package func account(of device: DeviceID) -> AccountNumber? { rows[device.index].now.account }

    /// The account with number `number`.
    package func accountName(_ number: AccountNumber) -> AccountID { accountNames[Int(number.value)] }

    /// Every account change of the device.
    package func accountHistory(of device: DeviceID) -> AccountHistory { rows[device.index].now.history }

    /// Whether both devices are signed in, to the same account.
    package func shareAccount(_ a: DeviceID, _ b: DeviceID) -> Bool {
        guard let account = rows[a.index].now.account else { return false }
        return rows[b.index].now.account == account
    }

    /// The device's internet access.
    func internetAccess(of device: Int) -> InternetAccess { rows[device].description.internetAccess }

    /// Whether `a` and `b` are on the same infrastructure Wi-Fi network.
    func shareWiFiNetwork(_ a: DeviceID, _ b: DeviceID) -> Bool {
        guard let network = rows[a.index].description.wifiNetwork else { return false }
        return rows[b.index].description.wifiNetwork == network
    }

    /// How the device moves.
    func mobility(of device: Int) -> Mobility { rows[device].description.mobility }

    /// The distance between devices `a` and `b` at `time` (nanoseconds), in
    /// metres: for a pair that stays put, the one worked out when the table
    /// was made.
    ///
    /// - Complexity: O(1) for a pair that stays put; otherwise as
    ///   ``Mobility/position(at:)`` for each device.
    @inline(__always)
    func distance(between a: Int, and b: Int, at time: Int64) -> Double {
        let fixed = fixedDistances[a * rows.count + b]
        if fixed >= 0 { return fixed }
        let instant = SimInstant(nanosecondsSinceStart: time)
        return mobility(of: a).position(at: instant).distance(to: mobility(of: b).position(at: instant))
    }

    // MARK: Changing

    /// Changes the device's switches.
    mutating func setSettings(_ settings: DeviceSettings, of device: DeviceID) {
        rows[device.index].now.settings = settings
        settingsChanged = true
    }

    /// Signs the device in to `account` (or out, for `nil`) at `instant`.
    ///
    /// - Precondition: `instant` is not before the device's last change.
    mutating func setAccount(_ account: AccountID?, of device: DeviceID, at instant: SimInstant) {
        rows[device.index].now.history.record(account, at: instant)
        rows[device.index].now.account = account.map { Self.intern($0, into: &accountNames) }
    }
}
