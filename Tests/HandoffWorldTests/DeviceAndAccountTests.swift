import HandoffWorld
import SimKernel
import Testing

// Devices, OS versions, accounts over time, and the named network profiles
// with their published numbers.

private func device(_ name: String, kind: DeviceKind = .iPhone, account: AccountID? = "alice") -> DeviceDescription {
    DeviceDescription(name: name, kind: kind, osVersion: OSVersion(17, 4), account: account)
}

private func at(_ seconds: Int64, nanoseconds: Int64 = 0) -> SimInstant {
    SimInstant(nanosecondsSinceStart: seconds * 1_000_000_000 + nanoseconds)
}

/// The `name` of an ``WorldError/invalidParameter(name:value:expected:)``.
private func parameterName(_ error: WorldError?) -> String? {
    guard case let .invalidParameter(name, _, _)? = error else { return nil }
    return name
}

@Suite("Devices, OS versions, accounts and network profiles")
struct DeviceAndAccountTests {
    // MARK: OS versions

    struct VersionCase: Sendable, CustomTestStringConvertible {
        let text: String
        let version: OSVersion
        let description: String
        var testDescription: String { "\"\(text)\"" }
    }

    @Test("major[.minor[.patch]] parses, missing components are 0, and the description drops a zero patch",
          arguments: [
              VersionCase(text: "17", version: OSVersion(17, 0, 0), description: "17.0"),
              VersionCase(text: "17.4", version: OSVersion(17, 4, 0), description: "17.4"),
              VersionCase(text: "14.2.1", version: OSVersion(14, 2, 1), description: "14.2.1"),
              VersionCase(text: "17.4.0", version: OSVersion(17, 4), description: "17.4"),
              VersionCase(text: "0", version: OSVersion(0), description: "0.0"),
              VersionCase(text: "010.02", version: OSVersion(10, 2), description: "10.2"),
              VersionCase(text: "999999.0.1", version: OSVersion(999_999, 0, 1), description: "999999.0.1"),
          ])
    func osVersionParses(_ example: VersionCase) throws {
        let parsed = try OSVersion(parsing: example.text)
        #expect(parsed == example.version)
        #expect(parsed.major == example.version.major)
        #expect(parsed.minor == example.version.minor)
        #expect(parsed.patch == example.version.patch)
        #expect(parsed.description == example.description)
        // The description parses back to the same version.
        #expect(try OSVersion(parsing: parsed.description) == parsed)
    }

    @Test("anything but one to three dot-separated decimal numbers throws malformedOSVersion",
          arguments: [
              "", "17.", ".4", "17..4", "a.b", "1.2.3.4", "-1", "+1", "17.-4", " 17", "17.4 ", "1e3", "17,4",
              "1234567", "١٧", "17.4.", "0x11",
          ])
    func osVersionRejectsMalformedText(text: String) {
        #expect(throws: WorldError.malformedOSVersion(text)) { try OSVersion(parsing: text) }
    }

    @Test("the malformedOSVersion message quotes the text and shows the expected form")
    func malformedOSVersionDescription() {
        let description = WorldError.malformedOSVersion("a.b").description
        #expect(description.contains("\"a.b\""))
        #expect(description.contains("major[.minor[.patch]]"))
    }

    @Test("versions compare component by component, numerically, with missing components as 0")
    func osVersionComparison() throws {
        #expect(try OSVersion(parsing: "17") == OSVersion(parsing: "17.0.0"))
        #expect(try OSVersion(parsing: "17.4") < OSVersion(parsing: "17.10"), "numeric, not lexical")
        #expect(try OSVersion(parsing: "9.9.9") < OSVersion(parsing: "10"))
        #expect(try OSVersion(parsing: "14.2") < OSVersion(parsing: "14.2.1"))
        #expect(try OSVersion(parsing: "14.2.1") < OSVersion(parsing: "14.3"))
        #expect(!(OSVersion(17, 4) < OSVersion(17, 4)))
        let shuffled = ["17.4", "14.2.1", "17", "10.15.7", "17.0.1", "9"]
        let sorted = try shuffled.map { try OSVersion(parsing: $0) }.sorted().map(\.description)
        #expect(sorted == ["9.0", "10.15.7", "14.2.1", "17.0", "17.0.1", "17.4"])
    }

