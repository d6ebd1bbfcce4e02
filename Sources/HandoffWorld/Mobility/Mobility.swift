import SimKernel

/// How a device moves: where it is at any simulated instant.
///
/// Positions are a pure function of the instant (and, for a random walk, of
/// its named random stream), so they are exact and deterministic, and two
/// queries for the same instant always agree whatever was asked in between.
public enum Mobility: Sendable {
    /// The device stays at one place.
    case stationary(Position)
    /// The device follows a path of waypoints at given speeds.
    case waypoints(WaypointPath)
    /// The device wanders inside a rectangle (random waypoint model).
    case randomWalk(RandomWalk)

    /// The position at `instant`.
    ///
    /// - Complexity: O(log k) for a path of k legs.
    public func position(at instant: SimInstant) -> Position {
        switch self {
        case let .stationary(position): return position
        case let .waypoints(path): return path.position(at: instant)
        case let .randomWalk(walk): return walk.path.position(at: instant)
        }
    }
}

/// A path through waypoints: the device starts at `start`, waits until
/// `departure`, then walks to each waypoint in a straight line at that
/// waypoint's speed, optionally pausing on arrival, and stays at the last one.
///
/// Each leg's duration is its length divided by its speed, rounded to the
/// nearest nanosecond; at the arrival instant and afterwards the position is
/// the waypoint exactly, and in between it is the linear interpolation by
/// elapsed time.
public struct WaypointPath: Sendable, Hashable {
    /// One waypoint: where to go, how fast, and how long to stay there.
    public struct Waypoint: Sendable, Hashable {
        /// The destination of the leg.
        public var position: Position
        /// Walking speed on the way there, in metres per second.
        public var speed: Double
        /// How long the device stays on arrival before the next leg.
        public var pause: SimDuration

        /// Creates a waypoint reached at `speed` m/s, with an optional pause.
        public init(_ position: Position, speed: Double, pause: SimDuration = .zero) {
            self.position = position
            self.speed = speed
            self.pause = pause
        }
    }

    /// A leg with its times resolved.
    struct Leg: Sendable, Hashable {
        let from: Position
        let to: Position
        let departure: Int64
        let arrival: Int64

        /// The leg from `from` to `to` at `speed` m/s, departing at
        /// `departure` ns; its duration is rounded to the nearest nanosecond.
        ///
        /// - Returns: `nil` when the arrival (or the end of `pause` after it)
        ///   lies beyond the longest simulated time.
        static func walk(
            from: Position, to: Position, speed: Double, departure: Int64, pause: Int64
        ) -> (leg: Leg, next: Int64)? {
            let nanoseconds = (from.distance(to: to) / speed * 1e9).rounded()
            guard nanoseconds < 9.2e18 else { return nil }
            let (arrival, overflow) = departure.addingReportingOverflow(Int64(nanoseconds))
            let (next, overflowAfterPause) = arrival.addingReportingOverflow(pause)
            guard !overflow, !overflowAfterPause else { return nil }
            return (Leg(from: from, to: to, departure: departure, arrival: arrival), next)
        }
    }

    /// Where the device is before it sets off.
    public let start: Position
    let legs: [Leg]

    /// Creates a path.
    ///
    /// - Throws: ``WorldError`` for a non-finite coordinate, a speed that
    ///   is not a finite positive number, a negative pause, or a leg too long
    ///   for simulated time.
    public init(start: Position, departure: SimInstant = .zero, waypoints: [Waypoint]) throws(WorldError) {
        guard start.x.isFinite, start.y.isFinite else { throw .invalidPosition(leg: 0) }
        self.start = start
        var legs: [Leg] = []
        var from = start
        var clock = departure.nanosecondsSinceStart
        for (index, waypoint) in waypoints.enumerated() {
            let number = index + 1
            guard waypoint.position.x.isFinite, waypoint.position.y.isFinite else {
                throw .invalidPosition(leg: number)
            }
            guard waypoint.speed.isFinite, waypoint.speed > 0 else {
                throw .invalidSpeed(leg: number, speed: waypoint.speed)
            }
            guard waypoint.pause >= .zero else { throw .negativePause(leg: number) }
            guard let (leg, next) = Leg.walk(
                from: from, to: waypoint.position, speed: waypoint.speed, departure: clock,
                pause: waypoint.pause.nanoseconds)
            else { throw .legTooLong(leg: number) }
            legs.append(leg)
            from = waypoint.position
            clock = next
        }
        self.legs = legs
    }

