import Testing

@testable import KiloTransport

/// `PublicSuffixList` finds public suffixes and registrable domains as the list's own test cases say.
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
        ("0.1", false), ("", false), (".com", false),
    ])
    func publicSuffixesAreKnownAsSuch(domain: String, isPublicSuffix: Bool) {
        #expect(PublicSuffixList.isPublicSuffix(domain) == isPublicSuffix)
    }

    @Test(arguments: [
        ("www.example.co.uk", "co.uk"), ("a.b.test.ck", "test.ck"), ("www.ck", "ck"), ("user.github.io", "github.io"),
        ("example.local", "local"),
    ])
    func thePrevailingRuleGivesThePublicSuffix(domain: String, suffix: String) {
        #expect(PublicSuffixList.publicSuffix(of: domain) == suffix)
    }

    @Test(arguments: ["", ".", "example..com", "example.com."])
    func aDomainWithAnEmptyLabelHasNoSuffix(domain: String) {
        #expect(PublicSuffixList.publicSuffix(of: domain) == nil)
        #expect(PublicSuffixList.registrableDomain(of: domain) == nil)
    }

    @Test func theRulesAreDebiansList() {
        #expect(!PublicSuffixList.version.isEmpty)
        #expect(PublicSuffixList.ruleText.split(separator: "\n").count > 9_000)
    }
}
