import SimKernel

/// The fixed components of the world's stream paths, hashed once (the
/// names of the links of a pair of devices are
/// ``LinkTable/PairLink/streamName``).
enum StreamNames {
    static let device: RandomStreamKey.Name = "device"
    static let advertising: RandomStreamKey.Name = "advertising"
    static let scan: RandomStreamKey.Name = "scan"
    static let advertisement: RandomStreamKey.Name = "advertisement"
    /// Advertisements heard outside the scan windows, per pair.
    static let presence: RandomStreamKey.Name = "presence"
    static let link: RandomStreamKey.Name = "link"
    static let uplink: RandomStreamKey.Name = "uplink"
    static let downlink: RandomStreamKey.Name = "downlink"
    static let loss: RandomStreamKey.Name = "loss"
    static let jitter: RandomStreamKey.Name = "jitter"
    static let schedule: RandomStreamKey.Name = "schedule"
}