    init(start: Position, legs: [Leg]) {
        self.start = start
        self.legs = legs
    }

    /// When the device reaches its last waypoint (the departure time for an
    /// empty path).
    public var arrival: SimInstant? {
        legs.last.map { SimInstant(nanosecondsSinceStart: $0.arrival) }
    }

    /// The position at `instant`.
    ///
    /// - Complexity: O(log k) for k legs (binary search).
    public func position(at instant: SimInstant) -> Position {
        let time = instant.nanosecondsSinceStart
        guard let first = legs.first, time > first.departure else { return start }
        // The last leg that has departed by `time`.
        var low = 0
        var high = legs.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if legs[middle].departure < time { low = middle } else { high = middle - 1 }
        }
        let leg = legs[low]
        if time >= leg.arrival { return leg.to }
        let fraction = Double(time - leg.departure) / Double(leg.arrival - leg.departure)
        return leg.from.interpolated(to: leg.to, fraction: fraction)
    }
}

/// A bounded random walk by the random waypoint model: the device repeatedly
/// picks a point uniformly inside its area and walks there in a straight
/// line at a speed drawn uniformly from `speeds`, pausing for a time drawn
/// uniformly from `pauses` on arrival.
///
/// The walk is drawn once, up to `horizon`, from its own named random stream,
/// so where the device is at any instant does not depend on which instants
/// were asked about, and adding another device does not change it. After
/// the horizon the device stays where the last leg ended.
public struct RandomWalk: Sendable, Hashable {
    /// The walk as a waypoint path.
    public let path: WaypointPath

    /// Draws a walk.
    ///
    /// - Parameters:
    ///   - start: where the walk begins; must lie inside the area.
    ///   - area: the rectangle the device stays inside, as opposite corners.
    ///   - speeds: walking speeds in m/s, drawn uniformly.
    ///   - pauses: the pause on arrival, drawn uniformly in whole nanoseconds.
    ///   - horizon: the walk is drawn until its legs cover this instant.
    ///   - stream: the named random stream the walk draws from.
    /// - Throws: ``WorldError`` when the area is degenerate or not finite,
    ///   the start lies outside it, or a speed is not finite and positive.
    public init(
        start: Position, area: (Position, Position), speeds: ClosedRange<Double>,
        pauses: ClosedRange<SimDuration> = SimDuration.zero...SimDuration.zero,
        horizon: SimInstant, stream: RandomStreamKey
    ) throws(WorldError) {
        let minX = min(area.0.x, area.1.x)
        let maxX = max(area.0.x, area.1.x)
        let minY = min(area.0.y, area.1.y)
        let maxY = max(area.0.y, area.1.y)
        guard minX.isFinite, maxX.isFinite, minY.isFinite, maxY.isFinite else {
            throw .invalidArea("the area's corners must be finite numbers of metres")
        }
        guard minX < maxX || minY < maxY else { throw .invalidArea("the area is a single point") }
        guard (minX...maxX).contains(start.x), (minY...maxY).contains(start.y) else {
            throw .invalidArea("the start \(start) lies outside the area")
        }
        guard speeds.lowerBound.isFinite, speeds.upperBound.isFinite, speeds.lowerBound > 0 else {
            throw .invalidSpeed(leg: 1, speed: speeds.lowerBound)
        }
        guard pauses.lowerBound >= .zero else { throw .negativePause(leg: 1) }
        var generator = stream.generator()
        var legs: [WaypointPath.Leg] = []
        var from = start
        var clock: Int64 = 0
        while clock < horizon.nanosecondsSinceStart {
            let target = Position(
                x: minX + (maxX - minX) * generator.unitInterval(),
                y: minY + (maxY - minY) * generator.unitInterval())
            let speed = speeds.lowerBound + (speeds.upperBound - speeds.lowerBound) * generator.unitInterval()
            let pause = generator.uniform(in: pauses.lowerBound.nanoseconds...pauses.upperBound.nanoseconds)
            guard let (leg, next) = WaypointPath.Leg.walk(
                from: from, to: target, speed: speed, departure: clock, pause: pause)
            else { throw .legTooLong(leg: legs.count + 1) }
            legs.append(leg)
            from = target
            // A zero-length leg with no pause would not advance the clock.
            clock = max(next, clock + 1)
        }
        path = WaypointPath(start: start, legs: legs)
    }
}
