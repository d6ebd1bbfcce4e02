import SimKernel

extension World {
    /// Everything about the world that changes during a trial and lives
    /// outside its tables: the stream drawn from, pair trust, advertisers
    /// and scan phases, advertisement reception, connections and their
    /// routes, partitions, the packet log, and the events and
    /// notifications on their way out.
    ///
    /// What a run fixes (the configuration, the devices' descriptions,
    /// link ends and default parameters, scan schedules, interned stream
    /// names, fixed distances) lives in the world beside it; the tables'
    /// per-trial columns (device settings and accounts, links in use) are
    /// rebuilt by the tables themselves. A reset replaces it with a new
    /// value (``rebuild(stream:deviceCount:)``): every field starts as in a
    /// new world, and only buffers (and the reception probabilities
    /// remembered per distance, which no trial changes) carry over.
    @usableFromInline
    struct TrialState: Sendable {
        /// The stream the world draws from, as numbers only (no path text
        /// to build when deriving streams per trial).
        var stream: RandomStreamKey.Hashed
        var trust: PairTrust
        /// Each device's advertising state (made as the devices' streams
        /// are seeded, in device order).
        var advertisers: [Advertiser]
        /// The phase of each device's scan schedule.
        var scanPhases: [SimDuration]
        /// Advertisement reception per ordered device pair (sender × count
        /// + receiver): one array, so the advertising path checks one buffer.
        var receptions: [PairReception]
        /// Connection states: the first ``connectionCount`` are this
        /// trial's; any after them are left from an earlier trial, and new
        /// connections reuse their storage.
        var connections: [ConnectionState] = []
        /// The number of connections opened in this trial.
        var connectionCount = 0
        /// Each connection's endpoints and path, kept apart from its state
        /// so the packet path reads plain values only (as connection
        /// states, entries past ``connectionCount`` are overwritten).
        var routes: [Route] = []
        var partitions: [Partition] = []
        /// Every packet put on a link in this trial, while the world
        /// records packets.
        var packetLog: [PacketRecord] = []
        /// Packets not recorded because ``World/packetLogLimit`` was reached.
        var packetsLeftOut = 0
        /// Actions produced by the connection being handled; reused.
        var actions = ReusableBuffer<ConnectionAction>()
        /// Events waiting to be moved into the owner's scheduler.
        @usableFromInline var pendingEvents = ReusableBuffer<ScheduledWorldEvent>()
        /// What happened that the layer above needs to know, in the order it
        /// happened.
        @usableFromInline var notificationBuffer = ReusableBuffer<WorldNotification>()

        /// A state of no devices drawing from `stream` (what a rebuild
        /// starts from).
        private init(stream: RandomStreamKey.Hashed) {
            self.stream = stream
            trust = PairTrust(deviceCount: 0)
            advertisers = []
            scanPhases = []
            receptions = []
        }

        /// The state at the start of a trial of `deviceCount` devices drawing
        /// from `stream` (before the devices' streams are seeded).
        init(stream: RandomStreamKey.Hashed, deviceCount: Int) {
            self.stream = stream
            trust = PairTrust(deviceCount: deviceCount)
            // Each device's advertiser is made when its stream is seeded.
            advertisers = []
            advertisers.reserveCapacity(deviceCount)
            scanPhases = Array(repeating: .zero, count: deviceCount)
            receptions = Array(repeating: PairReception(), count: deviceCount * deviceCount)
        }

        /// Becomes the state at the start of a trial, exactly as
        /// ``init(stream:deviceCount:)`` makes it, in the storage of this
        /// one's buffers: allocating nothing once they have grown.
        ///
        /// The state is replaced by a new one; only buffers carry over
        /// (and the reception probabilities remembered by distance).
        mutating func rebuild(stream: RandomStreamKey.Hashed, deviceCount: Int) {
            // This state becomes a new one and the old one's buffers move
            // into it (swapped, not assigned: assigning a new value over
            // this one copies it whole).
            var old = TrialState(stream: stream)
            swap(&self, &old)
            trust = PairTrust(deviceCount: deviceCount, reusing: &old.trust)
            // Each device's advertiser is made when its stream is seeded.
            advertisers.takeStorage(of: &old.advertisers)
            scanPhases.takeStorage(of: &old.scanPhases, repeating: .zero, count: deviceCount)
            // Each pair starts over, remembering only its reception
            // probability by distance (it depends on the distance and the
            // radio, which no trial changes).
            swap(&receptions, &old.receptions)
            receptions.withUnsafeMutableBufferPointer { pairs in
                for index in pairs.indices { pairs[index] = PairReception(remembering: pairs[index]) }
            }
            // States and routes past the count are storage to reuse.
            swap(&connections, &old.connections)
            swap(&routes, &old.routes)
            partitions.takeStorage(of: &old.partitions)
            packetLog.takeStorage(of: &old.packetLog)
            actions = .reusing(&old.actions)
            pendingEvents = .reusing(&old.pendingEvents)
            notificationBuffer = .reusing(&old.notificationBuffer)
        }
    }
}
