import SimKernel

/// What a packet on a connection is.
enum PacketKind: UInt8, Sendable {
    /// Connection request (initiator → responder).
    case handshake
    /// Its answer (responder → initiator).
    case handshakeReply
    /// One key-exchange request; the packet's word is the round.
    case keyRequest
    /// Its answer; the packet's word is the round.
    case keyReply
    /// A data segment; the packet's word is its payload size.
    case data
    /// An acknowledgement of one segment; the word is the cumulative
    /// acknowledgement (every sequence number below it has arrived).
    case acknowledgement
    /// A datagram sent straight onto a link, outside any connection.
    case datagram
}

/// What a connection asks the world to do after handling an input. The
/// connection itself touches no link, no scheduler and no other connection.
enum ConnectionAction: Sendable {
    /// Send a packet from `side` along its route.
    case transmit(side: ConnectionSide, kind: PacketKind, sequence: UInt32, word: UInt32, payloadBytes: Int)
    /// Schedule `side`'s retransmission timer event at `time`.
    case armTimer(side: ConnectionSide, time: Int64, generation: UInt32)
    /// Record that the two ends completed a key exchange.
    case recordTrust
    /// Tell the layer above.
    case notify(WorldNotification)
}

/// The RFC 6298 retransmission-timeout estimator, in integer nanoseconds.
struct RoundTripEstimator: Sendable {
    private(set) var smoothed: Int64 = -1
    private(set) var variation: Int64 = 0
    /// The smallest sample seen (RACK's reorder window is a quarter of it).
    private(set) var minimum: Int64 = -1
    /// The current timeout, backoff included.
    private(set) var timeout: Int64
    let lowest: Int64
    let highest: Int64

    init(parameters: TransportParameters) {
        lowest = parameters.minimumRetransmissionTimeout.nanoseconds
        highest = parameters.maximumRetransmissionTimeout.nanoseconds
        timeout = min(parameters.initialRetransmissionTimeout.nanoseconds, highest)
    }

    /// Takes one RTT sample (never from a retransmitted segment: Karn).
    mutating func sample(_ rtt: Int64) {
        if smoothed < 0 {
            smoothed = rtt
            variation = rtt / 2
        } else {
            let difference = smoothed > rtt ? smoothed - rtt : rtt - smoothed
            variation = (3 * variation + difference) / 4
            smoothed = (7 * smoothed + rtt) / 8
        }
        if minimum < 0 || rtt < minimum { minimum = rtt }
        timeout = min(max(smoothed + max(4 * variation, 1), lowest), highest)
    }

    /// Doubles the timeout after an expiry, up to the maximum.
    mutating func backOff() {
        timeout = timeout > highest / 2 ? highest : timeout * 2
    }

    /// RACK's reorder window: a quarter of the minimum RTT (0 before the
    /// first sample).
    var reorderWindow: Int64 { minimum < 0 ? 0 : minimum / 4 }
}

/// One retransmission timer, armed lazily: moving the deadline later
/// schedules nothing; the pending event re-arms itself for the new
/// deadline when it fires. Stale events are recognised by generation.
struct RetransmissionTimer: Sendable {
    private(set) var deadline: Int64?
    private var armedFor: Int64?
    private var generation: UInt32 = 0

    /// Sets the deadline, arming an event if none is due at or before it.
    mutating func set(_ time: Int64, side: ConnectionSide, into actions: inout [ConnectionAction]) {
        deadline = time
        if let armedFor, armedFor <= time { return }
        generation &+= 1
        armedFor = time
        actions.append(.armTimer(side: side, time: time, generation: generation))
    }

    /// Removes the deadline; a pending event will find nothing to do.
    mutating func clear() { deadline = nil }

    /// Handles the timer event of `generation` at `now`.
    ///
    /// - Returns: `true` if the deadline has passed (a timeout).
    mutating func fire(generation: UInt32, now: Int64, side: ConnectionSide, into actions: inout [ConnectionAction]) -> Bool {
        guard generation == self.generation, armedFor != nil else { return false }
        armedFor = nil
        guard let deadline else { return false }
        if now < deadline {
            set(deadline, side: side, into: &actions)
            return false
        }
        self.deadline = nil
        return true
    }
}

