import AsyncHTTPClient
import Foundation
import Kilo
import NIOHTTP1

extension HTTPClientRequest {
    /// Creates a request with a transport request's method, URL and headers, and a prepared body.
    ///
    /// A request with a body but no `Content-Type` is labelled `application/octet-stream`, as
    /// `URLRequest(_:)` labels it for `URLSession`. A URL with credentials
    /// (`https://user:password@host/`) and no `Authorization` field sends them with Basic
    /// authentication, as `URLSession` does; the client itself would leave them out. The client
    /// sets `Content-Length` (or chunked framing) from the body, replacing any given.
    ///
    /// - Parameters:
    ///   - request: The request to convert.
    ///   - body: The body to send, made from the request's body.
    init(_ request: TransportRequest, body: Body?) {
        self.init(url: request.url.absoluteString)
        method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        headers.reserveCapacity(request.headers.count + 2)
        for field in request.headers {
            headers.add(name: field.name, value: field.value)
        }
        if request.body != nil, request.headers["Content-Type"] == nil {
            headers.add(name: "Content-Type", value: "application/octet-stream")
        }
        if request.headers["Authorization"] == nil, let credentials = Self.basicCredentials(in: request.url) {
            headers.add(name: "Authorization", value: "Basic \(credentials)")
        }
        self.body = body
    }

    /// The user name and password of a URL, as Basic authentication credentials: `user:password`,
    /// percent-decoded, in Base64, as libcurl sends them for Linux's `URLSession`.
    ///
    /// - Parameter url: The request's URL.
    /// - Returns: The credentials, or `nil` when the URL has none.
    private static func basicCredentials(in url: URL) -> String? {
        guard url.user != nil || url.password != nil,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return nil }
        let pair = "\(components.user ?? ""):\(components.password ?? "")"
        return Data(pair.utf8).base64EncodedString()
    }

    /// Checks the header values that `HTTPClient` refuses and ``KiloTransport/HTTPHeaders/validate()``
    /// allows: control characters other than tab, which the client would reject only after the
    /// request had started.
    ///
    /// - Parameter headers: Headers that already passed ``KiloTransport/HTTPHeaders/validate()``.
    /// - Throws: ``RequestError/invalidHeaderValue(_:)``; nothing has been sent.
    static func validateValues(of headers: KiloTransport.HTTPHeaders) throws {
        for field in headers where field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            throw RequestError.invalidHeaderValue(field.name)
        }
    }
}
