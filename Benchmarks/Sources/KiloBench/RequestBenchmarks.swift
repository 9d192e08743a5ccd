import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Kilo
import KiloAsyncHTTPClient
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix

/// Sections b and c: real requests to kilo-bench-server on loopback.
enum RequestBenchmarks {
    /// The one session that raw URLSession and Kilo share, so that they use the same
    /// connections: ephemeral, no cache, up to 64 connections to the server.
    static func makeSession() -> URLSession {
        URLSession(configuration: makeConfiguration())
    }

    /// The configuration of every session here: ephemeral, no cache, up to 64 connections.
    static func makeConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 30
        return configuration
    }

    /// Sends a request as async code does by hand on Linux, where `data(for:)` can deadlock: a
    /// checked continuation around `dataTask(with:completionHandler:)`.
    static func data(for request: URLRequest, on session: URLSession) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }.resume()
        }
    }

    /// `GET url` as async code does it by hand (SameWork's raw async row): a `URLRequest` built
    /// for the request, a continuation around `dataTask`, then the body checked and decoded.
    static func rawAsyncGet(_ url: URL, on session: URLSession, decoder: JSONDecoder) async throws {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await data(for: request, on: session)
        blackHole(try decode(Item.self, data: data, response: response, error: nil, decoder: decoder).id)
    }

    /// Checks a raw URLSession completion and decodes its body, as careful callers do.
    static func decode<T: Decodable>(
        _ type: T.Type, data: Data?, response: URLResponse?, error: (any Error)?, decoder: JSONDecoder
    ) throws -> T {
        if let error { throw error }
        guard let response = response as? HTTPURLResponse, (200..<300).contains(response.statusCode), let data else {
            throw URLError(.badServerResponse)
        }
        return try decoder.decode(T.self, from: data)
    }

    /// Sends `GET url` with a completion handler that decodes on the session's delegate queue
    /// and hands the result to `queue`, as Kilo's callbacks deliver theirs.
    private static func rawDataTask(
        url: URL,
        on session: URLSession,
        decoder: JSONDecoder,
        delivering completion: @escaping @Sendable (Result<Void, any Error>) -> Void,
        on queue: DispatchQueue
    ) {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        session.dataTask(with: request) { data, response, error in
            let result = Result {
                blackHole(try decode(Item.self, data: data, response: response, error: error, decoder: decoder).id)
            }
            queue.async { completion(result) }
        }.resume()
    }

    // MARK: b. GET /json

    static func get(_ options: Options, session: URLSession) async throws -> [RowResult] {
        let lanes16 = options.requestsPerLane[16]!, lanes64 = options.requestsPerLane[64]!
        print("== b. GET /json (201 B) decoded into a struct: \(options.rounds) interleaved rounds; per round \(options.sequentialRequests) sequential requests, 16 × \(lanes16) and 64 × \(lanes64) in flight ==")
        print("   ratio = median over rounds of (row req/s ÷ first row's req/s in the same round); latencies pooled over all rounds;")
        print("   CPU/req = this process's CPU time (all threads, user + system) per request; CPU ratio as ratio, lower is cheaper")
        let baseURL = options.baseURL
        let url = baseURL.appendingPathComponent("json")
        let decoder = JSONCoding.makeDecoder()

        // Kilo's callbacks arrive on its default callbackQueue, the main queue, and raw completion
        // handlers hop there too.
        let proxy = WebServiceProxy(session: session, baseURL: baseURL)
        // The same configuration, but a session of the proxy's own; it cannot share the others'
        // connections.
        let owningProxy = WebServiceProxy(configuration: makeConfiguration(), baseURL: baseURL)

        // One client for async-http-client used directly and for Kilo over AsyncHTTPClientTransport,
        // so both use the same connections: the transport's recommended configuration (which only
        // adds URLSession's 60 s timeouts, decompression and transport-side redirects), one
        // event-loop thread, up to 64 HTTP/1.1 connections.
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = HTTPClient(eventLoopGroup: eventLoops, configuration: makeClientConfiguration())
        let nioProxy = WebServiceProxy(baseURL: baseURL, transport: AsyncHTTPClientTransport(client: client))

        let rows: [RequestRow] = [
            // Raw code doing what Kilo's rows do (SameWork): async code as one writes it by hand
            // on Linux, and completion handlers that hand the decoded result to a queue.
            .tasks(SameWork.getAsync) {
                try await rawAsyncGet(url, on: session, decoder: decoder)
            },
            .tasks(SameWork.getDataFor) {
                var request = URLRequest(url: url)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                let (data, response) = try await session.data(for: request)
                blackHole(try decode(Item.self, data: data, response: response, error: nil, decoder: decoder).id)
            },
            .callbacks(SameWork.getCallback) { completion in
                rawDataTask(url: url, on: session, decoder: decoder, delivering: completion, on: .main)
            },
            .tasks(SameWork.kiloAsync) {
                let item: Item = try await proxy.invoke(.get, path: "json")
                blackHole(item.id)
            },
            .callbacks(SameWork.kiloCallback) { completion in
                proxy.invoke(.get, path: "json") { (result: Result<Item, any Error>) in
                    completion(result.map { blackHole($0.id) })
                }
            },
            .tasks(SameWork.ownAsync) {
                let item: Item = try await owningProxy.invoke(.get, path: "json")
                blackHole(item.id)
            },
            .callbacks(SameWork.ownCallback) { completion in
                owningProxy.invoke(.get, path: "json") { (result: Result<Item, any Error>) in
                    completion(result.map { blackHole($0.id) })
                }
            },
            .tasks(SameWork.ahc) {
                try await ahcGet(url, on: client, decoder: decoder)
            },
            .callbacks(SameWork.ahcCallback) { completion in
                Task {
                    let result = await Result { try await ahcGet(url, on: client, decoder: decoder) }
                    DispatchQueue.main.async { completion(result) }
                }
            },
            .tasks(SameWork.nioAsync) {
                let item: Item = try await nioProxy.invoke(.get, path: "json")
                blackHole(item.id)
            },
            .callbacks(SameWork.nioCallback) { completion in
                nioProxy.invoke(.get, path: "json") { (result: Result<Item, any Error>) in
                    completion(result.map { blackHole($0.id) })
                }
            },
        ]
        let experimentRows = options.experiments
            ? Experiments.getRows(session: session, url: url, baseURL: baseURL)
                + Experiments.nioRows(client: client, baseURL: baseURL, url: url)
            : []
        let selected = (rows + experimentRows).filter { options.includes($0.name) }

        let modes = [(1, options.sequentialRequests), (16, lanes16), (64, lanes64)].filter { options.inFlight.contains($0.0) }
        let results = await compare(selected, modes: modes, rounds: options.rounds)
        printRequestTable(results)
        await printAllocations(selected, requests: 200)
        try await client.shutdown()
        try await eventLoops.shutdownGracefully()
        return results
    }

    /// `GET url` with async-http-client used directly: `execute`, `collect`, then the status
    /// checked and the body decoded.
    static func ahcGet(_ url: URL, on client: HTTPClient, decoder: JSONDecoder) async throws {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        // No per-request deadline, like Kilo's requests without a timeoutInterval: both rely
        // on the client's read timeout (a deadline schedules a timer per request).
        let response = try await client.execute(request, deadline: .distantFuture)
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw URLError(.badServerResponse) }
        blackHole(try decoder.decode(Item.self, from: body).id)
    }

    /// The configuration of the client that async-http-client's rows share: the transport's
    /// recommended one, with up to 64 HTTP/1.1 connections to the server.
    static func makeClientConfiguration() -> HTTPClient.Configuration {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration
        configuration.connectionPool.idleTimeout = .seconds(60)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.httpVersion = .http1Only
        return configuration
    }

    // MARK: c. POST /discard

    static func post(_ options: Options, session: URLSession) async throws -> [RowResult] {
        let lanes16 = options.requestsPerLane[16]!
        let baseURL = options.baseURL
        let url = baseURL.appendingPathComponent("discard")
        let decoder = JSONCoding.makeDecoder()

        print("== c1. Form POST of the typical arguments (5, incl. a list of 3 and a Date): \(options.rounds) rounds of \(options.sequentialRequests) sequential and 16 × \(lanes16) in flight ==")
        print("   raw builds the body with FormEncoder from typed arguments; Kilo takes the [String: Any] dictionary")
        let formLength = try FormEncoder().encode(Fixtures.typedArguments()).count
        let formProxy = WebServiceProxy(session: session, baseURL: baseURL)
        let formOwningProxy = WebServiceProxy(configuration: makeConfiguration(), baseURL: baseURL)
        /// What a raw form POST sends: the typical arguments, encoded by FormEncoder.
        @Sendable func formRequest() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue(FormEncoder.contentType, forHTTPHeaderField: "Content-Type")
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            request.httpBody = try FormEncoder().encode(Fixtures.typedArguments())
            return request
        }
        @Sendable func checkForm(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) throws {
            try check(decode(Received.self, data: data, response: response, error: error, decoder: decoder), expected: formLength)
        }
        @Sendable func invokeForm(_ proxy: WebServiceProxy) async throws {
            let received: Received = try await proxy.invoke(.post, path: "discard", arguments: Fixtures.arguments())
            try check(received, expected: formLength)
        }
        @Sendable func invokeForm(_ proxy: WebServiceProxy, _ completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
            proxy.invoke(.post, path: "discard", arguments: Fixtures.arguments()) { (result: Result<Received, any Error>) in
                completion(Result { try check(result.get(), expected: formLength) })
            }
        }
        let formRows: [RequestRow] = (rawPOSTRows(
            work: "form", session: session, resultQueue: .main, request: formRequest, check: checkForm
        ) + [
            .tasks(SameWork.kiloAsync + ", form") { try await invokeForm(formProxy) },
            .callbacks(SameWork.kiloCallback + ", form") { invokeForm(formProxy, $0) },
            .tasks(SameWork.ownAsync + ", form") { try await invokeForm(formOwningProxy) },
            .callbacks(SameWork.ownCallback + ", form") { invokeForm(formOwningProxy, $0) },
        ]).filter { options.includes($0.name) }
        let formModes = [(1, options.sequentialRequests), (16, lanes16)].filter { options.inFlight.contains($0.0) }
        let formResults = await compare(formRows, modes: formModes, rounds: options.rounds)
        if formModes.isEmpty {
            print("   (skipped: --in-flight names neither 1 nor 16)\n")
        } else {
            printRequestTable(formResults)
        }

        print("== c2. Multipart POST of a 1 MiB file and a text field: \(options.rounds) rounds of \(options.multipartRequests) sequential requests ==")
        print("   both build the body in memory with MultipartEncoder (random boundary) and send it as httpBody")
        let fileURL = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-bench-\(UUID().uuidString).bin")
        try Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: fileURL)
        defer { try? FileManager.default.removeItem(at: fileURL) }
        let multipartLength = try MultipartEncoder().encode(["title": "benchmark upload", "file": .file(fileURL)]).count
        let multipartProxy = WebServiceProxy(session: session, baseURL: baseURL)
        multipartProxy.encoding = .multipartFormData
        let multipartOwningProxy = WebServiceProxy(configuration: makeConfiguration(), baseURL: baseURL)
        multipartOwningProxy.encoding = .multipartFormData
        /// What a raw multipart POST sends: a text field and the file, encoded by MultipartEncoder.
        @Sendable func multipartRequest() throws -> URLRequest {
            let encoder = MultipartEncoder()
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue(encoder.contentType, forHTTPHeaderField: "Content-Type")
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            request.httpBody = try encoder.encode(["title": "benchmark upload", "file": .file(fileURL)])
            return request
        }
        @Sendable func checkMultipart(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) throws {
            try check(
                decode(Received.self, data: data, response: response, error: error, decoder: decoder),
                expected: multipartLength)
        }
        @Sendable func invokeMultipart(_ proxy: WebServiceProxy) async throws {
            let received: Received = try await proxy.invoke(
                .post, path: "discard", arguments: ["title": "benchmark upload", "file": fileURL])
            try check(received, expected: multipartLength)
        }
        @Sendable func invokeMultipart(
            _ proxy: WebServiceProxy, _ completion: @escaping @Sendable (Result<Void, any Error>) -> Void
        ) {
            proxy.invoke(.post, path: "discard", arguments: ["title": "benchmark upload", "file": fileURL]) {
                (result: Result<Received, any Error>) in
                completion(Result { try check(result.get(), expected: multipartLength) })
            }
        }
        let multipartRows: [RequestRow] = (rawPOSTRows(
            work: "multipart", session: session, resultQueue: .main, request: multipartRequest,
            check: checkMultipart
        ) + [
            .tasks(SameWork.kiloAsync + ", multipart") { try await invokeMultipart(multipartProxy) },
            .callbacks(SameWork.kiloCallback + ", multipart") { invokeMultipart(multipartProxy, $0) },
            .tasks(SameWork.ownAsync + ", multipart") { try await invokeMultipart(multipartOwningProxy) },
            .callbacks(SameWork.ownCallback + ", multipart") { invokeMultipart(multipartOwningProxy, $0) },
        ]).filter { options.includes($0.name) }
        let multipartResults = await compare(
            multipartRows, modes: [(1, options.multipartRequests)], rounds: options.rounds)
        printRequestTable(multipartResults)
        return formResults + multipartResults
    }

    /// A POST's raw rows, named for `work` as SameWork names them: raw async code (a
    /// continuation around `dataTask`), `data(for:)`, and a completion handler that checks the
    /// response and hands its result to `resultQueue`, as Kilo's callbacks deliver theirs.
    private static func rawPOSTRows(
        work: String,
        session: URLSession,
        resultQueue: DispatchQueue,
        request: @escaping @Sendable () throws -> URLRequest,
        check: @escaping @Sendable (Data?, URLResponse?, (any Error)?) throws -> Void
    ) -> [RequestRow] {
        [
            .tasks(SameWork.rawAsync(work)) {
                let (data, response) = try await data(for: try request(), on: session)
                try check(data, response, nil)
            },
            .tasks(SameWork.rawDataFor(work)) {
                let (data, response) = try await session.data(for: try request())
                try check(data, response, nil)
            },
            .callbacks(SameWork.rawCallback(work)) { completion in
                do {
                    session.dataTask(with: try request()) { data, response, error in
                        let result = Result { try check(data, response, error) }
                        resultQueue.async { completion(result) }
                    }.resume()
                } catch {
                    resultQueue.async { completion(.failure(error)) }
                }
            },
        ]
    }

    private static func check(_ received: Received, expected: Int) throws {
        guard received.received == expected else {
            throw BenchmarkError("the server received \(received.received) bytes, not \(expected)")
        }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