/// A segment as its sender tracks it.
struct SegmentRecord: Sendable {
    enum State: UInt8, Sendable { case unsent, inFlight, lost, acknowledged }
    var bytes: Int32
    var lastSent: Int64 = 0
    var transmissions: UInt16 = 0
    var state: State = .unsent
}

/// A message as its sender tracks it: the segments it occupies.
struct MessageRecord: Sendable {
    var tag: UInt64
    var bytes: Int
    var firstSequence: UInt32
    var lastSequence: UInt32
    /// The size of the reply the receiver sends back at once, or −1.
    var replyBytes: Int
}

/// What one side sends, and the state of its retransmission machinery.
struct SendHalf: Sendable {
    var segments: [SegmentRecord] = []
    /// The sequence number of `segments[0]`.
    var segmentBase: UInt32 = 0
    var messages: [MessageRecord] = []
    /// The message number of `messages[0]`.
    var messageBase = 0
    var nextUnsent: UInt32 = 0
    var cumulativeAcknowledged: UInt32 = 0
    var nextMessageToAcknowledge = 0
    var bytesInFlight = 0
    /// Segments in flight (empty segments count here but not in bytes).
    var segmentsInFlight = 0
    var lostCount = 0
    var retransmittedInFlight = 0
    /// The latest send time of any acknowledged segment (RACK).
    var latestDeliveredSendTime: Int64 = -1
    var estimator: RoundTripEstimator
    var timer = RetransmissionTimer()
    var consecutiveTimeouts = 0
    var statistics = TransferStatistics()

    init(parameters: TransportParameters) {
        estimator = RoundTripEstimator(parameters: parameters)
    }

    var segmentEnd: UInt32 { segmentBase &+ UInt32(segments.count) }

    func message(_ number: Int) -> MessageRecord { messages[number - messageBase] }

    var messageEnd: Int { messageBase + messages.count }

    /// Drops records of acknowledged segments and messages once they make up
    /// most of the arrays, so a long-lived stream does not grow without end.
    mutating func compact() {
        let acknowledgedSegments = Int(cumulativeAcknowledged &- segmentBase)
        if acknowledgedSegments >= 1024, acknowledgedSegments * 2 >= segments.count {
            segments.removeFirst(acknowledgedSegments)
            segmentBase = cumulativeAcknowledged
        }
        let acknowledgedMessages = nextMessageToAcknowledge - messageBase
        if acknowledgedMessages >= 256, acknowledgedMessages * 2 >= messages.count {
            messages.removeFirst(acknowledgedMessages)
            messageBase = nextMessageToAcknowledge
        }
    }
}

/// What one side has received from the other.
struct ReceiveHalf: Sendable {
    /// Every sequence number below this has arrived.
    var cumulative: UInt32 = 0
    var arrivedAhead = SequenceFlags()
    var nextMessageToDeliver = 0
}

/// The state of one reliable connection between two devices.
///
/// Setup is a request/reply handshake, then (when the pair has not
/// exchanged keys under their account) `keyExchangeRounds` request/reply
/// rounds; the initiator retransmits each request on timeout. Data flows
/// both ways in messages split into segments; every segment is
/// acknowledged on arrival (cumulatively, and by its own number), lost
/// segments are found by RACK or by the retransmission timeout, and the
/// receiver discards duplicates.
struct ConnectionState: Sendable {
    enum Phase: Sendable, Equatable {
        case handshake
        case keyExchange(round: Int)
        case established
        case failed(ConnectionFailure)
        case closed
    }

    let id: ConnectionID
    let initiator: DeviceID
    let responder: DeviceID
    let path: PathKind
    let parameters: TransportParameters
    let segmentSize: Int
    let needsKeyExchange: Bool
    var phase: Phase = .handshake
    /// Whether the responder has answered the whole setup and may send.
    var responderReady = false
    /// Transmissions of the current setup request (for Karn's rule).
    var setupTransmissions = 0
    /// Transmissions of every setup request, retransmissions included.
    var setupRequestsSent = 0
    var setupSentAt: Int64 = 0
    var halves: [SendHalf]
    var receivers: [ReceiveHalf] = [ReceiveHalf(), ReceiveHalf()]

