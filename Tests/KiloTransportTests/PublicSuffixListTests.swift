import Foundation
import Testing

@testable import KiloTransport

/// `PublicSuffixList` knows every rule of the list it was generated from, and finds public suffixes and
/// registrable domains as the list's own test cases say.
@Suite struct PublicSuffixListTests {
    /// The list's test cases (test_psl.txt, generated into `PublicSuffixTestCases`): mixed case, leading
    /// dots, unlisted top-level labels, wildcards, exceptions, and internationalized labels in both forms.
    @Test(arguments: PublicSuffixTestCases.all)
    func theListsOwnTestCasesPass(domain: String, registrableDomain: String?) {
        #expect(PublicSuffixList.registrableDomain(of: domain) == registrableDomain)
    }

    @Test(arguments: [
        ("com", true), ("co.uk", true), ("uk", true), ("github.io", true), ("localhost", true), ("example", true),
        ("c.mm", true), ("www.ck", false), ("city.kobe.jp", false), ("example.com", false), ("a.co.uk", false),
        ("0.1", false), ("", false), (".com", false), ("tonaki.okinawa.jp", true), ("abeno.osaka.jp", true),
        ("okinawa.jp", true), ("osaka.jp", true),
    ])
    func publicSuffixesAreKnownAsSuch(domain: String, isPublicSuffix: Bool) {
        #expect(PublicSuffixList.isPublicSuffix(domain) == isPublicSuffix)
    }

    @Test(arguments: [
        ("www.example.co.uk", "co.uk"), ("a.b.test.ck", "test.ck"), ("www.ck", "ck"), ("user.github.io", "github.io"),
        ("example.local", "local"), ("www.tonaki.okinawa.jp", "tonaki.okinawa.jp"),
        ("shop.www.abeno.osaka.jp", "abeno.osaka.jp"),
    ])
    func thePrevailingRuleGivesThePublicSuffix(domain: String, suffix: String) {
        #expect(PublicSuffixList.publicSuffix(of: domain) == suffix)
    }

    @Test(arguments: ["", ".", "example..com", "example.com."])
    func aDomainWithAnEmptyLabelHasNoSuffix(domain: String) {
        #expect(PublicSuffixList.publicSuffix(of: domain) == nil)
        #expect(PublicSuffixList.registrableDomain(of: domain) == nil)
    }

    @Test func theRulesAreDebiansListOneALine() {
        #expect(!PublicSuffixList.version.isEmpty)
        #expect(Self.listed.count > 9_000)
        #expect(Self.listed.allSatisfy { !$0.isEmpty && !$0.hasPrefix("//") && !$0.contains(where: \.isWhitespace) })
    }

    /// A rule without a wildcard or exception is a public suffix: `com`, `co.uk`, `tonaki.okinawa.jp`.
    @Test func everyPlainRuleIsAPublicSuffix() {
        let rules = Self.listed.filter { !$0.hasPrefix("*.") && !$0.hasPrefix("!") }
        let missed = rules.filter { !PublicSuffixList.isPublicSuffix($0) }
        #expect(missed.isEmpty, "\(missed.count) of \(rules.count) plain rules missed, such as \(missed.prefix(5))")
    }

    /// A wildcard rule `*.ck` makes any one label under `ck` a public suffix, and a name under that one a
    /// registrable domain.
    @Test func everyWildcardRuleMakesEachChildAPublicSuffix() {
        let parents = Self.listed.filter { $0.hasPrefix("*.") }.map { $0.dropFirst(2) }
        let missed = parents.filter {
            !PublicSuffixList.isPublicSuffix("kilo-test.\($0)")
                || PublicSuffixList.registrableDomain(of: "www.kilo-test.\($0)") != "www.kilo-test.\($0)"
        }
        #expect(!parents.isEmpty)
        #expect(missed.isEmpty, "\(missed.count) of \(parents.count) wildcards missed, such as \(missed.prefix(5))")
    }

    /// An exception rule `!www.ck` prevails over every other rule, and the public suffix is what it
    /// matches less its leftmost label (`ck`), so `www.ck` is not a public suffix but a registrable domain,
    /// the one of every name under it. (The parent is the public suffix of `www.ck` whatever the rules say
    /// of the parent on its own: no rule names `kawasaki.jp`, only `*.kawasaki.jp` and `!city.kawasaki.jp`.)
    @Test func everyExceptionRuleMakesARegistrableDomain() {
        let domains = Self.listed.filter { $0.hasPrefix("!") }.map { String($0.dropFirst()) }
        let missed = domains.filter { domain in
            let parent = domain.split(separator: ".").dropFirst().joined(separator: ".")
            return PublicSuffixList.isPublicSuffix(domain) || PublicSuffixList.publicSuffix(of: domain) != parent
                || PublicSuffixList.registrableDomain(of: domain) != domain
                || PublicSuffixList.registrableDomain(of: "a.b.\(domain)") != domain
        }
        #expect(!domains.isEmpty)
        #expect(missed.isEmpty, "\(missed.count) of \(domains.count) exceptions missed, such as \(missed.prefix(5))")
    }

    /// The list the rules were generated from, where this machine has it, is all there: each of its rules is
    /// a line of the generated text, which the tests above check line by line.
    @Test(.enabled(if: Self.source != nil, "needs Debian's publicsuffix \(PublicSuffixList.version) installed"))
    func everyRuleOfTheSourceListIsThere() throws {
        let source = try #require(Self.source)
        let listed = Set(Self.listed)
        let missed = source.filter { !listed.contains($0) }
        #expect(source.count > 9_000)
        #expect(missed.isEmpty, "\(missed.count) of \(source.count) rules missed, such as \(missed.prefix(5))")
    }

    /// The rules of the list, read from the generated text line by line, apart from ``PublicSuffixList/Rules``.
    private static let listed = PublicSuffixList.ruleText.split(separator: "\n").map(String.init)

    /// The rules of Debian's `publicsuffix` package, as `Scripts/update-public-suffixes.sh` reads them, when the
    /// version installed is the one the rules were generated from; otherwise `nil`.
    private static let source: [String]? = {
        let name = "Package: publicsuffix\n"
        guard let status = try? String(contentsOfFile: "/var/lib/dpkg/status", encoding: .utf8),
            let stanza = status.components(separatedBy: "\n\n").first(where: { $0.hasPrefix(name) }),
            stanza.contains("\nStatus: install ok installed\n"),
            stanza.contains("\nVersion: \(PublicSuffixList.version)\n"),
            let list = try? String(contentsOfFile: "/usr/share/publicsuffix/public_suffix_list.dat", encoding: .utf8)
        else { return nil }
        return list.split(separator: "\n").compactMap { line in
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { return nil }
            return rule.lowercased()
        }
    }()
}
