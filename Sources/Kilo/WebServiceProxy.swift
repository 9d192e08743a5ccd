import Foundation
import KiloCore
import KiloEncoding
import KiloTransport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Calls the operations of a REST service.
///
/// Create one proxy per service and keep it; it is safe to use from many threads and tasks at
/// once. Each `invoke` method builds a request from a method, a path and arguments, sends it,
/// and maps the response to a value or an error:
///
/// ```swift
/// let proxy = WebServiceProxy(session: URLSession.shared, baseURL: URL(string: "https://api.example.com/")!)
///
/// // async/await
/// let numbers: [Int] = try await proxy.invoke(.get, path: "fibonacci", arguments: ["count": 8])
///
/// // callback, on the main queue by default
/// proxy.invoke(.get, path: "fibonacci", arguments: ["count": 8]) { (result: Result<[Int], Error>) in
///     print(result)
/// }
/// ```
///
/// Arguments behave like an HTML form's fields: in the query string for GET, PUT, PATCH and
/// DELETE, and in the body for POST (see ``encoding``). A path is resolved against
/// ``baseURL`` as a relative URL, so end the base URL with `/`.
public final class WebServiceProxy: Sendable {
    /// An HTTP request method: `.get`, `.post`, `.put`, `.patch`, `.delete`, `.head` or `.options`.
    public typealias Method = HTTPMethod

    /// How a POST request's arguments are encoded in its body.
    public enum Encoding: Sendable, Hashable {
        /// `application/x-www-form-urlencoded`, the default: text arguments only.
        case applicationXWWWFormURLEncoded
        /// `multipart/form-data`: text arguments and files.
        case multipartFormData
    }

    /// Turns a successful response's body and `Content-Type` into a value. It runs in the
    /// background, before the result handler.
    public typealias ResponseHandler<T> = @Sendable (_ content: Data, _ contentType: String?) throws -> T

    /// Like ``ResponseHandler``, with the response's headers as well.
    public typealias ResponseHeadersHandler<T> =
        @Sendable (_ content: Data, _ contentType: String?, _ headers: HTTPHeaders) throws -> T

    /// Receives the outcome of a callback-style request: on the caller's actor, or, for a caller
    /// isolated to no actor, on ``callbackQueue``.
    public typealias ResultHandler<T> = (_ result: Result<T, any Error>) -> Void

    /// An argument value that means "leave this argument out", for building argument dictionaries
    /// conditionally: `["filter": filter ?? WebServiceProxy.undefined]`.
    public static let undefined = Argument.undefined

    /// The URL that request paths are resolved against.
    public let baseURL: URL
    /// Resolves request paths against ``baseURL``.
    let paths: PathResolver

    /// The transport that sends requests.
    public let transport: any Transport

    private let settings: Locked<Settings>
    /// Whether a request that expects JSON, and has no `Accept` field, gets
    /// `Accept: application/json`: not when the transport's URL session sends an `Accept` of its
    /// own (its configuration's `httpAdditionalHeaders`), which the request's would replace.
    let asksForJSON: Bool

    /// Creates a proxy that sends requests with a URL session.
    ///
    /// Your session keeps its delegate and its delegate queue. On Linux Kilo asks the session to
    /// hand each response to Kilo straight from its work queue, as `URLSession.data(for:)` does,
    /// without waking the delegate queue's thread (see ``URLSessionTransport/init(session:)``).
    ///
    /// Once you invalidate the session, stop using the proxy (and the proxies made from it with
    /// ``withTimeout(_:)``): a request on an invalidated session traps, as a task made in one
    /// does without Kilo.
    ///
    /// - Parameters:
    ///   - session: The session that sends requests.
    ///   - baseURL: The URL that request paths are resolved against; end it with `/`.
    public convenience init(session: URLSession, baseURL: URL) {
        self.init(baseURL: baseURL, transport: URLSessionTransport(session: session))
    }

    /// Creates a proxy with a URL session of its own, which reports upload and download progress
    /// as bytes move.
    ///
    /// The session is invalidated when the proxy (and any proxy made from it with
    /// ``withTimeout(_:)``) goes away. On Linux it delivers each response to Kilo straight from
    /// its work queue.
    ///
    /// - Parameters:
    ///   - configuration: The session's configuration, such as `.default` or `.ephemeral`.
    ///   - baseURL: The URL that request paths are resolved against; end it with `/`.
    public convenience init(configuration: URLSessionConfiguration, baseURL: URL) {
        self.init(baseURL: baseURL, transport: URLSessionTransport(configuration: configuration))
    }

    /// Creates a proxy that sends requests with any transport, such as a ``FakeTransport`` in tests.
    ///
    /// - Parameters:
    ///   - baseURL: The URL that request paths are resolved against; end it with `/`.
    ///   - transport: The transport that sends requests.
    public init(baseURL: URL, transport: any Transport = URLSessionTransport()) {
        self.baseURL = baseURL
        self.paths = PathResolver(baseURL: baseURL)
        self.transport = transport
        self.asksForJSON = !Self.sessionSendsAccept(transport)
        self.settings = Locked(Settings())
    }

