import Foundation
import Kilo
import Testing

@Suite struct WebServiceProxyJSONTests {
    /// A date as many APIs send a day: `"1866-01-01"`, in UTC.
    struct Birth: Codable, Equatable {
        var name: String
        var born: Date
    }

    static let dayFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()

    static let birth = Birth(name: "Ann", born: Date(timeIntervalSince1970: -3_155_673_600))  // 1870-01-01

    /// A proxy whose coders read and write dates as days, counting the coders it makes.
    static func dayProxy(_ transport: any Transport, made: Counter = Counter()) -> WebServiceProxy {
        let proxy = makeProxy(transport)
        proxy.makeJSONDecoder = {
            made.increment()
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .formatted(dayFormatter)
            return decoder
        }
        proxy.makeJSONEncoder = {
            made.increment()
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .formatted(dayFormatter)
            return encoder
        }
        return proxy
    }

    @Test func theProxysDecoderReadsResponsesInEveryVariant() async throws {
        let json = #"{"name":"Ann","born":"1870-01-01"}"#
        let transports: [any Transport] = [FakeTransport(body: json)]
        for transport in transports {
            let proxy = Self.dayProxy(transport)
            let decoded: Birth = try await proxy.invoke(.get, path: "a")
            let withBody: Birth = try await proxy.invoke(.post, path: "b", body: ["x": 1])
            let callback: Result<Birth, any Error> = await result { proxy.invoke(.get, path: "c", resultHandler: $0) }
            let callbackWithBody: Result<Birth, any Error> = await result {
                try! proxy.invoke(.post, path: "d", body: ["x": 1], resultHandler: $0)  // a dictionary always encodes
            }
            #expect(decoded == Self.birth)
            #expect(withBody == Self.birth)
            #expect(try callback.get() == Self.birth)
            #expect(try callbackWithBody.get() == Self.birth)
        }
    }

    @Test func theProxysEncoderWritesBodiesInEveryVariant() async throws {
        let transport = FakeTransport(body: #"{"name":"Ann","born":"1870-01-01"}"#)
        let proxy = Self.dayProxy(transport)
        try await proxy.invoke(.put, path: "a", body: Self.birth)
        let _: Birth = try await proxy.invoke(.post, path: "b", body: Self.birth)
        let callback: Result<Void, any Error> = await result {
            try! proxy.invoke(.put, path: "c", body: Self.birth, resultHandler: $0)  // a Birth always encodes
        }
        let callbackDecoded: Result<Birth, any Error> = await result {
            try! proxy.invoke(.post, path: "d", body: Self.birth, resultHandler: $0)
        }
        #expect(throws: Never.self) { try callback.get() }
        #expect(throws: Never.self) { try callbackDecoded.get() }
        let requests = await transport.requests
        #expect(requests.count == 4)
        for request in requests {
            let body = try #require(try request.bodyData())
            #expect(
                try JSONSerialization.jsonObject(with: body) as? [String: String] == [
                    "name": "Ann", "born": "1870-01-01",
                ]
            )
        }
    }

    /// Each body and each response gets a coder of its own, never one another request holds.
    @Test func eachBodyAndResponseGetsANewCoder() async throws {
        let made = Counter()
        let proxy = Self.dayProxy(FakeTransport(body: #"{"name":"Ann","born":"1870-01-01"}"#), made: made)
        for _ in 0..<3 {
            let _: Birth = try await proxy.invoke(.post, path: "b", body: Self.birth)
        }
        #expect(made.value == 6)
    }

    @Test func theDefaultCodersUseMillisecondsSince1970() async throws {
        let transport = FakeTransport(body: #"{"name":"Ann","born":-3155673600000}"#)
        let proxy = makeProxy(transport)
        let echoed: Birth = try await proxy.invoke(.post, path: "b", body: Self.birth)
        #expect(echoed == Self.birth)
        #expect(text(await transport.requests.first)?.contains(#""born":-3155673600000"#) == true)
        #expect(proxy.makeJSONDecoder().dateDecodingStrategy.isMilliseconds)
        #expect(try proxy.makeJSONEncoder().encode([Date(timeIntervalSince1970: 1)]) == Data("[1000]".utf8))
    }

    @Test func aProxyWithATimeoutKeepsTheCoders() async throws {
        let transport = FakeTransport(body: #"{"name":"Ann","born":"1870-01-01"}"#)
        let proxy = Self.dayProxy(transport).withTimeout(5)
        let echoed: Birth = try await proxy.invoke(.post, path: "b", body: Self.birth)
        #expect(echoed == Self.birth)
        #expect(text(await transport.requests.first)?.contains(#""born":"1870-01-01""#) == true)
    }

    /// A request decodes with the function that was set when it started, even if another is set
    /// while it waits for its response.
    @Test func aRequestUsesTheDecoderSetWhenItStarted() async throws {
        let (gate, opener) = AsyncStream<Void>.makeStream()
        let transport = FakeTransport { _ in
            for await _ in gate { break }
            return TransportResponse(
                statusCode: 200,
                headers: [:],
                body: Data(#"{"name":"Ann","born":"1870-01-01"}"#.utf8)
            )
        }
        let proxy = Self.dayProxy(transport)
        let request = Task { () -> Birth in try await proxy.invoke(.get, path: "a") }
        while await transport.requests.isEmpty {
            await Task.yield()
        }
        proxy.makeJSONDecoder = { JSONDecoder() }  // would fail: it reads dates as seconds since 2001
        opener.yield()
        #expect(try await request.value == Self.birth)
    }

    // MARK: Bodies that are not JSON

    private struct Price: Encodable {
        var dec: Decimal
    }

    /// `JSONEncoder` writes `Decimal.nan` as a bare `NaN`: the body would be `{"dec":NaN}`.
    @Test func aDecimalNaNBodyThrowsEncodingErrorAndNothingIsSent() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport)
        let error = await #expect(throws: EncodingError.self) {
            try await proxy.invoke(.post, path: "prices", body: Price(dec: .nan))
        }
        guard case .invalidValue(let value, let context)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(value as? String == "NaN")
        #expect(context.codingPath.map(\.stringValue) == ["dec"])
        await #expect(throws: EncodingError.self) {
            let _: [Int] = try await proxy.invoke(.post, path: "prices", body: [Price(dec: .nan)])
        }
        #expect(throws: EncodingError.self) {
            try proxy.invoke(.post, path: "prices", body: Price(dec: .nan)) { (_: Result<Void, any Error>) in }
        }
        #expect(throws: EncodingError.self) {
            try proxy.invoke(.post, path: "prices", body: ["a": [Decimal.nan]]) { (_: Result<[Int], any Error>) in }
        }
        #expect(await transport.requests.isEmpty)
    }

    /// A strategy for non-conforming floats makes a `Double` NaN a string, which is JSON; it does
    /// not reach a `Decimal`, which still throws.
    @Test func aCustomEncodersOutputIsCheckedToo() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport)
        proxy.makeJSONEncoder = {
            let encoder = JSONEncoder()
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "inf",
                negativeInfinity: "-inf",
                nan: "nan"
            )
            return encoder
        }
        try await proxy.invoke(.post, path: "values", body: [Double.nan])
        await #expect(throws: EncodingError.self) {
            try await proxy.invoke(.post, path: "values", body: [Decimal.nan])
        }
        #expect(await transport.requests.map { text($0) } == [#"["nan"]"#])
    }
}

extension JSONDecoder.DateDecodingStrategy {
    /// Whether this is `.millisecondsSince1970`.
    var isMilliseconds: Bool {
        if case .millisecondsSince1970 = self { return true }
        return false
    }
}
