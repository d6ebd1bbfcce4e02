/// A domain's apple-app-site-association file, as far as Handoff reads it.
///
/// Handoff from a web page to a native app reads the `activitycontinuation`
/// section of the file, whose `apps` array lists the approved apps as
/// `TEAMID.bundleID` (Apple, "Supporting associated domains",
/// https://developer.apple.com/documentation/xcode/supporting-associated-domains).
/// Each host serves its own file: a subdomain such as `www.example.com` needs
/// its own file and entitlement entry, except that a `*.example.com` entry is
/// checked against the file of `example.com` (see
/// ``SiteAssociations/allowsBrowsingWebContinuation(to:by:)``).
public struct SiteAssociation: Hashable, Sendable {
    /// The lower-cased host the file is served from.
    public let domain: String

    /// "activitycontinuation" → "apps": app IDs "TEAMID.bundleID".
    ///
    /// Validated by the initialiser; compared exactly by ``approves(_:)``.
    public var activityContinuationApps: [String]

    /// Creates the file served by `domain`, validating the domain and every
    /// app ID.
    ///
    /// - Throws: ``HandoffError/invalidParameter(name:value:expected:)`` when
    ///   `domain` is not a fully qualified host name, or when an app ID is not
    ///   a Team ID (ten upper-case letters and digits), a `.`, and a valid
    ///   bundle ID; the error names the entry's index.
    public init(domain: String, activityContinuationApps: [String]) throws(HandoffError) {
        if let problem = DomainNameSyntax.problem(in: Substring(domain)) {
            throw .invalidParameter(
                name: "apple-app-site-association domain", value: "\"\(domain)\"",
                expected: "a fully qualified host name such as example.com (\(problem))")
        }
        let host = domain.lowercased()
        for (index, appID) in activityContinuationApps.enumerated() where !Self.isValidAppID(appID) {
            throw .invalidParameter(
                name: "apple-app-site-association of \(host): activitycontinuation.apps[\(index)]",
                value: "\"\(appID)\"",
                expected: "an app ID TEAMID.bundleID such as ABCDE12345.com.example.app")
        }
        self.domain = host
        self.activityContinuationApps = activityContinuationApps
    }

    /// Whether the file lists `app` under `activitycontinuation`.
    ///
    /// The app's ``AppDescription/appID`` must appear exactly: the same
    /// bundle ID under another team is not approved.
    public func approves(_ app: AppDescription) -> Bool {
        activityContinuationApps.contains(app.appID)
    }

    /// Whether `appID` is `TEAMID.bundleID`: a valid Team ID, a period, and a
    /// valid bundle ID.
    static func isValidAppID(_ appID: String) -> Bool {
        guard let dot = appID.firstIndex(of: ".") else { return false }
        let team = String(appID[..<dot])
        let bundle = appID[appID.index(after: dot)...]
        do {
            _ = try TeamID(team)
        } catch {
            return false
        }
        return BundleIDSyntax.isValid(bundle)
    }
}

/// Every domain's apple-app-site-association file in a simulated world.
///
/// Lookups are by exact host, ignoring case; there is no inheritance between
/// a domain and its subdomains except through a wildcard entitlement entry.
public struct SiteAssociations: Hashable, Sendable {
    /// The files by lower-cased host. Only looked up, never iterated.
    private var byHost: [String: SiteAssociation]

    /// Collects the files of a world.
    ///
    /// When several files are given for the same domain, the first one is the
    /// one served.
    public init(_ associations: [SiteAssociation] = []) {
        var byHost: [String: SiteAssociation] = [:]
        for association in associations where byHost[association.domain] == nil {
            byHost[association.domain] = association
        }
        self.byHost = byHost
    }

    /// The file served by `host`, if any (exact host, case-insensitive).
    ///
    /// `www.example.com` does not get the file of `example.com`.
    public func association(forHost host: String) -> SiteAssociation? {
        byHost[host.lowercased()]
    }

    /// Browser → native: whether `app` may take a NSUserActivityTypeBrowsingWeb activity for `url`.
    ///
    /// Allowed when the app has an `activitycontinuation` entry covering the
    /// URL's host and the apple-app-site-association file that Apple checks
    /// for that entry lists ``AppDescription/appID``:
    ///
    /// - For an exact entry (`activitycontinuation:www.example.com`) the file
    ///   is the one served by that host.
    /// - For a wildcard entry (`activitycontinuation:*.example.com`) the file
    ///   is the one served by the wildcard's root, `example.com`: TN3155 says
    ///   a file at `https://example.com/.well-known/apple-app-site-association`
    ///   serves `example.com` and the subdomains matched by `*.example.com`,
    ///   while a specific subdomain entry needs the file on that subdomain.
    ///   Source: Apple, "TN3155: Debugging universal links",
    ///   https://developer.apple.com/documentation/technotes/tn3155-debugging-universal-links
    ///   (written for `applinks`; the simulator applies the same association
    ///   rules to `activitycontinuation`, which uses the same entitlement and
    ///   file).
    /// - When several entries cover the host, only the one with the longest
    ///   domain is checked, as Apple documents for domain matching (Apple,
    ///   "Support Universal Links",
    ///   https://developer.apple.com/library/archive/documentation/General/Conceptual/AppSearch/UniversalLinks.html).
    ///   An exact entry for the host therefore wins over any wildcard.
    ///
    /// The URL's scheme (http or https) does not matter; the file is always
    /// the one of the entry's domain.
    public func allowsBrowsingWebContinuation(to url: WebpageURL, by app: AppDescription) -> Bool {
        guard let entry = app.activityContinuationEntry(forHost: url.host),
              let file = association(forHost: entry.domain)
        else { return false }
        return file.approves(app)
    }
}
