import Foundation

/// A ``Transport`` that answers requests in memory, for testing code that calls web services.
///
/// It records every request it receives, so a test can check what was sent, and replies with
/// a canned response or one computed by a handler:
///
/// ```swift
/// let transport = FakeTransport(statusCode: 200, body: #"{"id": 1}"#)
/// let proxy = WebServiceProxy(baseURL: URL(string: "https://api.example.com/")!, transport: transport)
/// let user: User = try await proxy.invoke(.get, path: "users/1")
/// #expect(await transport.requests.map(\.url.path) == ["/users/1"])
/// ```
///
/// A fake can also stream a body, chunk by chunk, with pauses and a failure where you want them,
/// to test code that reads a response as it arrives:
///
/// ```swift
/// let transport = FakeTransport(
///     headers: ["Content-Type": "text/event-stream"],
///     streaming: [.text("data: hel"), .pause(0.1), .text("lo\n\n"), .failure(URLError(.networkConnectionLost))]
/// )
/// ```
///
/// A fake made with ``init()`` has no answer: every request throws ``UnexpectedRequest``, so a
/// test notices a request it did not expect.
public actor FakeTransport: Transport {
    /// The error a fake without a handler throws for every request.
    public struct UnexpectedRequest: Error, Sendable, Hashable {
        /// The request that was not expected.
        public let request: TransportRequest
    }

    /// Every request received, oldest first.
    public private(set) var requests: [TransportRequest] = []

    /// One step of a scripted body (see ``init(statusCode:headers:streaming:)``).
    public enum BodyStep: Sendable {
        /// A chunk of bytes.
        case data(Data)
        /// A chunk of text, as UTF-8.
        case text(String)
        /// A wait of this many seconds before the next step.
        case pause(TimeInterval)
        /// The transfer fails with this error, as a connection lost mid-body would.
        case failure(any Error)
    }

    private let handler: (@Sendable (TransportRequest) async throws -> StreamedResponse)?

    /// Creates a fake that answers each request with a handler.
    ///
    /// - Parameter handler: Computes the response to a request, or throws to simulate a failure
    ///   such as `URLError(.notConnectedToInternet)`.
    public init(_ handler: @escaping @Sendable (TransportRequest) async throws -> TransportResponse) {
        self.init(handler: { StreamedResponse(try await handler($0)) })
    }

    /// Creates a fake that answers each request with a handler that streams its response; make
    /// a scripted body with ``body(_:)``.
    ///
    /// - Parameter handler: Computes the response to a request, or throws.
    /// - Returns: The fake.
    public static func streaming(
        _ handler: @escaping @Sendable (TransportRequest) async throws -> StreamedResponse
    ) -> FakeTransport {
        FakeTransport(handler: handler)
    }

    private init(handler: (@Sendable (TransportRequest) async throws -> StreamedResponse)?) {
        self.handler = handler
    }

    /// Creates a fake that answers every request with a body that arrives step by step.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: The header fields.
    ///   - steps: The body's chunks, pauses and failure, played anew for each request.
    public init(statusCode: Int = 200, headers: HTTPHeaders = [:], streaming steps: [BodyStep]) {
        self.handler = { _ in StreamedResponse(statusCode: statusCode, headers: headers, body: Self.body(steps)) }
    }

    /// A body that plays `steps` as it is read: chunks, pauses between them, a failure.
    ///
    /// - Parameter steps: The steps, in order; the body ends after the last, unless it is a
    ///   failure.
    /// - Returns: The body.
    public static func body(_ steps: [BodyStep]) -> ResponseBody {
        let buffer = BodyBuffer()
        let player = Task {
            for step in steps {
                await buffer.writable()
                guard !buffer.hasEnded else { return }
                switch step {
                case .data(let data):
                    buffer.append(data)
                case .text(let text):
                    buffer.append(Data(text.utf8))
                case .pause(let seconds):
                    do {
                        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                    } catch {
                        return  // the body was cancelled
                    }
                case .failure(let error):
                    buffer.finish(throwing: error)
                    return
                }
            }
            buffer.finish()
        }
        buffer.attach(BodyBuffer.Producer(cancel: { player.cancel() }))
        return ResponseBody(buffer)
    }

    /// Creates a fake that answers every request with the same response.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - body: The body, sent as UTF-8.
    ///   - headers: The header fields. A `Content-Type` of `application/json` is added when the
    ///     body starts with `{` or `[` and none is given; otherwise `text/plain; charset=utf-8`.
    public init(statusCode: Int = 200, body: String, headers: HTTPHeaders = [:]) {
        var headers = headers
        if headers["Content-Type"] == nil, !body.isEmpty {
            let isJSON = body.first == "{" || body.first == "["
            headers["Content-Type"] = isJSON ? "application/json" : "text/plain; charset=utf-8"
        }
        let response = TransportResponse(statusCode: statusCode, headers: headers, body: Data(body.utf8))
        self.handler = { _ in StreamedResponse(response) }
    }

    /// Creates a fake that answers every request with the same response.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - body: The body.
    ///   - headers: The header fields.
    public init(statusCode: Int = 200, data body: Data = Data(), headers: HTTPHeaders = [:]) {
        let response = TransportResponse(statusCode: statusCode, headers: headers, body: body)
        self.handler = { _ in StreamedResponse(response) }
    }

    /// Creates a fake with no answers: every request throws ``UnexpectedRequest``.
    public init() {
        self.init(handler: nil)
    }

    /// Records the request and answers it with the handler's response.
    ///
    /// - Parameter request: The request.
    /// - Returns: The handler's response.
    /// - Throws: What ``TransportRequest/validate()`` throws, `URLError(.fileDoesNotExist)` for a
    ///   file body that cannot be read, ``UnexpectedRequest`` without a handler, or what the
    ///   handler throws (a `CancellationError` as `URLError(.cancelled)`).
    public func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        try request.validate()
        try request.checkFileBody()
        var recorded = request
        if case .file = request.body {
            do {
                recorded.body = try request.bodyData().map(TransportRequest.Body.data)
            } catch {
                throw request.unreadableFileBody(because: error)
            }
        }
        requests.append(recorded)
        guard let handler else {
            throw UnexpectedRequest(request: recorded)
        }
        let response: StreamedResponse
        do {
            response = try await handler(recorded)
        } catch is CancellationError {
            throw URLError(.cancelled)
        }
        if let sent = recorded.bodySize {
            request.progress?.reportSent(sent, of: sent)
        }
        return response
    }
}
