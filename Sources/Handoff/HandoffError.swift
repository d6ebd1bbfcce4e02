import HandoffWorld
import SimKernel

/// Errors in describing apps and activities, or in using the Handoff API the
/// way Apple's platforms refuse it (a `webpageURL` that is not http or https,
/// a `userInfo` value that is not a property-list type).
///
/// Every case names what was wrong and what was expected, so the scenario
/// layer can pass the message on with the file and JSON path it came from.
public enum HandoffError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A `userInfo` value is not one of the allowed types. `keyPath` locates
    /// it (for example `userInfo.items[2].price`) and `type` names what was
    /// found.
    case invalidUserInfoValue(keyPath: String, type: String)
    /// A `userInfo` dictionary key is not a string.
    case invalidUserInfoKey(keyPath: String, type: String)
    /// A `webpageURL` (or a URL in an app's description) whose scheme is not
    /// http or https; Apple's platforms raise an exception for these.
    case unsupportedURLScheme(url: String)
    /// A URL that could not be parsed, or that has no host.
    case malformedURL(String)
    /// A Team ID that is not ten upper-case letters and digits.
    case invalidTeamID(String)
    /// A bundle identifier that is empty or not reverse-DNS characters.
    case invalidBundleID(String)
    /// An associated-domain entry that is not `service:domain` with a valid
    /// domain (`reason` says what is wrong).
    case invalidAssociatedDomain(String, reason: String)
    /// A numeric or textual setting outside its allowed range.
    case invalidParameter(name: String, value: String, expected: String)
    /// No device has this name.
    case unknownDevice(String)
    /// No app has this bundle identifier.
    case unknownApp(String)
    /// Two apps share a bundle identifier.
    case duplicateApp(String)
    /// The app exists but is not installed on the device.
    case appNotInstalled(bundleID: String, device: String)
    /// The world refused its description.
    case world(WorldError)

    /// The error in words: what was wrong and what was expected.
    public var description: String {
        switch self {
        case let .invalidUserInfoValue(keyPath, type):
            return "\(keyPath): a value of type \(type) is not allowed in userInfo; expected an array, data, date, "
                + "dictionary, null, number, set, string, URL or UUID"
        case let .invalidUserInfoKey(keyPath, type):
            return "\(keyPath): a userInfo key of type \(type); expected a string key"
        case let .unsupportedURLScheme(url):
            return "webpageURL \"\(url)\": expected an http or https URL (Apple's platforms reject other schemes)"
        case let .malformedURL(url):
            return "URL \"\(url)\" could not be parsed; expected an absolute URL with a host"
        case let .invalidTeamID(team):
            return "Team ID \"\(team)\"; expected ten upper-case letters and digits such as ABCDE12345"
        case let .invalidBundleID(bundle):
            return "bundle ID \"\(bundle)\"; expected a reverse-DNS identifier such as com.example.app"
        case let .invalidAssociatedDomain(entry, reason):
            return "associated domain \"\(entry)\": \(reason); expected service:domain such as "
                + "activitycontinuation:example.com or activitycontinuation:*.example.com"
        case let .invalidParameter(name, value, expected):
            return "\(name): \(value); expected \(expected)"
        case let .unknownDevice(name):
            return "no device named \"\(name)\""
        case let .unknownApp(bundle):
            return "no app with bundle ID \"\(bundle)\""
        case let .appNotInstalled(bundle, device):
            return "app \"\(bundle)\" is not installed on \"\(device)\"; expected one of the device's installed apps"
        case let .duplicateApp(bundle):
            return "two apps have bundle ID \"\(bundle)\"; expected unique bundle IDs"
        case let .world(error):
            return error.description
        }
    }
}

extension DurationDistribution {
    /// Checks the distribution, naming it `name` in the error.
    ///
    /// - Throws: ``HandoffError/invalidParameter(name:value:expected:)``.
    func check(named name: String) throws(HandoffError) {
        do {
            try validate()
        } catch {
            let expected: String
            if case let .invalidParameter(_, parameter, _, expectation) = error {
                expected = "\(parameter) \(expectation)"
            } else {
                expected = error.description
            }
            throw .invalidParameter(name: name, value: description, expected: expected)
        }
    }
}
