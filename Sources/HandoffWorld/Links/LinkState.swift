import SimKernel

/// Counters of one link direction since the world began.
public struct LinkStatistics: Hashable, Sendable {
    /// Packets handed to the link (each counted once, however many
    /// fragments it needed).
    public var packetsOffered = 0
    /// Fragments put on the wire (admitted to the queue).
    public var fragmentsSent = 0
    /// Fragments dropped because the queue was full.
    public var fragmentsDroppedByQueue = 0
    /// Fragments lost on the wire by the loss model (and by an AWDL peer
    /// away from the channel, counted in ``fragmentsLostToPeerAway`` too).
    public var fragmentsLost = 0
    /// Of those, fragments an idle AWDL pair sent while the peer was away
    /// on an excursion (``PeerToPeerSchedule/excursionDuration``).
    public var fragmentsLostToPeerAway = 0
    /// Unicast fragments dropped before sending because the AWDL peer did
    /// not know the device yet (a cold start, ``PeerToPeerSchedule/start``).
    public var fragmentsDroppedUnknownPeer = 0
    /// Packets not sent, or lost on arrival, because the link was down.
    public var packetsLostToOutage = 0
    /// Packets that arrived intact.
    public var packetsDelivered = 0
    /// The total time fragments waited in the queue before their first bit
    /// went on the wire, in nanoseconds.
    public var totalQueueingNanoseconds: Int64 = 0
    /// Fragments sent while a Gilbert-Elliott chain was in its bad state.
    public var fragmentsSentInBadState = 0
    /// How many times a Gilbert-Elliott chain entered its bad state
    /// (counting a start in it).
    public var badStateVisits = 0
    /// The most fragments ever waiting at once.
    public var peakQueueLength = 0

    /// The mean time a fragment waited in the queue, in seconds.
    public var meanQueueingSeconds: Double {
        fragmentsSent == 0 ? 0 : Double(totalQueueingNanoseconds) / 1e9 / Double(fragmentsSent)
    }
}

/// One direction of a link: its parameters, its queue, its loss state and
/// its counters.
///
/// The FIFO queue is resolved when a packet is offered: with a fixed rate,
/// each fragment's start time is known at once (the later of now and the end
/// of the fragment before it), so a packet costs one event per hop however
/// long it queues. The queue length at any instant is the number of
/// admitted fragments that have not yet started, kept in a ring of start
/// times.
///
/// What a trial changes lives in ``trial`` (a ``Trial``), which a rebuild
/// replaces; the parameters (usually the run's defaults) and the reception
/// probability remembered for them sit beside it, so a rebuild does not
/// move them.
struct LinkState: Sendable {
    var parameters: LinkParameters
    /// The last distance of the distance loss model and its reception
    /// probability (−1 before the first). It depends on the distance and
    /// the loss model only, so it is kept while the loss model stays the
    /// same.
    var lastLossDistance: Double = -1
    var lastLossReceptionProbability: Double = 0
    /// What changes during a trial.
    var trial: Trial

    /// Everything about a link that changes during a trial: the queue, the
    /// generators, the loss model's state, the counters, the rate drawn
    /// and the pair's schedule clock.
    struct Trial: Sendable {
        /// The instant the wire is free again, in nanoseconds.
        var busyUntil: Int64 = 0
        /// Start times of fragments that were waiting when last checked.
        var waitingStarts: RingBuffer<Int64>
        var lossGenerator: Xoshiro256StarStar
        var jitterGenerator: Xoshiro256StarStar
        var inBadState = false
        var statistics = LinkStatistics()
        /// Serialisation times at the bandwidth, if the link has one.
        var serialisation: SerialisationTimes?
        /// The pair's schedule in this trial (with ``LinkParameters/schedule``).
        var clock = ScheduleClock()

        /// A trial's state before the link is started, queueing in
        /// `waitingStarts` (empty).
        init(waitingStarts: RingBuffer<Int64>, lossGenerator: Xoshiro256StarStar, jitterGenerator: Xoshiro256StarStar) {
            self.waitingStarts = waitingStarts
            self.lossGenerator = lossGenerator
            self.jitterGenerator = jitterGenerator
        }
    }

    /// A placeholder for a link not used yet (it allocates nothing).
    static let unused = LinkState(
        parameters: LinkParameters(latency: .zero), lossGenerator: Xoshiro256StarStar(seed: 0),
        jitterGenerator: Xoshiro256StarStar(seed: 0))

    /// A link in use with the given loss and jitter generators.
    init(parameters: LinkParameters, lossGenerator: Xoshiro256StarStar, jitterGenerator: Xoshiro256StarStar) {
        self.parameters = parameters
        trial = Trial(waitingStarts: RingBuffer(filler: 0), lossGenerator: lossGenerator, jitterGenerator: jitterGenerator)
        start()
    }

