import Handoff
import HandoffWorld
import SimKernel
import Testing

/// A Team ID known to be valid, for building fixtures.
private func team(_ text: String = "ABCDE12345") throws -> TeamID {
    try TeamID(text)
}

/// An associated-domain entry known to be valid, for building fixtures.
private func entry(_ text: String) throws -> AssociatedDomain {
    try AssociatedDomain(parsing: text)
}

@Suite("Team IDs")
struct TeamIDTests {
    @Test("ten upper-case letters and digits are a Team ID", arguments: ["ABCDE12345", "0123456789", "ZZZZZZZZZZ"])
    func acceptsTenUpperCaseAlphanumerics(text: String) throws {
        let id = try TeamID(text)
        #expect(id.rawValue == text)
        #expect(id.description == text)
    }

    @Test(
        "anything but ten upper-case letters and digits is refused",
        arguments: ["", "ABCDE1234", "ABCDE123456", "abcde12345", "ABCDE-1234", "ABCDE 1234", "ABCDÉ12345",
                    "ＡBCDE12345"])
    func rejectsOtherText(text: String) {
        #expect(throws: HandoffError.invalidTeamID(text)) { try TeamID(text) }
    }

    @Test("Team IDs sort by their text")
    func sortByText() throws {
        let ids = [try team("ZZZZZZZZZZ"), try team("0000000000"), try team("AAAAAAAAAA")]
        #expect(ids.sorted().map(\.rawValue) == ["0000000000", "AAAAAAAAAA", "ZZZZZZZZZZ"])
    }
}

@Suite("Bundle IDs")
struct BundleIDTests {
    @Test(
        "reverse-DNS identifiers of letters, digits, hyphens and periods are accepted",
        arguments: ["com.example.app", "com.example.my-app2", "App", "a.B.c-D.9"])
    func acceptsReverseDNS(bundleID: String) throws {
        let app = try AppDescription(bundleID: bundleID, teamID: try team())
        #expect(app.bundleID == bundleID)
    }

    @Test(
        "empty identifiers, empty components and other characters are refused",
        arguments: ["", ".com.example", "com.example.", "com..example", ".", "com.example app", "com_example",
                    "com.exämple", "com/example"])
    func rejectsInvalid(bundleID: String) throws {
        let teamID = try team()
        #expect(throws: HandoffError.invalidBundleID(bundleID)) {
            try AppDescription(bundleID: bundleID, teamID: teamID)
        }
    }

    @Test("the app ID is the Team ID, a period and the bundle ID")
    func appIDJoinsTeamAndBundle() throws {
        let app = try AppDescription(bundleID: "com.example.notes", teamID: try team())
        #expect(app.appID == "ABCDE12345.com.example.notes")
    }
}

@Suite("Associated domains")
struct AssociatedDomainTests {
    @Test("a service and a domain parse, lower-casing the domain")
    func parsesExactEntry() throws {
        let parsed = try entry("activitycontinuation:WWW.Example.com")
        #expect(parsed.service == "activitycontinuation")
        #expect(parsed.domain == "www.example.com")
        #expect(!parsed.includesSubdomains)
        #expect(parsed.description == "activitycontinuation:www.example.com")
    }

    @Test("a leading *. marks a wildcard entry and is not part of the domain")
    func parsesWildcardEntry() throws {
        let parsed = try entry("applinks:*.example.com")
        #expect(parsed.service == "applinks")
        #expect(parsed.domain == "example.com")
        #expect(parsed.includesSubdomains)
        #expect(parsed.description == "applinks:*.example.com")
    }

    @Test(
        "the description parses back to an equal entry",
        arguments: ["activitycontinuation:example.com", "webcredentials:*.a.example.co.uk", "applinks:x-1.example.com"])
    func descriptionRoundTrips(text: String) throws {
        let parsed = try entry(text)
        #expect(parsed.description == text)
        #expect(try entry(parsed.description) == parsed)
    }

