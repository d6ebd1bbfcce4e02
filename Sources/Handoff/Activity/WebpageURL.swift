/// The activity type of a web page handed off to a native app.
///
/// An activity of this type carries the page in its `webpageURL` and an empty
/// `userInfo`; an app receives it only when it claims the URL's domain with an
/// `activitycontinuation` entry and the domain's apple-app-site-association
/// file approves it (see ``SiteAssociations/allowsBrowsingWebContinuation(to:by:)``).
public let browsingWebActivityType = "NSUserActivityTypeBrowsingWeb"

/// An activity's webpageURL: an absolute http or https URL with a host.
///
/// Apple's platforms raise an exception when `webpageURL` is given any other
/// scheme; here that is ``HandoffError/unsupportedURLScheme(url:)``. The
/// parser is the simulator's own, not Foundation's, so that the same text is
/// accepted or refused identically on every platform. It reads
/// `scheme://[userinfo@]host[:port][/path][?query][#fragment]` and checks the
/// scheme, the host and the port; the path, query and fragment are only
/// checked for spaces and control characters.
///
/// The text is kept as given in ``absoluteString``; ``scheme`` and ``host``
/// are lower-cased. Hosts are ASCII: a domain name (letters, digits, `-`,
/// `_`, dot-separated non-empty labels, so `localhost` is allowed), an IPv4
/// address, or a bracketed IPv6 literal. Internationalised names must be
/// given in their `xn--` form.
public struct WebpageURL: Hashable, Sendable, CustomStringConvertible {
    /// The URL exactly as given.
    public let absoluteString: String

    /// `http` or `https`, lower-cased.
    public let scheme: String

    /// The host, lower-cased, without userinfo or port. An IPv6 literal keeps
    /// its brackets.
    public let host: String

    /// Parses `string` as a webpageURL.
    ///
    /// - Throws: ``HandoffError/unsupportedURLScheme(url:)`` when the URL has a
    ///   scheme other than http or https (`ftp:`, `mailto:`, `file:`, an app's
    ///   own scheme); ``HandoffError/malformedURL(_:)`` when there is no
    ///   scheme, no `//` authority, no host, an invalid host or port, or a
    ///   space or control character anywhere.
    public init(_ string: String) throws(HandoffError) {
        let scalars = Array(string.unicodeScalars)
        // Reject whitespace and control characters anywhere, as URL parsers do
        // for unescaped input.
        guard !scalars.isEmpty,
              !scalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
        else { throw .malformedURL(string) }

        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" (RFC 3986 §3.1)
        guard let colon = scalars.firstIndex(of: ":"), colon > 0, Self.isLetter(scalars[0]),
              scalars[1..<colon].allSatisfy(Self.isSchemeCharacter)
        else { throw .malformedURL(string) }
        let scheme = String(String.UnicodeScalarView(scalars[0..<colon])).lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedURLScheme(url: string) }

        // "//" authority, ended by the first "/", "?" or "#".
        let afterColon = colon + 1
        guard scalars.count >= afterColon + 2, scalars[afterColon] == "/", scalars[afterColon + 1] == "/" else {
            throw .malformedURL(string)
        }
        let authorityStart = afterColon + 2
        let authorityEnd = scalars[authorityStart...].firstIndex(where: { "/?#".unicodeScalars.contains($0) })
            ?? scalars.endIndex
        var hostPort = scalars[authorityStart..<authorityEnd]
        if let at = hostPort.lastIndex(of: "@") {
            hostPort = hostPort[(at + 1)...]
        }
        guard let host = Self.host(in: hostPort) else { throw .malformedURL(string) }

        absoluteString = string
        self.scheme = scheme
        self.host = host
    }

    /// The URL as given.
    ///
    /// Identical to ``absoluteString``.
    public var description: String { absoluteString }

    /// The lower-cased host of `hostPort` (`host` or `host:port`), or `nil`
    /// when the host is missing or invalid or the port is not a number in
    /// 0...65535 (an empty port after `:` is allowed, as RFC 3986 allows it).
    private static func host(in hostPort: ArraySlice<Unicode.Scalar>) -> String? {
        var hostPart = hostPort
        var portPart: ArraySlice<Unicode.Scalar> = []
        if hostPort.first == "[" {
            guard let close = hostPort.firstIndex(of: "]") else { return nil }
            let inside = hostPort[(hostPort.startIndex + 1)..<close]
            guard inside.contains(":"),
                  inside.allSatisfy({ isHexDigit($0) || $0 == ":" || $0 == "." })
            else { return nil }
            hostPart = hostPort[hostPort.startIndex...close]
            let rest = hostPort[(close + 1)...]
            if let first = rest.first {
                guard first == ":" else { return nil }
                portPart = rest.dropFirst()
            }
        } else {
            if let colon = hostPort.firstIndex(of: ":") {
                hostPart = hostPort[..<colon]
                portPart = hostPort[(colon + 1)...]
            }
            guard isDomainOrIPv4(hostPart) else { return nil }
        }
        guard portPart.allSatisfy(isDigit), portPart.count <= 5 else { return nil }
        if !portPart.isEmpty, let port = Int(String(String.UnicodeScalarView(portPart))), port > 65_535 {
            return nil
        }
        return String(String.UnicodeScalarView(hostPart)).lowercased()
    }

    /// Whether `name` is dot-separated non-empty labels of ASCII letters,
    /// digits, `-` and `_` (which also covers dotted IPv4 addresses).
    private static func isDomainOrIPv4(_ name: ArraySlice<Unicode.Scalar>) -> Bool {
        guard !name.isEmpty, name.count <= 253 else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63
                && label.allSatisfy { isLetter($0) || isDigit($0) || $0 == "-" || $0 == "_" }
        }
    }

    /// Whether `scalar` may follow the first letter of a scheme.
    private static func isSchemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isLetter(scalar) || isDigit(scalar) || scalar == "+" || scalar == "-" || scalar == "."
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    private static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        isDigit(scalar) || ("a"..."f").contains(scalar) || ("A"..."F").contains(scalar)
    }
}
