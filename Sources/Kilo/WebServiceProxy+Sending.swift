import Foundation
import KiloCore
import KiloEncoding
import KiloTransport

extension WebServiceProxy {
    /// Sends a request and maps its response; see ``response(to:)``. Cancellation is checked
    /// just before `map` runs.
    func send<T>(_ prepared: PreparedRequest, map: (TransportResponse) throws -> T) async throws -> T {
        try map(await response(to: prepared))
    }

    /// Sends a request and returns its whole response: the path of every `invoke`, async or
    /// with a callback, and of downloads.
    ///
    /// The body is read from the transport's stream as the request's consumption says: an error
    /// response's first ``errorBodyLimit`` bytes, a success's into memory up to its
    /// `maximumBodySize` (or a download's into its file), all by its `deadline`. A streamed
    /// multipart body is written
    /// to a temporary file first, removed when the request ends, however it ends. Cancellation,
    /// whenever it comes before the response is returned, surfaces as `URLError(.cancelled)`, as
    /// it does from `URLSession`, even with a transport that ignores it.
    ///
    /// - Parameter prepared: The request to send.
    /// - Returns: The response, whatever its status.
    /// - Throws: `URLError(.cancelled)` on cancellation; `LimitError` past a limit; the
    ///   transport's errors as they are; the file system's error if a streamed body cannot be
    ///   written.
    func response(to prepared: PreparedRequest) async throws -> TransportResponse {
        let consumption = prepared.consumption
        return try await exchange(prepared) { request, response, seal in
            try await response.collect(consumption, progress: request.progress, sent: request.bodySize, sealing: seal)
        }
    }

    /// Sends a request and reads its response with `read`, all by its consumption's deadline:
    /// the one path of every request, whose body is collected (``response(to:)``) or streamed,
    /// as ``PreparedRequest/consumption`` says, which the transport is told.
    ///
    /// - Parameters:
    ///   - prepared: The request to send.
    ///   - read: Reads the response to the request as sent (a streamed body's file in place),
    ///     given the deadline's seal for a step that cannot be undone (see `Deadline.Seal`).
    /// - Returns: What `read` returns.
    /// - Throws: `URLError(.cancelled)` on cancellation; `LimitError` past the deadline; what
    ///   the transport and `read` throw; the file system's error if a streamed body cannot be
    ///   written.
    func exchange<T: Sendable>(
        _ prepared: PreparedRequest,
        read: @escaping @Sendable (TransportRequest, StreamedResponse, @escaping Deadline.Seal) async throws -> T
    ) async throws -> T {
        guard !Task.isCancelled else { throw URLError(.cancelled) }
        let transport = transport
        // A deadline or a cancellation returns before the exchange ends: its streamed body's
        // temporary file is removed here too, so that none is left once the call returns.
        let temporaryFile = Locked<URL?>(nil)
        defer { temporaryFile.withLock { $0 }.map(Self.removeTemporaryFile) }
        let value: T
        do {
            value = try await Deadline.run(prepared.consumption.deadline) { seal in
                try await Self.exchange(prepared, with: transport, writingBodyTo: temporaryFile) { request, response in
                    try await read(request, response, seal)
                }
            }
        } catch is CancellationError {
            throw URLError(.cancelled)
        }
        // A download has replaced its file by now, sealed against the deadline and cancellation:
        // a cancellation that comes after that cannot undo it, and does not hide it.
        if case .file = prepared.consumption.destination {
            return value
        }
        guard !Task.isCancelled else { throw URLError(.cancelled) }
        return value
    }

    /// Sends the request, its streamed body written to a file first (named in `temporaryFile`
    /// until it is removed), and reads the response.
    private static func exchange<T>(
        _ prepared: PreparedRequest,
        with transport: any Transport,
        writingBodyTo temporaryFile: Locked<URL?>,
        read: (TransportRequest, StreamedResponse) async throws -> T
    ) async throws -> T {
        var request = prepared.request
        guard let streamed = prepared.streamedBody else {
            return try await read(request, transport.stream(request, consuming: prepared.consumption))
        }
        let file = try await writeTemporaryBody(streamed)
        temporaryFile.withLock { $0 = file }
        defer { removeTemporaryFile(file) }
        guard !Task.isCancelled else { throw URLError(.cancelled) }
        // Writing takes its time: a URL session invalidated meanwhile would trap on the task.
        guard !transport.sendsWithInvalidatedSession else { throw URLError.sessionInvalidated }
        request.body = .file(file)
        return try await read(request, transport.stream(request, consuming: prepared.consumption))
    }