    init(
        id: ConnectionID, initiator: DeviceID, responder: DeviceID, path: PathKind,
        parameters: TransportParameters, segmentSize: Int, needsKeyExchange: Bool
    ) {
        self.id = id
        self.initiator = initiator
        self.responder = responder
        self.path = path
        self.parameters = parameters
        self.segmentSize = segmentSize
        self.needsKeyExchange = needsKeyExchange && parameters.keyExchangeRounds > 0
        halves = [SendHalf(parameters: parameters), SendHalf(parameters: parameters)]
    }

    var isOpen: Bool {
        switch phase {
        case .failed, .closed: return false
        default: return true
        }
    }

    func canSend(_ side: ConnectionSide) -> Bool {
        side == .initiator ? phase == .established : (responderReady && isOpen)
    }

    // MARK: Setup

    /// Sends the first handshake request.
    mutating func start(now: Int64, into actions: inout [ConnectionAction]) {
        sendSetupRequest(now: now, into: &actions)
    }

    private mutating func sendSetupRequest(now: Int64, into actions: inout [ConnectionAction]) {
        setupTransmissions += 1
        setupRequestsSent += 1
        setupSentAt = now
        switch phase {
        case .handshake:
            actions.append(.transmit(
                side: .initiator, kind: .handshake, sequence: 0, word: 0, payloadBytes: parameters.handshakeBytes))
        case let .keyExchange(round):
            actions.append(.transmit(
                side: .initiator, kind: .keyRequest, sequence: 0, word: UInt32(round),
                payloadBytes: parameters.keyExchangeBytes))
        default:
            return
        }
        halves[0].timer.set(now + halves[0].estimator.timeout, side: .initiator, into: &actions)
    }

    /// Moves the setup to `phase` after an answer to the current request.
    private mutating func advanceSetup(to next: Phase, now: Int64, into actions: inout [ConnectionAction]) {
        if setupTransmissions == 1 { halves[0].estimator.sample(now - setupSentAt) }
        halves[0].consecutiveTimeouts = 0
        halves[0].timer.clear()
        setupTransmissions = 0
        if next == .established {
            establish(now: now, into: &actions)
        } else {
            phase = next
            sendSetupRequest(now: now, into: &actions)
        }
    }

    private mutating func establish(now: Int64, into actions: inout [ConnectionAction]) {
        phase = .established
        halves[0].timer.clear()
        halves[0].consecutiveTimeouts = 0
        if needsKeyExchange { actions.append(.recordTrust) }
        actions.append(.notify(.connectionEstablished(id)))
        trySend(.initiator, now: now, into: &actions)
    }

    // MARK: Sending

    /// Queues a message of `bytes` from `side`, with an optional reply size
    /// the other side answers with at once.
    mutating func enqueue(
        from side: ConnectionSide, bytes: Int, tag: UInt64, replyBytes: Int, now: Int64,
        into actions: inout [ConnectionAction]
    ) {
        guard isOpen else { return }
        let index = Int(side.rawValue)
        let first = halves[index].segmentEnd
        var remaining = bytes
        repeat {
            let size = min(remaining, segmentSize)
            halves[index].segments.append(SegmentRecord(bytes: Int32(size)))
            halves[index].statistics.segmentsCreated += 1
            remaining -= size
        } while remaining > 0
        let last = halves[index].segmentEnd &- 1
        halves[index].messages.append(
            MessageRecord(tag: tag, bytes: bytes, firstSequence: first, lastSequence: last, replyBytes: replyBytes))
        trySend(side, now: now, into: &actions)
    }

