import Handoff
import HandoffWorld
import SimKernel
import Testing

/// The README's example of the protocol, as written there.
@Suite("Handoff documentation example")
struct HandoffDocumentationExampleTests {
    @Test("the README's MonkeyBrowser example continues the tab on the iPad")
    func readmeExample() throws {
        let browser = try AppDescription(
            bundleID: "com.xamarin.monkeybrowser", teamID: TeamID("XAMARIN123"),
            activityTypes: ["com.xamarin.monkeybrowser.tab1"])
        let setup = HandoffSetup(
            devices: [
                DeviceDescription(name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                                  installedApps: [browser.bundleID]),
                DeviceDescription(name: "ipad", kind: .iPad, osVersion: OSVersion(17, 4), account: "alice",
                                  installedApps: [browser.bundleID], mobility: .stationary(Position(x: 2, y: 0))),
            ],
            apps: [browser])
        let run = try HandoffRun(setup: setup, seed: 42)
        let tab = try run.createActivity(
            ActivityContent(type: "com.xamarin.monkeybrowser.tab1", title: "Weather",
                            userInfo: ["Url": "https://www.weather.com"]),
            on: "iphone", app: browser.bundleID)
        try run.schedule(.becomeCurrent(tab), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: SimInstant(nanosecondsSinceStart: 5_000_000_000))
        run.run(until: SimInstant(nanosecondsSinceStart: 60_000_000_000))
        let summary = try #require(run.summary(of: tab, on: "ipad"))
        #expect(summary.outcome == .continued)
        #expect(summary.acceptToContinue != nil && summary.acceptToRestored != nil)
        #expect(run.trace.contains { $0.event == "userActivityWasContinued" })
    }
}
