import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Kilo
import KiloAsyncHTTPClient
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the coordinator tells a child: `kilo-bench-large measure ROW --url … --file … --body …
/// --boundary … --dir …`.
struct ChildOptions: Sendable {
    var row: Row
    var baseURL: URL
    /// The file to upload (and the size to download).
    var file: URL
    /// The same file as a pre-built multipart body, made with `boundary`.
    var multipartBody: URL
    var boundary: String
    /// Where downloads and prototype body files go (the coordinator's work directory).
    var directory: URL
    /// The coordinator's ``BombServer``.
    var bombURL: URL

    func arguments() -> [String] {
        [
            "measure", row.rawValue, "--url", baseURL.absoluteString, "--file", file.path, "--body",
            multipartBody.path, "--boundary", boundary, "--dir", directory.path, "--bomb-url", bombURL.absoluteString,
        ]
    }

    static func parse(_ arguments: [String]) throws -> ChildOptions {
        guard arguments.count >= 1, let row = Row(rawValue: arguments[0]) else {
            throw BenchError("measure: unknown row \(arguments.first ?? "(none)")")
        }
        var values: [String: String] = [:]
        var index = 1
        while index + 1 < arguments.count {
            values[arguments[index]] = arguments[index + 1]
            index += 2
        }
        guard let url = values["--url"].flatMap(URL.init(string:)), let file = values["--file"],
            let body = values["--body"], let boundary = values["--boundary"], let directory = values["--dir"],
            let bombURL = values["--bomb-url"].flatMap(URL.init(string:))
        else {
            throw BenchError("measure: --url, --file, --body, --boundary, --dir and --bomb-url are required")
        }
        return ChildOptions(
            row: row,
            baseURL: url,
            file: URL(fileURLWithPath: file),
            multipartBody: URL(fileURLWithPath: body),
            boundary: boundary,
            directory: URL(fileURLWithPath: directory, isDirectory: true),
            bombURL: bombURL
        )
    }
}

/// The child side: runs one measurement and returns its figures.
enum Child {
    /// The span of one operation.
    private struct Span {
        var start: UInt64
        var end: UInt64
        var cpu: Double
    }

    static func run(_ options: ChildOptions) async throws -> ChildResult {
        let startPeak = ProcessMemory.peakResident()
        let size = fileSize(options.file)
        guard size > 0 else { throw BenchError("no test file at \(options.file.path)") }
        var writeEnd: UInt64?
        var lastReport: UInt64?
        var settle: Double?
        var bytes = size
        let span: Span
        switch options.row {
        case .rawUploadFile:
            span = try await rawUpload(options.file, contentType: "application/octet-stream", options)
        case .rawUploadMultipart:
            span = try await rawUpload(
                options.multipartBody,
                contentType: "multipart/form-data; boundary=\(options.boundary)",
                options
            )
        case .rawUploadDelegate:
            span = try await rawDelegateUpload(options)
        case .rawUploadTaskDelegate:
            span = try await rawUpload(
                options.multipartBody,
                contentType: "multipart/form-data; boundary=\(options.boundary)",
                options,
                taskDelegate: UploadDelegate()
            )
        case .kiloUploadSession, .kiloUploadOwn:
            (span, writeEnd, lastReport) = try await kiloUpload(options, ownSession: options.row == .kiloUploadOwn)
        case .rawDownload:
            span = try await rawDownload(options, size: size)
        case .kiloDownloadSession, .kiloDownloadOwn, .kiloDownloadNIO:
            span = try await kiloDownload(options, size: size, client: ProxyClient(options.row))
        case .limitBombSession, .limitBombOwn, .limitBombNIO:
            (span, settle) = try await refuse(
                path: "bomb?mib=\(size >> 20)",
                at: options.bombURL,
                client: ProxyClient(options.row),
                options
            )
        case .rawLimitBombNIO:
            (span, settle) = try await rawRefuse(path: "bomb?mib=\(size >> 20)", options)
        case .limitPlainSession, .limitPlainOwn, .limitPlainNIO:
            bytes = 2 * size
            (span, settle) = try await refuse(
                path: "bytes?n=\(bytes)",
                at: options.baseURL,
                client: ProxyClient(options.row),
                options
            )
        case .protoUploadSendfile:
            (span, writeEnd) = try await sendfileUpload(options)
        case .protoUploadStream:
            span = try await streamUpload(options)
        case .protoUploadMultipartStream:
            span = try await multipartStreamUpload(options)
        case .encodeKilo, .encodeSendfile:
            span = try writeBody(options)
        }
        return ChildResult(
            row: options.row.rawValue,
            bytes: bytes,
            seconds: seconds(from: span.start, to: span.end),
            writeSeconds: writeEnd.map { seconds(from: span.start, to: $0) },
            lastReportSeconds: lastReport.map { seconds(from: span.start, to: $0) },
            cpuSeconds: span.cpu,
            startPeakResident: startPeak,
            peakResident: ProcessMemory.peakResident(),
            settleSeconds: settle
        )
    }