    /// Starts a callback-style request: a thin layer over the async path. It builds the request
    /// now, sends and maps it in a task, and calls `resultHandler` exactly once, on the caller's
    /// actor or, when the caller had none, on the callback queue (see ``CallbackDelivery``).
    ///
    /// - Parameters:
    ///   - makeRequest: Builds the request; what it throws goes to the handler, and nothing is
    ///     sent.
    ///   - perform: Sends the request and maps its response, in the task.
    ///   - successIsFinal: Whether a success has already done what cannot be undone (a download
    ///     has replaced its destination), so that a `cancel()` that comes after it, before the
    ///     handler runs, must not report it as cancelled.
    ///   - isolation: The caller's actor, where `resultHandler` runs; `nil` for the callback queue.
    ///   - resultHandler: Receives the result.
    /// - Returns: The task, or `nil` when the request could not be built.
    func start<T>(
        _ makeRequest: () throws -> PreparedRequest,
        perform: @escaping (PreparedRequest) async throws -> T,
        successIsFinal: Bool = false,
        isolation: (any Actor)?,
        resultHandler: @escaping ResultHandler<T>
    ) -> RequestTask? {
        let queue = callbackQueue
        let handler = Handoff(value: resultHandler)
        let operation = Handoff(value: perform)
        var prepared: PreparedRequest
        do {
            prepared = try makeRequest()
        } catch {
            let failure = Handoff(value: Result<T, any Error>.failure(error))
            Task {
                await CallbackDelivery.call(handler, with: { failure }, on: queue, isolation: isolation, waiting: false)
            }
            return nil
        }
        let requestTask = RequestTask()
        prepared.request.progress = requestTask.observer(reportingTo: prepared.request.progress)
        let request = prepared
        requestTask.attach(
            Task {
                let result: Result<T, any Error>
                do {
                    result = .success(try await operation.value(request))
                } catch {
                    result = .failure(error)
                }
                let outcome = Handoff(value: result)
                await CallbackDelivery.call(
                    handler,
                    with: { Handoff(value: requestTask.complete(with: outcome.value, successIsFinal: successIsFinal)) },
                    on: queue,
                    isolation: isolation,
                    waiting: false
                )
            }
        )
        return requestTask
    }

    /// Starts a callback-style request whose response `map` turns into the handler's value.
    func start<T>(
        _ makeRequest: () throws -> PreparedRequest,
        map: @escaping (TransportResponse) throws -> T,
        isolation: (any Actor)?,
        resultHandler: @escaping ResultHandler<T>
    ) -> RequestTask? {
        let mapping = Handoff(value: map)
        return start(
            makeRequest,
            perform: { try await self.send($0, map: mapping.value) },
            isolation: isolation,
            resultHandler: resultHandler
        )
    }

    /// The caller's content and its type, or `nil` when there is none.
    static func content(_ data: Data?, type: String?) -> Content? {
        data.map { Content(data: $0, type: type ?? "application/octet-stream") }
    }

    /// Writes a multipart body to a new temporary file, on a background thread so that a large
    /// file does not hold up the caller's thread or Swift's cooperative pool.
    ///
    /// Cancelling the calling task stops the writing at the next chunk, removes the file and
    /// throws `URLError.cancelled`: a body of gigabytes is not written out first.
    private static func writeTemporaryBody(_ streamed: StreamedMultipart) async throws -> URL {
        let isCancelled = Locked(false)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                    DispatchQueue.global(qos: .utility).async {
                        continuation.resume(
                            with: Result {
                                try streamed.writeTemporaryFile { !isCancelled.withLock { $0 } }
                            }
                        )
                    }
                }
            } onCancel: {
                isCancelled.withLock { $0 = true }
            }
        } catch is CancellationError {
            throw URLError(.cancelled)
        }
    }

    /// Removes a temporary file of Kilo's. Failing to remove it loses nothing: the system
    /// clears its temporary directory in time.
    static func removeTemporaryFile(_ file: URL) {
        try? FileManager.default.removeItem(at: file)
    }
}
