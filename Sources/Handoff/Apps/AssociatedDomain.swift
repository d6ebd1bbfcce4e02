/// One entry of an app's associated-domains entitlement
/// (`com.apple.developer.associated-domains`), such as
/// `activitycontinuation:*.example.com`.
///
/// What Apple documents, and what this type does with it:
///
/// - An entry is `<service>:<fully qualified domain>`. The services are
///   `activitycontinuation` (Handoff), `applinks` (universal links),
///   `webcredentials` (shared web credentials) and `appclips`. Source: Apple,
///   "Associated Domains Entitlement",
///   https://developer.apple.com/documentation/bundleresources/entitlements/com.apple.developer.associated-domains
///   Any non-empty lower-case service name is accepted here, so a scenario can
///   name a service this simulator does not know; only `activitycontinuation`
///   entries take part in Handoff.
/// - A domain prefixed with `*.` covers every subdomain of that domain, at any
///   depth, but **not the domain itself**: Apple's universal-links guide says an
///   entry for `*.mywebsite.com` does not match `mywebsite.com` because of the
///   period after the asterisk, and that an app wanting both needs one entry
///   for each. Source: Apple, "Support Universal Links" (App Search
///   Programming Guide),
///   https://developer.apple.com/library/archive/documentation/General/Conceptual/AppSearch/UniversalLinks.html
///   The asterisk may only appear as that leading `*.`.
/// - The domain may carry no port: TN3155 says a domain such as
///   `example.com:8080` will not work. Source: Apple, "TN3155: Debugging
///   universal links",
///   https://developer.apple.com/documentation/technotes/tn3155-debugging-universal-links
/// - An entry may end in `?mode=developer`, `?mode=managed` or
///   `?mode=developer+managed`. The mode only changes where the device fetches
///   the apple-app-site-association file from (straight from the web server
///   instead of Apple's content delivery network, for development devices or
///   managed devices), not which hosts the entry covers, so it is accepted and
///   dropped here. Source: the entitlement page above and WWDC20 "What's new in
///   universal links". Any other `?` suffix is rejected.
///
/// Domains compare case-insensitively: ``domain`` is stored lower-cased and
/// ``matches(host:)`` lower-cases the host.
public struct AssociatedDomain: Hashable, Sendable, CustomStringConvertible {
    /// The service the entry enables, such as `activitycontinuation`,
    /// `applinks` or `webcredentials`.
    ///
    /// Lower-case ASCII letters only.
    public let service: String

    /// The fully qualified domain, lower-cased, without a leading `*.`.
    ///
    /// For a wildcard entry this is also the host whose
    /// apple-app-site-association file the system reads for it.
    public let domain: String

    /// Whether the entry began with `*.` and so covers the subdomains of
    /// ``domain`` (and not ``domain`` itself).
    ///
    /// See the type's documentation for Apple's statement of this rule.
    public let includesSubdomains: Bool

    /// The service that enables Handoff between a web page and an app.
    static let activityContinuationService = "activitycontinuation"

    /// The alternate modes Apple allows after `?mode=`.
    private static let acceptedModes: Set<String> = ["developer", "managed", "developer+managed"]