    private static func timed(_ body: () async throws -> Void) async rethrows -> Span {
        let cpu = processCPUSeconds()
        let start = now()
        try await body()
        let end = now()
        return Span(start: start, end: end, cpu: processCPUSeconds() - cpu)
    }

    private static func discardURL(_ options: ChildOptions) -> URL {
        options.baseURL.appendingPathComponent("discard")
    }

    /// Checks a `POST /discard` answer: a 200 whose `received` is `expected`.
    private static func check(_ data: Data?, _ response: URLResponse?, received expected: Int64) throws {
        try check(data, status: (response as? HTTPURLResponse)?.statusCode, received: expected)
    }

    private static func check(_ data: Data?, status: Int?, received expected: Int64) throws {
        guard status == 200, let data else {
            throw BenchError("POST /discard: status \(status.map(String.init) ?? "none"), not 200")
        }
        let received = try JSONDecoder().decode(Received.self, from: data).received
        guard Int64(received) == expected else {
            throw BenchError("POST /discard: the server received \(received) bytes, not \(expected)")
        }
    }

    // MARK: Uploads

    /// A raw upload with a completion handler; with `taskDelegate`, the task also has a delegate
    /// of its own, as Kilo's tasks on a caller's session have on Linux (to decline challenges).
    private static func rawUpload(
        _ file: URL,
        contentType: String,
        _ options: ChildOptions,
        taskDelegate: UploadDelegate? = nil
    ) async throws -> Span {
        let session = URLSession(configuration: makeConfiguration())
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: discardURL(options))
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        let expected = fileSize(file)
        let span = try await timed {
            let (data, response) = try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(Data?, URLResponse?), any Error>) in
                let task = session.uploadTask(with: request, fromFile: file) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: (data, response))
                    }
                }
                if let taskDelegate {
                    task.delegate = taskDelegate
                }
                task.resume()
            }
            try check(data, response, received: expected)
        }
        if let taskDelegate {
            taskDelegate.report("task delegate")
        }
        return span
    }

    /// What a session with a delegate costs, as Kilo's own session has: the same upload, with
    /// progress (`didSendBodyData`) and the response delivered to a session delegate.
    private static func rawDelegateUpload(_ options: ChildOptions) async throws -> Span {
        let delegate = UploadDelegate()
        let session = URLSession(configuration: makeConfiguration(), delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: discardURL(options))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(options.boundary)", forHTTPHeaderField: "Content-Type")
        let expected = fileSize(options.multipartBody)
        let span = try await timed {
            let (data, response) = try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(Data?, URLResponse?), any Error>) in
                delegate.continuation = continuation
                session.uploadTask(with: request, fromFile: options.multipartBody).resume()
            }
            try check(data, response, received: expected)
            guard delegate.bytesSent == expected else {
                throw BenchError("delegate upload: progress reached \(delegate.bytesSent) of \(expected) bytes")
            }
        }
        delegate.report("session delegate")
        return span
    }

    private static func kiloUpload(_ options: ChildOptions, ownSession: Bool) async throws -> (Span, UInt64?, UInt64?) {
        let session = URLSession(configuration: makeConfiguration())
        defer { session.finishTasksAndInvalidate() }
        let proxy =
            ownSession
            ? WebServiceProxy(configuration: makeConfiguration(), baseURL: options.baseURL)
            : WebServiceProxy(session: session, baseURL: options.baseURL)
        proxy.encoding = .multipartFormData
        let size = fileSize(options.file)
        // The first progress report comes when the transport starts the upload, that is once the
        // temporary body file is written; the last when the response has arrived.
        let reports = Marks()
        let span = try await timed {
            let answer: Received = try await proxy.invoke(
                .post,
                path: "discard",
                arguments: ["file": options.file],
                progress: ProgressHandler { _ in reports.mark() }
            )
            // The body is the file plus a few hundred bytes of part headers and boundaries.
            guard Int64(answer.received) > size, Int64(answer.received) < size + 1024 else {
                throw BenchError("Kilo upload: the server received \(answer.received) bytes for a \(size)-byte file")
            }
        }
        FileHandle.standardError.write(Data("  (\(options.row.rawValue): \(reports.count) progress reports)\n".utf8))
        return (span, reports.first, reports.last)
    }

    /// Kilo's transport with the body file written by the proposed writer (sendfile, no fsync).
    private static func sendfileUpload(_ options: ChildOptions) async throws -> (Span, UInt64?) {
        let session = URLSession(configuration: makeConfiguration())
        defer { session.finishTasksAndInvalidate() }
        let transport = URLSessionTransport(session: session)
        let encoder = MultipartEncoder()
        let body = FileManager.default.temporaryDirectory
            .appendingPathComponent("kilo-bench-upload-\(UUID().uuidString).multipart")
        var written: UInt64?
        let span = try await timed {
            let length = try PrototypeBody.writeWithSendfile(
                ["file": .file(options.file)],
                encoder: encoder,
                to: body,
                scratch: options.directory
            )
            written = now()
            let request = TransportRequest(
                method: .post,
                url: discardURL(options),
                headers: ["Content-Type": encoder.contentType],
                body: .file(body)
            )
            let response = try await transport.send(request)
            try check(response.body, status: response.statusCode, received: length)
            // Removed before returning, as Kilo does: without the fsync, this is cheap.
            try FileManager.default.removeItem(at: body)
        }
        return (span, written)
    }

    /// No body file at all: the pre-built body read through an `InputStream`. URLSession on Linux
    /// sends a stream body chunked (`Transfer-Encoding: chunked`), not with a `Content-Length`.
    private static func streamUpload(_ options: ChildOptions) async throws -> Span {
        let session = URLSession(configuration: makeConfiguration())
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: discardURL(options))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(options.boundary)", forHTTPHeaderField: "Content-Type")
        let expected = fileSize(options.multipartBody)
        return try await timed {
            request.httpBodyStream = InputStream(url: options.multipartBody)
            let (data, response) = try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(Data?, URLResponse?), any Error>) in
                session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: (data, response))
                    }
                }.resume()
            }
            try check(data, response, received: expected)
        }
    }

    /// No body file: the multipart body made as URLSession reads it (chunked on Linux).
    private static func multipartStreamUpload(_ options: ChildOptions) async throws -> Span {
        let session = URLSession(configuration: makeConfiguration())
        defer { session.finishTasksAndInvalidate() }
        let encoder = MultipartEncoder()
        var request = URLRequest(url: discardURL(options))
        request.httpMethod = "POST"
        request.setValue(encoder.contentType, forHTTPHeaderField: "Content-Type")
        var length: Int64 = 0
        var sent: Int64 = 0
        let span = try await timed {
            let stream = try MultipartInputStream(file: options.file, key: "file", encoder: encoder, scratch: options.directory)
            length = stream.length
            request.httpBodyStream = stream
            let (data, response) = try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(Data?, URLResponse?), any Error>) in
                session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: (data, response))
                    }
                }.resume()
            }
            sent = stream.sent
            try check(data, response, received: length)
        }
        guard sent == length else { throw BenchError("multipart stream: \(sent) of \(length) bytes read") }
        return span
    }

    // MARK: Downloads

    private static func bytesURL(_ options: ChildOptions, size: Int64) -> URL {
        URL(string: "bytes?n=\(size)", relativeTo: options.baseURL)!.absoluteURL
    }

    /// Checks and removes a downloaded file.
    private static func checkDownload(_ file: URL, size: Int64) throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let actual = fileSize(file)
        guard actual == size else { throw BenchError("download: \(actual) bytes arrived, not \(size)") }
        // The server sends "x" bytes: check the first and last 64 KiB.
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let head = try handle.read(upToCount: 65_536) ?? Data()
        try handle.seek(toOffset: UInt64(max(0, size - 65_536)))
        let tail = try handle.read(upToCount: 65_536) ?? Data()
        guard (head + tail).allSatisfy({ $0 == UInt8(ascii: "x") }) else {
            throw BenchError("download: unexpected bytes")
        }
    }

    private static func rawDownload(_ options: ChildOptions, size: Int64) async throws -> Span {
        let session = URLSession(configuration: makeConfiguration())
        defer { session.finishTasksAndInvalidate() }
        let destination = options.directory.appendingPathComponent("download-\(options.row.rawValue).bin")
        let request = URLRequest(url: bytesURL(options, size: size))
        let span = try await timed {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                session.downloadTask(with: request) { location, response, error in
                    // The file must be moved before this handler returns, as Kilo does.
                    continuation.resume(
                        with: Result {
                            if let error { throw error }
                            guard let location, (response as? HTTPURLResponse)?.statusCode == 200 else {
                                throw BenchError("raw download: no 200 response")
                            }
                            try? FileManager.default.removeItem(at: destination)
                            try FileManager.default.moveItem(at: location, to: destination)
                        })
                }.resume()
            }
        }
        try checkDownload(destination, size: size)
        return span
    }

    private static func kiloDownload(_ options: ChildOptions, size: Int64, client: ProxyClient) async throws -> Span {
        let (proxy, close) = client.makeProxy(baseURL: options.baseURL)
        let destination = options.directory.appendingPathComponent("download-\(options.row.rawValue).bin")
        let span: Span
        do {
            span = try await timed {
                try await proxy.download(path: "bytes", arguments: ["n": Int(size)], to: destination)
            }
        } catch {
            try? await close()
            throw error
        }
        try await close()
        try checkDownload(destination, size: size)
        return span
    }

    // MARK: Limits

    /// Sends `GET path` to a proxy with the default limits and expects it to fail with
    /// `LimitError.bodyTooLarge` at 32 MiB; then times a small request through the same transport,
    /// which on Linux's URLSession waits while libcurl decodes what it had read of a bomb.
    ///
    /// - Returns: The span until the error, and the seconds the small request took.
    private static func refuse(
        path: String,
        at baseURL: URL,
        client: ProxyClient,
        _ options: ChildOptions
    ) async throws -> (Span, Double) {
        let (proxy, close) = client.makeProxy(baseURL: baseURL)
        let limit = WebServiceProxy.Limits().maximumBodySize ?? 0
        do {
            let span = try await timed {
                do {
                    let _: [Int] = try await proxy.invoke(.get, path: path)
                    throw BenchError("\(path): no error, though the body is larger than the limit")
                } catch let error as LimitError where error == .bodyTooLarge(limit: limit) {
                    // The limit did its work.
                }
            }
            let start = now()
            try await WebServiceProxy(baseURL: options.baseURL, transport: proxy.transport).invoke(.get, path: "json")
            let settle = seconds(from: start, to: now())
            try await close()
            return (span, settle)
        } catch {
            try? await close()
            throw error
        }
    }

    /// What `refuse` does over `AsyncHTTPClientTransport`, done with async-http-client alone on
    /// the transport's recommended configuration: the body's chunks counted and dropped until
    /// they pass Kilo's default limit, then a small request on the same client.
    private static func rawRefuse(path: String, _ options: ChildOptions) async throws -> (Span, Double) {
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.recommendedConfiguration
        )
        let limit = WebServiceProxy.Limits().maximumBodySize ?? 0
        do {
            let span = try await timed {
                let request = HTTPClientRequest(url: options.bombURL.absoluteString + path)
                let response = try await client.execute(request, deadline: .distantFuture)
                var received = 0
                for try await chunk in response.body {
                    received += chunk.readableBytes
                    if received > limit { return }
                }
                throw BenchError("\(path): \(received) bytes, no more than the limit")
            }
            let start = now()
            let small = HTTPClientRequest(url: options.baseURL.appendingPathComponent("json").absoluteString)
            _ = try await client.execute(small, deadline: .distantFuture).body.collect(upTo: 1 << 20)
            let settle = seconds(from: start, to: now())
            try await client.shutdown()
            return (span, settle)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    // MARK: Writing the body file alone

    private static func writeBody(_ options: ChildOptions) throws -> Span {
        let encoder = MultipartEncoder(boundary: options.boundary)
        let arguments: [String: Argument] = ["file": .file(options.file)]
        let output = options.directory.appendingPathComponent("write-\(options.row.rawValue).multipart")
        defer { try? FileManager.default.removeItem(at: output) }
        let cpu = processCPUSeconds()
        let start = now()
        switch options.row {
        case .encodeKilo:
            try encoder.encode(arguments, toFile: output)
        default:
            try PrototypeBody.writeWithSendfile(arguments, encoder: encoder, to: output, scratch: options.directory)
        }
        let end = now()
        let span = Span(start: start, end: end, cpu: processCPUSeconds() - cpu)
        // Every writer must produce the pre-built body's bytes (the same boundary).
        guard fileSize(output) == fileSize(options.multipartBody) else {
            throw BenchError("\(options.row.rawValue): wrote \(fileSize(output)) bytes, not \(fileSize(options.multipartBody))")
        }
        return span
    }
}

