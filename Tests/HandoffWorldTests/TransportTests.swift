import HandoffWorld
import SimKernel
import Testing

// The TransportTests suite itself and the two devices its tests connect.
//
// Validation of the reliable transport (setup, retransmission, flow
// control, request/response, trust, the cloud relay path) against closed
// forms. Every run uses a fixed seed, so each check is exact for that seed;
// statistical checks state their confidence bound.
//
// The tests are split by concern: TransportTests+Retransmission.swift (loss,
// retry exhaustion, close, radios switched off), TransportTests+Delivery.swift
// (flow control, streams, duplicates, determinism, reordering) and
// TransportTests+TrustAndRelay.swift (key exchange, trust, the cloud relay);
// their fixtures are in TransportTestSupport.swift.

@Suite("Reliable transport: loss, retries, flow control, streams, trust, relay")
struct TransportTests {
    static let mac = TransportFixture.mac
    static let phone = TransportFixture.phone
}