    private init(paths: PathResolver, transport: any Transport, settings: Settings) {
        self.baseURL = paths.baseURL
        self.paths = paths
        self.transport = transport
        self.asksForJSON = !Self.sessionSendsAccept(transport)
        self.settings = Locked(settings)
    }

    /// Returns a proxy for requests that need a timeout of their own.
    ///
    /// The new proxy shares this one's transport (and so its connections) and starts with a
    /// copy of its settings:
    ///
    /// ```swift
    /// let report: Report = try await proxy.withTimeout(120).invoke(.get, path: "reports/yearly")
    /// ```
    ///
    /// - Parameter timeoutInterval: The new proxy's ``timeoutInterval``.
    /// - Returns: The new proxy.
    public func withTimeout(_ timeoutInterval: TimeInterval?) -> WebServiceProxy {
        var settings = currentSettings
        settings.timeoutInterval = timeoutInterval
        return WebServiceProxy(paths: paths, transport: transport, settings: settings)
    }

    /// How POST arguments are encoded in the body. The default is
    /// ``Encoding/applicationXWWWFormURLEncoded``.
    public var encoding: Encoding {
        get { settings.withLock { $0.encoding } }
        set { settings.withLock { $0.encoding = newValue } }
    }

    /// Header fields added to every request.
    ///
    /// They replace the fields of the same names that a URL session's configuration adds
    /// (`httpAdditionalHeaders`). The methods that decode JSON add `Accept: application/json`
    /// when neither these fields nor the session's configuration have an `Accept`.
    ///
    /// Names are matched without regard to case, as HTTP matches them: setting a field under
    /// another spelling replaces it (`proxy.headers["Authorization"] = token` after
    /// `proxy.headers["authorization"] = old` leaves only the new token). Removing a field with
    /// `nil` takes the spelling the dictionary holds.
    ///
    /// Reading the dictionary, and setting a whole one, are each atomic. Changing one field
    /// (`proxy.headers["X-Token"] = token`) is not: it reads the dictionary, then sets a changed
    /// copy, so two such changes made at once, from different threads or tasks, can lose one of
    /// them. Make them from one thread or task at a time.
    public var headers: [String: String] {
        get { settings.withLock { $0.headers } }
        set { settings.withLock { $0.headers = Self.withoutCaseVariants(newValue, previous: $0.headers) } }
    }

    /// The queue that result handlers run on when the code that passes them is isolated to no
    /// actor. The default is the main queue.
    ///
    /// A handler passed from an actor's code runs on that actor: from main-actor code (top-level
    /// code, a `@MainActor` type), on the main actor, whatever this queue is. Swift takes a closure
    /// written there to be the main actor's, and checks it: run elsewhere, it would stop the
    /// program. A command-line program whose main thread does not run a run loop (or
    /// `dispatchMain()`) never drains the main queue: set another queue there, and call from code
    /// isolated to no actor. The `async` methods never use this queue.
    public var callbackQueue: DispatchQueue {
        get { settings.withLock { $0.callbackQueue } }
        set { settings.withLock { $0.callbackQueue = newValue } }
    }

    /// How long a request may wait for data before it fails with `URLError.timedOut`; `nil`, the
    /// default, leaves it to the transport (for a URL session, its configuration's
    /// `timeoutIntervalForRequest`). The timer restarts whenever data arrives. Use
    /// ``withTimeout(_:)`` for a request that needs its own.
    ///
    /// An infinite timeout means no limit. Zero, a negative timeout or NaN makes every request
    /// fail with ``RequestError/invalidTimeout(_:)`` before anything is sent.
    public var timeoutInterval: TimeInterval? {
        get { settings.withLock { $0.timeoutInterval } }
        set { settings.withLock { $0.timeoutInterval = newValue } }
    }

    /// The limits on every response: how much body is kept, and how long a request may take.
    ///
    /// The defaults protect a program from a hostile or broken server (see ``Limits``); raise a
    /// limit for one request with ``withLimits(_:)``.
    public var limits: Limits {
        get { settings.withLock { $0.limits } }
        set { settings.withLock { $0.limits = newValue } }
    }

    /// Returns a proxy for requests with other limits, sharing this one's transport and the
    /// rest of its settings:
    ///
    /// ```swift
    /// let export: Export = try await proxy.withLimits { $0.maximumBodySize = 512 << 20 }
    ///     .invoke(.get, path: "export")
    /// ```
    ///
    /// - Parameter change: Changes a copy of this proxy's ``limits``.
    /// - Returns: The new proxy.
    public func withLimits(_ change: (inout Limits) -> Void) -> WebServiceProxy {
        var settings = currentSettings
        change(&settings.limits)
        return WebServiceProxy(paths: paths, transport: transport, settings: settings)
    }

