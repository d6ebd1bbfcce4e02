import SimKernel

/// Where a connection is in its life.
public enum ConnectionPhase: Hashable, Sendable {
    /// Setting up (the handshake).
    case settingUp
    /// Carrying data.
    case established
    /// Failed; see ``WorldNotification/connectionFailed(_:_:)``.
    case failed(ConnectionFailure)
    /// Closed by its owner.
    case closed
}