    /// Sends lost segments first, then new ones, while the window allows.
    mutating func trySend(_ side: ConnectionSide, now: Int64, into actions: inout [ConnectionAction]) {
        guard canSend(side) else { return }
        let index = Int(side.rawValue)
        let window = parameters.window
        while true {
            var sequence: UInt32
            if halves[index].lostCount > 0 {
                sequence = halves[index].cumulativeAcknowledged
                while halves[index].segments[Int(sequence &- halves[index].segmentBase)].state != .lost {
                    sequence &+= 1
                }
            } else if halves[index].nextUnsent != halves[index].segmentEnd {
                sequence = halves[index].nextUnsent
            } else {
                break
            }
            let slot = Int(sequence &- halves[index].segmentBase)
            let bytes = Int(halves[index].segments[slot].bytes)
            let inFlight = halves[index].bytesInFlight
            if inFlight > 0, inFlight + bytes > window { break }
            let wasLost = halves[index].segments[slot].state == .lost
            if wasLost {
                halves[index].lostCount -= 1
                halves[index].retransmittedInFlight += 1
                halves[index].statistics.retransmissions += 1
            } else {
                halves[index].nextUnsent &+= 1
            }
            halves[index].segments[slot].state = .inFlight
            halves[index].segments[slot].lastSent = now
            halves[index].segments[slot].transmissions &+= 1
            halves[index].bytesInFlight = inFlight + bytes
            halves[index].segmentsInFlight += 1
            if inFlight + bytes > halves[index].statistics.peakBytesInFlight {
                halves[index].statistics.peakBytesInFlight = inFlight + bytes
            }
            halves[index].statistics.segmentTransmissions += 1
            actions.append(.transmit(side: side, kind: .data, sequence: sequence, word: UInt32(bytes), payloadBytes: bytes))
            if halves[index].timer.deadline == nil {
                halves[index].timer.set(now + halves[index].estimator.timeout, side: side, into: &actions)
            }
        }
    }

    // MARK: Receiving

    /// Handles a packet that arrived at `side`.
    mutating func receive(
        at side: ConnectionSide, kind: PacketKind, sequence: UInt32, word: UInt32, now: Int64,
        into actions: inout [ConnectionAction]
    ) {
        guard isOpen else { return }
        switch kind {
        case .handshake:
            guard side == .responder else { return }
            actions.append(.transmit(
                side: .responder, kind: .handshakeReply, sequence: 0, word: 0, payloadBytes: parameters.handshakeBytes))
            if !needsKeyExchange, !responderReady {
                responderReady = true
                trySend(.responder, now: now, into: &actions)
            }
        case .handshakeReply:
            guard side == .initiator, phase == .handshake else { return }
            advanceSetup(to: needsKeyExchange ? .keyExchange(round: 0) : .established, now: now, into: &actions)
        case .keyRequest:
            guard side == .responder else { return }
            actions.append(.transmit(
                side: .responder, kind: .keyReply, sequence: 0, word: word, payloadBytes: parameters.keyExchangeBytes))
            if Int(word) == parameters.keyExchangeRounds - 1, !responderReady {
                responderReady = true
                trySend(.responder, now: now, into: &actions)
            }
        case .keyReply:
            guard side == .initiator, phase == .keyExchange(round: Int(word)) else { return }
            let next = Int(word) + 1
            advanceSetup(
                to: next < parameters.keyExchangeRounds ? .keyExchange(round: next) : .established, now: now,
                into: &actions)
        case .data:
            if side == .initiator, phase != .established {
                // Data from the responder means it finished the setup; the
                // reply that said so was lost or is still on its way.
                setupTransmissions = 0
                establish(now: now, into: &actions)
            }
            receiveData(at: side, sequence: sequence, now: now, into: &actions)
        case .acknowledgement:
            receiveAcknowledgement(at: side, sequence: sequence, cumulative: word, now: now, into: &actions)
        case .datagram:
            return
        }
    }

