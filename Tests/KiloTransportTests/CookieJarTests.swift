#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
    import Testing

    @testable import KiloTransport

    /// `CookieJar` stores a response's cookies within its policy, or, when the session has stored them
    /// already, deletes those the policy would not have stored.
    @Suite struct CookieJarTests {
        private func response(_ url: String, setting fields: [String]) throws -> HTTPURLResponse {
            let url = try #require(URL(string: url))
            return try #require(
                HTTPURLResponse(
                    url: url,
                    statusCode: 200,
                    httpVersion: "HTTP/1.1",
                    headerFields: [
                        "Set-Cookie": fields.joined(separator: ", ")
                    ]
                )
            )
        }

        private func jar(isStoredBySession: Bool) throws -> CookieJar {
            try #require(CookieJar(receivingFor: .ephemeral, isStoredBySession: isStoredBySession))
        }

        @Test func aJarStoresTheCookiesThePolicyAllows() throws {
            let jar = try jar(isStoredBySession: false)
            jar.receive(try response("http://www.example.com/", setting: ["a=1", "b=2; Domain=com", "c=3; Secure"]))
            #expect(jar.storage.cookies?.map(\.name) == ["a"])
        }

        @Test func aSiteKeepsItsNewest150Cookies() throws {
            let jar = try jar(isStoredBySession: false)
            for round in 0..<4 {
                let fields = (0..<50).map { "r\(round)c\($0)=v" }
                jar.receive(try response("http://example.com/", setting: fields), at: Date())
            }
            let names = Set(jar.storage.cookies?.map(\.name) ?? [])
            #expect(names.count == 150)
            #expect(!names.contains("r0c0"))
            #expect(names.contains("r3c49"))
        }

        @Test func aSiteIncludesItsSubdomains() throws {
            let jar = try jar(isStoredBySession: false)
            jar.receive(try response("http://a.example.com/", setting: (0..<50).map { "a\($0)=v" }))
            jar.receive(try response("http://b.example.com/", setting: (0..<50).map { "b\($0)=v" }))
            jar.receive(try response("http://c.example.com/", setting: (0..<50).map { "c\($0)=v; Domain=example.com" }))
            jar.receive(try response("http://other.org/", setting: ["o=1"]))
            #expect(jar.storage.cookies?.count == 151)
            jar.receive(try response("http://d.example.com/", setting: ["d=1"]))
            #expect(jar.storage.cookies?.count == 151)
            #expect(jar.storage.cookies?.contains { $0.name == "o" } == true)
        }

        @Test func aCookieThatHasExpiredDeletesTheStoredOne() throws {
            let jar = try jar(isStoredBySession: false)
            jar.receive(try response("http://example.com/", setting: ["a=1"]))
            jar.receive(try response("http://example.com/", setting: ["a=; Max-Age=0"]))
            #expect(jar.storage.cookies?.isEmpty == true)
        }

        /// Your session stores every cookie before Kilo sees the response; the jar deletes the ones the
        /// policy would not have stored, and keeps the others.
        @Test func onYourSessionTheJarDeletesWhatThePolicyWouldNotHaveStored() throws {
            let jar = try jar(isStoredBySession: true)
            let response = try response(
                "http://www.example.com/",
                setting: (0..<60).map { "c\($0)=v" } + ["tld=1; Domain=com"]
            )
            let url = try #require(response.url)
            jar.storage.setCookies(CookiePolicy.cookies(setBy: response), for: url, mainDocumentURL: nil)
            #expect(jar.storage.cookies?.count == 61)  // what swift-corelibs-foundation stores
            jar.receive(response)
            #expect(Set(jar.storage.cookies?.map(\.name) ?? []) == Set((0..<50).map { "c\($0)" }))
        }

        @Test func aConfigurationThatStoresNoCookiesHasNoJar() {
            let never = URLSessionConfiguration.ephemeral
            never.httpCookieAcceptPolicy = .never
            let none = URLSessionConfiguration.ephemeral
            none.httpCookieStorage = nil
            #expect(CookieJar(receivingFor: never, isStoredBySession: false) == nil)
            #expect(CookieJar(receivingFor: none, isStoredBySession: true) == nil)
        }

        @Test func theSessionsConfigurationStoresNoCookiesAndKeepsItsStorage() {
            let configuration = URLSessionConfiguration.ephemeral
            let copy = CookieJar.sessionConfiguration(configuration)
            #expect(copy.httpCookieAcceptPolicy == .never)
            #expect(copy.httpCookieStorage === configuration.httpCookieStorage)
            #expect(configuration.httpCookieAcceptPolicy != .never)
        }
    }
#endif
