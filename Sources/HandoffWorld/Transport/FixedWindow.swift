/// No congestion control (``CongestionControl/none``): the window is the
/// flow-control window whatever is lost (a link model's upper bound;
/// ns-3's "noCongestion").
struct FixedWindow: CongestionAlgorithm {
    let window: Int
    var slowStartThreshold: Int { window }

    init(parameters: TransportParameters) { window = parameters.window }

    func acknowledged(bytes: Int, signal: CongestionSignal) {}
    func recoveryStarted(signal: CongestionSignal) {}
    func acknowledgedInRecovery(bytes: Int, signal: CongestionSignal) {}
    func sentInRecovery(bytes: Int) {}
    func recoveryEnded(signal: CongestionSignal) {}
    func timedOut(firstInEpisode: Bool, signal: CongestionSignal) {}
    func probeRepairedLoss(signal: CongestionSignal) {}
}
