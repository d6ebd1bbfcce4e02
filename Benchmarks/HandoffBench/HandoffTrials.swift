import Handoff
import HandoffWorld
import SimKernel

/// The result of one `handoff` run.
struct HandoffTrialsResult {
    let trials: Int
    let payload: Int
    let seconds: Double
    let events: UInt64
    let continued: Int
    var trialsPerSecond: Double { Double(trials) / seconds }
    var eventsPerTrial: Double { Double(events) / Double(trials) }
    var eventsPerSecond: Double { Double(events) / seconds }
}

/// The MonkeyBrowser handoff of the reference article, repeated: the
/// Weather tab with a `userInfo` of `payload` bytes becomes current on an
/// iPhone, an iPad 2 m away offers it, its user accepts 500 ms after the
/// offer, and the trial ends once the iPad has restored the tab and the
/// iPhone has heard `wasContinued`. Each trial is its own simulation, with
/// its own random stream (trial k of the seed).
enum HandoffTrials {
    static let bundleID = "com.xamarin.monkeybrowser"

    static func setup() throws -> HandoffSetup {
        let app = try AppDescription(
            bundleID: bundleID, teamID: TeamID("XAMARIN123"), platforms: [.iOS, .iPadOS],
            activityTypes: (1...4).map { "com.xamarin.monkeybrowser.tab\($0)" })
        let devices = [
            DeviceDescription(
                name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice@icloud.com",
                installedApps: [bundleID]),
            DeviceDescription(
                name: "ipad", kind: .iPad, osVersion: OSVersion(17, 4), account: "alice@icloud.com",
                installedApps: [bundleID], mobility: .stationary(Position(x: 2, y: 0))),
        ]
        var configuration = HandoffConfiguration()
        configuration.defaultAcceptance = .after(.milliseconds(500))
        return HandoffSetup(devices: devices, apps: [app], configuration: configuration)
    }

    static func run(trials: Int, payload: Int, seed: UInt64) throws -> HandoffTrialsResult {
        let setup = try setup()
        var content = ActivityContent(
            type: "com.xamarin.monkeybrowser.tab1", title: "Weather", userInfo: ["Url": "https://www.weather.com"])
        content.payloadSize = payload
        let limit = SimInstant(nanosecondsSinceStart: 120_000_000_000)
        let clock = ContinuousClock()
        let start = clock.now
        var events: UInt64 = 0
        var continued = 0
        let run = try HandoffRun(setup: setup, seed: seed)
        for trial in 0..<trials {
            run.reset(seed: seed, trial: trial, keepsTrace: false)
            let tab = try run.createActivity(content, on: "iphone", app: bundleID)
            try run.schedule(.becomeCurrent(tab), at: .zero)
            run.run(until: limit)
            events += run.handledEventCount
            if run.summary(of: tab, on: "ipad")?.outcome == .continued { continued += 1 }
        }
        let elapsed = start.duration(to: clock.now).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
        return HandoffTrialsResult(
            trials: trials, payload: payload, seconds: seconds, events: events, continued: continued)
    }
}
