import SimKernel

/// What a packet on a connection is.
enum PacketKind: UInt8, Sendable {
    /// SYN (initiator → responder).
    case handshake
    /// SYN-ACK (responder → initiator).
    case handshakeReply
    /// The handshake's final ACK, when no data carries it.
    case handshakeAcknowledgement
    /// A data segment; the packet's word is its payload size.
    case data
    /// An acknowledgement: the word is the cumulative acknowledgement
    /// (every sequence number below it has arrived), the sequence the top
    /// of a SACK block whose length is the packet's `blockLength`.
    case acknowledgement
    /// An acknowledgement reporting a duplicate segment (D-SACK): the
    /// sequence is the duplicate, the word the cumulative acknowledgement.
    case duplicateAcknowledgement
    /// A datagram sent straight onto a link, outside any connection.
    case datagram
}

/// What a connection asks the world to do after handling an input. The
/// connection itself touches no link, no scheduler and no other connection.
enum ConnectionAction: Sendable {
    /// Send a packet from `side` along its route (`blockLength` only for
    /// an acknowledgement).
    case transmit(side: ConnectionSide, kind: PacketKind, sequence: UInt32, word: UInt32, payloadBytes: Int32, blockLength: UInt8 = 0)
    /// Schedule `side`'s retransmission timer event at `time`.
    case armTimer(side: ConnectionSide, time: Int64, generation: UInt32)
    /// Schedule `side`'s delayed-acknowledgement timer event at `time`.
    case armAcknowledgementTimer(side: ConnectionSide, time: Int64, generation: UInt32)
    /// Tell the layer above the connection is established.
    case established
    /// Tell the layer above the connection failed.
    case failed(ConnectionFailure)
    /// Tell the layer above a message from `side`'s peer was acknowledged
    /// by `side`.
    case acknowledged(by: ConnectionSide, tag: UInt64)
    /// Tell the layer above a message was delivered to `side`.
    case delivered(to: ConnectionSide, tag: UInt64, bytes: Int)
    // The notifications are spelled out, the connection implied, so that an
    // action stays 24 bytes (a WorldNotification would make it 33).
}

/// The RFC 6298 retransmission-timeout estimator, in integer nanoseconds.
struct RoundTripEstimator: Sendable {
    private(set) var smoothed: Int64 = -1
    private(set) var variation: Int64 = 0
    /// The smallest sample seen (RACK.min_RTT; the reorder window is a
    /// quarter of it). A global minimum: paths here do not change length.
    private(set) var minimum: Int64 = -1
    /// The current timeout, backoff included.
    private(set) var timeout: Int64
    /// The handshake's initial timeout.
    private(set) var handshakeBase: Int64
    let lowest: Int64
    let highest: Int64

    init(parameters: TransportParameters) {
        lowest = parameters.minimumRetransmissionTimeout.nanoseconds
        highest = parameters.maximumRetransmissionTimeout.nanoseconds
        timeout = min(parameters.initialRetransmissionTimeout.nanoseconds, highest)
        handshakeBase = timeout
    }

    /// Takes one RTT sample (never from a retransmitted segment: Karn).
    @inline(__always)
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

    /// Starts a handshake from `timeout` (before any sample): the base the
    /// handshake's backoff multiplies.
    mutating func startHandshake(from timeout: Int64) {
        handshakeBase = min(timeout, highest)
        self.timeout = handshakeBase
    }

