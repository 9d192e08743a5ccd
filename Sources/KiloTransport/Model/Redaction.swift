import Foundation

/// What is secret in a request, and how a secret is shown: the rules every log line and exported
/// command follows.
///
/// ``standard`` hides the values of
/// - the header fields that carry credentials (``credentialFields``): `Authorization` and
///   `Proxy-Authorization` keep their scheme (`Bearer REDACTED`), `Cookie` and `Set-Cookie` their
///   cookie names (`session=REDACTED`);
/// - the user and password of a URL (`https://REDACTED:REDACTED@host/`);
/// - query parameters, form fields and header fields whose names are secret
///   (``isSecretName(_:)``): `api_key=REDACTED`, `X-Api-Key: REDACTED`; the fragment is read
///   as a query too (`#access_token=REDACTED`).
///
/// Names stay, so a reader sees what was there. ``none`` hides nothing.
///
/// ```swift
/// let url = URL(string: "https://me:pw@example.com/items?api_key=k&page=2")!
/// Redaction.standard.redact(url)  // "https://REDACTED:REDACTED@example.com/items?api_key=REDACTED&page=2"
/// ```
///
/// A name is secret when one of its parts is in ``secretWords``, compared without regard to case,
/// or is one of them followed by `s`. A name's parts are what separators (any character that
/// is not a letter or a digit), a change from lowercase to uppercase (`apiKey`), the last capital
/// of a run of them (`APIKey`) and a change between letters and digits cut it into: `api_key`,
/// `X-Api-Key`, `apiKey` and `client-secret` are secret, `keyboard`, `monkey` and `tokenizer`
/// are not. A percent-encoded name is decoded before it is matched (`api%5Fkey`).
public struct Redaction: Sendable, Hashable {
    /// The header fields whose values are always secret, matched without regard to case (kept
    /// in lowercase).
    public var credentialFields: Set<String> {
        didSet { credentialFields = Set(credentialFields.map(HTTPHeaders.foldedName)) }
    }
    /// The words that make a name secret when they are one of its parts, matched without regard
    /// to case (kept in lowercase).
    public var secretWords: Set<String> {
        didSet { secretWords = Set(secretWords.map { $0.lowercased() }) }
    }
    /// Whether a URL's user and password are hidden.
    public var hidesUserInfo: Bool
    /// What is shown in place of a secret.
    public var replacement: String