    @Test(
        "a ?mode= suffix is accepted and does not change the entry",
        arguments: ["?mode=developer", "?mode=managed", "?mode=developer+managed"])
    func modeSuffixIsIgnored(suffix: String) throws {
        let plain = try entry("activitycontinuation:*.example.com")
        let withMode = try entry("activitycontinuation:*.example.com" + suffix)
        #expect(withMode == plain)
        #expect(withMode.description == "activitycontinuation:*.example.com")
    }

    @Test(
        "entries without a service are refused",
        arguments: ["example.com", ":example.com", "*.example.com"])
    func rejectsMissingService(text: String) {
        let error = #expect(throws: HandoffError.self) { try AssociatedDomain(parsing: text) }
        guard case let .invalidAssociatedDomain(reported, _)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(reported == text)
    }

    @Test(
        "services that are not lower-case letters are refused",
        arguments: ["ActivityContinuation:example.com", "activity-continuation:example.com", "app links:example.com"])
    func rejectsBadService(text: String) {
        let error = #expect(throws: HandoffError.self) { try AssociatedDomain(parsing: text) }
        guard case let .invalidAssociatedDomain(reported, reason)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(reported == text)
        #expect(reason.contains("service"))
    }

    @Test(
        "domains that are not valid host names are refused",
        arguments: [
            "activitycontinuation:",                         // empty
            "activitycontinuation:localhost",                // no dot
            "activitycontinuation:example..com",             // empty label
            "activitycontinuation:.example.com",             // empty first label
            "activitycontinuation:example.com.",             // trailing dot
            "activitycontinuation:-bad.example.com",         // leading hyphen
            "activitycontinuation:bad-.example.com",         // trailing hyphen
            "activitycontinuation:ex_ample.com",             // underscore
            "activitycontinuation:exämple.com",              // non-ASCII
            "activitycontinuation:example.com:8080",         // port
            "activitycontinuation:https://example.com",      // scheme
            "activitycontinuation:example.com/path",         // path
            "activitycontinuation:www.*.example.com",        // inner wildcard
            "activitycontinuation:*example.com",             // wildcard without the period
            "activitycontinuation:*.",                        // wildcard without a domain
            "activitycontinuation:*.com.",                    // wildcard over an invalid domain
            "activitycontinuation:example.com?mode=release", // unknown mode
            "activitycontinuation:example.com?foo",          // unknown suffix
            "activitycontinuation:" + String(repeating: "a", count: 64) + ".com", // label too long
        ])
    func rejectsBadHostnames(text: String) {
        let error = #expect(throws: HandoffError.self) { try AssociatedDomain(parsing: text) }
        guard case let .invalidAssociatedDomain(reported, reason)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(reported == text)
        #expect(!reason.isEmpty)
    }

    @Test("a 63-character label is still valid")
    func acceptsLongestLabel() throws {
        let label = String(repeating: "a", count: 63)
        #expect(try entry("activitycontinuation:\(label).com").domain == "\(label).com")
    }

    @Test("an exact entry matches only its own host, ignoring case")
    func exactEntryMatchesOnlyItsHost() throws {
        let exact = try entry("activitycontinuation:example.com")
        #expect(exact.matches(host: "example.com"))
        #expect(exact.matches(host: "EXAMPLE.Com"))
        #expect(!exact.matches(host: "www.example.com"))
        #expect(!exact.matches(host: "example.org"))
        #expect(!exact.matches(host: "evilexample.com"))
    }

    @Test("a wildcard entry matches subdomains at any depth, ignoring case")
    func wildcardMatchesSubdomains() throws {
        let wildcard = try entry("activitycontinuation:*.example.com")
        #expect(wildcard.matches(host: "www.example.com"))
        #expect(wildcard.matches(host: "a.b.example.com"))
        #expect(wildcard.matches(host: "WWW.EXAMPLE.COM"))
    }

