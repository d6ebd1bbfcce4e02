import HandoffWorld
import SimKernel

/// An Apple developer Team ID: ten upper-case letters and digits.
///
/// Handoff only offers an activity to an app from the same team as the app
/// that created it, and an apple-app-site-association file names apps as
/// `TEAMID.bundleID`. Team IDs compare and sort by their text.
public struct TeamID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The ten characters, such as `ABCDE12345`.
    public let rawValue: String

    /// Validates `text` as a Team ID.
    ///
    /// - Throws: ``HandoffError/invalidTeamID(_:)`` unless `text` is exactly
    ///   ten characters, each an ASCII upper-case letter or digit.
    public init(_ text: String) throws(HandoffError) {
        let valid = text.unicodeScalars.count == 10
            && text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        guard valid else { throw .invalidTeamID(text) }
        rawValue = text
    }

    /// Orders Team IDs by their text.
    ///
    /// Used wherever apps must be listed in a stable order.
    public static func < (lhs: TeamID, rhs: TeamID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The Team ID itself.
    ///
    /// Identical to ``rawValue``.
    public var description: String { rawValue }
}

/// A document type an app declares (a `CFBundleDocumentTypes` entry).
///
/// Document-based apps get Handoff of their iCloud documents by giving a
/// document type an `NSUbiquitousDocumentUserActivityType`: activities of that
/// type are then offered to the app even when the type is not in its
/// `NSUserActivityTypes`.
public struct DocumentType: Hashable, Sendable {
    /// The document type's name (`CFBundleTypeName`).
    public var name: String

    /// The uniform type identifiers the type covers (`LSItemContentTypes`),
    /// such as `com.example.note`.
    public var contentTypes: [String]

    /// NSUbiquitousDocumentUserActivityType: the activity type iCloud documents of this type are handed off with.
    ///
    /// `nil` when the app does not hand off documents of this type.
    public var ubiquitousActivityType: String?

    /// Creates a document type.
    ///
    /// Nothing is validated: the fields are only compared with activity types.
    public init(name: String, contentTypes: [String] = [], ubiquitousActivityType: String? = nil) {
        self.name = name
        self.contentTypes = contentTypes
        self.ubiquitousActivityType = ubiquitousActivityType
    }
}

/// An app as installed on devices: identity, Info.plist declarations,
/// entitlements and launch times.
///
/// The initialiser validates every field; the properties stay mutable so a
/// scenario can derive variants, and a changed value is not re-validated.
///
/// ```swift
/// let notes = try AppDescription(
///     bundleID: "com.example.notes", teamID: try TeamID("ABCDE12345"),
///     activityTypes: ["com.example.notes.editing"],
///     associatedDomains: [try AssociatedDomain(parsing: "activitycontinuation:notes.example.com")])
/// notes.declares(activityType: "com.example.notes.editing")   // true
/// notes.claimsActivityContinuation(host: "notes.example.com") // true
/// ```
public struct AppDescription: Hashable, Sendable {
    /// The bundle identifier, such as `com.example.notes`.
    ///
    /// ASCII letters, digits, hyphens and periods, without empty components.
    public var bundleID: String

    /// The team that signs the app.
    public var teamID: TeamID

    /// The platforms the app is installed on, in the order given.
    public var platforms: [Platform]

    /// NSUserActivityTypes.
    ///
    /// The activity types the app accepts, compared exactly (case-sensitive).
    public var activityTypes: [String]

    /// The app's associated-domains entitlement, in the order given.
    public var associatedDomains: [AssociatedDomain]

    /// The document types the app declares (`CFBundleDocumentTypes`).
    public var documentTypes: [DocumentType]

    /// Time from the launch request to the app being ready (its
    /// `willContinue` callback) when it was not running.
    public var coldLaunch: DurationDistribution

    /// Time from the launch request to the app being ready when it was
    /// already running (in the background).
    public var warmLaunch: DurationDistribution

    /// The default ``coldLaunch``: log-normal, median 400 ms, σ 0.35 (95% of
    /// launches under about 710 ms).
    ///
    /// An assumption: 400 ms is Apple's target for a launch to the first
    /// frame (WWDC 2019, "Optimizing App Launch"), taken as the typical app;
    /// launch times are a product of many independent costs (dyld, the
    /// runtime, the app's own set-up, the device's load), which is what makes
    /// them log-normal, and σ 0.35 spreads them by about ±40% at one
    /// standard deviation. Override it per app with your own measurements.
    public static let defaultColdLaunch = DurationDistribution.logNormal(
        median: .milliseconds(400), sigma: 0.35, offset: .zero)

