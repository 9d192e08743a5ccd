import Foundation
import Kilo
import Testing

@Suite struct WebServiceProxyAsyncTests {
    @Test func decodesJSONWithMillisecondDates() async throws {
        let transport = FakeTransport(body: #"[{"name":"Ann","born":1700000000123}]"#)
        let people: [Person] = try await makeProxy(transport).invoke(.get, path: "people")
        #expect(people == [Person(name: "Ann", born: Date(timeIntervalSince1970: 1_700_000_000.123))])
    }

    @Test func anEmptyBodyDecodesToNilForAnOptional() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let person: Person? = try await makeProxy(transport).invoke(.get, path: "people/1")
        #expect(person == nil)
    }

    @Test func anInvalidBodyThrowsDecodingError() async throws {
        let transport = FakeTransport(body: #"{"name": 1}"#)
        await #expect(throws: DecodingError.self) {
            let _: Person = try await makeProxy(transport).invoke(.get, path: "people/1")
        }
    }

    @Test func anErrorStatusThrowsWebServiceErrorWithBodyAndHeaders() async throws {
        let transport = FakeTransport(statusCode: 404, body: "no such user", headers: ["X-Request-Id": "42"])
        let error = await #expect(throws: WebServiceError.self) {
            let _: [Int] = try await makeProxy(transport).invoke(.get, path: "users/9")
        }
        #expect(error?.statusCode == 404)
        #expect(error?.body == Data("no such user".utf8))
        #expect(error?.headers["x-request-id"] == "42")
        #expect(error?.localizedDescription == "no such user")
        #expect(await transport.requests.map(\.url.path) == ["/v1/users/9"])
    }

    @Test func voidInvokeThrowsForAnErrorStatus() async throws {
        let transport = FakeTransport(statusCode: 503, data: Data())
        let error = await #expect(throws: WebServiceError.self) {
            try await makeProxy(transport).invoke(.delete, path: "items/1")
        }
        #expect(error?.localizedDescription == "Service Unavailable")
    }

    @Test func responseHandlerReadsTheContentAndItsType() async throws {
        let transport = FakeTransport(body: "a,b\n1,2\n", headers: ["Content-Type": "text/csv"])
        let rows = try await makeProxy(transport).invoke(.get, path: "table.csv") { content, contentType in
            #expect(contentType == "text/csv")
            return String(decoding: content, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",") }
        }
        #expect(rows == [["a", "b"], ["1", "2"]])
    }

    @Test func responseHandlerCanReadHeaders() async throws {
        let transport = FakeTransport(body: "[]", headers: ["Link": "<https://api.example.com/v1/items?page=2>"])
        let link = try await makeProxy(transport).invoke(.get, path: "items") { _, _, headers in headers["link"] }
        #expect(link == "<https://api.example.com/v1/items?page=2>")
    }

    @Test func responseHandlerErrorsPropagate() async throws {
        struct BadImage: Error {}
        let transport = FakeTransport(data: Data([0xFF]))
        await #expect(throws: BadImage.self) {
            _ = try await makeProxy(transport).invoke(.get, path: "image") { _, _ -> Int in throw BadImage() }
        }
    }

    @Test func transportErrorsPropagateUnchanged() async throws {
        let transport = FakeTransport { _ in throw URLError(.notConnectedToInternet) }
        let error = await #expect(throws: URLError.self) {
            try await makeProxy(transport).invoke(.get, path: "items")
        }
        #expect(error?.code == .notConnectedToInternet)
    }

    @Test func cancellingTheTaskThrowsURLErrorCancelled() async throws {
        let transport = FakeTransport { _ in
            try await Task.sleep(for: .seconds(30))
            return TransportResponse(statusCode: 200)
        }
        let proxy = makeProxy(transport)
        let task = Task { try await proxy.invoke(.get, path: "slow") }
        while await transport.requests.isEmpty {
            await Task.yield()
        }
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }

    @Test func oneProxyServesManyTasksAtOnce() async throws {
        let transport = FakeTransport { request in
            let n = request.url.query.flatMap { Int($0.dropFirst(2)) } ?? -1
            return TransportResponse(statusCode: 200, body: Data("\(n * 2)".utf8))
        }
        let proxy = makeProxy(transport)
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for n in 0..<200 {
                group.addTask { (n, try await proxy.invoke(.get, path: "double", arguments: ["n": n])) }
            }
            for try await (n, doubled) in group {
                #expect(doubled == n * 2)
            }
        }
        #expect(await transport.requests.count == 200)
    }
}