    @Test("a wildcard entry does not match the bare domain (Apple: the period after the asterisk)")
    func wildcardDoesNotMatchBareDomain() throws {
        let wildcard = try entry("activitycontinuation:*.example.com")
        #expect(!wildcard.matches(host: "example.com"))
    }

    @Test(
        "a wildcard entry does not match look-alike hosts",
        arguments: ["evilexample.com", "example.com.evil.net", "wwwexample.com", ".example.com", "a..example.com",
                    "example.co", "xample.com"])
    func wildcardRejectsLookalikes(host: String) throws {
        let wildcard = try entry("activitycontinuation:*.example.com")
        #expect(!wildcard.matches(host: host))
    }
}

@Suite("App declarations")
struct AppDeclarationTests {
    private func notesApp() throws -> AppDescription {
        try AppDescription(
            bundleID: "com.example.notes", teamID: try team(),
            platforms: [.iOS, .macOS],
            activityTypes: ["com.example.notes.editing"],
            associatedDomains: [
                try entry("activitycontinuation:notes.example.com"),
                try entry("applinks:links.example.com"),
            ],
            documentTypes: [
                DocumentType(
                    name: "Note", contentTypes: ["com.example.note"],
                    ubiquitousActivityType: "com.example.notes.document"),
                DocumentType(name: "Plain text", contentTypes: ["public.plain-text"]),
            ])
    }

    @Test("an activity type listed in NSUserActivityTypes is declared")
    func declaresListedType() throws {
        #expect(try notesApp().declares(activityType: "com.example.notes.editing"))
    }

    @Test("a document type's NSUbiquitousDocumentUserActivityType is declared")
    func declaresUbiquitousDocumentType() throws {
        let app = try notesApp()
        #expect(!app.activityTypes.contains("com.example.notes.document"))
        #expect(app.declares(activityType: "com.example.notes.document"))
    }

    @Test(
        "unrelated, differently cased or content types are not declared",
        arguments: ["com.example.other", "COM.EXAMPLE.NOTES.EDITING", "com.example.note", "public.plain-text", "",
                    "NSUserActivityTypeBrowsingWeb"])
    func doesNotDeclareUnrelatedTypes(type: String) throws {
        #expect(try !notesApp().declares(activityType: type))
    }

    @Test("only activitycontinuation entries claim a host for Handoff")
    func claimsOnlyWithActivityContinuation() throws {
        let app = try notesApp()
        #expect(app.claimsActivityContinuation(host: "notes.example.com"))
        #expect(app.claimsActivityContinuation(host: "Notes.Example.COM"))
        #expect(!app.claimsActivityContinuation(host: "links.example.com"))
        #expect(!app.claimsActivityContinuation(host: "example.com"))
    }

    @Test("an app runs only on the platforms it lists; all platforms by default")
    func runsOnListedPlatforms() throws {
        let app = try notesApp()
        #expect(app.runs(on: .iOS))
        #expect(app.runs(on: .macOS))
        #expect(!app.runs(on: .watchOS))
        let everywhere = try AppDescription(bundleID: "com.example.all", teamID: try team())
        #expect(Platform.allCases.allSatisfy { everywhere.runs(on: $0) })
    }

