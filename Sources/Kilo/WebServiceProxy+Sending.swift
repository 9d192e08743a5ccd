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

    /// Sends a request and returns its response: the core of every async `invoke`, and of the
    /// callback requests that run in a task, each of which then maps the response.
    ///
    /// Not generic: only the caller, which maps the response, is generic over the result type,
    /// so the functions a request passes through carry neither that type nor a mapping closure.
    ///
    /// A streamed multipart body is written to a temporary file first, and the file is removed
    /// when the request ends, however it ends. Cancellation, whenever it comes before the
    /// response is returned, surfaces as `URLError(.cancelled)`, as it does from `URLSession`,
    /// even with a transport that ignores it.
    ///
    /// - Parameter prepared: The request to send.
    /// - Returns: The response, whatever its status.
    /// - Throws: `URLError(.cancelled)` on cancellation; the transport's errors as they are; the
    ///   file system's error if a streamed body cannot be written.
    func response(to prepared: PreparedRequest) async throws -> TransportResponse {
        guard !Task.isCancelled else { throw URLError(.cancelled) }
        let response: TransportResponse
        do {
            if let streamed = prepared.streamedBody {
                response = try await Self.send(prepared.request, streaming: streamed, with: transport)
            } else {
                response = try await transport.send(prepared.request)
            }
        } catch is CancellationError {
            throw URLError(.cancelled)
        }
        guard !Task.isCancelled else { throw URLError(.cancelled) }
        return response
    }

    /// Writes a streamed multipart body to a temporary file, sends the request with that file as
    /// its body, and removes the file when the request ends, however it ends.
    ///
    /// On Linux, if the transport's URL session was invalidated while the file was written, on
    /// which a new task would trap, the request fails with `URLError.cancelled` and is not sent
    /// (Apple's URLSession offers no way to ask; see `URLSession.isInvalidated`).
    private static func send(
        _ request: TransportRequest,
        streaming body: StreamedMultipart,
        with transport: any Transport
    ) async throws -> TransportResponse {
        let file = try await writeTemporaryBody(body)
        defer { removeTemporaryFile(file) }
        guard !Task.isCancelled else { throw URLError(.cancelled) }
        // Writing takes its time: a URL session invalidated meanwhile would trap on the task.
        guard !transport.sendsWithInvalidatedSession else { throw URLError.sessionInvalidated }
        var request = request
        request.body = .file(file)
        return try await transport.send(request)
    }

    /// Starts a callback-style request: builds it now, sends it, maps the response in the
    /// background, and calls `resultHandler` exactly once on the callback queue.
    ///
    /// A ``CallbackTransport`` (``URLSessionTransport``) gets the request without a Swift task,
    /// and its completion leaves the transport's thread at once: the response is then mapped on
    /// the callback queue, just before the handler runs, or on a global queue first when the
    /// callback queue is the main queue. But where the completion may take its time (your
    /// session's delegate queue, on Apple platforms) and other requests of the proxy are still in
    /// flight, the response is mapped there, as code that decodes in a completion handler does,
    /// before the hop: mapping and the result handlers (which often start the next request) then
    /// share two threads. A lone request hops first, which lets the session finish its task while
    /// the callback queue maps. Any other transport, and a request with a streamed multipart body
    /// (which must first be written to a file), runs in a task, which maps the response before it
    /// hops to the callback queue.
    ///
    /// - Returns: The task, or `nil` when the request could not be built; the handler then
    ///   receives the error, and nothing is sent.
    func start<T>(
        _ makeRequest: () throws -> PreparedRequest,
        map: @escaping (TransportResponse) throws -> T,
        resultHandler: @escaping ResultHandler<T>
    ) -> RequestTask? {
        let prepared: PreparedRequest
        do {
            prepared = try makeRequest()
        } catch {
            let handler = Handoff(value: resultHandler)
            callbackQueue.async { handler.value(.failure(error)) }
            return nil
        }
        guard prepared.streamedBody == nil, let callbackTransport else {
            let mapping = Handoff(value: map)
            return start(
                { prepared },
                perform: { try await self.send($0, map: mapping.value) },
                resultHandler: resultHandler
            )
        }
        // Moved to one other thread and never used here again, as a `Handoff` would carry them;
        // captured as they are, because a `Handoff` of a function type that involves `T` costs a
        // lookup of that type's metadata in the runtime's cache on every request.
        nonisolated(unsafe) let map = map
        nonisolated(unsafe) let resultHandler = resultHandler
        let callbacks = currentCallbacks
        let requestTask = RequestTask()
        let mayMapOnCompletion = callbackTransport.completionMayTakeTime
        let inFlight = callbacksInFlight
        inFlight.begin()
        let transportTask = callbackTransport.start(prepared.request) { result in
            guard requestTask.claimCompletion() else { return }
            let othersInFlight = inFlight.end()
            // The main thread never decodes, whatever queue its thread is serving.
            guard mayMapOnCompletion, othersInFlight, !Thread.isMainThread else {
                Self.deliver(result, with: map, to: resultHandler, on: callbacks, for: requestTask)
                return
            }
            Self.mapHere(result, with: map, thenDeliverTo: resultHandler, on: callbacks.queue, for: requestTask)
        }
        requestTask.attach(transportTask)
        return requestTask
    }

    /// Maps a transport's outcome, unless the request was cancelled first: cancellation that
    /// comes before the value is mapped wins, as in ``response(to:)``. Callers check again just
    /// before the handler runs, so that cancellation while the value is mapped (a slow response
    /// handler, a large body to decode) wins as well.
    private static func mapOutcome<T>(
        _ result: Result<TransportResponse, any Error>,
        with map: (TransportResponse) throws -> T,
        for requestTask: RequestTask
    ) -> Result<T, any Error> {
        requestTask.unlessCancelled(mapped(result, with: map))
    }

    /// The value `map` makes of a transport's response, or the transport's error.
    ///
    /// A switch rather than `flatMap` and `Result(catching:)`: this code is generic over `T`,
    /// and those would run unspecialized, each through closures and value witnesses.
    private static func mapped<T>(
        _ result: Result<TransportResponse, any Error>,
        with map: (TransportResponse) throws -> T
    ) -> Result<T, any Error> {
        switch result {
        case .success(let response):
            do {
                return .success(try map(response))
            } catch {
                return .failure(error)
            }
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Maps an outcome on the calling thread and gives it to `handler` on `queue`.
    ///
    /// A function of its own, not inline in `start`'s completion: the metadata of the mapped
    /// result's types is then looked up only by the requests that take this way.
    private static func mapHere<T>(
        _ result: Result<TransportResponse, any Error>,
        with map: (TransportResponse) throws -> T,
        thenDeliverTo handler: @escaping ResultHandler<T>,
        on queue: DispatchQueue,
        for requestTask: RequestTask
    ) {
        nonisolated(unsafe) let handler = handler  // used on one other thread only, as in `start`
        let mapped = Handoff(value: mapOutcome(result, with: map, for: requestTask))
        queue.async { handler(requestTask.unlessCancelled(mapped.value)) }
    }

    /// Maps an outcome off the calling thread (a transport's, which it may need) and gives it to
    /// `handler` on `queue`: both on `queue` itself, unless it is the main queue or a queue that
    /// targets it; then the outcome is mapped on a global queue first
    /// (``mapHere(_:with:thenDeliverTo:on:for:)``), so that the main thread never decodes.
    private static func deliver<T>(
        _ result: Result<TransportResponse, any Error>,
        with map: @escaping (TransportResponse) throws -> T,
        to handler: @escaping ResultHandler<T>,
        on callbacks: CallbackQueue,
        for requestTask: RequestTask
    ) {
        // Used on one other thread only, as in `start`.
        nonisolated(unsafe) let map = map
        nonisolated(unsafe) let handler = handler
        if callbacks.isMain {
            DispatchQueue.global().async {
                mapHere(result, with: map, thenDeliverTo: handler, on: callbacks.queue, for: requestTask)
            }
        } else {
            callbacks.queue.async {
                guard !CallbackQueue.isServingMainQueue else {
                    // A queue that targets the main queue: mapped on a global queue, as for the main queue.
                    DispatchQueue.global().async {
                        mapHere(result, with: map, thenDeliverTo: handler, on: callbacks.queue, for: requestTask)
                    }
                    return
                }
                // Mapped first: `unlessCancelled` checks before it evaluates its argument.
                let outcome = mapOutcome(result, with: map, for: requestTask)
                handler(requestTask.unlessCancelled(outcome))
            }
        }
    }

    /// Starts a callback-style request that `perform` carries out in a task.
    ///
    /// A lone request (no other callback request of the proxy in flight) started off the main
    /// thread runs its task at once on the calling thread, until it first waits
    /// (`Task.immediate`, where the platform and the compiler have it): that saves a hand-off to
    /// the cooperative pool, which one request in flight feels as latency. With others in flight, the task starts
    /// on the pool, so that the calling thread (often a serial callback queue) is free for them.
    ///
    /// - Parameters:
    ///   - makeRequest: Builds the request; what it throws goes to the handler, and nothing is
    ///     sent.
    ///   - perform: Sends the request and maps its response, in the task.
    ///   - successIsFinal: Whether a success has already done what cannot be undone (a download
    ///     has replaced its destination), so that a `cancel()` that comes after it, before the
    ///     handler runs, must not report it as cancelled.
    ///   - resultHandler: Receives the result on the callback queue.
    /// - Returns: The task, or `nil` when the request could not be built.
    func start<T>(
        _ makeRequest: () throws -> PreparedRequest,
        perform: @escaping (PreparedRequest) async throws -> T,
        successIsFinal: Bool = false,
        resultHandler: @escaping ResultHandler<T>
    ) -> RequestTask? {
        let queue = callbackQueue
        let handler = Handoff(value: resultHandler)
        let operation = Handoff(value: perform)
        let prepared: PreparedRequest
        do {
            prepared = try makeRequest()
        } catch {
            queue.async { handler.value(.failure(error)) }
            return nil
        }
        let requestTask = RequestTask()
        let inFlight = callbacksInFlight
        let isLone = inFlight.begin()
        let body: @Sendable () async -> Void = {
            let result: Result<T, any Error>
            do {
                result = .success(try await operation.value(prepared))
            } catch {
                result = .failure(error)
            }
            inFlight.end()
            let outcome = Handoff(value: result)
            // Cancellation before the handler runs wins, as on the other path (the task may have
            // finished before `invoke` returned its handle), unless the success is final.
            queue.async {
                if successIsFinal, case .success = outcome.value {
                    handler.value(outcome.value)
                } else {
                    handler.value(requestTask.unlessCancelled(outcome.value))
                }
            }
        }
        // `Task.immediate` exists from Swift 6.2 on; the package builds with Swift 6.0 and 6.1
        // (Xcode 16) too, where `#available` alone would not compile.
        #if compiler(>=6.2)
            if isLone, !Thread.isMainThread, #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                requestTask.attach(Task.immediate(operation: body))
                return requestTask
            }
        #endif
        requestTask.attach(Task(operation: body))
        return requestTask
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
