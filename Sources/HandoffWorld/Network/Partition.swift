import SimKernel

/// Two groups of nodes that cannot reach each other during a window.
struct Partition: Sendable {
    /// Group membership by node index (devices, then the cloud): 1 or 2,
    /// or 0 for neither group.
    let group: [UInt8]
    let window: TimeWindow
}