    private mutating func receiveData(
        at side: ConnectionSide, sequence: UInt32, now: Int64, into actions: inout [ConnectionAction]
    ) {
        let me = Int(side.rawValue)
        let peer = 1 - me
        var cumulative = receivers[me].cumulative
        let duplicate = sequence &- cumulative >= 1 << 31
            || receivers[me].arrivedAhead.contains(sequence, base: cumulative)
        if duplicate {
            halves[peer].statistics.duplicatesDiscarded += 1
        } else {
            receivers[me].arrivedAhead.insert(sequence, base: cumulative)
            while receivers[me].arrivedAhead.contains(cumulative, base: cumulative) {
                receivers[me].arrivedAhead.clear(cumulative)
                cumulative &+= 1
            }
            receivers[me].cumulative = cumulative
            deliverMessages(at: side, now: now, into: &actions)
        }
        actions.append(.transmit(
            side: side, kind: .acknowledgement, sequence: sequence, word: receivers[me].cumulative, payloadBytes: 0))
    }

    /// Hands every message whose segments have all arrived in order to the
    /// layer above, and sends any automatic replies.
    private mutating func deliverMessages(at side: ConnectionSide, now: Int64, into actions: inout [ConnectionAction]) {
        let me = Int(side.rawValue)
        let peer = 1 - me
        while receivers[me].nextMessageToDeliver < halves[peer].messageEnd {
            let message = halves[peer].message(receivers[me].nextMessageToDeliver)
            guard message.lastSequence &- receivers[me].cumulative >= 1 << 31 else { return }
            receivers[me].nextMessageToDeliver += 1
            halves[peer].statistics.bytesDelivered += message.bytes
            actions.append(.notify(.messageDelivered(
                id, to: side, tag: message.tag, bytes: message.bytes)))
            if message.replyBytes >= 0 {
                enqueue(from: side, bytes: message.replyBytes, tag: message.tag, replyBytes: -1, now: now, into: &actions)
            }
        }
    }

    private mutating func receiveAcknowledgement(
        at side: ConnectionSide, sequence: UInt32, cumulative: UInt32, now: Int64,
        into actions: inout [ConnectionAction]
    ) {
        let index = Int(side.rawValue)
        var progress = false
        // The segment this acknowledgement names.
        if sequence &- halves[index].cumulativeAcknowledged < 1 << 31, sequence &- halves[index].segmentEnd >= 1 << 31 {
            let slot = Int(sequence &- halves[index].segmentBase)
            if halves[index].segments[slot].state != .acknowledged {
                if halves[index].segments[slot].transmissions == 1 {
                    halves[index].estimator.sample(now - halves[index].segments[slot].lastSent)
                }
                if halves[index].segments[slot].lastSent > halves[index].latestDeliveredSendTime {
                    halves[index].latestDeliveredSendTime = halves[index].segments[slot].lastSent
                }
                acknowledge(slot: slot, half: index)
                progress = true
            }
        }
        // Everything below the cumulative acknowledgement.
        while halves[index].cumulativeAcknowledged &- cumulative >= 1 << 31 {
            let slot = Int(halves[index].cumulativeAcknowledged &- halves[index].segmentBase)
            if halves[index].segments[slot].state != .acknowledged {
                acknowledge(slot: slot, half: index)
            }
            halves[index].cumulativeAcknowledged &+= 1
            progress = true
        }
        while halves[index].cumulativeAcknowledged != halves[index].nextUnsent {
            let slot = Int(halves[index].cumulativeAcknowledged &- halves[index].segmentBase)
            guard halves[index].segments[slot].state == .acknowledged else { break }
            halves[index].cumulativeAcknowledged &+= 1
        }
        guard progress else { return }
        detectLosses(half: index)
        halves[index].consecutiveTimeouts = 0
        while halves[index].nextMessageToAcknowledge < halves[index].messageEnd {
            let message = halves[index].message(halves[index].nextMessageToAcknowledge)
            guard message.lastSequence &- halves[index].cumulativeAcknowledged >= 1 << 31 else { break }
            halves[index].nextMessageToAcknowledge += 1
            actions.append(.notify(.messageAcknowledged(id, by: side.peer, tag: message.tag)))
        }
        trySend(side, now: now, into: &actions)
        if halves[index].segmentsInFlight == 0 {
            halves[index].timer.clear()
        } else {
            halves[index].timer.set(now + halves[index].estimator.timeout, side: side, into: &actions)
        }
        halves[index].compact()
    }