    /// Becomes a link in use, exactly as
    /// ``init(parameters:lossGenerator:jitterGenerator:)`` makes it with
    /// the parameters it has, in the storage of this one's queue.
    ///
    /// The trial's state is replaced by a new one; only the queue's
    /// storage carries over (and the parameters, with the reception
    /// probability remembered for them, which sit outside it).
    mutating func rebuild(lossGenerator: Xoshiro256StarStar, jitterGenerator: Xoshiro256StarStar) {
        trial = Trial(
            waitingStarts: .reusing(&trial.waitingStarts), lossGenerator: lossGenerator,
            jitterGenerator: jitterGenerator)
        start()
    }

    /// ``rebuild(lossGenerator:jitterGenerator:)`` with `parameters` from
    /// now on. The reception probability remembered by distance is kept
    /// when the loss model stays the same (it depends on nothing else).
    mutating func rebuild(
        parameters: LinkParameters, lossGenerator: Xoshiro256StarStar, jitterGenerator: Xoshiro256StarStar
    ) {
        if parameters.loss != self.parameters.loss { lastLossDistance = -1 }
        self.parameters = parameters
        rebuild(lossGenerator: lossGenerator, jitterGenerator: jitterGenerator)
    }

    /// Draws the rate, works the schedule's phase out, and puts the loss
    /// model in its starting state.
    private mutating func start() {
        drawRate()
        clock.setSchedule(parameters.schedule)
        startLossState()
    }

    /// Replaces the parameters; the queue and the counters carry on.
    mutating func setParameters(_ parameters: LinkParameters) {
        // The remembered reception probability holds while the loss model
        // is the same.
        if parameters.loss != self.parameters.loss { lastLossDistance = -1 }
        self.parameters = parameters
        drawRate()
        clock.setSchedule(parameters.schedule)
        startLossState()
    }

    /// Sets the serialisation times at the bandwidth, scaled by a factor
    /// drawn from the jitter stream when the parameters spread it (so a
    /// link without a spread draws nothing).
    private mutating func drawRate() {
        guard let bandwidth = parameters.bandwidth else {
            serialisation = nil
            return
        }
        guard !parameters.bandwidthSpread.isNone else {
            serialisation = SerialisationTimes(bandwidth)
            return
        }
        // A slowdown only: the bandwidth is the ceiling (see
        // `LinkParameters.bandwidthSpread`).
        let factor = parameters.bandwidthSpread.factor(z: NormalDistribution.standardSample(using: &jitterGenerator))
        let scaled = (Double(bandwidth.bitsPerSecond) * factor).rounded()
        let rate = (try? Bandwidth(bitsPerSecond: Int64(min(max(scaled, 1), 1e15)))) ?? bandwidth
        serialisation = SerialisationTimes(rate)
    }

    /// Puts the loss model in its starting state.
    private mutating func startLossState() {
        if case let .gilbertElliott(model) = parameters.loss {
            // Start from the stationary distribution, so no warm-up is needed.
            inBadState = lossGenerator.unitInterval() < model.stationaryBadProbability
            if inBadState { statistics.badStateVisits += 1 }
        } else {
            inBadState = false
        }
    }

