import Testing
import SimKernel
@testable import HandoffWorld

@Suite("Mobility: positions at any instant")
struct MobilityTests {
    func at(_ text: String) throws -> SimInstant {
        .zero + (try SimDuration(parsing: text))
    }

    @Test("a stationary device is where it was put, at every instant")
    func stationary() throws {
        let mobility = Mobility.stationary(Position(x: 3, y: -4))
        for time in ["0s", "1ms", "1h"] {
            #expect(mobility.position(at: try at(time)) == Position(x: 3, y: -4))
        }
        #expect(Position.origin.distance(to: Position(x: 3, y: -4)) == 5)
    }

    @Test("waypoint positions are exact at each waypoint and after the last")
    func exactAtWaypoints() throws {
        // Legs: (0,0) → (3,4) is 5 m at 1 m/s = 5 s; pause 2 s;
        // (3,4) → (3,10) is 6 m at 1.5 m/s = 4 s, departing at 7 s: arrival at 11 s.
        let path = try WaypointPath(
            start: .origin,
            waypoints: [
                .init(Position(x: 3, y: 4), speed: 1, pause: .seconds(2)),
                .init(Position(x: 3, y: 10), speed: 1.5),
            ])
        let mobility = Mobility.waypoints(path)
        #expect(mobility.position(at: .zero) == .origin)
        #expect(mobility.position(at: try at("5s")) == Position(x: 3, y: 4))
        #expect(mobility.position(at: try at("6s")) == Position(x: 3, y: 4), "pausing")
        #expect(mobility.position(at: try at("7s")) == Position(x: 3, y: 4), "pause ends, leg 2 departs")
        #expect(mobility.position(at: try at("11s")) == Position(x: 3, y: 10))
        #expect(mobility.position(at: try at("1h")) == Position(x: 3, y: 10))
        #expect(path.arrival == (try at("11s")))
    }

    @Test("between waypoints the position is the linear interpolation by elapsed time")
    func exactInBetween() throws {
        let path = try WaypointPath(
            start: Position(x: 1, y: 1), departure: try at("2s"),
            waypoints: [.init(Position(x: 9, y: 1), speed: 2), .init(Position(x: 9, y: -7), speed: 4)])
        // Leg 1: 8 m at 2 m/s from 2 s to 6 s: x = 1 + 2·(t − 2).
        // Leg 2: 8 m at 4 m/s from 6 s to 8 s: y = 1 − 4·(t − 6).
        #expect(path.position(at: try at("1s")) == Position(x: 1, y: 1), "before departure")
        #expect(path.position(at: try at("3s")) == Position(x: 3, y: 1))
        #expect(path.position(at: try at("4.5s")) == Position(x: 6, y: 1))
        #expect(path.position(at: try at("6.5s")) == Position(x: 9, y: -1))
        #expect(path.position(at: try at("7.75s")) == Position(x: 9, y: -6))
        // One nanosecond into leg 1: 2 m/s · 1 ns = 2 nm.
        let early = path.position(at: try at("2.000000001s"))
        #expect(abs(early.x - (1 + 2e-9)) < 1e-15)
    }

    @Test("queries answer the same whatever was asked before (no hidden state)")
    func orderIndependent() throws {
        let walk = try RandomWalk(
            start: .origin, area: (Position(x: -10, y: -10), Position(x: 10, y: 10)), speeds: 0.5...1.5,
            pauses: .zero...(.seconds(3)), horizon: try at("10m"), stream: RandomStreamKey(seed: 5).child("walk"))
        let mobility = Mobility.randomWalk(walk)
        let instants = (0..<200).map { SimInstant(nanosecondsSinceStart: Int64($0) * 3_000_000_000) }
        let forward = instants.map(mobility.position(at:))
        let backward = instants.reversed().map(mobility.position(at:)).reversed()
        #expect(forward == Array(backward))
    }

    @Test("a random walk stays inside its area, moves, and is reproducible from its stream", arguments: [1, 2, 3] as [UInt64])
    func randomWalkBounded(seed: UInt64) throws {
        let area = (Position(x: 0, y: 0), Position(x: 8, y: 5))
        func walk(_ seed: UInt64) throws -> RandomWalk {
            try RandomWalk(
                start: Position(x: 4, y: 2), area: area, speeds: 1...1.4, horizon: try at("30m"),
                stream: RandomStreamKey(seed: seed).child("device", 1).child("walk"))
        }
        let first = try walk(seed)
        #expect(first == (try walk(seed)))
        #expect(first != (try walk(seed + 100)))
        var distinct = Set<Position>()
        for second in stride(from: 0, to: 1_800, by: 7) {
            let position = first.path.position(at: .zero + .seconds(Int64(second)))
            #expect((0...8).contains(position.x) && (0...5).contains(position.y), "\(position) left the area")
            distinct.insert(position)
        }
        #expect(distinct.count > 100, "the device should keep moving")
        // Speed never exceeds the fastest speed drawn: 1.4 m/s.
        for second in 0..<600 {
            let a = first.path.position(at: .zero + .seconds(Int64(second)))
            let b = first.path.position(at: .zero + .seconds(Int64(second + 1)))
            #expect(a.distance(to: b) <= 1.4 + 1e-9)
        }
    }

    @Test("bad paths are rejected with a message naming the waypoint")
    func rejectsBadPaths() {
        #expect(throws: WorldError.invalidSpeed(leg: 2, speed: 0)) {
            try WaypointPath(start: .origin, waypoints: [.init(Position(x: 1, y: 0), speed: 1), .init(.origin, speed: 0)])
        }
        #expect(WorldError.invalidSpeed(leg: 2, speed: 0).description
            == "waypoint 2: speed 0.0 m/s; expected a finite speed > 0")
        #expect(throws: WorldError.invalidPosition(leg: 1)) {
            try WaypointPath(start: .origin, waypoints: [.init(Position(x: .nan, y: 0), speed: 1)])
        }
        #expect(throws: WorldError.self) {
            try RandomWalk(
                start: Position(x: 50, y: 0), area: (.origin, Position(x: 10, y: 10)), speeds: 1...2,
                horizon: .zero + .seconds(10), stream: RandomStreamKey(seed: 1))
        }
    }

    @Test("a random walk over an area too large for simulated time is an error, not a crash")
    func rejectsHugeArea() {
        #expect(throws: WorldError.legTooLong(leg: 1)) {
            try RandomWalk(
                start: .origin, area: (.origin, Position(x: 1e300, y: 1e300)), speeds: 1...1,
                horizon: .zero + .seconds(10), stream: RandomStreamKey(seed: 3))
        }
    }
}
