/// A point on the floor plan, in metres.
///
/// HandoffSim places devices on a plane: Handoff's range is a room or two,
/// where height differences matter less than walls (which the radio model's
/// shadowing stands for).
public struct Position: Hashable, Sendable, CustomStringConvertible {
    /// Metres east of the origin.
    public var x: Double
    /// Metres north of the origin.
    public var y: Double

    /// Creates a position `x` metres east and `y` metres north of the origin.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The origin.
    public static let origin = Position(x: 0, y: 0)

    /// The straight-line distance to `other`, in metres.
    ///
    /// Uses only IEEE basic operations and the correctly rounded square
    /// root, so it is the same on every platform.
    public func distance(to other: Position) -> Double {
        let dx = other.x - x
        let dy = other.y - y
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The point a `fraction` of the way from `self` to `other`.
    ///
    /// `fraction` 0 gives `self` exactly and 1 gives `other` exactly.
    public func interpolated(to other: Position, fraction: Double) -> Position {
        if fraction <= 0 { return self }
        if fraction >= 1 { return other }
        return Position(x: x + (other.x - x) * fraction, y: y + (other.y - y) * fraction)
    }

    public var description: String { "(\(x) m, \(y) m)" }
}