    // MARK: Devices

    @Test("each device kind runs its own platform",
          arguments: [
              (DeviceKind.iPhone, Platform.iOS), (.iPad, .iPadOS), (.mac, .macOS), (.watch, .watchOS),
              (.visionPro, .visionOS),
          ])
    func deviceKindPlatform(kind: DeviceKind, platform: Platform) {
        #expect(kind.platform == platform)
    }

    @Test("the platform mapping covers every kind and is one-to-one")
    func platformMappingIsOneToOne() {
        let platforms = DeviceKind.allCases.map(\.platform)
        #expect(DeviceKind.allCases.count == 5)
        #expect(Set(platforms) == Set(Platform.allCases))
        #expect(Set(platforms).count == platforms.count)
    }

    @Test("a world rejects two devices with one name")
    func duplicateDeviceNameIsRejected() {
        #expect(throws: WorldError.duplicateDeviceName("mac")) {
            _ = try World(
                devices: [device("mac", kind: .mac), device("iphone"), device("mac", kind: .mac)],
                stream: RandomStreamKey(seed: 1))
        }
        #expect(WorldError.duplicateDeviceName("mac").description.contains("\"mac\""))
    }

    @Test("devices are found by name and numbered in the order they were described")
    func devicesByName() throws {
        let world = try World(
            devices: [device("mac", kind: .mac), device("iphone"), device("watch", kind: .watch)],
            stream: RandomStreamKey(seed: 1))
        #expect(world.deviceCount == 3)
        #expect(world.devices == [DeviceID(0), DeviceID(1), DeviceID(2)])
        #expect(world.device(named: "mac") == DeviceID(0))
        #expect(world.device(named: "iphone") == DeviceID(1))
        #expect(world.device(named: "watch") == DeviceID(2))
        #expect(world.device(named: "ipad") == nil)
        #expect(world.device(named: "") == nil)
        #expect(world.description(of: DeviceID(2)).kind == .watch)
        #expect(world.description(of: DeviceID(1)).name == "iphone")
    }

    // MARK: Accounts

    @Test("an account history answers who was signed in before, at and after each change")
    func accountHistoryOverTime() throws {
        var world = try World(
            devices: [device("mac", kind: .mac, account: "alice"), device("iphone", account: nil)],
            stream: RandomStreamKey(seed: 1))
        let mac = DeviceID(0)
        let phone = DeviceID(1)
        #expect(world.account(of: mac) == "alice")
        #expect(world.account(of: phone) == nil)

        world.setAccount(nil, of: mac, at: at(5))        // sign out
        world.setAccount("bob", of: mac, at: at(10))     // sign in to another
        world.setAccount("alice", of: phone, at: at(2))  // sign in

        #expect(world.account(of: mac, at: .zero) == "alice")
        #expect(world.account(of: mac, at: at(4, nanoseconds: 999_999_999)) == "alice")
        #expect(world.account(of: mac, at: at(5)) == nil)
        #expect(world.account(of: mac, at: at(7)) == nil)
        #expect(world.account(of: mac, at: at(9, nanoseconds: 999_999_999)) == nil)
        #expect(world.account(of: mac, at: at(10)) == "bob")
        #expect(world.account(of: mac, at: at(3600)) == "bob")
        #expect(world.account(of: mac) == "bob")

        #expect(world.account(of: phone, at: at(1)) == nil)
        #expect(world.account(of: phone, at: at(2)) == "alice")
        #expect(world.account(of: phone) == "alice")

        let history = world.accountHistory(of: mac)
        #expect(history.changes.map(\.instant) == [.zero, at(5), at(10)])
        #expect(history.changes.map(\.account) == ["alice", nil, "bob"])
        #expect(history.current == "bob")
        // The description keeps the account the device started with.
        #expect(world.description(of: mac).account == "alice")
    }

    @Test("of several changes at one instant, the last one holds from that instant")
    func lastChangeAtAnInstantWins() throws {
        var world = try World(devices: [device("mac", kind: .mac)], stream: RandomStreamKey(seed: 1))
        let mac = DeviceID(0)
        world.setAccount(nil, of: mac, at: at(3))
        world.setAccount("carol", of: mac, at: at(3))
        #expect(world.account(of: mac, at: at(3)) == "carol")
        #expect(world.account(of: mac, at: at(2)) == "alice")
        #expect(world.account(of: mac) == "carol")
    }

    @Test("a fresh history has one change at time zero")
    func freshHistory() {
        let history = AccountHistory(initial: "dave")
        #expect(history.changes.count == 1)
        #expect(history.changes.first?.instant == .zero)
        #expect(history.current == "dave")
        #expect(history.account(at: at(100)) == "dave")
        #expect(AccountHistory(initial: nil).current == nil)
        #expect(AccountID("x@icloud.com").description == "x@icloud.com")
    }

    // MARK: Network profiles

    @Test("Network Link Conditioner's published profiles carry its numbers")
    func publishedProfiles() throws {
        func check(
            _ profile: NetworkProfile, downBits: Int64?, upBits: Int64?, downMilliseconds: Int64,
            upMilliseconds: Int64, loss: LossModel
        ) {
            #expect(profile.downlink.bandwidth?.bitsPerSecond == downBits, "\(profile.name) downlink rate")
            #expect(profile.uplink.bandwidth?.bitsPerSecond == upBits, "\(profile.name) uplink rate")
            #expect(profile.downlink.latency == .milliseconds(downMilliseconds), "\(profile.name) downlink delay")
            #expect(profile.uplink.latency == .milliseconds(upMilliseconds), "\(profile.name) uplink delay")
            #expect(profile.downlink.loss == loss, "\(profile.name) downlink loss")
            #expect(profile.uplink.loss == loss, "\(profile.name) uplink loss")
            #expect(profile.downlink.jitter == .zero)
            #expect(profile.uplink.jitter == .zero)
        }
        let veryBad = try NetworkProfile.named("Very Bad Network")
        #expect(veryBad.name == "Very Bad Network")
        check(
            veryBad, downBits: 1_000_000, upBits: 1_000_000, downMilliseconds: 500, upMilliseconds: 500,
            loss: .bernoulli(0.10))
        let edge = try NetworkProfile.named("Edge")
        check(edge, downBits: 240_000, upBits: 200_000, downMilliseconds: 400, upMilliseconds: 440, loss: .none)
        let threeG = try NetworkProfile.named("3G")
        check(threeG, downBits: 780_000, upBits: 330_000, downMilliseconds: 100, upMilliseconds: 100, loss: .none)
        let hundredPercent = try NetworkProfile.named("100% Loss")
        #expect(hundredPercent.downlink.loss == .bernoulli(1))
        #expect(hundredPercent.uplink.loss == .bernoulli(1))
        #expect(hundredPercent == NetworkProfile.hundredPercentLoss)
        #expect(edge == NetworkProfile.edge)
        #expect(threeG == NetworkProfile.threeG)
        #expect(veryBad == NetworkProfile.veryBadNetwork)
    }

    @Test("every built-in profile is found by its own name, and every one is valid",
          arguments: NetworkProfile.builtIn)
    func builtInProfilesByName(profile: NetworkProfile) throws {
        #expect(try NetworkProfile.named(profile.name) == profile)
        #expect(profile.description == profile.name)
        try profile.downlink.validate()
        try profile.uplink.validate()
    }

    @Test("the built-in names are unique and include the published ones")
    func builtInNames() {
        let names = NetworkProfile.builtIn.map(\.name)
        #expect(Set(names).count == names.count)
        for published in ["Very Bad Network", "Edge", "3G", "100% Loss"] {
            #expect(names.contains(published))
        }
    }

    @Test("an unknown profile name throws unknownProfile listing every known name",
          arguments: ["edge", "Edge ", "", "5G", "Very Bad"])
    func unknownProfile(name: String) {
        let known = NetworkProfile.builtIn.map(\.name)
        #expect(throws: WorldError.unknownProfile(name: name, known: known)) { try NetworkProfile.named(name) }
        let description = WorldError.unknownProfile(name: name, known: known).description
        #expect(description.contains("\"\(name)\""))
        for knownName in known { #expect(description.contains(knownName)) }
    }

    struct InvalidLinkCase: Sendable, CustomTestStringConvertible {
        let setting: String
        let parameters: LinkParameters
        var testDescription: String { setting }
    }

    static let invalidLinks: [InvalidLinkCase] = [
        InvalidLinkCase(setting: "mtu", parameters: LinkParameters(latency: .zero, mtu: 40, headerBytes: 40)),
        InvalidLinkCase(setting: "mtu", parameters: LinkParameters(latency: .zero, mtu: 10, headerBytes: 40)),
        InvalidLinkCase(setting: "latency", parameters: LinkParameters(latency: .milliseconds(-1))),
        InvalidLinkCase(setting: "jitter", parameters: LinkParameters(latency: .zero, jitter: .nanoseconds(-1))),
        InvalidLinkCase(setting: "loss", parameters: LinkParameters(latency: .zero, loss: .bernoulli(1.5))),
        InvalidLinkCase(setting: "loss", parameters: LinkParameters(latency: .zero, loss: .bernoulli(-0.1))),
        InvalidLinkCase(setting: "loss", parameters: LinkParameters(latency: .zero, loss: .bernoulli(.nan))),
        InvalidLinkCase(setting: "queueLimit", parameters: LinkParameters(latency: .zero, queueLimit: -1)),
        InvalidLinkCase(setting: "headerBytes", parameters: LinkParameters(latency: .zero, headerBytes: -1)),
    ]

    @Test("invalid link parameters throw invalidParameter naming the setting, wherever they are given",
          arguments: invalidLinks)
    func invalidLinkParameters(_ example: InvalidLinkCase) throws {
        var thrown: WorldError?
        do throws(WorldError) { try example.parameters.validate() } catch { thrown = error }
        #expect(parameterName(thrown) == example.setting)
        #expect(thrown?.description.hasPrefix(example.setting + ":") == true)

        // Through a world: setting a link's parameters leaves the old ones.
        var world = try World(devices: [device("mac", kind: .mac), device("iphone")], stream: RandomStreamKey(seed: 1))
        let link = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        let before = world.parameters(of: link)
        var fromWorld: WorldError?
        do throws(WorldError) { try world.setParameters(example.parameters, of: link) } catch { fromWorld = error }
        #expect(fromWorld == thrown)
        #expect(world.parameters(of: link) == before)

        // Through a device's internet profile, and through the configuration.
        var phone = device("iphone")
        phone.internet = NetworkProfile(
            name: "broken", downlink: example.parameters, uplink: NetworkProfile.wifi.uplink)
        var fromProfile: WorldError?
        do throws(WorldError) {
            _ = try World(devices: [phone], stream: RandomStreamKey(seed: 1))
        } catch {
            fromProfile = error
        }
        #expect(fromProfile == thrown)
        var fromConfiguration: WorldError?
        do throws(WorldError) {
            _ = try World(
                devices: [device("mac")], configuration: WorldConfiguration(bluetooth: example.parameters),
                stream: RandomStreamKey(seed: 1))
        } catch {
            fromConfiguration = error
        }
        #expect(fromConfiguration == thrown)
    }

    @Test("valid edge values pass: zero latency and jitter, loss 0 and 1, an MTU one byte above the header")
    func validEdgeLinkParameters() throws {
        try LinkParameters(latency: .zero, jitter: .zero, loss: .bernoulli(0), queueLimit: 0).validate()
        try LinkParameters(latency: .zero, loss: .bernoulli(1), mtu: 41, headerBytes: 40).validate()
    }
}
