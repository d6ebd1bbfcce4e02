@testable import HandoffWorld
import SimKernel
import Testing

// The sender's segment records follow its window, not the size of what it
// was asked to send: the segments of a queued message are implied by the
// message until the sender reaches them.
@Suite("Transport memory: segment records for the window only")
struct TransportMemoryTests {
    @Test("a 1 GB message takes records for the segments in flight and a few acknowledged ones, not one per segment")
    func recordsFollowTheWindow() {
        let segments = 1 << 20
        var harness = SenderHarness(segments: segments)
        // The initial window: 10 segments sent, and the record of the
        // next, which the window held back; none beyond.
        #expect(harness.half.segments.count == 11)
        #expect(harness.half.statistics.segmentsCreated == segments)
        var largest = 0
        harness.run(until: 1_000_000_000) { half in
            largest = max(largest, half.segments.count)
            return false
        }
        // A second of 10 ms rounds at the 64 KiB window: about 6,500
        // segments sent, never more than the window in flight plus the
        // acknowledged records compact() drops in batches of 1,024 or more.
        #expect(harness.transmissions.count > 5_000)
        #expect(largest <= 66 + 2 * 1_024)
    }

    @Test("segments made as they are reached carry each message's bytes: full ones, the rest, and an empty message's empty one")
    func segmentsCarryTheirMessagesBytes() {
        let parameters = TransportParameters(congestionControl: .newReno)
        var half = SendHalf(parameters: parameters, segmentSize: 1_000)
        half.estimator.sample(10_000_000)
        for (tag, bytes) in [0, 1, 999, 1_000, 1_001, 2_500].enumerated() {
            half.enqueue(bytes: bytes, tag: UInt64(tag), replyBytes: -1)
        }
        var actions = ReusableBuffer<ConnectionAction>()
        half.trySend(side: .initiator, window: parameters.window, now: 0, into: &actions)
        var sizes: [Int32] = []
        for index in 0..<actions.count {
            if case let .transmit(_, .data, sequence, _, payloadBytes, _) = actions.storage[index] {
                #expect(sequence == UInt32(sizes.count))
                sizes.append(payloadBytes)
            }
        }
        #expect(sizes == [0, 1, 999, 1_000, 1_000, 1, 1_000, 1_000, 500])
    }

    @Test("many messages, each acknowledged as it is sent: every one sent once and acknowledged in order, past the compaction of their records")
    func manyMessagesPastCompaction() {
        let parameters = TransportParameters(congestionControl: .newReno)
        var half = SendHalf(parameters: parameters, segmentSize: 1_000)
        half.estimator.sample(10_000_000)
        let count = 3_000
        for tag in 0..<count { half.enqueue(bytes: 1_500, tag: UInt64(tag), replyBytes: -1) }
        var actions = ReusableBuffer<ConnectionAction>()
        half.trySend(side: .initiator, window: parameters.window, now: 0, into: &actions)
        var sent: [UInt32] = []
        var acknowledged: [UInt64] = []
        var now: Int64 = 0
        for _ in 0..<10_000 {
            for index in 0..<actions.count {
                switch actions.storage[index] {
                case let .transmit(_, .data, sequence, _, _, _): sent.append(sequence)
                case let .acknowledged(_, tag): acknowledged.append(tag)
                default: break
                }
            }
            actions.removeAll()
            guard half.cumulativeAcknowledged != UInt32(2 * count) else { break }
            now += 10_000_000
            half.receiveAcknowledgement(
                side: .initiator,
                report: AcknowledgementReport(cumulative: half.nextUnsent, blockTop: 0, blockLength: 0, duplicate: false),
                parameters: parameters, now: now, into: &actions)
        }
        #expect(sent == Array(0..<UInt32(2 * count)))
        #expect(acknowledged == Array(0..<UInt64(count)))
        #expect(half.messages.count < count)
        #expect(half.segments.count < 2 * count)
    }
}
