import SimKernel

/// Everything about a world that is not about one device: the peer links,
/// the radios, advertising and scanning, and the transport.
///
/// Every default is documented, with its source, in the defaults table (docs/defaults.md)
/// table; every one can be overridden.
public struct WorldConfiguration: Hashable, Sendable {
    /// Each direction of a Wi-Fi peer-to-peer link.
    public var wifiPeerToPeer: LinkParameters
    /// Each direction of a Bluetooth LE link.
    public var bluetooth: LinkParameters
    /// Each direction of the path between two devices on the same
    /// infrastructure Wi-Fi network (through its access point).
    public var localNetwork: LinkParameters
    /// Each device's path to Apple's servers before its own internet
    /// profile is applied: a device's profile (Network Link Conditioner's
    /// presets) impairs this path as the tool impairs a real one
    /// (``LinkParameters/impaired(by:)``).
    public var internetPath: NetworkProfile
    /// The radio model advertisements are received through.
    public var bluetoothRadio: RadioPropagation
    /// How devices advertise.
    public var advertising: AdvertisingParameters
    /// How devices scan.
    public var scanning: ScanParameters
    /// Connection setup, retransmission and flow control.
    public var transport: TransportParameters

    /// Creates a configuration; omitted parts take their defaults.
    public init(
        wifiPeerToPeer: LinkParameters = .wifiPeerToPeer, bluetooth: LinkParameters = .bluetoothLowEnergy,
        localNetwork: LinkParameters = .localNetwork, internetPath: NetworkProfile = .toAppleServers,
        bluetoothRadio: RadioPropagation = .bluetoothLowEnergy,
        advertising: AdvertisingParameters = WorldConfiguration.defaultAdvertising,
        scanning: ScanParameters = WorldConfiguration.defaultScanning,
        transport: TransportParameters = TransportParameters()
    ) {
        self.wifiPeerToPeer = wifiPeerToPeer
        self.bluetooth = bluetooth
        self.localNetwork = localNetwork
        self.internetPath = internetPath
        self.bluetoothRadio = bluetoothRadio
        self.advertising = advertising
        self.scanning = scanning
        self.transport = transport
    }

    /// Continuity's advertising rates: every 30 ms for the first 2 s, then
    /// every 181.25 ms, plus the specification's 0–10 ms random delay.
    ///
    /// The rates are WirelessProximity's (`WPContinuity` starts at rate 48
    /// and updates to 290, in 0.625 ms units); that the fast rate lasts the
    /// first 2 s (`updateTime 2.0`) is an assumption.
    public static let defaultAdvertising: AdvertisingParameters = {
        guard let parameters = try? AdvertisingParameters(
            interval: .microseconds(181_250), fastInterval: .milliseconds(30), fastDuration: .seconds(2))
        else {
            preconditionFailure("the default advertising parameters are valid")
        }
        return parameters
    }()

    /// Scanning 18.75 ms out of every 300 ms while the screen is on, out of
    /// every 1.5 s while it is off or locked.
    ///
    /// The window is the Continuity scan's (window 30 in WirelessProximity's
    /// scan requests; that the unit is 0.625 ms, as for advertising, is an
    /// assumption); the intervals are assumptions: the scan requests carry a
    /// screen-on and a screen-off interval, whose values are not published.
    public static let defaultScanning: ScanParameters = {
        guard let parameters = try? ScanParameters(
            window: .microseconds(18_750), interval: .milliseconds(300), screenOffInterval: .milliseconds(1500))
        else {
            preconditionFailure("the default scan parameters are valid")
        }
        return parameters
    }()

    /// Checks every part.
    ///
    /// - Throws: ``WorldError`` naming the part and the value.
    public func validate() throws(WorldError) {
        for link in LinkTable.PairLink.allCases {
            try parameters(of: link).validate()
        }
        try internetPath.uplink.validate()
        try internetPath.downlink.validate()
        try transport.validate()
    }
}

extension WorldConfiguration {
    /// Each direction of the pair link `link`: the one place that names
    /// the property of each ``LinkTable/PairLink``.
    func parameters(of link: LinkTable.PairLink) -> LinkParameters {
        switch link {
        case .wifiPeerToPeer: return wifiPeerToPeer
        case .bluetooth: return bluetooth
        case .localNetwork: return localNetwork
        }
    }
}