    /// The handshake's timeout after an expiry: `multiplier` times its
    /// base, at most the maximum (XNU's backoff tables; no slop before the
    /// connection is established).
    mutating func backOffHandshake(multiplier: Int64) {
        timeout = handshakeBase > highest / multiplier ? highest : handshakeBase * multiplier
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
    @inline(__always)
    mutating func set(_ time: Int64, side: ConnectionSide, into actions: inout ReusableBuffer<ConnectionAction>) {
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
    mutating func fire(generation: UInt32, now: Int64, side: ConnectionSide, into actions: inout ReusableBuffer<ConnectionAction>) -> Bool {
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

/// The state of one TCP connection between two devices.
///
/// Setup is the three-way handshake (RFC 9293 §3.5): the initiator's SYN,
/// retransmitted on its timeout; the responder's SYN-ACK, retransmitted on
/// its own; and the final ACK, carried by the initiator's first data or
/// sent alone. The initiator may send once the SYN-ACK arrives, the
/// responder once the final ACK (or data) does. Data flows both ways in
/// messages split into segments, under ``SendHalf``'s congestion control
/// and loss detection; the receiver acknowledges every segment at once, or
/// with ``TransportParameters/delayedAcknowledgement`` every second
/// in-order one, and discards duplicates.
struct ConnectionState: Sendable {
    enum Phase: Sendable, Equatable {
        case handshake
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
    /// The initiator's phase.
    var phase: Phase = .handshake
    /// Whether the responder has sent its SYN-ACK.
    var responderSynchronised = false
    /// Whether the responder has seen the handshake completed and may send.
    var responderReady = false
    /// Transmissions of the SYN and of the SYN-ACK (for Karn's rule).
    var synTransmissions = 0
    var synAcknowledgementTransmissions = 0
    /// Transmissions of the SYN and SYN-ACK, retransmissions included.
    var setupRequestsSent = 0
    var synSentAt: Int64 = 0
    var synAcknowledgementSentAt: Int64 = 0
    /// When the first SYN and the first SYN-ACK went (the connect timeout
    /// counts from them).
    var firstSynSentAt: Int64 = 0
    var firstSynAcknowledgementSentAt: Int64 = 0
    /// What the initiator sends.
    var initiatorHalf: SendHalf
    /// What the responder sends.
    var responderHalf: SendHalf
    /// What the initiator has received.
    var initiatorReceiver = ReceiveHalf()
    /// What the responder has received.
    var responderReceiver = ReceiveHalf()

    /// A new connection; `handshakeTimeouts` are the initial timeouts of
    /// the SYN and of the SYN-ACK (by path and each sender's OS; see
    /// ``HandshakeTimeouts``).
    init(
        id: ConnectionID, initiator: DeviceID, responder: DeviceID, path: PathKind,
        parameters: TransportParameters, segmentSize: Int, handshakeTimeouts: HandshakeTimeouts
    ) {
        self.id = id
        self.initiator = initiator
        self.responder = responder
        self.path = path
        self.parameters = parameters
        self.segmentSize = segmentSize
        initiatorHalf = SendHalf(parameters: parameters, segmentSize: segmentSize)
        responderHalf = SendHalf(parameters: parameters, segmentSize: segmentSize)
        initiatorHalf.estimator.startHandshake(from: handshakeTimeouts.initiator)
        responderHalf.estimator.startHandshake(from: handshakeTimeouts.responder)
    }

    /// Becomes a new connection's state, exactly as
    /// ``init(id:initiator:responder:path:parameters:segmentSize:)`` makes
    /// it, in the storage of this finished one's records: allocating
    /// nothing once they have grown.
    ///
    /// The state is replaced by a new one; only buffers carry over.
    mutating func rebuild(
        id: ConnectionID, initiator: DeviceID, responder: DeviceID, path: PathKind,
        parameters: TransportParameters, segmentSize: Int, handshakeTimeouts: HandshakeTimeouts
    ) {
        var new = ConnectionState(
            id: id, initiator: initiator, responder: responder, path: path, parameters: parameters,
            segmentSize: segmentSize, handshakeTimeouts: handshakeTimeouts)
        new.initiatorHalf.adoptBuffers(of: &initiatorHalf)
        new.responderHalf.adoptBuffers(of: &responderHalf)
        new.initiatorReceiver.adoptBuffers(of: &initiatorReceiver)
        new.responderReceiver.adoptBuffers(of: &responderReceiver)
        self = new
    }

    var isOpen: Bool {
        @inline(__always) get {
        switch phase {
        case .failed, .closed: return false
        case .handshake, .established: return true
        }
        }
    }

    @inline(__always)
    func canSend(_ side: ConnectionSide) -> Bool {
        side == .initiator ? phase == .established : (responderReady && isOpen)
    }

    /// The send half of `side`.
    func half(_ side: ConnectionSide) -> SendHalf { side == .initiator ? initiatorHalf : responderHalf }

    // MARK: Setup

    /// Sends the SYN.
    mutating func start(now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        sendSyn(now: now, into: &actions)
    }

    /// Starts already established, both sides ready (a persistent
    /// connection): no handshake.
    mutating func startEstablished(into actions: inout ReusableBuffer<ConnectionAction>) {
        phase = .established
        responderSynchronised = true
        responderReady = true
        actions.append(.established)
    }

    private mutating func sendSyn(now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        if synTransmissions == 0 { firstSynSentAt = now }
        synTransmissions += 1
        setupRequestsSent += 1
        synSentAt = now
        actions.append(.transmit(
            side: .initiator, kind: .handshake, sequence: 0, word: 0, payloadBytes: Int32(parameters.handshakeBytes)))
        initiatorHalf.timer.set(
            handshakeDeadline(now + initiatorHalf.estimator.timeout, firstSent: firstSynSentAt), side: .initiator,
            into: &actions)
    }

    private mutating func sendSynAcknowledgement(now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        if synAcknowledgementTransmissions == 0 { firstSynAcknowledgementSentAt = now }
        synAcknowledgementTransmissions += 1
        setupRequestsSent += 1
        synAcknowledgementSentAt = now
        actions.append(.transmit(
            side: .responder, kind: .handshakeReply, sequence: 0, word: 0,
            payloadBytes: Int32(parameters.handshakeBytes)))
        responderHalf.timer.set(
            handshakeDeadline(now + responderHalf.estimator.timeout, firstSent: firstSynAcknowledgementSentAt),
            side: .responder, into: &actions)
    }

    /// A handshake timer's deadline: `retransmission`, or the connect
    /// timeout if that comes first (XNU's `tcp_keepinit`).
    private func handshakeDeadline(_ retransmission: Int64, firstSent: Int64) -> Int64 {
        guard parameters.handshakeRetransmission == .xnu else { return retransmission }
        return min(retransmission, firstSent + parameters.connectTimeout.nanoseconds)
    }

    /// The initiator got the SYN-ACK: established; the final ACK goes with
    /// the first data, or alone.
    private mutating func establish(now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        if synTransmissions == 1 { initiatorHalf.estimator.sample(now - synSentAt) }
        phase = .established
        initiatorHalf.timer.clear()
        initiatorHalf.consecutiveTimeouts = 0
        actions.append(.established)
        if !initiatorHalf.trySend(side: .initiator, window: parameters.window, now: now, into: &actions) {
            actions.append(.transmit(side: .initiator, kind: .handshakeAcknowledgement, sequence: 0, word: 0, payloadBytes: 0))
        }
        initiatorHalf.setTimer(side: .initiator, parameters: parameters, now: now, into: &actions)
    }

    /// The responder saw the handshake completed.
    private mutating func responderEstablish(now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        guard !responderReady else { return }
        if synAcknowledgementTransmissions == 1 { responderHalf.estimator.sample(now - synAcknowledgementSentAt) }
        responderReady = true
        responderHalf.timer.clear()
        responderHalf.consecutiveTimeouts = 0
        trySend(.responder, now: now, into: &actions)
    }

    // MARK: Sending

    /// Queues a message of `bytes` from `side`, with an optional reply size
    /// (−1 for none) the other side answers with at once.
    mutating func enqueue(
        from side: ConnectionSide, bytes: Int, tag: UInt64, replyBytes: Int, now: Int64,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        guard isOpen else { return }
        if side == .initiator {
            initiatorHalf.enqueue(bytes: bytes, tag: tag, replyBytes: replyBytes)
        } else {
            responderHalf.enqueue(bytes: bytes, tag: tag, replyBytes: replyBytes)
        }
        trySend(side, now: now, into: &actions)
    }

    /// Sends what `side` may send now, and sets its timer.
    mutating func trySend(_ side: ConnectionSide, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        guard canSend(side) else { return }
        let sent: Bool
        if side == .initiator {
            sent = initiatorHalf.trySend(side: side, window: parameters.window, now: now, into: &actions)
            if sent { initiatorHalf.setTimer(side: side, parameters: parameters, now: now, into: &actions) }
        } else {
            sent = responderHalf.trySend(side: side, window: parameters.window, now: now, into: &actions)
            if sent { responderHalf.setTimer(side: side, parameters: parameters, now: now, into: &actions) }
        }
        // Data carries the acknowledgement a delayed ACK was holding back.
        if sent { flushAcknowledgement(side, now: now, into: &actions) }
    }

    // MARK: Receiving

    /// Handles a packet that arrived at `side`.
    mutating func receive(
        at side: ConnectionSide, kind: PacketKind, sequence: UInt32, word: UInt32, blockLength: UInt8, now: Int64,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        guard isOpen else { return }
        switch kind {
        case .data:
            if side == .responder {
                responderEstablish(now: now, into: &actions)
            } else if phase != .established {
                // The responder sends only after the handshake; its data
                // means the SYN-ACK was lost or is still on its way.
                establish(now: now, into: &actions)
            }
            let result: (duplicate: Bool, inOrder: Bool, queuedReply: Bool)
            if side == .initiator {
                result = initiatorReceiver.receive(
                    side: side, sequence: sequence, from: &responderHalf, replier: &initiatorHalf,
                    into: &actions)
            } else {
                result = responderReceiver.receive(
                    side: side, sequence: sequence, from: &initiatorHalf, replier: &responderHalf,
                    into: &actions)
            }
            if result.queuedReply { trySend(side, now: now, into: &actions) }
            let delay = parameters.delayedAcknowledgement
            if side == .initiator {
                Self.acknowledge(
                    sequence, receiver: &initiatorReceiver, side: side, duplicate: result.duplicate,
                    mayWait: result.inOrder, delay: delay, now: now, into: &actions)
            } else {
                Self.acknowledge(
                    sequence, receiver: &responderReceiver, side: side, duplicate: result.duplicate,
                    mayWait: result.inOrder, delay: delay, now: now, into: &actions)
            }
        case .acknowledgement, .duplicateAcknowledgement:
            if side == .responder { responderEstablish(now: now, into: &actions) }
            let report = AcknowledgementReport(
                cumulative: word, blockTop: sequence, blockLength: UInt32(blockLength),
                duplicate: kind == .duplicateAcknowledgement)
            if side == .initiator {
                guard phase == .established else { return }
                initiatorHalf.receiveAcknowledgement(
                    side: side, report: report, parameters: parameters, now: now, into: &actions)
            } else {
                responderHalf.receiveAcknowledgement(
                    side: side, report: report, parameters: parameters, now: now, into: &actions)
            }
        case .handshake:
            guard side == .responder, !responderReady else { return }
            // A SYN again means the SYN-ACK was lost: answered at once.
            responderSynchronised = true
            sendSynAcknowledgement(now: now, into: &actions)
        case .handshakeReply:
            guard side == .initiator else { return }
            if phase == .handshake {
                establish(now: now, into: &actions)
            } else {
                // A SYN-ACK again: the final ACK was lost.
                actions.append(.transmit(
                    side: .initiator, kind: .handshakeAcknowledgement, sequence: 0, word: 0, payloadBytes: 0))
            }
        case .handshakeAcknowledgement:
            guard side == .responder else { return }
            responderEstablish(now: now, into: &actions)
        case .datagram:
            return
        }
    }

    /// Acknowledges data segment `sequence` at `side`: at once, or (with
    /// delayed acknowledgements, for an in-order segment) with the next
    /// one or when the timer expires.
    private static func acknowledge(
        _ sequence: UInt32, receiver: inout ReceiveHalf, side: ConnectionSide, duplicate: Bool, mayWait: Bool,
        delay: SimDuration?, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        if mayWait, let delay, !receiver.acknowledgementPending {
            receiver.acknowledgementPending = true
            receiver.acknowledgementTimerGeneration &+= 1
            actions.append(.armAcknowledgementTimer(
                side: side, time: now + delay.nanoseconds, generation: receiver.acknowledgementTimerGeneration))
            return
        }
        receiver.acknowledgementPending = false
        let report = receiver.report(for: sequence, duplicate: duplicate)
        actions.append(.transmit(
            side: side, kind: report.duplicate ? .duplicateAcknowledgement : .acknowledgement,
            sequence: report.blockTop, word: report.cumulative, payloadBytes: 0,
            blockLength: UInt8(report.blockLength)))
    }

    /// Sends the acknowledgement `side` holds back, if any.
    private mutating func flushAcknowledgement(
        _ side: ConnectionSide, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        let pending = side == .initiator ? initiatorReceiver.acknowledgementPending : responderReceiver.acknowledgementPending
        guard pending else { return }
        if side == .initiator { initiatorReceiver.acknowledgementPending = false } else { responderReceiver.acknowledgementPending = false }
        let cumulative = side == .initiator ? initiatorReceiver.cumulative : responderReceiver.cumulative
        actions.append(.transmit(side: side, kind: .acknowledgement, sequence: 0, word: cumulative, payloadBytes: 0))
    }

    // MARK: Timers

    /// Handles `side`'s delayed-acknowledgement timer event.
    mutating func acknowledgementTimerFired(
        side: ConnectionSide, generation: UInt32, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        guard isOpen else { return }
        let current = side == .initiator
            ? initiatorReceiver.acknowledgementTimerGeneration : responderReceiver.acknowledgementTimerGeneration
        guard generation == current else { return }
        flushAcknowledgement(side, now: now, into: &actions)
    }

    /// Handles `side`'s timer event.
    mutating func timerFired(
        side: ConnectionSide, generation: UInt32, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        guard isOpen else { return }
        let outcome = side == .initiator
            ? Self.expire(
                &initiatorHalf, handshakeDone: phase == .established, generation: generation, side: side,
                firstSent: firstSynSentAt, parameters: parameters, now: now, into: &actions)
            : Self.expire(
                &responderHalf, handshakeDone: responderReady, generation: generation, side: side,
                firstSent: firstSynAcknowledgementSentAt, parameters: parameters, now: now, into: &actions)
        switch outcome {
        case .nothing:
            return
        case .resendHandshake:
            if side == .initiator { sendSyn(now: now, into: &actions) } else { sendSynAcknowledgement(now: now, into: &actions) }
        case let .failed(failure):
            fail(failure, into: &actions)
        }
    }

    /// What a timer event of one side calls for.
    private enum TimerOutcome {
        case nothing
        case resendHandshake
        case failed(ConnectionFailure)
    }

    /// Handles the timer event of `generation` on `half`: a handshake
    /// timeout while the side's handshake is not done, else whatever the
    /// half's timer was set for (reorder, probe, retransmission).
    private static func expire(
        _ half: inout SendHalf, handshakeDone: Bool, generation: UInt32, side: ConnectionSide, firstSent: Int64,
        parameters: TransportParameters, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) -> TimerOutcome {
        guard half.timer.fire(generation: generation, now: now, side: side, into: &actions) else { return .nothing }
        guard handshakeDone else {
            return setupTimedOut(&half, side: side, firstSent: firstSent, parameters: parameters, now: now)
                ? .resendHandshake : .failed(.setupTimedOut)
        }
        return half.timerExpired(side: side, parameters: parameters, now: now, into: &actions)
            ? .nothing : .failed(.retransmissionsExhausted)
    }

    /// XNU's `tcp_syn_backoff` (`bsd/netinet/tcp_timer.c`): the SYN's
    /// timeout after each expiry, in multiples of its initial one.
    static let synBackoff: [Int64] = [1, 1, 1, 1, 1, 2, 4, 8, 16, 32, 64, 64, 64]
    /// XNU's `tcp_backoff`, which the SYN-ACK follows.
    static let backoff: [Int64] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64]
    /// XNU's `TCP_MAXRXTSHIFT` (`bsd/netinet/tcp_timer.h`): the handshake
    /// is dropped at the expiry after its 12th retransmission.
    static let handshakeRetransmissions = 12

    /// Counts a handshake timeout on `half` and backs off.
    ///
    /// - Returns: `false` when set-up gives up: past the retry limit
    ///   (doubling), or past 12 retransmissions or the connect timeout (XNU).
    private static func setupTimedOut(
        _ half: inout SendHalf, side: ConnectionSide, firstSent: Int64, parameters: TransportParameters, now: Int64
    ) -> Bool {
        half.statistics.timeouts += 1
        half.consecutiveTimeouts += 1
        switch parameters.handshakeRetransmission {
        case .doubling:
            if half.consecutiveTimeouts > parameters.retryLimit { return false }
            half.estimator.backOff()
        case .xnu:
            let shift = half.consecutiveTimeouts
            if shift > handshakeRetransmissions || now - firstSent >= parameters.connectTimeout.nanoseconds { return false }
            half.estimator.backOffHandshake(multiplier: (side == .initiator ? synBackoff : backoff)[shift])
        }
        return true
    }

    private mutating func fail(_ failure: ConnectionFailure, into actions: inout ReusableBuffer<ConnectionAction>) {
        phase = .failed(failure)
        initiatorHalf.timer.clear()
        responderHalf.timer.clear()
        actions.append(.failed(failure))
    }

    /// Closes the connection: nothing more is sent or delivered.
    mutating func close() {
        guard isOpen else { return }
        phase = .closed
        initiatorHalf.timer.clear()
        responderHalf.timer.clear()
    }
}

/// The initial timeouts of a connection's SYN and SYN-ACK.
struct HandshakeTimeouts: Sendable {
    /// The SYN's (the initiator's).
    var initiator: Int64
    /// The SYN-ACK's (the responder's).
    var responder: Int64
}
