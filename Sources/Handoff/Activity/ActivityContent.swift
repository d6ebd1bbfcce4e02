import Foundation
import HandoffWorld
import SimKernel

/// Identifies an activity within one simulation: its index in creation
/// order.
public struct ActivityID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The index in creation order.
    public let index: Int

    /// The activity at `index`.
    public init(_ index: Int) { self.index = index }

    public static func < (lhs: ActivityID, rhs: ActivityID) -> Bool { lhs.index < rhs.index }

    public var description: String { "activity #\(index)" }
}

/// What an app sets on a user activity: `NSUserActivity`'s properties, as a
/// value.
///
/// The activity type is fixed at creation. A `webpageURL` must be http or
/// https (Apple's platforms raise an exception for any other scheme; here
/// ``setWebpageURL(_:)`` throws). The size sent on a continuation is the
/// binary-plist size of ``userInfo`` unless ``payloadSize`` gives it
/// directly.
///
/// ```swift
/// var tab = ActivityContent(type: "com.xamarin.monkeybrowser.tab1", title: "Weather")
/// tab.addUserInfoEntries(["Url": "https://www.weather.com"])
/// try tab.setWebpageURL("https://www.weather.com")
/// ```
public struct ActivityContent: Hashable, Sendable {
    /// The activity type (reverse DNS), fixed at creation.
    public let activityType: String
    /// The user-visible title.
    public var title: String?
    /// The state needed to continue the activity.
    public var userInfo: UserInfo
    /// Keys that must be in ``userInfo`` for the activity to be continued;
    /// when not empty, only these keys are sent.
    public var requiredUserInfoKeys: Set<String>
    /// Whether the activity delegate must be asked to bring ``userInfo`` up
    /// to date (`userActivityWillSave`) before it is sent.
    public var needsSave: Bool
    /// Whether the receiver may open continuation streams back to the
    /// source.
    public var supportsContinuationStreams: Bool
    /// The web page to open in a browser when the receiver has no suitable
    /// app.
    public private(set) var webpageURL: WebpageURL?
    /// After this instant the activity is no longer offered.
    public var expirationDate: SimInstant?
    /// Whether the activity may be handed off at all.
    public var isEligibleForHandoff: Bool
    /// The transfer size in bytes, given directly instead of estimated from
    /// ``userInfo``.
    public var payloadSize: Int?
    /// The iCloud document this activity edits, as a path inside the app's
    /// ubiquity container (`Documents/Report.rtfd`); `nil` for an activity
    /// that is not document-based.
    public var documentPath: String?
    /// Responders (by name) that share this activity. When not empty, the
    /// activity is responder-managed: before each save ``userInfo`` is
    /// cleared and every responder gets `updateUserActivityState`.
    public var responders: [String]

    /// A new activity of `type`.
    public init(
        type: String, title: String? = nil, userInfo: UserInfo = UserInfo(), requiredUserInfoKeys: Set<String> = [],
        needsSave: Bool = false, supportsContinuationStreams: Bool = false, expirationDate: SimInstant? = nil,
        isEligibleForHandoff: Bool = true, payloadSize: Int? = nil, documentPath: String? = nil,
        responders: [String] = []
    ) {
        activityType = type
        self.title = title
        self.userInfo = userInfo
        self.requiredUserInfoKeys = requiredUserInfoKeys
        self.needsSave = needsSave
        self.supportsContinuationStreams = supportsContinuationStreams
        self.expirationDate = expirationDate
        self.isEligibleForHandoff = isEligibleForHandoff
        self.payloadSize = payloadSize
        self.documentPath = documentPath
        self.responders = responders
    }

    /// Sets the web page, or removes it with `nil`.
    ///
    /// - Throws: ``HandoffError/unsupportedURLScheme(url:)`` for a scheme
    ///   other than http or https, ``HandoffError/malformedURL(_:)`` for a
    ///   string that is not an absolute URL with a host.
    public mutating func setWebpageURL(_ string: String?) throws(HandoffError) {
        guard let string else {
            webpageURL = nil
            return
        }
        webpageURL = try WebpageURL(string)
    }

    /// Merges `entries` into ``userInfo`` (`addUserInfoEntries`): new keys
    /// are added, existing keys take the new values.
    public mutating func addUserInfoEntries(_ entries: UserInfo) {
        userInfo.addEntries(entries)
    }

    /// Whether the activity is responder-managed.
    public var isResponderManaged: Bool { !responders.isEmpty }

    /// A short label for traces and messages: the type, and the title in
    /// quotes when there is one.
    public var label: String {
        guard let title else { return activityType }
        return "\(activityType) \"\(title)\""
    }

    /// What is sent to the receiver: ``userInfo`` limited to
    /// ``requiredUserInfoKeys`` when those are given.
    public var sentUserInfo: UserInfo {
        guard !requiredUserInfoKeys.isEmpty else { return userInfo }
        var sent = UserInfo()
        for key in userInfo.keys where requiredUserInfoKeys.contains(key) { sent[key] = userInfo[key] }
        return sent
    }

    /// The bytes a continuation transfers for this activity's data:
    /// ``payloadSize`` when given, otherwise the binary-plist size of
    /// ``sentUserInfo``.
    public var transferSize: Int { payloadSize ?? sentUserInfo.estimatedEncodedSize }
}

/// The `userInfo` key under which a document-based activity carries its
/// document's URL (`NSUserActivityDocumentURLKey`).
public let documentURLKey = "NSUserActivityDocumentURLKey"

/// Where a device keeps an app's iCloud documents, so a document URL can be
/// rewritten from the source's container to the receiver's.
enum UbiquityContainer {
    /// The file URL of `path` inside `bundleID`'s ubiquity container on a
    /// device named `device` running `platform`.
    static func url(of path: String, bundleID: String, device: String, platform: Platform) -> URL {
        let container = "iCloud~" + bundleID.replacingOccurrences(of: ".", with: "~")
        let root: String
        switch platform {
        case .macOS:
            root = "/Users/\(device)/Library/Mobile Documents/\(container)"
        case .iOS, .iPadOS, .visionOS, .watchOS:
            root = "/private/var/mobile/Library/Mobile Documents/\(container)"
        }
        return URL(fileURLWithPath: root + "/" + path)
    }
}
