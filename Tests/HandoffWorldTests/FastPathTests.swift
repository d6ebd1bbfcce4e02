@testable import HandoffWorld
import SimKernel
import Testing

/// The world's per-event shortcuts give exactly the answers of the public
/// definitions they stand in for.
@Suite("World fast paths")
struct FastPathTests {
    @Test("serialisation times by reciprocal equal the exact division, for every rate and packet size")
    func serialisation() throws {
        let rates: [Int64] = [1, 999, 1_000_000, 2_000_000, 54_000_000, 866_700_000, 1_000_000_000, 9_999_999_967]
        for rate in rates {
            let bandwidth = try Bandwidth(bitsPerSecond: rate)
            let times = SerialisationTimes(bandwidth)
            let sizes = Array(0...2_000) + [9_000, 65_535, 1 << 20, 1 << 30 - 1, 1 << 30, 1 << 31, 1 << 40]
            // Only sizes whose time fits in 64 bits at this rate.
            for bytes in sizes where Double(bytes) * 8e9 / Double(rate) < 0x1p62 {
                #expect(
                    times.nanoseconds(bytes: bytes) == bandwidth.serialisationNanoseconds(bytes: bytes),
                    "\(bytes) bytes at \(rate) bit/s")
            }
        }
    }

    @Test("the scan schedule agrees with ScanParameters.isScanning, before and after the phase")
    func scanning() throws {
        let schedules = [
            try ScanParameters(window: .milliseconds(30), interval: .milliseconds(300)),
            try ScanParameters(window: .milliseconds(11_250), interval: .milliseconds(11_250)),
            try ScanParameters(window: .nanoseconds(1), interval: .nanoseconds(3)),
        ]
        var generator = Xoshiro256StarStar(seed: 11)
        for parameters in schedules {
            let schedule = ScanSchedule(parameters)
            let interval = UInt64(parameters.interval.nanoseconds)
            for _ in 0..<20_000 {
                let phase = Int64(generator.uniform(below: interval))
                // Times from a little before zero to well past many intervals.
                let time = Int64(generator.uniform(below: 40 * interval)) - Int64(interval)
                let expected = parameters.isScanning(
                    at: SimInstant(nanosecondsSinceStart: time), phase: .nanoseconds(phase))
                #expect(schedule.isScanning(at: time, phase: phase) == expected, "t=\(time) phase=\(phase)")
            }
            // The edges of a window, exactly.
            for phase: Int64 in [0, 1, Int64(interval) - 1] {
                for time in [phase, phase + parameters.window.nanoseconds - 1, phase + parameters.window.nanoseconds,
                             phase - 1, phase - Int64(interval), phase + Int64(interval)] {
                    let expected = parameters.isScanning(
                        at: SimInstant(nanosecondsSinceStart: time), phase: .nanoseconds(phase))
                    #expect(schedule.isScanning(at: time, phase: phase) == expected, "t=\(time) phase=\(phase)")
                }
            }
        }
    }

    @Test("fixed distances hold for stationary pairs only")
    func fixedDistances() {
        let mobilities: [Mobility] = [
            .stationary(Position(x: 0, y: 0)),
            .stationary(Position(x: 3, y: 4)),
            .waypoints(try! WaypointPath(start: Position(x: 0, y: 0), waypoints: [.init(Position(x: 9, y: 0), speed: 1)])),
        ]
        let distances = DeviceTable.fixedDistances(mobilities)
        #expect(distances.count == 9)
        #expect(distances[0 * 3 + 1] == 5 && distances[1 * 3 + 0] == 5)
        #expect(distances[0] == 0 && distances[4] == 0)
        #expect(distances[0 * 3 + 2] == -1 && distances[2 * 3 + 1] == -1 && distances[8] == -1)
    }

    @Test("accounts are interned to small numbers: equal accounts, equal numbers, in the world and on sign-in; values are unchanged")
    func accountsAreInterned() throws {
        // Built at run time, so that each is its own heap string: equality
        // of numbers must not depend on strings sharing storage.
        func separate(_ name: String) -> AccountID { AccountID(String(decoding: Array(name.utf8), as: UTF8.self)) }
        let accounts: [AccountID?] = [separate("alice@icloud.com"), nil, separate("bob@icloud.example"),
                                      separate("alice@icloud.com")]
        let devices = accounts.enumerated().map { index, account in
            DeviceDescription(name: "d\(index)", kind: .iPhone, osVersion: OSVersion(17, 4), account: account)
        }
        var world = try World(devices: devices, stream: RandomStreamKey(seed: 1))
        let numbers = (0..<4).map { world.deviceTable.account(of: DeviceID($0)) }
        #expect(numbers[0] != nil && numbers[0] == numbers[3])
        #expect(numbers[2] != nil && numbers[2] != numbers[0])
        #expect(numbers[1] == nil)
        let names = numbers.map { $0.map { world.deviceTable.accountName($0) } }
        #expect(names == accounts)
        let shareAlice = world.deviceTable.shareAccount(DeviceID(0), DeviceID(3))
        let shareBob = world.deviceTable.shareAccount(DeviceID(0), DeviceID(2))
        let shareNobody = world.deviceTable.shareAccount(DeviceID(1), DeviceID(1))
        #expect(shareAlice && !shareBob && !shareNobody)

        // Signing in to a known account joins its number; a new account gets a new one.
        world.setAccount(separate("alice@icloud.com"), of: DeviceID(1), at: .zero)
        let signedIn = world.account(of: DeviceID(1))
        #expect(signedIn == accounts[0])
        let joined = world.deviceTable.account(of: DeviceID(1))
        #expect(joined == numbers[0])
        world.setAccount(separate("carol@icloud.com"), of: DeviceID(2), at: .zero)
        let carol = world.deviceTable.account(of: DeviceID(2))
        #expect(carol != nil && !numbers.contains(carol))
        let trusted = world.isTrusted(DeviceID(0), DeviceID(1))
        #expect(trusted == false)

        // A reset forgets the sign-ins and numbers accounts as at the start.
        world.reset(stream: RandomStreamKey(seed: 1))
        let afterReset = (0..<4).map { world.deviceTable.account(of: DeviceID($0)) }
        #expect(afterReset == numbers)
        let historyLength = world.accountHistory(of: DeviceID(2)).changes.count
        #expect(historyLength == 1)
    }
}
