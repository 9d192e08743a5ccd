import Foundation
import KiloCore
import KiloTransport

extension WebServiceProxy {
    /// Sends a request and maps its response; the core of every `invoke` method.
    ///
    /// Cancellation, whenever it comes before the value is mapped, surfaces as
    /// `URLError(.cancelled)`, as it does from `URLSession`, even with a transport that
    /// ignores it.
    func send<T>(_ request: TransportRequest, map: (TransportResponse) throws -> T) async throws -> T {
        guard !Task.isCancelled else { throw URLError(.cancelled) }
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch is CancellationError {
            throw URLError(.cancelled)
        }
        guard !Task.isCancelled else { throw URLError(.cancelled) }
        return try map(response)
    }

    /// Starts a callback-style request: builds it now, sends and maps it in a task, and calls
    /// `resultHandler` exactly once on the callback queue.
    ///
    /// - Returns: The task, or `nil` when the request could not be built; the handler then
    ///   receives the error, and nothing is sent.
    func start<T>(
        _ makeRequest: () throws -> TransportRequest,
        map: @escaping (TransportResponse) throws -> T,
        resultHandler: @escaping ResultHandler<T>
    ) -> RequestTask? {
        let queue = callbackQueue
        let handler = Handoff(value: resultHandler)
        let mapping = Handoff(value: map)
        let request: TransportRequest
        do {
            request = try makeRequest()
        } catch {
            queue.async { handler.value(.failure(error)) }
            return nil
        }
        let task = Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await self.send(request, map: mapping.value))
            } catch {
                result = .failure(error)
            }
            let outcome = Handoff(value: result)
            queue.async { handler.value(outcome.value) }
        }
        return RequestTask(task)
    }

    /// The caller's content and its type, or `nil` when there is none.
    static func content(_ data: Data?, type: String?) -> Content? {
        data.map { Content(data: $0, type: type ?? "application/octet-stream") }
    }

    /// Encodes a body as JSON, with dates as epoch milliseconds.
    static func jsonContent<B: Encodable>(_ body: B) throws -> Content {
        Content(data: try JSONCoding.makeEncoder().encode(body), type: "application/json")
    }
}