    private mutating func acknowledge(slot: Int, half index: Int) {
        switch halves[index].segments[slot].state {
        case .inFlight:
            halves[index].bytesInFlight -= Int(halves[index].segments[slot].bytes)
            halves[index].segmentsInFlight -= 1
            if halves[index].segments[slot].transmissions > 1 { halves[index].retransmittedInFlight -= 1 }
        case .lost:
            halves[index].lostCount -= 1
        case .unsent, .acknowledged:
            break
        }
        halves[index].segments[slot].state = .acknowledged
    }

    /// RACK: marks lost every in-flight segment sent more than the reorder
    /// window before the latest-sent segment known to have arrived.
    private mutating func detectLosses(half index: Int) {
        guard halves[index].latestDeliveredSendTime >= 0 else { return }
        let threshold = halves[index].latestDeliveredSendTime - halves[index].estimator.reorderWindow
        var sequence = halves[index].cumulativeAcknowledged
        let end = halves[index].nextUnsent
        while sequence != end {
            let slot = Int(sequence &- halves[index].segmentBase)
            let record = halves[index].segments[slot]
            if record.state == .inFlight {
                if record.lastSent < threshold {
                    markLost(slot: slot, half: index)
                } else if halves[index].retransmittedInFlight == 0 {
                    // First transmissions go out in sequence order, so no
                    // later segment was sent earlier than this one.
                    return
                }
            }
            sequence &+= 1
        }
    }

    private mutating func markLost(slot: Int, half index: Int) {
        let record = halves[index].segments[slot]
        guard record.state == .inFlight else { return }
        halves[index].bytesInFlight -= Int(record.bytes)
        halves[index].segmentsInFlight -= 1
        if record.transmissions > 1 { halves[index].retransmittedInFlight -= 1 }
        halves[index].segments[slot].state = .lost
        halves[index].lostCount += 1
    }

    // MARK: Timers

    /// Handles `side`'s timer event.
    mutating func timerFired(
        side: ConnectionSide, generation: UInt32, now: Int64, into actions: inout [ConnectionAction]
    ) {
        guard isOpen else { return }
        let index = Int(side.rawValue)
        guard halves[index].timer.fire(generation: generation, now: now, side: side, into: &actions) else { return }
        halves[index].statistics.timeouts += 1
        halves[index].consecutiveTimeouts += 1
        let settingUp = side == .initiator && phase != .established
        if halves[index].consecutiveTimeouts > parameters.retryLimit {
            fail(settingUp ? .setupTimedOut : .retransmissionsExhausted, into: &actions)
            return
        }
        halves[index].estimator.backOff()
        if settingUp {
            sendSetupRequest(now: now, into: &actions)
            return
        }
        // Retransmit the oldest segment in flight (RFC 6298 §5.4); its
        // acknowledgement lets RACK find any others.
        var sequence = halves[index].cumulativeAcknowledged
        while sequence != halves[index].nextUnsent {
            let slot = Int(sequence &- halves[index].segmentBase)
            if halves[index].segments[slot].state == .inFlight {
                markLost(slot: slot, half: index)
                break
            }
            sequence &+= 1
        }
        trySend(side, now: now, into: &actions)
        if halves[index].segmentsInFlight > 0 || halves[index].lostCount > 0 {
            halves[index].timer.set(now + halves[index].estimator.timeout, side: side, into: &actions)
        }
    }

    private mutating func fail(_ failure: ConnectionFailure, into actions: inout [ConnectionAction]) {
        phase = .failed(failure)
        halves[0].timer.clear()
        halves[1].timer.clear()
        actions.append(.notify(.connectionFailed(id, failure)))
    }

    /// Closes the connection: nothing more is sent or delivered.
    mutating func close() {
        guard isOpen else { return }
        phase = .closed
        halves[0].timer.clear()
        halves[1].timer.clear()
    }
}