    @Test("an empty platform list is refused")
    func rejectsNoPlatforms() throws {
        let teamID = try team()
        let error = #expect(throws: HandoffError.self) {
            try AppDescription(bundleID: "com.example.none", teamID: teamID, platforms: [])
        }
        guard case let .invalidParameter(name, _, _)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(name == "platforms")
    }

    @Test("launch times default to log-normals of median 400 ms cold and 100 ms warm, and zero is allowed")
    func launchTimeDefaults() throws {
        let app = try AppDescription(bundleID: "com.example.notes", teamID: try team())
        #expect(app.coldLaunch == .logNormal(median: .milliseconds(400), sigma: 0.35, offset: .zero))
        #expect(app.warmLaunch == .logNormal(median: .milliseconds(100), sigma: 0.3, offset: .zero))
        #expect(app.coldLaunch.median == .milliseconds(400))
        let instant = try AppDescription(
            bundleID: "com.example.notes", teamID: try team(), coldLaunch: .fixed(.zero), warmLaunch: .fixed(.zero))
        #expect(instant.coldLaunch == .fixed(.zero))
    }

    @Test("a negative cold launch time is refused, naming coldLaunch")
    func rejectsNegativeColdLaunch() throws {
        let teamID = try team()
        let error = #expect(throws: HandoffError.self) {
            try AppDescription(bundleID: "com.example.notes", teamID: teamID, coldLaunch: .fixed(.nanoseconds(-1)))
        }
        guard case let .invalidParameter(name, _, _)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(name == "coldLaunch")
    }

    @Test("a negative warm launch time is refused, naming warmLaunch")
    func rejectsNegativeWarmLaunch() throws {
        let teamID = try team()
        let error = #expect(throws: HandoffError.self) {
            try AppDescription(bundleID: "com.example.notes", teamID: teamID, warmLaunch: .logNormal(median: .milliseconds(-5), sigma: 0.3, offset: .zero))
        }
        guard case let .invalidParameter(name, _, _)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(name == "warmLaunch")
    }
}

@Suite("apple-app-site-association")
struct SiteAssociationTests {
    private func app(bundle: String = "com.example.notes", team teamText: String = "ABCDE12345",
                     domains: [String] = []) throws -> AppDescription {
        try AppDescription(
            bundleID: bundle, teamID: try team(teamText), activityTypes: ["com.example.notes.editing"],
            associatedDomains: try domains.map { try entry($0) })
    }

