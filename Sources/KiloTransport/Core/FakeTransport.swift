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

    private let handler: (@Sendable (TransportRequest) async throws -> TransportResponse)?

    /// Creates a fake that answers each request with a handler.
    ///
    /// - Parameter handler: Computes the response to a request, or throws to simulate a failure
    ///   such as `URLError(.notConnectedToInternet)`.
    public init(_ handler: @escaping @Sendable (TransportRequest) async throws -> TransportResponse) {
        self.handler = handler
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
        self.handler = { _ in response }
    }

    /// Creates a fake that answers every request with the same response.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - body: The body.
    ///   - headers: The header fields.
    public init(statusCode: Int = 200, data body: Data = Data(), headers: HTTPHeaders = [:]) {
        let response = TransportResponse(statusCode: statusCode, headers: headers, body: body)
        self.handler = { _ in response }
    }

    /// Creates a fake with no answers: every request throws ``UnexpectedRequest``.
    public init() {
        self.handler = nil
    }

    /// Records a request and answers it.
    ///
    /// A file body is read into memory when recorded, so the test can inspect it after the file
    /// is gone. Like a real transport, the fake writes the response body to the request's
    /// ``TransportRequest/responseBodyFile`` when it has one, and reports the transfer's
    /// progress when it completes.
    ///
    /// - Parameter request: The request.
    /// - Returns: The handler's response.
    /// - Throws: ``RequestError`` for a request that a real transport would not send (see
    ///   ``TransportRequest/validate()``), `URLError(.fileDoesNotExist)` for a file body that
    ///   cannot be read (the file system's error is its `NSUnderlyingErrorKey`), as a real
    ///   transport gives (neither is recorded), ``UnexpectedRequest`` when the fake has no
    ///   handler, or what the handler throws, except that `CancellationError` (from a
    ///   `Task.sleep` in a cancelled task, say) becomes `URLError(.cancelled)`, as a real
    ///   transport reports cancellation.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
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
        var response: TransportResponse
        do {
            response = try await handler(recorded)
        } catch is CancellationError {
            throw URLError(.cancelled)
        }
        if let sent = recorded.bodySize {
            request.progress?.reportSent(sent, of: sent)
        }
        let received = Int64(response.body.count)
        if let file = request.responseBodyFile {
            try response.body.write(to: file)
            response.body = Data()
        }
        request.progress?.reportReceived(received, of: received)
        return response
    }
}
