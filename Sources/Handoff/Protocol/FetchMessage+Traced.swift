extension FetchMessage {
    /// The message as a trace names it.
    var traced: RapportMessage {
        switch self {
        case .pairVerify1: return .pairVerifyM1
        case .pairVerify2: return .pairVerifyM2
        case .pairVerify3: return .pairVerifyM3
        case .pairVerify4: return .pairVerifyM4
        case .systemInfoRequest: return .systemInfoRequest
        case .systemInfoAnswer: return .systemInfoAnswer
        case .request: return .payloadRequest
        }
    }
}
