import Foundation
import KiloTransport
import Testing

@Suite struct RecentURLsTests {
    @Test func aRememberedURLIsFoundByItsKey() throws {
        let urls = RecentURLs(limit: 2)
        let url = try #require(URL(string: "https://example.com/api/users"))
        urls.remember(url, for: "users")
        #expect(urls["users"] == url)
        #expect(urls["items"] == nil)
    }

    @Test func aFullStoreForgetsEverythingBeforeItRemembersMore() throws {
        let urls = RecentURLs(limit: 2)
        let first = try #require(URL(string: "https://example.com/a"))
        let second = try #require(URL(string: "https://example.com/b"))
        let third = try #require(URL(string: "https://example.com/c"))
        urls.remember(first, for: "a")
        urls.remember(second, for: "b")
        urls.remember(third, for: "c")
        #expect(urls["a"] == nil)
        #expect(urls["b"] == nil)
        #expect(urls["c"] == third)
    }
}
