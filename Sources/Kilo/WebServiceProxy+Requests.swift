import Foundation
import KiloCore
import KiloEncoding
import KiloTransport

extension WebServiceProxy {
    /// A request body given by the caller: its bytes and media type.
    struct Content {
        var data: Data
        var type: String
    }

    /// Builds the request for one call: resolves the path, places the arguments, and sets the
    /// headers.
    ///
    /// - Throws: ``ArgumentEncodingError`` for a bad argument, ``RequestError`` for an invalid
    ///   path or header. Nothing is sent when it throws.
    func makeRequest(
        _ method: Method,
        path: String,
        arguments: [String: Any],
        content: Content?,
        accept: String? = nil
    ) throws -> TransportRequest {
        let arguments = try Argument.arguments(from: arguments)
        let settings = currentSettings
        var headers = HTTPHeaders(settings.headers)
        if let accept, headers["Accept"] == nil {
            headers["Accept"] = accept
        }
        var url = try resolve(path)
        var body: TransportRequest.Body?
        if let content {
            body = .data(content.data)
            headers["Content-Type"] = content.type
            url = try appendingQuery(arguments, to: url, path: path)
        } else if method == .post {
            switch settings.encoding {
            case .applicationXWWWFormURLEncoded:
                body = .data(try FormEncoder().encode(arguments))
                headers["Content-Type"] = FormEncoder.contentType
            case .multipartFormData:
                let encoder = MultipartEncoder()
                body = .data(try encoder.encode(arguments))
                headers["Content-Type"] = encoder.contentType
            }
        } else {
            url = try appendingQuery(arguments, to: url, path: path)
        }
        try headers.validate()
        return TransportRequest(
            method: method, url: url, headers: headers, body: body, timeoutInterval: settings.timeoutInterval)
    }

    /// Resolves `path` against the base URL.
    ///
    /// - Throws: ``RequestError/invalidPath(_:)`` unless the result is an absolute HTTP(S) URL
    ///   with a host.
    private func resolve(_ path: String) throws -> URL {
        guard let url = URL(string: path, relativeTo: baseURL)?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw RequestError.invalidPath(path)
        }
        return url
    }

    private func appendingQuery(_ arguments: [String: Argument], to url: URL, path: String) throws -> URL {
        let query = try QueryEncoder().encode(arguments)
        guard !query.isEmpty else { return url }
        let separator = url.query == nil ? "?" : "&"
        var string = url.absoluteString
        if let fragmentStart = string.firstIndex(of: "#") {
            string = String(string[..<fragmentStart])
        }
        guard let result = URL(string: string + separator + query) else {
            throw RequestError.invalidPath(path)
        }
        return result
    }
}
