/// Errors in describing the world: devices, their movement, links, radios,
/// profiles and transport settings.
///
/// Every case names what was wrong and what was expected, so the scenario
/// layer can pass the message on with the file and JSON path it came from.
public enum WorldError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A waypoint's speed was zero, negative or not finite.
    case invalidSpeed(leg: Int, speed: Double)
    /// A waypoint's coordinate was not finite.
    case invalidPosition(leg: Int)
    /// A leg would take longer than simulated time can represent.
    case legTooLong(leg: Int)
    /// A random walk's area is empty or not finite.
    case invalidArea(String)
    /// A waypoint's pause was negative.
    case negativePause(leg: Int)
    /// A numeric setting is outside its allowed range.
    ///
    /// `name` is the setting (e.g. `"bandwidth"`), `value` what was given
    /// and `expected` the allowed range in words.
    case invalidParameter(name: String, value: String, expected: String)
    /// No network profile has this name; `known` lists the names that do
    /// exist, in table order.
    case unknownProfile(name: String, known: [String])
    /// An OS version was not of the form `major[.minor[.patch]]`.
    case malformedOSVersion(String)
    /// Two devices share one name.
    case duplicateDeviceName(String)

    public var description: String {
        switch self {
        case let .invalidSpeed(leg, speed):
            return "waypoint \(leg): speed \(speed) m/s; expected a finite speed > 0"
        case let .invalidPosition(leg):
            return "waypoint \(leg): coordinates must be finite numbers of metres"
        case let .legTooLong(leg):
            return "waypoint \(leg): the leg takes longer than the longest simulated time"
        case let .invalidArea(problem):
            return "random walk: \(problem)"
        case let .negativePause(leg):
            return "waypoint \(leg): the pause must not be negative"
        case let .invalidParameter(name, value, expected):
            return "\(name): \(value); expected \(expected)"
        case let .unknownProfile(name, known):
            return "no network profile named \"\(name)\"; known profiles: \(known.joined(separator: ", "))"
        case let .malformedOSVersion(text):
            return "OS version \"\(text)\"; expected major[.minor[.patch]] such as 17.4 or 14.2.1"
        case let .duplicateDeviceName(name):
            return "two devices are named \"\(name)\"; expected unique device names"
        }
    }
}