    @Test("a file approves exactly the app IDs it lists")
    func approvesOnlyExactAppIDs() throws {
        let file = try SiteAssociation(
            domain: "Example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"])
        #expect(file.domain == "example.com")
        #expect(file.approves(try app()))
        #expect(!file.approves(try app(team: "ZZZZZ99999")), "same bundle ID, other team")
        #expect(!file.approves(try app(bundle: "com.example.notes.beta")), "same team, other bundle ID")
        #expect(!file.approves(try app(bundle: "com.example")), "a prefix of the bundle ID")
    }

    @Test(
        "app IDs that are not TEAMID.bundleID are refused",
        arguments: ["com.example.notes", "abcde12345.com.example.notes", "ABCDE12345.", "ABCDE12345", "ABCDE12345..x",
                    "ABCDE1234.com.example", "ABCDE12345.com example", ""])
    func rejectsBadAppIDs(appID: String) {
        let error = #expect(throws: HandoffError.self) {
            try SiteAssociation(domain: "example.com", activityContinuationApps: ["ABCDE12345.com.example.ok", appID])
        }
        guard case let .invalidParameter(name, value, _)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(name.hasSuffix("activitycontinuation.apps[1]"))
        #expect(value == "\"\(appID)\"")
    }

    @Test("a file's domain must be a host name", arguments: ["", "localhost", "https://example.com", "*.example.com"])
    func rejectsBadDomain(domain: String) {
        #expect(throws: HandoffError.self) {
            try SiteAssociation(domain: domain, activityContinuationApps: [])
        }
    }

    @Test("files are found by exact host, ignoring case; a subdomain does not inherit its parent's file")
    func lookupByExactHost() throws {
        let files = SiteAssociations([
            try SiteAssociation(domain: "example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        #expect(files.association(forHost: "EXAMPLE.com")?.domain == "example.com")
        #expect(files.association(forHost: "www.example.com") == nil)
        #expect(SiteAssociations().association(forHost: "example.com") == nil)
    }

    @Test("when a domain is given twice, the first file is served")
    func firstFileWins() throws {
        let first = try SiteAssociation(domain: "example.com", activityContinuationApps: ["ABCDE12345.com.example.a"])
        let second = try SiteAssociation(domain: "EXAMPLE.COM", activityContinuationApps: ["ABCDE12345.com.example.b"])
        #expect(SiteAssociations([first, second]).association(forHost: "example.com") == first)
        #expect(SiteAssociations([second, first]).association(forHost: "example.com") == second)
    }

    @Test("browser → native is allowed with an activitycontinuation entry and an approving file")
    func allowedWithEntryAndFile() throws {
        let notes = try app(domains: ["activitycontinuation:www.example.com"])
        let files = SiteAssociations([
            try SiteAssociation(domain: "www.example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        #expect(files.allowsBrowsingWebContinuation(to: try WebpageURL("https://www.example.com/notes/42"), by: notes))
        #expect(files.allowsBrowsingWebContinuation(to: try WebpageURL("http://WWW.EXAMPLE.COM/"), by: notes))
    }

    @Test("browser → native is refused when the app has no activitycontinuation entry for the host")
    func refusedWithoutEntitlement() throws {
        let files = SiteAssociations([
            try SiteAssociation(domain: "www.example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        let url = try WebpageURL("https://www.example.com/notes/42")
        #expect(!files.allowsBrowsingWebContinuation(to: url, by: try app()))
        #expect(!files.allowsBrowsingWebContinuation(to: url, by: try app(domains: ["applinks:www.example.com"])))
        let parentOnly = try app(domains: ["activitycontinuation:example.com"])
        #expect(!files.allowsBrowsingWebContinuation(to: url, by: parentOnly))
    }

    @Test("browser → native is refused when the domain serves no file")
    func refusedWithoutFile() throws {
        let notes = try app(domains: ["activitycontinuation:www.example.com"])
        let files = SiteAssociations([
            try SiteAssociation(domain: "example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        let url = try WebpageURL("https://www.example.com/")
        #expect(!files.allowsBrowsingWebContinuation(to: url, by: notes), "the parent domain's file does not count")
        #expect(!SiteAssociations().allowsBrowsingWebContinuation(to: url, by: notes))
    }

    @Test("browser → native is refused when the file does not list the app")
    func refusedWhenFileOmitsApp() throws {
        let files = SiteAssociations([
            try SiteAssociation(domain: "www.example.com", activityContinuationApps: ["ABCDE12345.com.example.other"]),
        ])
        let url = try WebpageURL("https://www.example.com/")
        let notes = try app(domains: ["activitycontinuation:www.example.com"])
        #expect(!files.allowsBrowsingWebContinuation(to: url, by: notes))
        let otherTeam = try app(team: "ZZZZZ99999", domains: ["activitycontinuation:www.example.com"])
        let teamFiles = SiteAssociations([
            try SiteAssociation(domain: "www.example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        #expect(!teamFiles.allowsBrowsingWebContinuation(to: url, by: otherTeam))
    }

    @Test("a wildcard entry is checked against the file of the wildcard's root domain")
    func wildcardUsesRootDomainFile() throws {
        let notes = try app(domains: ["activitycontinuation:*.example.com"])
        let url = try WebpageURL("https://shop.eu.example.com/cart")
        let rootFile = SiteAssociations([
            try SiteAssociation(domain: "example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        #expect(rootFile.allowsBrowsingWebContinuation(to: url, by: notes))
        let subdomainFileOnly = SiteAssociations([
            try SiteAssociation(
                domain: "shop.eu.example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        #expect(!subdomainFileOnly.allowsBrowsingWebContinuation(to: url, by: notes))
        // The wildcard does not cover the bare domain, even though its file approves the app.
        #expect(!rootFile.allowsBrowsingWebContinuation(to: try WebpageURL("https://example.com/"), by: notes))
        // Nor a look-alike domain.
        #expect(!rootFile.allowsBrowsingWebContinuation(to: try WebpageURL("https://evilexample.com/"), by: notes))
    }

    @Test("when several entries cover the host, the most specific entry's file decides, whatever the entry order")
    func mostSpecificEntryDecides() throws {
        let url = try WebpageURL("https://emily.users.example.com/")
        let broadOnly = SiteAssociations([
            try SiteAssociation(domain: "example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        let specificOnly = SiteAssociations([
            try SiteAssociation(
                domain: "users.example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        let orders = [
            ["activitycontinuation:*.example.com", "activitycontinuation:*.users.example.com"],
            ["activitycontinuation:*.users.example.com", "activitycontinuation:*.example.com"],
        ]
        for order in orders {
            let notes = try app(domains: order)
            #expect(specificOnly.allowsBrowsingWebContinuation(to: url, by: notes), "\(order)")
            #expect(!broadOnly.allowsBrowsingWebContinuation(to: url, by: notes), "\(order)")
        }
    }

    @Test("an exact entry for the host wins over a wildcard")
    func exactEntryWinsOverWildcard() throws {
        let url = try WebpageURL("https://www.example.com/")
        let hostFile = SiteAssociations([
            try SiteAssociation(domain: "www.example.com", activityContinuationApps: ["ABCDE12345.com.example.notes"]),
        ])
        let notes = try app(domains: ["activitycontinuation:*.example.com", "activitycontinuation:www.example.com"])
        #expect(hostFile.allowsBrowsingWebContinuation(to: url, by: notes))
    }
}

@Suite("webpageURL")
struct WebpageURLTests {
    @Test("http and https URLs are accepted, with scheme and host lower-cased")
    func acceptsHTTPAndHTTPS() throws {
        let url = try WebpageURL("HTTPS://User:pw@WWW.Example.COM:8443/Path?Q=1#Frag")
        #expect(url.scheme == "https")
        #expect(url.host == "www.example.com")
        #expect(url.absoluteString == "HTTPS://User:pw@WWW.Example.COM:8443/Path?Q=1#Frag")
        #expect(url.description == url.absoluteString)
        let plain = try WebpageURL("http://example.com")
        #expect(plain.scheme == "http")
        #expect(plain.host == "example.com")
    }

    @Test(
        "hosts may be names, IPv4 or bracketed IPv6",
        arguments: [("http://localhost:8080/", "localhost"), ("https://192.168.0.1/x", "192.168.0.1"),
                    ("https://[::1]:443/", "[::1]"), ("https://a.example.com?x", "a.example.com"),
                    ("https://a.example.com#top", "a.example.com")])
    func acceptsHostForms(text: String, host: String) throws {
        #expect(try WebpageURL(text).host == host)
    }

    @Test(
        "other schemes are refused as unsupported",
        arguments: ["ftp://example.com/file", "mailto:someone@example.com", "file:///tmp/note.txt",
                    "notes://open/42", "com.example.notes://item", "javascript:alert(1)", "data:text/plain,hi",
                    "httpx://example.com", "https+x://example.com"])
    func rejectsOtherSchemes(text: String) {
        #expect(throws: HandoffError.unsupportedURLScheme(url: text)) { try WebpageURL(text) }
    }

    @Test(
        "garbage and http URLs without a host are refused as malformed",
        arguments: ["", "not a url", "example.com/path", "//example.com/", "://example.com", "https://",
                    "https:///path", "https:example.com", "http:/example.com", "https://exa mple.com/",
                    "https://example.com/a b", " https://example.com", "https://example..com/",
                    "https://example.com:port/", "https://example.com:70000/", "https://[::1/",
                    "https://[zz]/", "https://exämple.com/", "https://user@/", "1http://example.com",
                    "https://example.com\n"])
    func rejectsMalformed(text: String) {
        #expect(throws: HandoffError.malformedURL(text)) { try WebpageURL(text) }
    }

    @Test("the browsing-web activity type is Apple's constant")
    func browsingWebConstant() {
        #expect(browsingWebActivityType == "NSUserActivityTypeBrowsingWeb")
    }
}
