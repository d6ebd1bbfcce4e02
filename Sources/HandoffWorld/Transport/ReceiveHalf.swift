import SimKernel

/// What one side has received from the other, and its acknowledgement
/// policy.
struct ReceiveHalf: Sendable {
    /// Every sequence number below this has arrived.
    var cumulative: UInt32 = 0
    var arrivedAhead = SequenceFlags()
    var nextMessageToDeliver = 0
    /// The latest block of consecutive segments received above
    /// `cumulative`, [start, end), kept so that reporting it costs nothing
    /// while a run grows.
    var blockStart: UInt32 = 0
    var blockEnd: UInt32 = 0
    /// An in-order segment waits for its delayed acknowledgement.
    var acknowledgementPending = false
    var acknowledgementTimerGeneration: UInt32 = 0

    /// A new half: nothing received yet.
    init() {}

    /// Takes over `old`'s arrival flags, cleared (`old` is left without
    /// them).
    mutating func adoptBuffers(of old: inout ReceiveHalf) {
        arrivedAhead = .reusing(&old.arrivedAhead)
    }

    /// The acknowledgement to send now: the cumulative acknowledgement and
    /// the block holding `sequence` (none when it is below the cumulative
    /// acknowledgement).
    func report(for sequence: UInt32, duplicate: Bool) -> AcknowledgementReport {
        if duplicate {
            return AcknowledgementReport(cumulative: cumulative, blockTop: sequence, blockLength: 1, duplicate: true)
        }
        guard SendHalf.precedes(sequence, cumulative) == false, sequence != cumulative,
              !SendHalf.precedes(sequence, blockStart), SendHalf.precedes(sequence, blockEnd)
        else {
            return AcknowledgementReport(cumulative: cumulative, blockTop: 0, blockLength: 0, duplicate: false)
        }
        return AcknowledgementReport(
            cumulative: cumulative, blockTop: blockEnd &- 1, blockLength: min(blockEnd &- blockStart, 255),
            duplicate: false)
    }
}

extension ReceiveHalf {
    /// Records the arrival of data segment `sequence` from `sender` and
    /// hands every message now complete to the layer above. The caller
    /// acknowledges the segment (after sending any reply, so that a
    /// response does not wait behind the acknowledgement on the wire).
    ///
    /// - Returns: whether it was a duplicate, whether it arrived in order
    ///   with nothing missing above it (an acknowledgement may wait), and
    ///   whether a message delivered asks for an automatic reply (queued on
    ///   `replier`, this side's own send half).
    mutating func receive(
        side: ConnectionSide, sequence: UInt32, from sender: inout SendHalf, replier: inout SendHalf,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) -> (duplicate: Bool, inOrder: Bool, queuedReply: Bool) {
        if SendHalf.precedes(sequence, cumulative) || arrivedAhead.contains(sequence, base: cumulative) {
            sender.statistics.duplicatesDiscarded += 1
            return (true, false, false)
        }
        var queuedReply = false
        let inOrder = sequence == cumulative && blockEnd == blockStart
        arrivedAhead.insert(sequence, base: cumulative)
        // The block holding the new segment.
        if sequence == blockEnd, blockEnd != blockStart {
            blockEnd &+= 1
        } else {
            blockStart = sequence
            blockEnd = sequence &+ 1
            while blockStart != cumulative, arrivedAhead.contains(blockStart &- 1, base: cumulative) { blockStart &-= 1 }
        }
        while arrivedAhead.contains(blockEnd, base: cumulative) { blockEnd &+= 1 }
        while arrivedAhead.contains(cumulative, base: cumulative) {
            arrivedAhead.clear(cumulative)
            cumulative &+= 1
        }
        if !SendHalf.precedes(cumulative, blockEnd) { blockStart = cumulative; blockEnd = cumulative }
        else if SendHalf.precedes(blockStart, cumulative) { blockStart = cumulative }
        while nextMessageToDeliver < sender.messageEnd {
            let message = sender.message(nextMessageToDeliver)
            guard SendHalf.precedes(message.lastSequence, cumulative) else { break }
            nextMessageToDeliver += 1
            sender.statistics.bytesDelivered += message.bytes
            actions.append(.delivered(to: side, tag: message.tag, bytes: message.bytes))
            if message.replyBytes >= 0 {
                replier.enqueue(bytes: message.replyBytes, tag: message.tag, replyBytes: -1)
                queuedReply = true
            }
        }
        return (false, inOrder, queuedReply)
    }
}
