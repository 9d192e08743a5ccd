import AsyncHTTPClient
import Foundation
import Kilo
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL

/// A ``Transport`` that sends requests with SwiftNIO's `HTTPClient` (swift-server/async-http-client).
///
/// Choose it for server-side Swift on Linux, where it serves several times the requests per
/// second of `URLSession`. It behaves like ``URLSessionTransport``: file bodies are streamed from
/// disk with a `Content-Length`, the response's status and headers are returned as soon as they
/// arrive and its body as it arrives (at most about 1 MiB ahead of its reader: a slow reader
/// slows the connection down), upload progress is reported as bytes move, cancelling the
/// calling task or the body cancels the request with `URLError.cancelled`, and failures are the
/// `URLError`s `URLSession` gives.
///
/// ```swift
/// let client = HTTPClient(
///     eventLoopGroup: HTTPClient.defaultEventLoopGroup,
///     configuration: AsyncHTTPClientTransport.recommendedConfiguration)
/// let proxy = WebServiceProxy(
///     baseURL: URL(string: "https://api.example.com/")!,
///     transport: AsyncHTTPClientTransport(client: client))
/// let numbers: [Int] = try await proxy.invoke(.get, path: "fibonacci", arguments: ["count": 8])
/// // … when the program no longer sends requests:
/// try await client.shutdown()
/// ```
///
/// ## Lifecycle
///
/// The transport never starts or shuts down its client: whoever creates an `HTTPClient` shuts it
/// down, once, with `try await client.shutdown()`, after the last request through it has
/// finished (for a server, when it stops). `HTTPClient.shared`, the default, is never shut down.
/// Share one client between transports and proxies: it pools connections.
///
/// The transport never blocks an event loop: file reads and writes run on
/// `NIOThreadPool.singleton`, and progress handlers run in the calling task.
///
/// ## Timeouts
///
/// A request's ``TransportRequest/timeoutInterval`` is an idle timeout, as with `URLSession`: the
/// request fails with `URLError.timedOut` when no bytes have gone out or come in for that long,
/// measured exactly (not in whole seconds). The client's own timeouts
/// (`HTTPClient.Configuration.timeout`) apply as well, so the shorter one wins; a request without
/// a timeout is limited by them alone.
///
/// ## Redirects
///
/// The transport follows the redirects the client hands back by `RedirectPolicy`, the rules every
/// transport of Kilo's follows, as `URLSession` does: a 303, and a `POST`'s 301 or 302, become a
/// `GET` without a body (a `HEAD` stays a `HEAD`); other redirects repeat the method and the body
/// (a file body is read again from disk); at most 20 in a row, and none back to a request already
/// made. `Authorization`, `Cookie` and `Proxy-Authorization` are dropped when a redirect leaves
/// the origin. A followed
/// redirect's body is read to its end only within 64 KiB; past that its connection is closed, so
/// that a body that never ends costs a connection, not the request's deadline. A redirect that is
/// not followed (its `Location` missing or refused) is the response. A client
/// that follows redirects itself, such as `HTTPClient.shared`, does so first, by its own rules
/// (it keeps `PUT` on a 301 or 302); it cannot repeat a streamed file body, so those redirects
/// reach the transport. ``recommendedConfiguration`` leaves every redirect to the transport.
public struct AsyncHTTPClientTransport: Transport {
    /// The most redirects one request follows before it fails with `URLError.httpTooManyRedirects`:
    /// `RedirectPolicy.maximumRedirects`, as for every transport.
    public static let maximumRedirects = RedirectPolicy.maximumRedirects

    /// The client that sends requests.
    public let client: HTTPClient

    /// Creates a transport that sends requests with a client.
    ///
    /// - Parameter client: The client that sends requests; it is not shut down by the transport.
    ///   The default, `HTTPClient.shared`, never is. For `URLSession`'s behaviour in every detail,
    ///   make your own with ``recommendedConfiguration``.
    public init(client: HTTPClient = .shared) {
        self.client = client
    }

