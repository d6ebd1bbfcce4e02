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

    // Variables only so that ``reuse`` can overwrite them in place.
    private(set) var id: ConnectionID
    private(set) var initiator: DeviceID
    private(set) var responder: DeviceID
    private(set) var path: PathKind
    private(set) var parameters: TransportParameters
    private(set) var segmentSize: Int
    private(set) var needsKeyExchange: Bool
    var phase: Phase = .handshake
    /// Whether the responder has answered the whole setup and may send.
    var responderReady = false
    /// Transmissions of the current setup request (for Karn's rule).
    var setupTransmissions = 0
    /// Transmissions of every setup request, retransmissions included.
    var setupRequestsSent = 0
    var setupSentAt: Int64 = 0
    /// What the initiator sends.
    var initiatorHalf: SendHalf
    /// What the responder sends.
    var responderHalf: SendHalf
    /// What the initiator has received.
    var initiatorReceiver = ReceiveHalf()
    /// What the responder has received.
    var responderReceiver = ReceiveHalf()

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
        initiatorHalf = SendHalf(parameters: parameters)
        responderHalf = SendHalf(parameters: parameters)
    }

    /// Becomes a new connection's state in place, reusing this finished
    /// one's storage: the same as
    /// ``init(id:initiator:responder:path:parameters:segmentSize:needsKeyExchange:)``,
    /// allocating nothing once the records have grown, and moving nothing.
    mutating func reuse(
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
        phase = .handshake
        responderReady = false
        setupTransmissions = 0
        setupRequestsSent = 0
        setupSentAt = 0
        initiatorHalf.reset(parameters: parameters)
        responderHalf.reset(parameters: parameters)
        initiatorReceiver.reset()
        responderReceiver.reset()
    }

    var isOpen: Bool {
        @inline(__always) get {
        switch phase {
        case .failed, .closed: return false
        default: return true
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

    /// Sends the first handshake request.
    mutating func start(now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        sendSetupRequest(now: now, into: &actions)
    }

    private mutating func sendSetupRequest(now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
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
        initiatorHalf.timer.set(now + initiatorHalf.estimator.timeout, side: .initiator, into: &actions)
    }

    /// Moves the setup on after an answer to the current request.
    private mutating func advanceSetup(to next: Phase, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        if setupTransmissions == 1 { initiatorHalf.estimator.sample(now - setupSentAt) }
        initiatorHalf.consecutiveTimeouts = 0
        initiatorHalf.timer.clear()
        setupTransmissions = 0
        if next == .established {
            establish(now: now, into: &actions)
        } else {
            phase = next
            sendSetupRequest(now: now, into: &actions)
        }
    }

    private mutating func establish(now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        phase = .established
        initiatorHalf.timer.clear()
        initiatorHalf.consecutiveTimeouts = 0
        if needsKeyExchange { actions.append(.recordTrust) }
        actions.append(.established)
        initiatorHalf.trySend(side: .initiator, window: parameters.window, now: now, into: &actions)
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
            initiatorHalf.enqueue(bytes: bytes, tag: tag, replyBytes: replyBytes, segmentSize: segmentSize)
        } else {
            responderHalf.enqueue(bytes: bytes, tag: tag, replyBytes: replyBytes, segmentSize: segmentSize)
        }
        trySend(side, now: now, into: &actions)
    }

    /// Sends what `side` may send now.
    mutating func trySend(_ side: ConnectionSide, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>) {
        guard canSend(side) else { return }
        if side == .initiator {
            initiatorHalf.trySend(side: side, window: parameters.window, now: now, into: &actions)
        } else {
            responderHalf.trySend(side: side, window: parameters.window, now: now, into: &actions)
        }
    }

    // MARK: Receiving

    /// Handles a packet that arrived at `side`.
    mutating func receive(
        at side: ConnectionSide, kind: PacketKind, sequence: UInt32, word: UInt32, now: Int64,
        into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        guard isOpen else { return }
        switch kind {
        case .data:
            if side == .initiator, phase != .established {
                // Data from the responder means it finished the setup; the
                // reply that said so was lost or is still on its way.
                setupTransmissions = 0
                establish(now: now, into: &actions)
            }
            let queuedReply: Bool
            if side == .initiator {
                queuedReply = initiatorReceiver.receive(
                    side: side, sequence: sequence, from: &responderHalf, replier: &initiatorHalf,
                    segmentSize: segmentSize, into: &actions)
            } else {
                queuedReply = responderReceiver.receive(
                    side: side, sequence: sequence, from: &initiatorHalf, replier: &responderHalf,
                    segmentSize: segmentSize, into: &actions)
            }
            if queuedReply { trySend(side, now: now, into: &actions) }
            let cumulative = side == .initiator ? initiatorReceiver.cumulative : responderReceiver.cumulative
            actions.append(.transmit(
                side: side, kind: .acknowledgement, sequence: sequence, word: cumulative, payloadBytes: 0))
        case .acknowledgement:
            if side == .initiator {
                initiatorHalf.receiveAcknowledgement(
                    side: side, sequence: sequence, cumulative: word, window: parameters.window, now: now,
                    into: &actions)
            } else {
                responderHalf.receiveAcknowledgement(
                    side: side, sequence: sequence, cumulative: word, window: parameters.window, now: now,
                    into: &actions)
            }
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
        case .datagram:
            return
        }
    }

    // MARK: Timers

    /// Handles `side`'s timer event.
    mutating func timerFired(
        side: ConnectionSide, generation: UInt32, now: Int64, into actions: inout ReusableBuffer<ConnectionAction>
    ) {
        guard isOpen else { return }
        if side == .initiator {
            guard initiatorHalf.timer.fire(generation: generation, now: now, side: side, into: &actions) else { return }
            if phase != .established {
                initiatorHalf.statistics.timeouts += 1
                initiatorHalf.consecutiveTimeouts += 1
                if initiatorHalf.consecutiveTimeouts > parameters.retryLimit {
                    fail(.setupTimedOut, into: &actions)
                } else {
                    initiatorHalf.estimator.backOff()
                    sendSetupRequest(now: now, into: &actions)
                }
                return
            }
            if !initiatorHalf.timeOut(
                side: side, retryLimit: parameters.retryLimit, window: parameters.window, now: now, into: &actions)
            {
                fail(.retransmissionsExhausted, into: &actions)
            }
        } else {
            guard responderHalf.timer.fire(generation: generation, now: now, side: side, into: &actions) else { return }
            if !responderHalf.timeOut(
                side: side, retryLimit: parameters.retryLimit, window: parameters.window, now: now, into: &actions)
            {
                fail(.retransmissionsExhausted, into: &actions)
            }
        }
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
