import SimKernel

/// The kind of an Apple device, which fixes its platform.
public enum DeviceKind: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case iPhone
    case iPad
    case mac
    case watch
    case visionPro

    /// The operating system family the device runs.
    public var platform: Platform {
        switch self {
        case .iPhone: return .iOS
        case .iPad: return .iPadOS
        case .mac: return .macOS
        case .watch: return .watchOS
        case .visionPro: return .visionOS
        }
    }

    public var description: String { rawValue }

    /// The first OS version of this kind whose kernel starts a handshake
    /// over AWDL from a 100 ms timeout (`tcp_awdl_rtobase`, added in
    /// xnu-10002.41.9, absent in xnu-10002.1.13): macOS 14.1, iOS and
    /// iPadOS 17.1, watchOS 10.1, visionOS 1.0.
    ///
    /// The kernel tags carry no OS version: macOS 14.1 is the release
    /// Apple's open-source listing gives xnu-10002.41.9 under; the other
    /// platforms' versions are an inference (the same kernel release across
    /// the year's platforms).
    public var firstOSWithPeerToPeerRetransmissionBase: OSVersion {
        switch self {
        case .iPhone, .iPad: return OSVersion(17, 1)
        case .mac: return OSVersion(14, 1)
        case .watch: return OSVersion(10, 1)
        case .visionPro: return OSVersion(1, 0)
        }
    }

    /// The OS version a device of this kind runs when a scenario does not
    /// say: iOS and iPadOS 17.4, macOS 14.4, watchOS 10.4, visionOS 1.1.
    ///
    /// An assumption: recent releases from before the behaviours that
    /// depend on the version (a locked iPhone on iOS 18.3 or later sends no
    /// Handoff advertisement), so scenarios written without `os` keep the
    /// long-standing behaviour.
    public var defaultOSVersion: OSVersion {
        switch self {
        case .iPhone, .iPad: return OSVersion(17, 4)
        case .mac: return OSVersion(14, 4)
        case .watch: return OSVersion(10, 4)
        case .visionPro: return OSVersion(1, 1)
        }
    }
}

/// An operating system family.
public enum Platform: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case iOS
    case iPadOS
    case macOS
    case watchOS
    case visionOS

    public var description: String { rawValue }
}

/// An operating system version such as `17.4` or `14.2.1`.
///
/// Versions compare component by component; missing components count as 0,
/// so `17` equals `17.0.0`.
public struct OSVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The major version.
    public let major: Int
    /// The minor version.
    public let minor: Int
    /// The patch version.
    public let patch: Int

    /// Creates a version from its components.
    public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `major[.minor[.patch]]`, each component a non-negative decimal
    /// number.
    ///
    /// - Throws: ``WorldError/malformedOSVersion(_:)`` for anything else.
    public init(parsing text: String) throws(WorldError) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { throw .malformedOSVersion(text) }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 6, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(part)
            else { throw .malformedOSVersion(text) }
            numbers.append(number)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.init(numbers[0], numbers[1], numbers[2])
    }

    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public var description: String {
        patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
    }
}

/// The user-facing switches of a device that the world models.
public struct DeviceSettings: Hashable, Sendable {
    /// Settings > General > AirPlay & Handoff > Handoff (System Settings on a
    /// Mac).
    public var handoffEnabled: Bool
    /// The Bluetooth radio. Off means no advertising, no scanning and no BLE
    /// link.
    public var bluetoothEnabled: Bool
    /// The Wi-Fi radio. Off means no Wi-Fi peer-to-peer link, and no internet
    /// link when the device reaches the internet over Wi-Fi.
    public var wifiEnabled: Bool
    /// The screen: on, off (dimmed), or locked.
    public var screen: ScreenState
    /// Low Power Mode: no activity is advertised while it is on.
    public var lowPowerMode: Bool
    /// Whether the system has gone idle (no user activity).
    public var idle: Bool

    /// Creates settings; everything is on by default, as on a new device in
    /// use: the screen on and unlocked, Low Power Mode off, not idle.
    public init(
        handoffEnabled: Bool = true, bluetoothEnabled: Bool = true, wifiEnabled: Bool = true, screen: ScreenState = .on,
        lowPowerMode: Bool = false, idle: Bool = false
    ) {
        self.handoffEnabled = handoffEnabled
        self.bluetoothEnabled = bluetoothEnabled
        self.wifiEnabled = wifiEnabled
        self.screen = screen
        self.lowPowerMode = lowPowerMode
        self.idle = idle
    }
}

/// A device's screen.
public enum ScreenState: String, CaseIterable, Hashable, Sendable {
    /// On and unlocked: the device is in use.
    case on
    /// Off (dimmed), not locked.
    case off
    /// Locked (and off).
    case locked
}

/// How a device reaches the internet, which decides whether switching Wi-Fi
/// off also cuts its internet link.
public enum InternetAccess: String, CaseIterable, Hashable, Sendable {
    /// Through Wi-Fi: the internet link is up only while Wi-Fi is on.
    case wifi
    /// Through a cellular modem: independent of the Wi-Fi switch.
    case cellular
    /// Through a cable: independent of the Wi-Fi switch.
    case wired
    /// No internet at all: the cloud relay path is never available.
    case none
}

/// Everything needed to place one device in a world.
///
/// ```swift
/// let phone = DeviceDescription(
///     name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4),
///     account: AccountID("alice@icloud.com"),
///     mobility: .stationary(Position(x: 0, y: 0)),
///     internet: .lte, internetAccess: .cellular)
/// ```
public struct DeviceDescription: Sendable {
    /// The device's name, unique within a world (e.g. `"iphone"`).
    public var name: String
    /// What kind of device it is.
    public var kind: DeviceKind
    /// The OS version it runs.
    public var osVersion: OSVersion
    /// The iCloud account signed in at the start, if any.
    public var account: AccountID?
    /// Its switches at the start.
    public var settings: DeviceSettings
    /// Bundle identifiers of the apps installed on it. The world only keeps
    /// the list; the Handoff layer gives the identifiers their meaning.
    public var installedApps: [String]
    /// Where it is over time.
    public var mobility: Mobility
    /// The profile of its internet link (uplink and downlink).
    public var internet: NetworkProfile
    /// How it reaches the internet.
    public var internetAccess: InternetAccess
    /// The infrastructure Wi-Fi network it is joined to, by name (`nil`:
    /// none). Two devices on the same network reach each other through it
    /// (``PathKind/localNetwork``) while both have Wi-Fi on.
    public var wifiNetwork: String?

    /// Creates a device description.
    public init(
        name: String, kind: DeviceKind, osVersion: OSVersion, account: AccountID?,
        settings: DeviceSettings = DeviceSettings(), installedApps: [String] = [],
        mobility: Mobility = .stationary(.origin), internet: NetworkProfile = .wifi,
        internetAccess: InternetAccess = .wifi, wifiNetwork: String? = nil
    ) {
        self.name = name
        self.kind = kind
        self.osVersion = osVersion
        self.account = account
        self.settings = settings
        self.installedApps = installedApps
        self.mobility = mobility
        self.internet = internet
        self.internetAccess = internetAccess
        self.wifiNetwork = wifiNetwork
    }
}

/// A device in a world, named by its position in the world's device list.
///
/// Identifiers are dense indices, so per-device state lives in arrays and
/// iterating devices always goes in the order they were described.
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The index in the world's device list.
    public let index: Int

    /// The device at `index` of the world's device list.
    public init(_ index: Int) { self.index = index }

    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.index < rhs.index }

    public var description: String { "device #\(index)" }
}
