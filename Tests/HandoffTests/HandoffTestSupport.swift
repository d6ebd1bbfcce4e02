import Handoff
import HandoffWorld
import SimKernel
import Testing

// Builders shared by the protocol tests: the MonkeyBrowser sample of the
// reference article, and small worlds around it.

/// The MonkeyBrowser sample's bundle ID.
let monkeyBrowserID = "com.xamarin.monkeybrowser"

/// The sample's four tabs: activity type, title and the URL each shows.
let monkeyTabs: [(type: String, title: String, url: String)] = [
    ("com.xamarin.monkeybrowser.tab1", "Weather", "https://www.weather.com"),
    ("com.xamarin.monkeybrowser.tab2", "Favorite", "https://www.xamarin.com"),
    ("com.xamarin.monkeybrowser.tab3", "Coffee Break", "https://www.coffee.com"),
    ("com.xamarin.monkeybrowser.tab4", "Work", "https://developer.apple.com"),
]

/// Seconds as an instant.
func at(_ seconds: Double) -> SimInstant {
    SimInstant(nanosecondsSinceStart: Int64((seconds * 1e9).rounded()))
}

/// The MonkeyBrowser app (iOS and iPadOS), declaring the four tab types.
func monkeyBrowserApp(team: String = "XAMARIN123", types: [String] = monkeyTabs.map(\.type)) throws -> AppDescription {
    try AppDescription(
        bundleID: monkeyBrowserID, teamID: TeamID(team), platforms: [.iOS, .iPadOS, .macOS], activityTypes: types)
}

/// An iPhone and an iPad two metres apart on one account, both with
/// MonkeyBrowser, plus whatever `adjust` changes.
func monkeySetup(
    apps: [AppDescription]? = nil, adjust: (inout [DeviceDescription]) -> Void = { _ in },
    configuration: HandoffConfiguration = HandoffConfiguration()
) throws -> HandoffSetup {
    var devices = [
        DeviceDescription(
            name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice@icloud.com",
            installedApps: [monkeyBrowserID], mobility: .stationary(Position(x: 0, y: 0))),
        DeviceDescription(
            name: "ipad", kind: .iPad, osVersion: OSVersion(17, 4), account: "alice@icloud.com",
            installedApps: [monkeyBrowserID], mobility: .stationary(Position(x: 2, y: 0))),
    ]
    adjust(&devices)
    return HandoffSetup(devices: devices, apps: try apps ?? [monkeyBrowserApp()], configuration: configuration)
}

/// A MonkeyBrowser tab's activity.
func tabActivity(_ tab: Int, supportsStreams: Bool = false) -> ActivityContent {
    ActivityContent(
        type: monkeyTabs[tab].type, title: monkeyTabs[tab].title, userInfo: ["Url": .string(monkeyTabs[tab].url)],
        supportsContinuationStreams: supportsStreams)
}

/// When the protocol tests' user accepts: late enough for the first
/// advertisement to have been caught at every seed they use.
let acceptTime = 5.0

/// When the fetch starts: at the accept, while the app launches.
let fetchTime = acceptTime

/// Runs one tab from the iPhone to the iPad: current at 0, accepted at
/// `acceptAt`, up to `limit`.
func runTab(
    _ tab: Int = 0, setup: HandoffSetup, seed: UInt64 = 1, acceptAt: Double = acceptTime, limit: Double = 60,
    content: ActivityContent? = nil, delegates: AppDelegateFactory? = nil,
    activityDelegate: (any UserActivityDelegate)? = nil, actions: [(Double, (ActivityID) -> HandoffAction)] = []
) throws -> (run: HandoffRun, activity: ActivityID) {
    let run = try HandoffRun(setup: setup, seed: seed, appDelegates: delegates)
    let activity = try run.createActivity(
        content ?? tabActivity(tab), on: "iphone", app: monkeyBrowserID, delegate: activityDelegate)
    try run.schedule(.becomeCurrent(activity), at: .zero)
    try run.schedule(.accept(device: "ipad"), at: at(acceptAt))
    for (time, action) in actions { try run.schedule(action(activity), at: at(time)) }
    run.run(until: at(limit))
    return (run, activity)
}

/// The callbacks (and protocol events) on `device`, in order, without
/// times: what a test compares to an expected order.
func callbackOrder(_ trace: [TraceRecord], on device: String? = nil) -> [TraceEvent.Name] {
    trace.filter { (device == nil || $0.device.name == device) && $0.app != .system }.map(\.name)
}

/// The system's own steps (resolve, Pair-Verify, the fetch's ends …) on
/// `device`, in order.
func systemSteps(_ trace: [TraceRecord], on device: String? = nil) -> [TraceEvent.Name] {
    trace.filter { (device == nil || $0.device.name == device) && $0.app == .system }.map(\.name)
}

extension TraceRecord {
    /// The name of the record's event.
    var name: TraceEvent.Name { event.name }
}

/// A restorable object that keeps how often it was restored.
final class RestorableObject: Restorable {
    let restorationIdentifier: String
    private(set) var restorations = 0

    init(_ name: String) { restorationIdentifier = name }

    func restoreUserActivityState(_ activity: ContinuedActivity, context: inout CallbackContext) {
        restorations += 1
    }
}

/// The time the source spends encoding what `send` (a send-payload record)
/// sent: its userInfo and the envelope at the default encode rate.
func encodeTime(of send: TraceRecord) -> SimDuration {
    guard case let .message(.payload(userInfoBytes, _)) = send.event else { return .zero }
    let configuration = HandoffConfiguration()
    return configuration.coding.encodeTime(bytes: userInfoBytes + configuration.envelopeBytes)
}