    /// A client configuration under which the transport behaves like ``URLSessionTransport``.
    ///
    /// It differs from `HTTPClient.shared`'s in three ways: a refused connection fails at once
    /// with `URLError.cannotConnectToHost` (instead of being retried until the connect timeout),
    /// the transport follows every redirect by `URLSession`'s rules, and the connect and idle read
    /// timeouts are `URLSession`'s default of 60 seconds (so a request's own
    /// ``TransportRequest/timeoutInterval`` may shorten the idle timeout but not lengthen it; raise
    /// `timeout.read` for requests that need more). Responses compressed with gzip or deflate are
    /// decompressed without a limit, as `URLSession` does (`HTTPClient.shared` refuses a body that
    /// decompresses to more than 25 times its size, which a JSON list of similar records can).
    public static var recommendedConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            certificateVerification: .fullVerification,
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(60), read: .seconds(60)),
            decompression: .enabled(limit: .none)
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        // On Apple platforms the client may use Network.framework, which would wait for a refused
        // connection to become possible: fail it at once, as URLSession does.
        configuration.networkFrameworkWaitForConnectivity = false
        return configuration
    }

    /// Sends a request with the client and returns its response as soon as its status and
    /// headers arrive, following redirects as ``URLSessionTransport`` does.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, whatever its status code, its body still arriving.
    /// - Throws: `RequestError` for a request that cannot be sent (nothing is sent), or the
    ///   `URLError` that `URLSession` would give for the failure.
    public func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        try request.validate()
        try HTTPClientRequest.validateValues(of: request.headers)
        if let port = request.url.port, !(0...65_535).contains(port) {
            // The client would trap on it; a redirect never leads to one (`Redirect`).
            throw URLError(.badURL, userInfo: [NSURLErrorFailingURLErrorKey: request.url])
        }
        let timer = IdleTimer.interval(for: request.timeoutInterval).map(IdleTimer.init)
        let response: HTTPClientResponse
        let answered: TransportRequest
        do {
            // A body that is not streamed moves no bytes the timer sees: the client's deadline
            // times the response head instead (IdleTimer).
            if let timer, StreamedBody.isStreamed(request.body) {
                (response, answered) = try await timer.run { try await self.exchange(request, timer: timer) }
            } else {
                (response, answered) = try await exchange(request, timer: timer)
            }
        } catch {
            throw TransportFailure.error(for: error, url: request.url, isCancelled: Task.isCancelled)
        }
        return StreamedResponse(
            statusCode: Int(response.status.code),
            headers: KiloTransport.HTTPHeaders(response.headers),
            body: body(of: response, to: answered, timer: timer)
        )
    }

    /// The response's body, read from the client by a task of its own, at most about 1 MiB ahead
    /// of the body's reader; an idle timeout cancels that task.
    private func body(
        of response: HTTPClientResponse,
        to request: TransportRequest,
        timer: IdleTimer?
    ) -> ResponseBody {
        let (body, writer) = ResponseBody.makeWritable()
        let chunks = ClientBody(of: response, to: request.method)
        let reader = Task {
            defer { timer?.stopWatching() }
            do {
                for try await chunk in chunks {
                    timer?.touch()
                    guard await writer.write(Data(buffer: chunk)) else { return }
                    timer?.touch()
                }
                writer.finish()
            } catch {
                let isIdle = timer?.hasExpired == true
                writer.finish(
                    throwing: TransportFailure.error(
                        for: isIdle ? IdleTimer.timedOut : error,
                        url: request.url,
                        isCancelled: !isIdle && Task.isCancelled
                    )
                )
            }
        }
        timer?.cancel(whenIdle: { reader.cancel() }, on: client.eventLoopGroup.any())
        writer.onCancel { reader.cancel() }
        return body
    }

    /// Sends the request, and again for each redirect the transport follows, until a response
    /// that is not one arrives: that response, its body unread, and the request it answers.
    private func exchange(
        _ original: TransportRequest,
        timer: IdleTimer?
    ) async throws -> (HTTPClientResponse, TransportRequest) {
        let progress = original.progress
        var request = original
        var sendSize = try StreamedBody.size(of: request.body)
        progress?.reportSent(0, of: sendSize)
        var chain = RedirectPolicy.Chain(original.method.rawValue, original.url)
        var hasRetriedClosedConnection = false
        while true {
            let (body, stream) = StreamedBody.makeBody(
                request.body,
                size: sendSize,
                progress: progress,
                timer: timer
            )
            var deadline = NIODeadline.distantFuture
            if let timer {
                if stream != nil {
                    timer.touch()
                } else {
                    deadline = timer.deadlineForResponseHead()
                }
            }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(HTTPClientRequest(request, body: body), deadline: deadline)
            } catch ChannelError.ioOnClosedChannel where !hasRetriedClosedConnection && stream?.hasStarted != true {
                // The client chose a pooled connection that the server had closed while it was idle,
                // and sent nothing on it. Send the request again, once, on a new connection, as
                // libcurl does for URLSession.
                hasRetriedClosedConnection = true
                continue
            }
            timer?.touch()
            if let next = RedirectPolicy.request(
                following: Int(response.status.code),
                location: response.headers.first(name: "Location"),
                from: request
            ) {
                // No cookie is stored here, so one set on the way changes nothing.
                try chain.follow(next.method.rawValue, to: next.url, setsCookies: false)
                let method = request.method
                if let timer {
                    try await timer.run { try await Redirect.skipBody(of: response, to: method, timer: timer) }
                } else {
                    try await Redirect.skipBody(of: response, to: method, timer: nil)
                }
                request = next
                sendSize = try StreamedBody.size(of: request.body)
                continue
            }
            if let sendSize {
                progress?.reportSent(sendSize, of: sendSize)
            }
            return (response, request)
        }
    }
}