    /// The header fields ``standard`` treats as credentials: `Authorization`,
    /// `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    public static let standardCredentialFields: Set<String> = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
    ]

    /// The words ``standard`` treats as secret: the parts of the names that APIs and clouds
    /// give to keys, tokens, passwords and signatures (`token`, `key`, `secret`, `password`,
    /// `signature`, and such one-word forms as `apikey` and `passwd`).
    public static let standardSecretWords: Set<String> = [
        "token", "key", "secret", "password", "passwd", "pwd", "pass", "passphrase", "signature", "sig",
        "credential", "auth", "authorization", "apikey", "accesstoken", "refreshtoken", "authtoken", "sessionid",
        "session", "jwt", "otp", "private", "privatekey", "cookie", "bearer",
    ]

    /// The rules described above, with `REDACTED` in place of each secret.
    public static let standard = Redaction()

    /// No rules: everything is shown as it is.
    public static let none = Redaction(credentialFields: [], secretWords: [], hidesUserInfo: false)

    /// Creates rules.
    ///
    /// - Parameters:
    ///   - credentialFields: The header fields whose values are always secret.
    ///   - secretWords: The words that make a query parameter, form field or header name secret
    ///     when they are one of its parts; compared without regard to case.
    ///   - hidesUserInfo: Whether a URL's user and password are hidden.
    ///   - replacement: What is shown in place of a secret.
    public init(
        credentialFields: Set<String> = Redaction.standardCredentialFields,
        secretWords: Set<String> = Redaction.standardSecretWords,
        hidesUserInfo: Bool = true,
        replacement: String = "REDACTED"
    ) {
        self.credentialFields = Set(credentialFields.map(HTTPHeaders.foldedName))
        self.secretWords = Set(secretWords.map { $0.lowercased() })
        self.hidesUserInfo = hidesUserInfo
        self.replacement = replacement
    }

    /// Whether this hides nothing, as ``none``.
    public var hidesNothing: Bool {
        credentialFields.isEmpty && secretWords.isEmpty && !hidesUserInfo
    }

    // MARK: Names

    /// Whether a query parameter, form field or header field of this name is secret: one of its
    /// parts, in lowercase, is one of ``secretWords`` or one of them followed by `s`.
    ///
    /// - Parameter name: The name, percent-encoded or not (`+` is read as a space).
    /// - Returns: `true` when its value is hidden.
    public func isSecretName<Name: StringProtocol>(_ name: Name) -> Bool {
        guard !secretWords.isEmpty else { return false }
        return Self.parts(of: Self.percentDecoded(Substring(name))).contains { part in
            secretWords.contains(part) || (part.hasSuffix("s") && secretWords.contains(String(part.dropLast())))
        }
    }

    /// The lowercase parts of a name (see the type's discussion).
    static func parts(of name: String) -> [String] {
        enum Kind { case lower, upper, digit, other }
        func kind(_ character: Character) -> Kind {
            guard character.isASCII else { return character.isLetter ? .lower : .other }
            if character.isLowercase { return .lower }
            if character.isUppercase { return .upper }
            if character.isNumber { return .digit }
            return .other
        }
        let characters = Array(name)
        var parts: [String] = []
        var current = ""
        for (index, character) in characters.enumerated() {
            let this = kind(character)
            if this == .other {
                if !current.isEmpty { parts.append(current) }
                current = ""
                continue
            }
            if let last = current.last {
                let previous = kind(last)
                let next = index + 1 < characters.count ? kind(characters[index + 1]) : .other
                let cuts =
                    (previous == .lower && this == .upper)
                    || (previous == .upper && this == .upper && next == .lower)
                    || ((previous == .digit) != (this == .digit))
                if cuts {
                    parts.append(current)
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { parts.append(current) }
        return parts.map { $0.lowercased() }
    }

    /// `text` with `+` read as a space and its percent-escapes decoded; as it is where an escape
    /// does not decode to UTF-8.
    static func percentDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    // MARK: Header fields

    /// Whether a header field's value is secret: it is one of ``credentialFields`` or its name is
    /// secret (``isSecretName(_:)``).
    ///
    /// - Parameter name: The field's name, in any case.
    /// - Returns: `true` when its value is hidden.
    public func isSecretField(_ name: String) -> Bool {
        credentialFields.contains(HTTPHeaders.foldedName(name)) || isSecretName(name)
    }

    /// A header field's value as it may be shown.
    ///
    /// `Authorization` and `Proxy-Authorization` keep their scheme (`Bearer REDACTED`), `Cookie`
    /// and `Set-Cookie` their cookie names (`a=REDACTED; b=REDACTED`, a `Set-Cookie`'s attributes
    /// too); another secret field is shown as ``replacement``.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - name: The field's name, in any case.
    /// - Returns: The value, or what is shown in its place.
    public func redactedValue(_ value: String, forField name: String) -> String {
        guard isSecretField(name) else { return value }
        switch HTTPHeaders.foldedName(name) {
        case "authorization", "proxy-authorization":
            let scheme = value.prefix { $0 != " " }
            return scheme.count < value.count && !scheme.isEmpty ? "\(scheme) \(replacement)" : replacement
        case "cookie":
            return value.split(separator: ";", omittingEmptySubsequences: false)
                .map { pair in redactedCookie(pair) }
                .joined(separator: ";")
        case "set-cookie":
            let cookie = value.prefix { $0 != ";" }
            return redactedCookie(cookie) + value.dropFirst(cookie.count)
        default:
            return replacement
        }
    }

    /// `name=REDACTED` for a cookie's `name=value`, keeping the space before it; only the
    /// replacement when there is no `=`.
    private func redactedCookie(_ pair: Substring) -> String {
        guard let equals = pair.firstIndex(of: "=") else { return pair.isEmpty ? "" : replacement }
        return pair[...equals] + replacement
    }

    /// Header fields as they may be shown: each secret value replaced (see
    /// ``redactedValue(_:forField:)``), names and order kept.
    ///
    /// - Parameter headers: The fields.
    /// - Returns: The fields, redacted.
    public func redact(_ headers: HTTPHeaders) -> HTTPHeaders {
        var redacted = HTTPHeaders()
        for field in headers {
            redacted[field.name] = redactedValue(field.value, forField: field.name)
        }
        return redacted
    }

    // MARK: URLs and queries

    /// A URL as it may be shown: its user and password hidden, and the values of its secret query
    /// parameters and fragment parameters.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The URL's text, redacted.
    public func redact(_ url: URL) -> String {
        redact(url: url.absoluteString)
    }

    /// A URL's text as it may be shown, whether or not it parses: user information hidden (what
    /// lies between the first `//` and the last `@` before the next `/`), and the values of
    /// secret parameters after `?` and after `#`.
    ///
    /// - Parameter url: The text of a URL; it is read as text, never parsed, so that text which
    ///   `URL` refuses is redacted too.
    /// - Returns: The text, redacted.
    public func redact(url: String) -> String {
        var rest = Substring(url)
        var result = ""
        if let authorityStart = rest.range(of: "//") {
            // Up to the next `/`, not `?` or `#`: a password with a raw `?` or `#` (a URL that
            // does not parse) is hidden too, at the cost of hiding a host followed by `?…@`.
            let authorityEnd = rest[authorityStart.upperBound...].firstIndex(of: "/") ?? rest.endIndex
            let authority = rest[authorityStart.upperBound..<authorityEnd]
            let beforeQuery = rest[..<authorityStart.lowerBound]
            if hidesUserInfo, !beforeQuery.contains("?"), !beforeQuery.contains("#"),
                let at = authority.lastIndex(of: "@")
            {
                let userInfo = authority[..<at]
                result += rest[..<authorityStart.upperBound]
                result += userInfo.contains(":") ? "\(replacement):\(replacement)" : replacement
                rest = rest[at...]
            }
        }
        let fragmentStart = rest.firstIndex(of: "#")
        let beforeFragment = rest[..<(fragmentStart ?? rest.endIndex)]
        if let queryStart = beforeFragment.firstIndex(of: "?") {
            result += beforeFragment[...queryStart]
            result += redact(query: beforeFragment[beforeFragment.index(after: queryStart)...])
        } else {
            result += beforeFragment
        }
        if let fragmentStart {
            result += "#" + redact(query: rest[rest.index(after: fragmentStart)...])
        }
        return result
    }

    /// A query string or `application/x-www-form-urlencoded` body as it may be shown: each
    /// `name=value` pair whose name is secret gets ``replacement`` for its value (each time a
    /// name is repeated); pairs keep their order and separators.
    ///
    /// - Parameter query: The query, without its `?`.
    /// - Returns: The query, redacted.
    public func redact(query: Substring) -> String {
        guard !secretWords.isEmpty else { return String(query) }
        return query.split(separator: "&", omittingEmptySubsequences: false)
            .map { pair -> String in
                guard let equals = pair.firstIndex(of: "="), isSecretName(pair[..<equals]) else { return String(pair) }
                return pair[...equals] + replacement
            }
            .joined(separator: "&")
    }
}
