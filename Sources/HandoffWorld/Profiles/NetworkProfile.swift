import SimKernel

/// The two directions of a device's internet link, under a name.
///
/// The built-in profiles carry Network Link Conditioner's names. Where
/// Apple's tool publishes numbers (Very Bad Network, Edge, 3G, 100% Loss)
/// they are used as published; the others are documented assumptions. The
/// defaults table (docs/defaults.md) gives the source of every number.
///
/// ```swift
/// var profile = try NetworkProfile.named("3G")
/// profile.downlink.loss = .bernoulli(0.02)   // an override
/// ```
public struct NetworkProfile: Hashable, Sendable, CustomStringConvertible {
    /// The profile's name, e.g. `"Edge"`.
    public var name: String
    /// Cloud → device.
    public var downlink: LinkParameters
    /// Device → cloud.
    public var uplink: LinkParameters

    /// Creates a profile.
    public init(name: String, downlink: LinkParameters, uplink: LinkParameters) {
        self.name = name
        self.downlink = downlink
        self.uplink = uplink
    }

    public var description: String { name }

    /// Both directions with the same packet sizes, and dummynet's default
    /// queue of 50 packets (Network Link Conditioner is built on dummynet).
    private static func internet(
        _ name: String, down: Bandwidth?, up: Bandwidth?, downDelay: Int64, upDelay: Int64, loss: Double = 0
    ) -> NetworkProfile {
        let lossModel: LossModel = loss > 0 ? .bernoulli(loss) : .none
        return NetworkProfile(
            name: name,
            downlink: LinkParameters(latency: .milliseconds(downDelay), bandwidth: down, loss: lossModel),
            uplink: LinkParameters(latency: .milliseconds(upDelay), bandwidth: up, loss: lossModel))
    }

    /// NLC "Wi-Fi": 40 Mbit/s down, 33 Mbit/s up, 1 ms each way.
    public static let wifi = internet(
        "WiFi", down: .megabitsPerSecond(40), up: .megabitsPerSecond(33), downDelay: 1, upDelay: 1)
    /// NLC "LTE": 50 Mbit/s down, 10 Mbit/s up, 50 ms down, 65 ms up
    /// (an assumption: the preset's numbers are not published by Apple).
    public static let lte = internet(
        "LTE", down: .megabitsPerSecond(50), up: .megabitsPerSecond(10), downDelay: 50, upDelay: 65)
    /// NLC "DSL": 2 Mbit/s down, 256 kbit/s up, 5 ms each way.
    public static let dsl = internet(
        "DSL", down: .megabitsPerSecond(2), up: .kilobitsPerSecond(256), downDelay: 5, upDelay: 5)
    /// NLC "3G": 780 kbit/s down, 330 kbit/s up, 100 ms each way.
    public static let threeG = internet(
        "3G", down: .kilobitsPerSecond(780), up: .kilobitsPerSecond(330), downDelay: 100, upDelay: 100)
    /// NLC "Edge": 240 kbit/s down, 200 kbit/s up, 400 ms down, 440 ms up.
    public static let edge = internet(
        "Edge", down: .kilobitsPerSecond(240), up: .kilobitsPerSecond(200), downDelay: 400, upDelay: 440)
    /// NLC "Very Bad Network": 1 Mbit/s, 10% loss and 500 ms each way.
    public static let veryBadNetwork = internet(
        "Very Bad Network", down: .megabitsPerSecond(1), up: .megabitsPerSecond(1), downDelay: 500, upDelay: 500,
        loss: 0.10)
    /// NLC "100% Loss": every packet lost both ways.
    public static let hundredPercentLoss = internet(
        "100% Loss", down: nil, up: nil, downDelay: 0, upDelay: 0, loss: 1)

    /// A device's path to Apple's servers before any impairment: 12 ms
    /// each way with up to 2 ms of jitter, 100 Mbit/s down and 20 Mbit/s
    /// up, no loss: an assumption for a broadband access near one of
    /// Apple's points of presence (see the defaults table for the
    /// reasoning and the plausible ranges). The built-in profiles impair
    /// this path.
    public static let toAppleServers = NetworkProfile(
        name: "Internet to Apple's servers",
        downlink: LinkParameters(latency: .milliseconds(12), jitter: .milliseconds(2), bandwidth: .megabitsPerSecond(100)),
        uplink: LinkParameters(latency: .milliseconds(12), jitter: .milliseconds(2), bandwidth: .megabitsPerSecond(20)))

    /// Every built-in internet profile, in the order of the defaults table (docs/defaults.md).
    public static let builtIn: [NetworkProfile] = [
        .wifi, .lte, .dsl, .threeG, .edge, .veryBadNetwork, .hundredPercentLoss,
    ]

    /// The built-in profile called `name` (exact match).
    ///
    /// - Throws: ``WorldError/unknownProfile(name:known:)`` listing every
    ///   built-in name.
    public static func named(_ name: String) throws(WorldError) -> NetworkProfile {
        guard let profile = builtIn.first(where: { $0.name == name }) else {
            throw .unknownProfile(name: name, known: builtIn.map(\.name))
        }
        return profile
    }
}