/// A session delegate that keeps upload progress and the response body, as Kilo's does.
/// `@unchecked Sendable`: the session calls it on its delegate queue, one call at a time, and
/// `continuation` is set before the task starts.
final class UploadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    var continuation: CheckedContinuation<(Data?, URLResponse?), any Error>?
    private(set) var bytesSent: Int64 = 0
    private var calls = 0
    private var body = Data()

    /// Writes how many `didSendBodyData` calls came, and their average size, to standard error.
    func report(_ kind: String) {
        let average = calls == 0 ? 0 : bytesSent / Int64(calls)
        FileHandle.standardError.write(
            Data("  (\(kind): \(calls) didSendBodyData calls, \(average) bytes each on average)\n".utf8))
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        self.bytesSent = totalBytesSent
        calls += 1
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        body.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = self.continuation
        self.continuation = nil
        if let error {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume(returning: (body, task.response))
        }
    }
}

/// What `POST /discard` returns.
struct Received: Decodable, Sendable {
    var received: Int
}

/// What sends a measurement's requests: a URL session of the caller's (`init(session:)`), one of
/// the transport's own (`init(configuration:)`), or async-http-client.
enum ProxyClient {
    case session, own, nio

    init(_ row: Row) {
        switch row {
        case .kiloDownloadSession, .limitBombSession, .limitPlainSession: self = .session
        case .kiloDownloadNIO, .limitBombNIO, .limitPlainNIO: self = .nio
        default: self = .own
        }
    }

    /// A proxy with the default limits, and what to call when it is no longer needed.
    func makeProxy(baseURL: URL) -> (WebServiceProxy, close: @Sendable () async throws -> Void) {
        switch self {
        case .session:
            let session = URLSession(configuration: makeConfiguration())
            return (WebServiceProxy(session: session, baseURL: baseURL), { session.finishTasksAndInvalidate() })
        case .own:
            return (WebServiceProxy(configuration: makeConfiguration(), baseURL: baseURL), {})
        case .nio:
            let client = HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: AsyncHTTPClientTransport.recommendedConfiguration
            )
            let transport = AsyncHTTPClientTransport(client: client)
            return (WebServiceProxy(baseURL: baseURL, transport: transport), { try await client.shutdown() })
        }
    }
}
