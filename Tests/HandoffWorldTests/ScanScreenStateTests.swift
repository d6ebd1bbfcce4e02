import HandoffWorld
import SimKernel
import Testing

/// The receiver's scan rate follows its screen.
@Suite("Scanning by screen state")
struct ScanScreenStateTests {
    /// The fraction of 1 ms instants over 30 s at which `device` scans.
    func dutyCycle(of world: borrowing World, _ device: DeviceID) -> Double {
        var scanning = 0
        let samples = 30_000
        for millisecond in 0..<samples
        where world.isScanning(device, at: SimInstant(nanosecondsSinceStart: Int64(millisecond) * 1_000_000)) {
            scanning += 1
        }
        return Double(scanning) / Double(samples)
    }

    // WirelessProximity: scan requests carry a screen-on and a screen-off
    // interval; the screen state picks the rate.
    @Test("the duty cycle is window/interval with the screen on, window/screen-off interval with it off or locked",
          arguments: [ScreenState.on, .off, .locked])
    func dutyCycleFollowsScreen(screen: ScreenState) throws {
        let phone = DeviceDescription(name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice")
        var world = try World(devices: [phone], stream: RandomStreamKey(seed: 1))
        world.setSettings(DeviceSettings(screen: screen), of: DeviceID(0))
        let scanning = WorldConfiguration.defaultScanning
        let interval = screen == .on ? scanning.interval : scanning.screenOffInterval
        let expected = Double(scanning.window.nanoseconds) / Double(interval.nanoseconds)
        // 30 s is a whole number of both periods: the fraction is exact to the sampling step.
        #expect(abs(dutyCycle(of: world, DeviceID(0)) - expected) < 0.001)
        #expect(scanning.screenOffInterval > scanning.interval)
    }

    @Test("a screen-off interval shorter than the window is refused, naming it")
    func invalidScreenOffInterval() {
        #expect(throws: WorldError.self) {
            try ScanParameters(window: .milliseconds(30), interval: .milliseconds(300), screenOffInterval: .milliseconds(10))
        }
    }
}
