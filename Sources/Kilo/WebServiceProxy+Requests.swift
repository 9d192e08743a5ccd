import Foundation
import KiloCore
import KiloEncoding
import KiloTransport

extension WebServiceProxy {
    /// Multipart bodies whose files add up to more than this many bytes are written to a
    /// temporary file and streamed from it; smaller ones are built in memory.
    public static let multipartMemoryLimit: Int64 = 4 * 1024 * 1024

    /// A request body given by the caller: its bytes and media type.
    struct Content {
        var data: Data
        var type: String
    }

    /// A request ready to send, except perhaps for a large multipart body, which is written to a
    /// temporary file only when the request is sent, off the caller's thread.
    struct PreparedRequest: Sendable {
        var request: TransportRequest
        var streamedBody: StreamedMultipart?
        /// The proxy's limits when the request was made.
        var limits: Limits
        /// How the response is read: into memory within ``Limits/maximumBodySize`` unless a
        /// download or a stream says otherwise, an error's first ``errorBodyLimit`` bytes, all by
        /// ``Limits/deadline``.
        var consumption: ResponseConsumption
    }

    /// A multipart body to stream from a temporary file.
    struct StreamedMultipart: Sendable {
        var encoder: MultipartEncoder
        var arguments: [String: Argument]

        /// Writes the body to a new private file in the system's temporary directory (see
        /// ``TemporaryBodyFile``), first removing the copies that dead processes left there, if
        /// this process has not looked for them lately.
        ///
        /// - Parameter shouldContinue: Asked before each chunk; `false` stops the writing.
        /// - Returns: The file, which the caller removes when the request ends.
        /// - Throws: `CancellationError` when `shouldContinue` said no; ``ArgumentEncodingError``
        ///   for a file that cannot be read; the file system's error. The file is then removed.
        func writeTemporaryFile(while shouldContinue: @escaping () -> Bool) throws -> URL {
            TemporaryBodyFile.removeStaleCopiesIfDue()
            return try TemporaryBodyFile.write(in: FileManager.default.temporaryDirectory, while: shouldContinue) {
                try encoder.write(arguments, to: $0)
            }
        }
    }

    /// Builds the request for one call: resolves the path, places the arguments, and sets the
    /// headers.
    ///
    /// - Throws: ``ArgumentEncodingError`` for a bad argument, ``RequestError`` for an invalid
    ///   path (or one that leaves the base URL), method, header or timeout. Nothing is sent when
    ///   it throws.
    func makeRequest(
        _ method: Method,
        path: String,
        arguments: [String: Any],
        content: Content?,
        accept: String? = nil,
        progress: TransferProgress.Handler? = nil
    ) throws -> PreparedRequest {
        let arguments = try Argument.arguments(from: arguments)
        let settings = currentSettings
        var headers = HTTPHeaders(settings.headers)
        if let accept, asksForJSON, headers["Accept"] == nil {
            headers["Accept"] = accept
        }
        var url = try paths.resolve(path, allowsOtherOrigins: settings.allowsAbsoluteURLs)
        var body: TransportRequest.Body?
        var streamedBody: StreamedMultipart?
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
                headers["Content-Type"] = encoder.contentType
                if Self.totalFileSize(of: arguments.values) > Self.multipartMemoryLimit {
                    try encoder.validate(arguments)
                    streamedBody = StreamedMultipart(encoder: encoder, arguments: arguments)
                } else {
                    body = .data(try encoder.encode(arguments))
                }
            }
        } else {
            url = try appendingQuery(arguments, to: url, path: path)
        }
        let request = TransportRequest(
            method: method,
            url: url,
            headers: headers,
            body: body,
            timeoutInterval: settings.timeoutInterval,
            progress: progress.map(ProgressObserver.init)
        )
        try request.validate()
        let consumption = ResponseConsumption.memory(
            upTo: settings.limits.maximumBodySize,
            errorBodyLimit: Self.errorBodyLimit,
            deadline: settings.limits.deadline
        )
        try consumption.validate()
        return PreparedRequest(
            request: request,
            streamedBody: streamedBody,
            limits: settings.limits,
            consumption: consumption
        )
    }

    private func appendingQuery(_ arguments: [String: Argument], to url: URL, path: String) throws -> URL {
        guard !arguments.isEmpty else { return url }
        let query = try QueryEncoder().encode(arguments)
        guard !query.isEmpty else { return url }
        var string = url.absoluteString
        if let fragmentStart = string.firstIndex(of: "#") {
            string = String(string[..<fragmentStart])
        }
        // After a query that is empty (`items?`) or ends with `&`, no separator: another would
        // send an empty pair. (The query is what `string` ends with; one ending with `?`, as
        // `q=why?` may, is not empty.)
        let separator = url.query.map { $0.isEmpty || string.hasSuffix("&") ? "" : "&" } ?? "?"
        guard let result = URL(string: string + separator + query) else {
            throw RequestError.invalidPath(path)
        }
        return result
    }

    /// The total size of the files among `arguments`; a file whose size cannot be read counts
    /// as nothing here, and is reported when the body is built.
    private static func totalFileSize<Arguments: Sequence<Argument>>(of arguments: Arguments) -> Int64 {
        arguments.reduce(0) { total, argument in
            switch argument {
            case .file(let url):
                return total + (FileManager.default.sizeOfItem(at: url) ?? 0)
            case .list(let elements):
                return total + totalFileSize(of: elements)
            default:
                return total
            }
        }
    }
}