    /// The default ``warmLaunch``: log-normal, median 100 ms, σ 0.3.
    ///
    /// An assumption: bringing a suspended app to the front costs a fraction
    /// of a cold launch (no process to create, no binary to load); σ as for
    /// the cold launch, a little narrower because fewer costs add up.
    public static let defaultWarmLaunch = DurationDistribution.logNormal(
        median: .milliseconds(100), sigma: 0.3, offset: .zero)

    /// Creates an app description, validating every field.
    ///
    /// - Throws: ``HandoffError/invalidBundleID(_:)`` when the bundle ID is
    ///   empty, has a character other than ASCII letters, digits, `-` and `.`,
    ///   or has an empty component (including a leading or trailing `.`);
    ///   ``HandoffError/invalidParameter(name:value:expected:)`` naming
    ///   `platforms` when the list is empty, or `coldLaunch` / `warmLaunch`
    ///   when a launch distribution is invalid (a negative time, a σ outside
    ///   0…5).
    public init(
        bundleID: String, teamID: TeamID, platforms: [Platform] = Platform.allCases,
        activityTypes: [String] = [], associatedDomains: [AssociatedDomain] = [],
        documentTypes: [DocumentType] = [], coldLaunch: DurationDistribution = AppDescription.defaultColdLaunch,
        warmLaunch: DurationDistribution = AppDescription.defaultWarmLaunch
    ) throws(HandoffError) {
        guard BundleIDSyntax.isValid(bundleID) else { throw .invalidBundleID(bundleID) }
        guard !platforms.isEmpty else {
            throw .invalidParameter(
                name: "platforms", value: "[]", expected: "at least one of "
                    + Platform.allCases.map(\.rawValue).joined(separator: ", "))
        }
        try coldLaunch.check(named: "coldLaunch")
        try warmLaunch.check(named: "warmLaunch")
        self.bundleID = bundleID
        self.teamID = teamID
        self.platforms = platforms
        self.activityTypes = activityTypes
        self.associatedDomains = associatedDomains
        self.documentTypes = documentTypes
        self.coldLaunch = coldLaunch
        self.warmLaunch = warmLaunch
    }

    /// "TEAMID.bundleID", as an apple-app-site-association file lists apps.
    ///
    /// For example `ABCDE12345.com.example.notes`.
    public var appID: String { teamID.rawValue + "." + bundleID }

    /// Whether the app takes activities of `type`: listed in NSUserActivityTypes, or a document type's
    /// NSUbiquitousDocumentUserActivityType.
    ///
    /// Types compare exactly (case-sensitive). Same-team and platform checks
    /// are separate eligibility rules, not part of this answer.
    public func declares(activityType type: String) -> Bool {
        activityTypes.contains(type) || documentTypes.contains { $0.ubiquitousActivityType == type }
    }

    /// Whether an "activitycontinuation:" entry covers `host`.
    ///
    /// Case-insensitive; `*.` entries cover subdomains only (see
    /// ``AssociatedDomain/matches(host:)``). Entries of other services, such
    /// as `applinks`, do not count.
    public func claimsActivityContinuation(host: String) -> Bool {
        activityContinuationEntry(forHost: host) != nil
    }

    /// Whether the app is installed on `platform`.
    ///
    /// True when `platform` is in ``platforms``.
    public func runs(on platform: Platform) -> Bool {
        platforms.contains(platform)
    }

    /// The `activitycontinuation` entry the system matches `host` against,
    /// or `nil` when none covers it.
    ///
    /// When several entries cover the host, Apple matches against the one
    /// with the longest domain ("Domain matching is based on the longest
    /// substring", Apple, "Support Universal Links",
    /// https://developer.apple.com/library/archive/documentation/General/Conceptual/AppSearch/UniversalLinks.html).
    /// An exact entry always has the longest domain, since a wildcard covers
    /// only strict subdomains; two distinct covering entries never tie, so
    /// the answer does not depend on the order of ``associatedDomains``.
    func activityContinuationEntry(forHost host: String) -> AssociatedDomain? {
        var best: AssociatedDomain?
        for entry in associatedDomains
        where entry.service == AssociatedDomain.activityContinuationService && entry.matches(host: host) {
            if let current = best, current.domain.utf8.count >= entry.domain.utf8.count { continue }
            best = entry
        }
        return best
    }
}

/// The syntax of bundle identifiers.
enum BundleIDSyntax {
    /// Whether `text` is a valid bundle identifier: non-empty ASCII letters,
    /// digits, `-` and `.`, with no empty component (so not starting or ending
    /// with `.` and without `..`).
    static func isValid(_ text: some StringProtocol) -> Bool {
        guard !text.isEmpty else { return false }
        let characters = text.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "-" || scalar == "."
        }
        guard characters else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty }
    }
}