    /// Parses an entitlement entry such as `activitycontinuation:example.com`
    /// or `applinks:*.example.com?mode=developer`.
    ///
    /// The domain is lower-cased; a `?mode=` suffix is accepted and dropped.
    ///
    /// - Throws: ``HandoffError/invalidAssociatedDomain(_:reason:)`` when the
    ///   service is missing or not lower-case letters, when the domain is not
    ///   a valid host name with at least one dot (labels of 1–63 letters,
    ///   digits and hyphens, not starting or ending with a hyphen), when it
    ///   has a port, path or misplaced `*`, or when the suffix is not a known
    ///   mode.
    public init(parsing entry: String) throws(HandoffError) {
        var text = Substring(entry)
        if let question = text.firstIndex(of: "?") {
            let suffix = text[text.index(after: question)...]
            guard suffix.hasPrefix("mode="), Self.acceptedModes.contains(String(suffix.dropFirst(5))) else {
                throw .invalidAssociatedDomain(
                    entry,
                    reason: "unknown suffix \"?\(suffix)\" (only ?mode=developer, ?mode=managed and "
                        + "?mode=developer+managed are allowed)")
            }
            text = text[..<question]
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw .invalidAssociatedDomain(entry, reason: "no service before the domain")
        }
        let service = text[..<colon]
        guard !service.isEmpty else {
            throw .invalidAssociatedDomain(entry, reason: "the service before \":\" is empty")
        }
        guard service.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) }) else {
            throw .invalidAssociatedDomain(
                entry, reason: "the service \"\(service)\" is not lower-case letters")
        }
        var domain = text[text.index(after: colon)...]
        var includesSubdomains = false
        if domain.hasPrefix("*.") {
            includesSubdomains = true
            domain = domain.dropFirst(2)
        }
        if let problem = DomainNameSyntax.problem(in: domain) {
            throw .invalidAssociatedDomain(entry, reason: problem)
        }
        self.service = String(service)
        self.domain = domain.lowercased()
        self.includesSubdomains = includesSubdomains
    }

    /// Whether this entry covers `host`, ignoring case.
    ///
    /// An entry without a wildcard covers exactly its own domain. An entry
    /// `*.example.com` covers `www.example.com` and `a.b.example.com` but not
    /// `example.com` itself (Apple: "an entry for *.mywebsite.com does not
    /// match mywebsite.com because of the period after the asterisk",
    /// https://developer.apple.com/library/archive/documentation/General/Conceptual/AppSearch/UniversalLinks.html),
    /// and never a look-alike such as `evilexample.com`: the host must end in
    /// `.` followed by the domain, after at least one whole label.
    public func matches(host: String) -> Bool {
        let host = host.lowercased()
        guard includesSubdomains else { return host == domain }
        let suffix = "." + domain
        guard host.hasSuffix(suffix) else { return false }
        let prefix = host.dropLast(suffix.count)
        return !prefix.isEmpty && !prefix.hasPrefix(".") && !prefix.hasSuffix(".") && !prefix.contains("..")
    }

    /// The entry as it would appear in the entitlement: `service:domain` or
    /// `service:*.domain`, with the domain lower-cased.
    ///
    /// Parsing the description gives an equal value. A `?mode=` suffix in the
    /// original entry is not repeated, since it does not change the entry's
    /// meaning here.
    public var description: String {
        service + ":" + (includesSubdomains ? "*." : "") + domain
    }
}

/// The syntax of fully qualified host names, shared by associated-domain
/// entries and apple-app-site-association files.
enum DomainNameSyntax {
    /// What is wrong with `name` as a fully qualified host name, or `nil`
    /// when it is valid.
    ///
    /// Valid: at most 253 characters, at least two dot-separated labels, each
    /// of 1–63 ASCII letters, digits and hyphens, neither starting nor ending
    /// with a hyphen.
    static func problem(in name: Substring) -> String? {
        if name.isEmpty { return "the domain is empty" }
        if name.contains("*") { return "a wildcard is only allowed as a leading \"*.\"" }
        if name.contains(":") { return "a port number is not allowed" }
        if name.contains("/") { return "a path or scheme is not allowed" }
        if name.utf8.count > 253 { return "the domain is longer than 253 characters" }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count < 2 { return "\"\(name)\" is not a fully qualified domain (no dot)" }
        for label in labels {
            if label.isEmpty { return "\"\(name)\" has an empty label" }
            if label.utf8.count > 63 { return "the label \"\(label)\" is longer than 63 characters" }
            let allowed = label.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "-"
            }
            if !allowed { return "the label \"\(label)\" has a character other than letters, digits and hyphens" }
            if label.hasPrefix("-") || label.hasSuffix("-") {
                return "the label \"\(label)\" starts or ends with a hyphen"
            }
        }
        return nil
    }

    /// Whether `name` is a valid fully qualified host name.
    static func isValid(_ name: String) -> Bool {
        problem(in: Substring(name)) == nil
    }
}
