import Foundation
import KiloCore
import KiloTransport

/// The `async` `stream` methods: a response read as it arrives, element by element.
///
/// They build the request as `invoke` does (the same arguments, bodies, headers and checks) and
/// send it through the proxy's transport, with its retries and interceptors. Each returns once
/// the response's head has arrived with a 2xx status, and throws otherwise, so that a loop over
/// the stream sees only the elements of a success. See Docs/Streaming.md.
extension WebServiceProxy {
    /// Calls an operation whose response is read as it arrives, as a sequence of elements.
    ///
    /// ```swift
    /// let records = try await proxy.stream(.get, path: "records", arguments: ["count": 100], as: .jsonLines(of: Record.self))
    /// for try await record in records {
    ///     print(record.name)
    /// }
    /// ```
    ///
    /// The request goes through ``limits``: its ``Limits/deadline`` bounds the whole stream
    /// (set `nil` for an endless one) and ``Limits/maximumElementSize`` each element;
    /// ``Limits/maximumBodySize`` does not apply, since the body is not kept.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments. See ``Argument/init(_:forKey:)`` for the accepted types.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - format: What an element is: ``StreamFormat/bytes``, ``StreamFormat/lines``,
    ///     ``StreamFormat/serverSentEvents``, ``StreamFormat/serverSentEvents(of:terminator:undecodableEvents:reconnecting:)``
    ///     or ``StreamFormat/jsonLines(of:)``.
    /// - Returns: The stream, to read once.
    /// - Throws: ``WebServiceError`` for a status outside 2xx, with the first ``errorBodyLimit``
    ///   bytes of its body; ``UnexpectedContentTypeError``, with the start of its body, for an
    ///   event stream's response of another type; ``ArgumentEncodingError`` or ``RequestError``
    ///   for bad input (nothing is sent); `URLError` when no response arrives
    ///   (`URLError(.cancelled)` when cancelled); ``LimitError`` when the head does not arrive by
    ///   the deadline.
    public func stream<Element>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        as format: StreamFormat<Element>
    ) async throws -> ResponseStream<Element> {
        let request = try makeRequest(
            method,
            path: path,
            arguments: arguments,
            content: Self.content(content, type: contentType),
            accept: format.accept
        )
        return try await stream(request, as: format)
    }

    /// Calls an operation with a JSON body whose response is read as it arrives, as a sequence
    /// of elements: a chat completion, say.
    ///
    /// ```swift
    /// let answer = try await proxy.stream(
    ///     .post, path: "chat", body: ChatRequest(prompt: "Hello"),
    ///     as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]"))
    /// for try await chunk in answer {
    ///     print(chunk.choices[0].delta.content ?? "", terminator: "")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments, sent in the query string.
    ///   - body: The body, encoded as JSON by ``makeJSONEncoder`` (dates as epoch milliseconds).
    ///   - format: What an element is.
    /// - Returns: The stream, to read once.
    /// - Throws: `EncodingError` if the body cannot be encoded, and the errors of
    ///   ``stream(_:path:arguments:content:contentType:as:)``.
    public func stream<B: Encodable, Element>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        body: B,
        as format: StreamFormat<Element>
    ) async throws -> ResponseStream<Element> {
        let request = try makeRequest(
            method,
            path: path,
            arguments: arguments,
            content: jsonContent(body),
            accept: format.accept
        )
        return try await stream(request, as: format)
    }

    /// Sends a prepared request and returns its stream once a 2xx head has arrived.
    func stream<Element>(_ prepared: PreparedRequest, as format: StreamFormat<Element>) async throws
        -> ResponseStream<Element>
    {
        let settings = currentSettings
        var streaming = prepared
        streaming.consumption.destination = .stream(maximumUnread: prepared.limits.maximumUnreadSize)
        let prepared = streaming
        let response = try await openStream(prepared, requiring: format.requiredMediaType)
        let reopen: @Sendable (String) async throws -> ResponseBody? = { [self] lastEventID in
            var again = prepared
            if Self.canSendBack(lastEventID) {
                again.request.headers["Last-Event-ID"] = lastEventID
            }
            let response = try await openStream(again, requiring: format.requiredMediaType)
            guard response.statusCode != 204 else {
                response.body.cancel()
                return nil
            }
            return response.body
        }
        return ResponseStream(
            response,
            format: format,
            makeDecoder: settings.makeJSONDecoder ?? JSONCoding.makeDecoder,
            maximumElementSize: prepared.limits.maximumElementSize ?? Int.max,
            deadline: prepared.consumption.deadline,
            reopen: reopen
        )
    }

    /// Whether a server's last event ID can go back to it in a `Last-Event-ID` field: not empty,
    /// at most 4 KiB, and with no control character but tab (RFC 9110 §5.5). An ID that cannot,
    /// which only a broken or hostile server sends, is left out, and the stream reconnects as if
    /// the server had given none, on every transport alike. (The parser already ignores an `id`
    /// over the same 4 KiB, so the length check only restates its guarantee.)
    static func canSendBack(_ lastEventID: String) -> Bool {
        let bytes = lastEventID.utf8
        return !bytes.isEmpty && bytes.count <= ServerSentEventParser.maximumLastEventIDSize
            && !bytes.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    /// Sends a request on the proxy's one request path, and returns its response once its head
    /// has arrived with a 2xx status, and with `requiredMediaType` if not `nil` (a 204, which has
    /// no body, with any), its body to end by the request's deadline.
    ///
    /// - Throws: ``WebServiceError`` for another status, with the first ``errorBodyLimit`` bytes
    ///   of its body; ``UnexpectedContentTypeError`` for another type, with the start of its
    ///   body; the errors of ``exchange(_:read:)``.
    private func openStream(_ prepared: PreparedRequest, requiring requiredMediaType: String?) async throws
        -> StreamedResponse
    {
        let started = DispatchTime.now().uptimeNanoseconds
        // A streamed multipart body's temporary file is removed once the head has arrived: the
        // transport has it open by then, and an open file can still be read once removed.
        let consumption = prepared.consumption
        let response = try await exchange(prepared) { _, response, _ in
            guard response.isSuccess else {
                let error = try await response.collect(consumption, progress: nil, sent: nil)
                throw WebServiceError(statusCode: error.statusCode, headers: error.headers, body: error.body)
            }
            if let requiredMediaType, response.statusCode != 204,
                !UnexpectedContentTypeError.matches(response.headers["Content-Type"], expected: requiredMediaType)
            {
                throw UnexpectedContentTypeError(
                    expected: requiredMediaType,
                    statusCode: response.statusCode,
                    headers: response.headers,
                    body: try await Self.start(of: response)
                )
            }
            return response
        }
        if let deadline = prepared.consumption.deadline {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000_000
            response.body.buffer.expire(after: max(deadline - elapsed, 0))
        }
        return response
    }

    /// The start of a response of the wrong type, to show what the server sent: what its first
    /// read brings, up to ``errorBodyLimit`` bytes, and nothing more, since a body of any length
    /// may come as slowly as its server likes; nothing if the connection fails first. The rest
    /// is not read.
    private static func start(of response: StreamedResponse) async throws -> Data {
        defer { response.body.cancel() }
        var chunks = response.body.makeAsyncIterator()
        do {
            return try await chunks.next()?.prefix(errorBodyLimit) ?? Data()
        } catch let error as URLError where error.code != .cancelled {
            return Data()  // the wrong type is the error to report, not the connection's end
        }
    }
}