    /// Makes the JSON decoder that reads a response for the `invoke` variants that return a
    /// `Decodable` value. The default, ``JSONCoding/makeDecoder()``, reads dates as milliseconds
    /// since 1970.
    ///
    /// It is called for each response, so that every response gets a decoder of its own: a
    /// `JSONDecoder` is a class, and a decoder shared by requests on many threads would have its
    /// settings changed under them by any code that changed one. Return a new decoder each time
    /// (about 0.1 µs, next to a few µs for decoding a small body). A request uses the function
    /// that was set when it started.
    ///
    /// ```swift
    /// proxy.makeJSONDecoder = {
    ///     let decoder = JSONDecoder()
    ///     decoder.dateDecodingStrategy = .iso8601
    ///     return decoder
    /// }
    /// ```
    ///
    /// See Docs/GettingStarted.md for dates as day-only strings such as `"1866-01-01"`.
    public var makeJSONDecoder: @Sendable () -> JSONDecoder {
        get { settings.withLock { $0.makeJSONDecoder } ?? JSONCoding.makeDecoder }
        set { settings.withLock { $0.makeJSONDecoder = newValue } }
    }

    /// Makes the JSON encoder that writes an `Encodable` `body`. The default,
    /// ``JSONCoding/makeEncoder()``, writes dates as milliseconds since 1970.
    ///
    /// It is called for each body, so that no two requests share an encoder, for the reasons
    /// ``makeJSONDecoder`` gives; return a new encoder each time. Whatever it writes is checked
    /// to be JSON before it is sent: a `Decimal` that is not a number, which `JSONEncoder` writes
    /// as `NaN`, throws `EncodingError.invalidValue` and nothing is sent.
    public var makeJSONEncoder: @Sendable () -> JSONEncoder {
        get { settings.withLock { $0.makeJSONEncoder } ?? JSONCoding.makeEncoder }
        set { settings.withLock { $0.makeJSONEncoder = newValue } }
    }

    /// Whether a path may lead away from ``baseURL``: to another scheme, host or port, or with
    /// user info. The default is `false`.
    ///
    /// A proxy's headers, such as its `Authorization`, go with every request, so by default a
    /// path that would take them elsewhere (`//other.example/x`, `http://other.example:8080/x`,
    /// `http://api@api.example.com/x`) fails with ``RequestError/pathLeavesBaseURL(_:)`` and
    /// nothing is sent. A path that stays on the base URL's origin, relative or absolute
    /// (`/health`, `https://api.example.com/v2/items`), is always allowed.
    ///
    /// Set it to follow absolute URLs that you trust with the proxy's headers, such as the
    /// `next` links of a service that pages its results across hosts:
    ///
    /// ```swift
    /// proxy.allowsAbsoluteURLs = true
    /// var page: Page = try await proxy.invoke(.get, path: "items")
    /// while let next = page.next {   // "https://page2.example.com/items?cursor=…"
    ///     page = try await proxy.invoke(.get, path: next)
    /// }
    /// ```
    public var allowsAbsoluteURLs: Bool {
        get { settings.withLock { $0.allowsAbsoluteURLs } }
        set { settings.withLock { $0.allowsAbsoluteURLs = newValue } }
    }

    /// Whether `transport` sends with a URL session whose configuration has an `Accept` field,
    /// directly or under Kilo's retrying and intercepting transports.
    private static func sessionSendsAccept(_ transport: any Transport) -> Bool {
        switch transport {
        case let transport as URLSessionTransport:
            transport.configurationSendsAccept
        case let transport as RetryingTransport:
            sessionSendsAccept(transport.transport)
        case let transport as InterceptingTransport:
            sessionSendsAccept(transport.transport)
        default:
            false
        }
    }

    /// `headers` with one field for each name in any case: of names that differ only in case,
    /// the one that `previous` did not hold with the same value, which the caller has just set;
    /// failing that (a whole new dictionary), the one whose name sorts last, whose value
    /// ``HTTPHeaders`` would keep.
    private static func withoutCaseVariants(
        _ headers: [String: String],
        previous: [String: String]
    ) -> [String: String] {
        // As ``HTTPHeaders`` matches names (ASCII letters only: a name with other letters is not
        // an HTTP token, and must reach the request's validation to be reported).
        let spellings = Dictionary(grouping: headers.keys, by: HTTPHeaders.foldedName)
        guard spellings.count < headers.count else { return headers }
        var result = headers
        for names in spellings.values where names.count > 1 {
            let changed = names.filter { previous[$0] != headers[$0] }
            guard let kept = changed.count == 1 ? changed.first : names.max() else { continue }
            for name in names where name != kept {
                result[name] = nil
            }
        }
        return result
    }

    var currentSettings: Settings {
        settings.withLock { $0 }
    }
}

extension WebServiceProxy {
    /// The mutable configuration of a proxy, read once per request.
    struct Settings: Sendable {
        var encoding = Encoding.applicationXWWWFormURLEncoded
        var headers: [String: String] = [:]
        var callbackQueue = DispatchQueue.main
        var timeoutInterval: TimeInterval?
        var limits = Limits()
        var allowsAbsoluteURLs = false
        /// Makes each response's JSON decoder; `nil` for the one decoder all responses share.
        var makeJSONDecoder: (@Sendable () -> JSONDecoder)?
        /// Makes each body's JSON encoder; `nil` for ``JSONCoding/makeEncoder()``.
        var makeJSONEncoder: (@Sendable () -> JSONEncoder)?
    }
}
