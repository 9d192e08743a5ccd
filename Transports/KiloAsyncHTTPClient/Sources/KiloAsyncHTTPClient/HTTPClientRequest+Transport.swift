import AsyncHTTPClient
import Foundation
import Kilo
import NIOHTTP1

extension HTTPClientRequest {
    /// Creates a request with a transport request's method, URL and headers, and a prepared body.
    ///
    /// A request with a body but no `Content-Type` is labelled `application/octet-stream`, as
    /// `URLRequest(_:)` labels it for `URLSession`. The client sets `Content-Length` (or chunked
    /// framing) from the body, replacing any given.
    ///
    /// - Parameters:
    ///   - request: The request to convert.
    ///   - body: The body to send, made from the request's body.
    init(_ request: TransportRequest, body: Body?) {
        self.init(url: request.url.absoluteString)
        method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        headers.reserveCapacity(request.headers.count + 1)
        for field in request.headers {
            headers.add(name: field.name, value: field.value)
        }
        if request.body != nil, request.headers["Content-Type"] == nil {
            headers.add(name: "Content-Type", value: "application/octet-stream")
        }
        self.body = body
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
