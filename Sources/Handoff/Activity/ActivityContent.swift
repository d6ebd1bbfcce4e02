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

    /// Ordered by index: the order the activities were created in.
    public static func < (lhs: ActivityID, rhs: ActivityID) -> Bool { lhs.index < rhs.index }

    /// `activity #N`.
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
    /// Every field in one reference-counted box: copying an activity (into
    /// the source's records, a delegate call, the receiver's copy) costs one
    /// retain rather than one per string and collection. Changing a copy
    /// copies the box first, so values never share changes.
    private var storage: Storage

    /// The fields; mutated only through a uniquely referenced box, inside
    /// a mutating member of the value that owns it. The value's own static
    /// exclusivity checks therefore cover every access, and the fields skip
    /// the runtime's dynamic checks (`@exclusivity(unchecked)`).
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var activityType: String
        @exclusivity(unchecked) var title: String?
        @exclusivity(unchecked) var userInfo: UserInfo
        @exclusivity(unchecked) var requiredUserInfoKeys: Set<String>
        @exclusivity(unchecked) var needsSave: Bool
        @exclusivity(unchecked) var supportsContinuationStreams: Bool
        @exclusivity(unchecked) var webpageURL: WebpageURL?
        @exclusivity(unchecked) var expirationDate: SimInstant?
        @exclusivity(unchecked) var isEligibleForHandoff: Bool
        @exclusivity(unchecked) var payloadSize: Int?
        @exclusivity(unchecked) var documentPath: String?
        @exclusivity(unchecked) var responders: [String]

        init(
            activityType: String, title: String?, userInfo: UserInfo, requiredUserInfoKeys: Set<String>, needsSave: Bool, supportsContinuationStreams: Bool, webpageURL: WebpageURL?, expirationDate: SimInstant?, isEligibleForHandoff: Bool, payloadSize: Int?, documentPath: String?, responders: [String]
        ) {
            self.activityType = activityType
            self.title = title
            self.userInfo = userInfo
            self.requiredUserInfoKeys = requiredUserInfoKeys
            self.needsSave = needsSave
            self.supportsContinuationStreams = supportsContinuationStreams
            self.webpageURL = webpageURL
            self.expirationDate = expirationDate
            self.isEligibleForHandoff = isEligibleForHandoff
            self.payloadSize = payloadSize
            self.documentPath = documentPath
            self.responders = responders
        }

        func copy() -> Storage {
            Storage(
                activityType: activityType, title: title, userInfo: userInfo, requiredUserInfoKeys: requiredUserInfoKeys, needsSave: needsSave, supportsContinuationStreams: supportsContinuationStreams, webpageURL: webpageURL, expirationDate: expirationDate, isEligibleForHandoff: isEligibleForHandoff, payloadSize: payloadSize, documentPath: documentPath, responders: responders)
        }
    }

    /// Makes the box this value's own before a change.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// Sets one field, in this value's own box.
    private mutating func update<Value>(_ field: ReferenceWritableKeyPath<Storage, Value>, to value: Value) {
        makeUnique()
        storage[keyPath: field] = value
    }

    /// The activity type (reverse DNS), fixed at creation.
    public var activityType: String { storage.activityType }
    /// The user-visible title.
    public var title: String? {
        get { storage.title }
        set { update(\.title, to: newValue) }
    }
    /// The state needed to continue the activity.
    public var userInfo: UserInfo {
        get { storage.userInfo }
        _modify {
            makeUnique()
            yield &storage.userInfo
        }
    }
    /// Keys that must be in ``userInfo`` for the activity to be continued;
    /// when not empty, only these keys are sent.
    public var requiredUserInfoKeys: Set<String> {
        get { storage.requiredUserInfoKeys }
        _modify {
            makeUnique()
            yield &storage.requiredUserInfoKeys
        }
    }
    /// Whether the activity delegate must be asked to bring ``userInfo`` up
    /// to date (`userActivityWillSave`) before it is sent.
    public var needsSave: Bool {
        get { storage.needsSave }
        set { update(\.needsSave, to: newValue) }
    }
    /// Whether the receiver may open continuation streams back to the
    /// source.
    public var supportsContinuationStreams: Bool {
        get { storage.supportsContinuationStreams }
        set { update(\.supportsContinuationStreams, to: newValue) }
    }
    /// The web page to open in a browser when the receiver has no suitable
    /// app; set it with ``setWebpageURL(_:)``.
    public var webpageURL: WebpageURL? { storage.webpageURL }
    /// After this instant the activity is no longer offered.
    public var expirationDate: SimInstant? {
        get { storage.expirationDate }
        set { update(\.expirationDate, to: newValue) }
    }
    /// Whether the activity may be handed off at all.
    public var isEligibleForHandoff: Bool {
        get { storage.isEligibleForHandoff }
        set { update(\.isEligibleForHandoff, to: newValue) }
    }
    /// The transfer size in bytes, given directly instead of estimated from
    /// ``userInfo``.
    public var payloadSize: Int? {
        get { storage.payloadSize }
        set { update(\.payloadSize, to: newValue) }
    }
    /// The iCloud document this activity edits, as a path inside the app's
    /// ubiquity container (`Documents/Report.rtfd`); `nil` for an activity
    /// that is not document-based.
    public var documentPath: String? {
        get { storage.documentPath }
        set { update(\.documentPath, to: newValue) }
    }
    /// Responders (by name) that share this activity. When not empty, the
    /// activity is responder-managed: before each save ``userInfo`` is
    /// cleared and every responder gets `updateUserActivityState`.
    public var responders: [String] {
        get { storage.responders }
        _modify {
            makeUnique()
            yield &storage.responders
        }
    }

    /// A new activity of `type`.
    public init(
        type: String, title: String? = nil, userInfo: UserInfo = UserInfo(), requiredUserInfoKeys: Set<String> = [],
        needsSave: Bool = false, supportsContinuationStreams: Bool = false, expirationDate: SimInstant? = nil,
        isEligibleForHandoff: Bool = true, payloadSize: Int? = nil, documentPath: String? = nil,
        responders: [String] = []
    ) {
        storage = Storage(
            activityType: type, title: title, userInfo: userInfo, requiredUserInfoKeys: requiredUserInfoKeys,
            needsSave: needsSave, supportsContinuationStreams: supportsContinuationStreams, webpageURL: nil,
            expirationDate: expirationDate, isEligibleForHandoff: isEligibleForHandoff, payloadSize: payloadSize,
            documentPath: documentPath, responders: responders)
    }

    /// Equal when every property is (the transfer size included).
    public static func == (lhs: ActivityContent, rhs: ActivityContent) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.activityType == rhs.activityType
            && lhs.title == rhs.title
            && lhs.userInfo == rhs.userInfo
            && lhs.requiredUserInfoKeys == rhs.requiredUserInfoKeys
            && lhs.needsSave == rhs.needsSave
            && lhs.supportsContinuationStreams == rhs.supportsContinuationStreams
            && lhs.webpageURL == rhs.webpageURL
            && lhs.expirationDate == rhs.expirationDate
            && lhs.isEligibleForHandoff == rhs.isEligibleForHandoff
            && lhs.payloadSize == rhs.payloadSize
            && lhs.documentPath == rhs.documentPath
            && lhs.responders == rhs.responders
    }

    /// Hashes every property that `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(activityType)
        hasher.combine(title)
        hasher.combine(userInfo)
        hasher.combine(requiredUserInfoKeys)
        hasher.combine(needsSave)
        hasher.combine(supportsContinuationStreams)
        hasher.combine(webpageURL)
        hasher.combine(expirationDate)
        hasher.combine(isEligibleForHandoff)
        hasher.combine(payloadSize)
        hasher.combine(documentPath)
        hasher.combine(responders)
    }

    /// Sets the web page, or removes it with `nil`.
    ///
    /// - Throws: ``HandoffError/unsupportedURLScheme(url:)`` for a scheme
    ///   other than http or https, ``HandoffError/malformedURL(_:)`` for a
    ///   string that is not an absolute URL with a host.
    public mutating func setWebpageURL(_ string: String?) throws(HandoffError) {
        guard let string else {
            makeUnique()
            storage.webpageURL = nil
            return
        }
        let url = try WebpageURL(string)
        makeUnique()
        storage.webpageURL = url
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