extension LinkParameters {
    /// Wi-Fi peer-to-peer (AWDL) between two devices, one direction: at
    /// most 112 Mbit/s (each transfer 1 + Y times as long as at that rate,
    /// the extra time Y log-normal with median 0.108 and σ 0.663, drawn
    /// per trial) and 2.33 ms while the pair meets, AWDL's channel schedule
    /// (``PeerToPeerSchedule``, cold by default), lossy by distance through
    /// ``RadioPropagation/wifi``. The latency, rate, spread and the
    /// schedule's excursions are fitted to measured runs between a Mac and
    /// an iPhone; its slots are OWL's (see the defaults table).
    public static let wifiPeerToPeer = LinkParameters(
        latency: .microseconds(2330), bandwidth: .megabitsPerSecond(112), loss: .distance(.wifi),
        schedule: PeerToPeerSchedule(), bandwidthSpread: .logNormal(median: 0.108, sigma: 0.663))

    /// Two devices on the same infrastructure Wi-Fi network, one direction
    /// (device → access point → device, two hops over the air): 3 ms with
    /// up to 4 ms of jitter, 150 Mbit/s, 0.1% residual loss. Every value is
    /// an assumption (see the defaults table for the reasoning and the
    /// plausible ranges): no public measurement of Rapport over a LAN
    /// exists.
    public static let localNetwork = LinkParameters(
        latency: .milliseconds(3), jitter: .milliseconds(4), bandwidth: .megabitsPerSecond(150),
        loss: .bernoulli(0.001))

    /// One direction of `self` as impaired by `impairment`, the way Network
    /// Link Conditioner impairs a real interface (a dummynet pipe in front
    /// of it): the delays and jitters add, the rate is the lower of the
    /// two, independent losses combine (1 − (1 − a)(1 − b)), the packet is
    /// the smaller, and the impairment's queue, outages and any loss model
    /// other than two Bernoulli losses replace the path's.
    public func impaired(by impairment: LinkParameters) -> LinkParameters {
        var result = impairment
        result.latency = latency + impairment.latency
        result.jitter = jitter + impairment.jitter
        switch (bandwidth, impairment.bandwidth) {
        case let (own?, other?): result.bandwidth = min(own, other)
        case let (own?, nil): result.bandwidth = own
        default: break
        }
        switch (loss, impairment.loss) {
        case let (.bernoulli(a), .bernoulli(b)): result.loss = .bernoulli(1 - (1 - a) * (1 - b))
        case (_, .none): result.loss = loss
        // Otherwise the impairment's model replaces the path's.
        case (.none, .bernoulli), (.gilbertElliott, .bernoulli), (.distance, .bernoulli),
            (.none, .gilbertElliott), (.bernoulli, .gilbertElliott), (.gilbertElliott, .gilbertElliott),
            (.distance, .gilbertElliott),
            (.none, .distance), (.bernoulli, .distance), (.gilbertElliott, .distance), (.distance, .distance):
            break
        }
        if mtu - headerBytes < impairment.mtu - impairment.headerBytes {
            result.mtu = mtu
            result.headerBytes = headerBytes
        }
        return result
    }

    /// A Bluetooth LE connection between two devices, one direction:
    /// 300 kbit/s of application throughput (as measured on iPhones),
    /// 15 ms (half of a 30 ms connection interval), 185-byte ATT MTU with
    /// 7 bytes of ATT and L2CAP header, lossy by distance through
    /// ``RadioPropagation/bluetoothLowEnergy``.
    public static let bluetoothLowEnergy = LinkParameters(
        latency: .milliseconds(15), bandwidth: .kilobitsPerSecond(300), loss: .distance(.bluetoothLowEnergy),
        mtu: 185, headerBytes: 7)
}

extension RadioPropagation {
    /// Bluetooth LE indoors: −59 dBm at 1 m (iBeacon's calibrated power at
    /// 0 dBm transmit power), exponent 3.0 and 6 dB shadowing (mid-range of
    /// indoor measurements), −90 dBm sensitivity. The threshold distance
    /// is about 10.8 m, matching Apple's ~10 m Continuity range.
    public static let bluetoothLowEnergy = RadioPropagation(
        checkedReferencePower: -59, pathLossExponent: 3.0, shadowing: 6, threshold: -90)

    /// Wi-Fi (5 GHz) indoors: −31 dBm at 1 m (15 dBm transmit power less
    /// 46 dB free-space loss at 1 m), exponent 3.0, 6 dB shadowing, −82 dBm
    /// sensitivity (802.11's minimum for the lowest 20 MHz rate). The
    /// threshold distance is about 50 m.
    public static let wifi = RadioPropagation(
        checkedReferencePower: -31, pathLossExponent: 3.0, shadowing: 6, threshold: -82)

    /// For the built-in constants, whose values are known to be valid.
    private init(checkedReferencePower: Double, pathLossExponent: Double, shadowing: Double, threshold: Double) {
        referencePower = checkedReferencePower
        referenceDistance = 1
        self.pathLossExponent = pathLossExponent
        shadowingStandardDeviation = shadowing
        receptionThreshold = threshold
    }
}
