import SimKernel

/// The fixed components of the protocol's stream paths, hashed once.
enum HandoffStreamNames {
    /// A trial of a seed.
    static let trial: RandomStreamKey.Name = "trial"
    /// The world's own draws.
    static let world: RandomStreamKey.Name = "world"
    /// The users' think times before accepting, per device.
    static let acceptance: RandomStreamKey.Name = "acceptance"
    /// App and browser launch times, per attempt.
    static let launch: RandomStreamKey.Name = "launch"
    /// Devices' processing of fetch messages, per attempt and message.
    static let processing: RandomStreamKey.Name = "processing"
    /// The hold-back of the resolve's first mDNS query, per attempt.
    static let resolveHoldBack: RandomStreamKey.Name = "resolveHoldBack"
    /// The source system's save time, per attempt.
    static let save: RandomStreamKey.Name = "save"
    /// The cloud relay's delay, per attempt and relayed message.
    static let relay: RandomStreamKey.Name = "relay"
}
