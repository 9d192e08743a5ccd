// Linux: no Public Suffix List behind the session's cookies.
//
// Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): a cookie for `Domain=com` is stored
// and sent to every site under it. Portable code, used only by CookiePolicy.
// Tests: PublicSuffixListTests (every rule of the list), CookiePolicyTests.
// Remove with CookiePolicy.swift.

/// The Public Suffix List (https://publicsuffix.org/list/): the domains under which anyone can register
/// names, such as `com`, `co.uk` or `github.io`, and the algorithm that finds a domain's public suffix.
///
/// A cookie whose `Domain` is a public suffix would go to every site under it, so ``CookiePolicy``
/// stores none (RFC 6265 §5.3 step 5), and counts its per-site limit by registrable domain.
///
/// The rules are Debian's `publicsuffix` package (``version``), kept in the generated file
/// `PublicSuffixList+Rules.swift` as ``ruleText``, one rule a line as the list writes them (`com`, `co.uk`,
/// `*.ck`, `!www.ck`); `Scripts/update-public-suffixes.sh` writes it again from a newer package. An
/// internationalized rule is there in both forms (`公司.cn`, then `xn--55qx5d.cn`), since a host may come
/// in either.
enum PublicSuffixList {
    /// The rules, parsed once, when first needed: about 10,000 entries, a few milliseconds.
    private static let rules = Rules(text: ruleText)

    /// The public suffix of `domain`: the part that its prevailing rule matches.
    ///
    /// As the list says: the rule with the most labels that matches wins, an exception rule (`!`) wins over
    /// all others and matches without its leftmost label, and a domain that no rule matches has its
    /// top-level label as its public suffix (the rule `*`).
    ///
    /// - Parameter domain: A domain name, in any case, in Unicode or ASCII (Punycode) form.
    /// - Returns: The public suffix, lowercased, or `nil` for a domain with an empty label (`.com`,
    ///   `example..com`, `example.com.`) or none at all.
    static func publicSuffix(of domain: String) -> String? {
        guard let labels = labels(of: domain) else { return nil }
        let count = suffixLabelCount(of: labels)
        return labels.suffix(count).joined(separator: ".")
    }

    /// The registrable domain of `domain`: its public suffix and one label more (`example.co.uk` for
    /// `www.example.co.uk`).
    ///
    /// - Parameter domain: A domain name, in any case, in Unicode or ASCII (Punycode) form.
    /// - Returns: The registrable domain, lowercased, or `nil` when `domain` is itself a public suffix,
    ///   or has an empty label.
    static func registrableDomain(of domain: String) -> String? {
        guard let labels = labels(of: domain) else { return nil }
        let count = suffixLabelCount(of: labels)
        guard labels.count > count else { return nil }
        return labels.suffix(count + 1).joined(separator: ".")
    }

    /// Whether `domain` is a public suffix: `com`, `co.uk`, and any top-level label the list does not
    /// name (`localhost`, `example`).
    ///
    /// - Parameter domain: A domain name, in any case, in Unicode or ASCII (Punycode) form.
    /// - Returns: `true` for a public suffix; `false` otherwise, and for a domain with an empty label.
    static func isPublicSuffix(_ domain: String) -> Bool {
        guard let labels = labels(of: domain) else { return false }
        return suffixLabelCount(of: labels) == labels.count
    }

    /// The lowercased labels of `domain`, or `nil` if it has none, or an empty one.
    private static func labels(of domain: String) -> [Substring]? {
        let labels = domain.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        guard !domain.isEmpty, !labels.contains(where: \.isEmpty) else { return nil }
        return labels
    }

    /// The number of labels, counted from the right, of the public suffix of a domain with `labels`.
    ///
    /// Each candidate suffix is a slice of the domain's one lowercased string, looked up without being
    /// copied: this runs for every cookie a response sets.
    private static func suffixLabelCount(of labels: [Substring]) -> Int {
        guard let last = labels.last else { return 0 }
        let name = last.base  // the lowercased domain, which every label is a slice of
        var count = 1  // the rule `*`
        for start in labels.indices {
            let candidate = name[labels[start].startIndex...]
            let length = labels.count - start
            if rules.exceptions.contains(candidate) {
                return length - 1  // an exception prevails; the longest is met first
            }
            if length > count,
                rules.exact.contains(candidate)
                    || (start + 1 < labels.count && rules.wildcards.contains(name[labels[start + 1].startIndex...]))
            {
                count = length
            }
        }
        return count
    }
}

extension PublicSuffixList {
    /// The list's rules, by kind: slices of ``ruleText``, which a domain's own slices are looked up in.
    struct Rules: Sendable {
        /// Rules without a wildcard or exception, such as `com` or `co.uk`.
        var exact: Set<Substring> = []
        /// The domains under a wildcard rule: `ck` for `*.ck`.
        var wildcards: Set<Substring> = []
        /// Exception rules without their `!`: `www.ck` for `!www.ck`.
        var exceptions: Set<Substring> = []

        /// Parses the rules, one a line (see ``PublicSuffixList``).
        ///
        /// - Parameter text: The rules, as in ``PublicSuffixList/ruleText``.
        init(text: String) {
            for rule in text.split(separator: "\n") {
                if rule.hasPrefix("!") {
                    exceptions.insert(rule.dropFirst())
                } else if rule.hasPrefix("*.") {
                    wildcards.insert(rule.dropFirst(2))
                } else {
                    exact.insert(rule)
                }
            }
        }
    }
}