    /// Offers a packet of `payloadBytes` at `now`.
    ///
    /// - Parameter distance: the distance between the two ends, used only by
    ///   the distance loss model.
    /// - Returns: the arrival time in nanoseconds, or `nil` if a fragment was
    ///   dropped or lost.
    /// - Parameter multicast: whether it is a multicast frame (on an AWDL
    ///   link it waits for a multicast slot).
    /// - Parameter awdl: for a link over the Wi-Fi network between a pair
    ///   whose AWDL is on, the pair's clock and schedule: a fragment waits
    ///   while the pair is off the infrastructure channel, and arrives only
    ///   once the receiver is back.
    mutating func offer(
        payloadBytes: Int, now: Int64, distance: Double, multicast: Bool = false,
        awdl: (clock: ScheduleClock, schedule: PeerToPeerSchedule)? = nil
    ) -> Int64? {
        statistics.packetsOffered += 1
        if busyUntil <= now {
            // Every waiting fragment started by `busyUntil`: the queue is empty.
            waitingStarts.removeAll()
        } else {
            while let start = waitingStarts.first, start <= now { waitingStarts.removeFirst() }
        }
        let perPacket = parameters.mtu - parameters.headerBytes
        let header = parameters.headerBytes
        let queueLimit = parameters.queueLimit
        // Most packets fit in one fragment; skip the division for them.
        let fragments = payloadBytes <= perPacket ? 1 : (payloadBytes + perPacket - 1) / perPacket
        var remaining = payloadBytes
        var intact = true
        for _ in 0..<fragments {
            let fragmentPayload = min(max(remaining, 0), perPacket)
            remaining -= fragmentPayload
            if waitingStarts.count >= queueLimit, busyUntil > now {
                statistics.fragmentsDroppedByQueue += 1
                intact = false
                continue
            }
            var start = max(now, busyUntil)
            var peerAway = false
            if let schedule = parameters.schedule {
                let departure = clock.departure(at: start, multicast: multicast, schedule: schedule)
                if case .unknownPeer = departure.fate {
                    statistics.fragmentsDroppedUnknownPeer += 1
                    intact = false
                    continue
                }
                start = departure.start
                if case .peerAway = departure.fate { peerAway = true }
            } else if let awdl {
                start = awdl.clock.infrastructurePresence(at: start, schedule: awdl.schedule)
            }
            if start > now {
                waitingStarts.append(start)
                if waitingStarts.count > statistics.peakQueueLength { statistics.peakQueueLength = waitingStarts.count }
            }
            statistics.totalQueueingNanoseconds += start - now
            statistics.fragmentsSent += 1
            if let serialisation {
                busyUntil = start + serialisation.nanoseconds(bytes: fragmentPayload + header)
            } else {
                busyUntil = start
            }
            if isLost(distance: distance) || peerAway {
                statistics.fragmentsLost += 1
                if peerAway { statistics.fragmentsLostToPeerAway += 1 }
                intact = false
            }
        }
        guard intact else { return nil }
        var arrival = busyUntil + parameters.latency.nanoseconds
        let jitter = parameters.jitter.nanoseconds
        // uniform(below: jitter + 1) is uniform(in: 0...jitter), one call
        // shallower on the per-packet path.
        if jitter > 0 { arrival += Int64(jitterGenerator.uniform(below: UInt64(jitter) &+ 1)) }
        if let awdl { arrival = awdl.clock.infrastructurePresence(at: arrival, schedule: awdl.schedule) }
        return arrival
    }

    /// Draws whether the fragment being sent is lost, stepping the
    /// Gilbert-Elliott chain after it.
    @inline(__always)
    private mutating func isLost(distance: Double) -> Bool {
        switch parameters.loss {
        case .none:
            return false
        case let .bernoulli(probability):
            return probability > 0 && lossGenerator.unitInterval() < probability
        case let .gilbertElliott(model):
            let lost: Bool
            if inBadState {
                statistics.fragmentsSentInBadState += 1
                lost = lossGenerator.unitInterval() < model.lossInBad
                if lossGenerator.unitInterval() < model.badToGood { inBadState = false }
            } else {
                lost = lossGenerator.unitInterval() < model.lossInGood
                if lossGenerator.unitInterval() < model.goodToBad {
                    inBadState = true
                    statistics.badStateVisits += 1
                }
            }
            return lost
        case let .distance(radio):
            // As RadioPropagation.isReceived(atDistance:using:), remembering
            // the reception probability while the distance stays the same.
            if distance != lastLossDistance {
                lastLossDistance = distance
                lastLossReceptionProbability = radio.receptionProbability(atDistance: distance)
            }
            return !radio.isReceived(withProbability: lastLossReceptionProbability, using: &lossGenerator)
        }
    }
}

// The trial's fields under their own names, so the packet path reads
// `busyUntil` rather than `trial.busyUntil`.
extension LinkState {
    /// The instant the wire is free again, in nanoseconds.
    var busyUntil: Int64 {
        @inline(__always) get { trial.busyUntil }
        @inline(__always) set { trial.busyUntil = newValue }
    }
    /// Start times of fragments that were waiting when last checked.
    var waitingStarts: RingBuffer<Int64> {
        @inline(__always) _read { yield trial.waitingStarts }
        @inline(__always) _modify { yield &trial.waitingStarts }
    }
    var lossGenerator: Xoshiro256StarStar {
        @inline(__always) _read { yield trial.lossGenerator }
        @inline(__always) _modify { yield &trial.lossGenerator }
    }
    var jitterGenerator: Xoshiro256StarStar {
        @inline(__always) _read { yield trial.jitterGenerator }
        @inline(__always) _modify { yield &trial.jitterGenerator }
    }
    var inBadState: Bool {
        @inline(__always) get { trial.inBadState }
        @inline(__always) set { trial.inBadState = newValue }
    }
    var statistics: LinkStatistics {
        @inline(__always) _read { yield trial.statistics }
        @inline(__always) _modify { yield &trial.statistics }
    }
    /// Serialisation times at the bandwidth, if the link has one.
    var serialisation: SerialisationTimes? {
        @inline(__always) get { trial.serialisation }
        @inline(__always) set { trial.serialisation = newValue }
    }
    /// The pair's schedule in this trial (with ``LinkParameters/schedule``).
    var clock: ScheduleClock {
        @inline(__always) _read { yield trial.clock }
        @inline(__always) _modify { yield &trial.clock }
    }
}
