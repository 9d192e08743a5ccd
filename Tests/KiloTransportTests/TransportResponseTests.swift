import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct TransportResponseTests {
    private let url = URL(string: "https://api.example.com/users/9")!
    private let fields = ["Content-Type": "application/json", "X-Trace": "abc", "Set-Cookie": "a=1"]

    private func sessionResponse(statusCode: Int = 200) throws -> HTTPURLResponse {
        try #require(HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    #if canImport(FoundationNetworking)
        /// Linux's `HTTPURLResponse` keeps `X-` names in the spellings they came in.
        @Test func aFieldSpelledTwoWaysKeepsBothValues() throws {
            let fields = ["X-Request-Id": "1", "x-request-id": "2", "X-REQUEST-ID": "3", "Accept-Ranges": "bytes"]
            let session = try #require(
                HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)
            )
            #expect(session.allHeaderFields.count == 4)
            let response = TransportResponse(session, body: Data())
            #expect(response.headers.count == 2)
            #expect(response.headers["x-request-id"] == "3, 1, 2")
            #expect(response.headers["Accept-Ranges"] == "bytes")
        }
    #endif

    @Test func aSessionResponsesHeadersAreAllThereWhenRead() throws {
        let response = TransportResponse(try sessionResponse(statusCode: 201), body: Data("{}".utf8))
        #expect(response.statusCode == 201)
        #expect(response.body == Data("{}".utf8))
        #expect(response.headers.count == 3)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["X-Trace"] == "abc")
        #expect(response.headers["Set-Cookie"] == "a=1")
    }

    @Test func aSessionResponseEqualsTheSameResponseMadeFromFields() throws {
        let read = TransportResponse(try sessionResponse(), body: Data("x".utf8))
        let made = TransportResponse(statusCode: 200, headers: HTTPHeaders(fields), body: Data("x".utf8))
        #expect(read == made)
        #expect(made == read)
        #expect(read.hashValue == made.hashValue)
        #expect(Set([read, made]).count == 1)
        #expect(read != TransportResponse(statusCode: 200, headers: ["X-Trace": "abc"], body: Data("x".utf8)))
    }

    @Test func settingTheHeadersReplacesWhatTheSessionGave() throws {
        var response = TransportResponse(try sessionResponse(), body: Data())
        response.headers = ["X-Other": "1"]
        #expect(response.headers == ["X-Other": "1"])
        response.headers["X-More"] = "2"
        #expect(response.headers.count == 2)
    }

    @Test func changingACopysHeadersLeavesTheOriginalAsItWas() throws {
        let original = TransportResponse(try sessionResponse(), body: Data())
        var copy = original
        copy.headers["X-Trace"] = "changed"
        #expect(original.headers["X-Trace"] == "abc")
        #expect(copy.headers["X-Trace"] == "changed")
    }

    @Test func manyThreadsReadingTheHeadersAtOnceAllSeeThem() async throws {
        let response = TransportResponse(try sessionResponse(), body: Data())
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<64 {
                group.addTask { response.headers["x-trace"] == "abc" ? response.headers.count : -1 }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 3, count: 64))
    }
}
