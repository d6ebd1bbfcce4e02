import HandoffWorld
import SimKernel
import Testing

// The LinkModelTests suite itself, and its invalid-parameter cases.
//
// Validation of the link layer against closed forms: loss models, the FIFO
// queue, serialisation and fragmentation, jitter, and the ways a link goes
// down (outage windows, partitions, radios switched off).
//
// Every statistical check uses a fixed seed and states its bound; each one
// also checks the sample size it measured, so a run that quietly sent fewer
// packets cannot pass.
//
// The tests are split by concern: LinkModelTests+Loss.swift (loss models),
// LinkModelTests+Queueing.swift (queueing, serialisation and fragmentation,
// jitter) and LinkModelTests+Reachability.swift (outages, partitions, radios
// switched off); their fixtures are in LinkTestSupport.swift.

@Suite("Link models against closed forms")
struct LinkModelTests {
    // MARK: Invalid parameters

    static let invalidLinkCases: [InvalidParameterCase] = [
        InvalidParameterCase(setting: "bandwidth") { _ = try Bandwidth(bitsPerSecond: 0) },
        InvalidParameterCase(setting: "gilbertElliott.goodToBad") { _ = try GilbertElliott(goodToBad: 1.5, badToGood: 0.1) },
        InvalidParameterCase(setting: "gilbertElliott.lossInBad") { _ = try GilbertElliott(goodToBad: 0.1, badToGood: 0.1, lossInBad: .nan) },
        InvalidParameterCase(setting: "gilbertElliott") { _ = try GilbertElliott(goodToBad: 0, badToGood: 0) },
        InvalidParameterCase(setting: "window") { _ = try TimeWindow(from: milliseconds(5), until: milliseconds(5)) },
        InvalidParameterCase(setting: "latency") { try LinkParameters(latency: .nanoseconds(-1)).validate() },
        InvalidParameterCase(setting: "jitter") { try LinkParameters(latency: .zero, jitter: .nanoseconds(-1)).validate() },
        InvalidParameterCase(setting: "queueLimit") { try LinkParameters(latency: .zero, queueLimit: -1).validate() },
        InvalidParameterCase(setting: "headerBytes") { try LinkParameters(latency: .zero, headerBytes: -1).validate() },
        InvalidParameterCase(setting: "mtu") { try LinkParameters(latency: .zero, mtu: 40, headerBytes: 40).validate() },
        InvalidParameterCase(setting: "loss") { try LinkParameters(latency: .zero, loss: .bernoulli(1.5)).validate() },
        InvalidParameterCase(setting: "loss") {
            var world = try makeWorld(wifi: LinkParameters(latency: .zero), seed: 25)
            try world.setParameters(
                LinkParameters(latency: .zero, loss: .bernoulli(-0.1)), of: world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1))))
        },
        InvalidParameterCase(setting: "mtu") {
            _ = try makeWorld(wifi: LinkParameters(latency: .zero, mtu: 10, headerBytes: 40), seed: 26)
        },
    ]

    @Test("Invalid link settings throw invalidParameter naming the setting", arguments: invalidLinkCases)
    func invalidLinkSettingsAreNamed(_ invalid: InvalidParameterCase) {
        expectInvalidParameter(invalid)
    }
}
