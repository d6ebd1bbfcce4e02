import SimKernel

/// A world run on its own: a ``SimulationModel`` whose events are world
/// events, which records every notification with the instant it happened.
///
/// Useful for measuring links, transfers and advertising without any
/// Handoff logic on top (the validation tests and `handoff-bench transfer`
/// use it). A model that must react to notifications embeds a ``World``
/// in its own model instead.
///
/// ```swift
/// var simulation = Simulation(model: WorldSimulation(world: world))
/// let connection = simulation.model.world.openConnection(from: a, to: b, over: .cloudRelay, at: .zero)
/// simulation.model.world.send(bytes: 3072, tag: 1, on: connection, from: .initiator, at: .zero)
/// simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
/// simulation.run()
/// ```
public struct WorldSimulation: SimulationModel, ~Copyable {
    /// A notification and when it happened.
    public struct Record: Sendable, Equatable {
        /// When it happened.
        public let instant: SimInstant
        /// What happened.
        public let notification: WorldNotification
    }

    /// The world being run.
    public var world: World
    /// Every notification so far, in order, when ``keepsLog`` is true.
    public private(set) var log: [Record] = []
    /// Whether notifications are kept in ``log`` (otherwise only counted).
    public var keepsLog: Bool
    /// The number of notifications so far.
    public private(set) var notificationCount = 0

    /// Runs `world`, keeping a log of notifications unless told not to.
    public init(world: consuming World, keepsLog: Bool = true) {
        self.world = world
        self.keepsLog = keepsLog
    }

    public mutating func handle(_ event: WorldEvent, scheduler: inout Scheduler<WorldEvent>) {
        world.handle(event, scheduler: &scheduler)
        if world.notificationCount > 0 { collectNotifications(at: scheduler.now) }
    }

    /// Moves the world's notifications into the log, stamped `instant`
    /// (call it after acting on the world outside an event, e.g. at time 0).
    public mutating func collectNotifications(at instant: SimInstant) {
        let count = world.notificationCount
        if count == 0 { return }
        notificationCount += count
        if keepsLog {
            for index in 0..<count { log.append(Record(instant: instant, notification: world.notification(at: index))) }
        }
        world.removeAllNotifications()
    }
}
