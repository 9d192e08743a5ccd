import Foundation

/// One attempt of a decorating transport: the outcome its policy judges, and the response to
/// return if the attempt stands.
///
/// A retry never follows body bytes already delivered. For a request whose body is read as it
/// arrives, a policy decides before any of a success's body is read: it sees a 2xx response with
/// an empty body. For one whose body is collected whole in memory
/// (``ResponseConsumption/collectsInMemory``), the body is read first, within its limit, so that
/// a connection lost mid-body can be retried. The body of any other status is read first, up to
/// the consumption's error body limit, so that a policy can look into an error (a token refresh
/// after a 401, say); the response returned then holds what was read. A consumption with no such
/// limit reads an error's body as a success's: whole, within its limit, when it collects in
/// memory; otherwise not at all (the policy sees its status and headers, with an empty body), so
/// that a file or a stream gets the whole body.
package struct Attempt: Sendable {
    /// What the policy judges.
    package let outcome: Result<TransportResponse, any Error>
    /// What the decorator returns if the attempt stands.
    package let response: Result<StreamedResponse, any Error>

    /// Makes an attempt of a request to be read as `consumption` says, and reads the body of a
    /// response outside 2xx for the policy, reporting it as received to the request's progress.
    package init(
        _ attempt: @autoclosure () async throws -> StreamedResponse,
        for request: TransportRequest,
        consuming consumption: ResponseConsumption
    ) async {
        let progress = request.progress
        do {
            let streamed = try await attempt()
            if streamed.isSuccess, case .memory(let limit) = consumption.destination {
                let body = try await streamed.body.collect(upTo: limit)
                let whole = streamed.collected(body)
                outcome = .success(whole)
                response = .success(StreamedResponse(whole))
            } else if !streamed.isSuccess, let body = try await Self.errorBody(of: streamed, consuming: consumption) {
                progress?.reportReceived(Int64(body.count), of: Int64(body.count))
                let whole = streamed.collected(body)
                outcome = .success(whole)
                response = .success(StreamedResponse(whole))
            } else {
                outcome = .success(streamed.collected(Data()))
                response = .success(streamed)
            }
        } catch {
            outcome = .failure(error)
            response = .failure(error)
        }
    }

    /// What a policy reads of an error's body: the consumption's prefix of it, or, for one with
    /// none that collects in memory, the whole body within its limit; `nil` when the body is left
    /// for the caller (a file's or a stream's, with no prefix).
    private static func errorBody(
        of streamed: StreamedResponse,
        consuming consumption: ResponseConsumption
    ) async throws -> Data? {
        if let limit = consumption.errorBodyLimit {
            return try await streamed.body.prefix(limit)
        }
        guard case .memory(let limit) = consumption.destination else { return nil }
        return try await streamed.body.collect(upTo: limit)
    }

    /// Gives the attempt up for another: its body, if still streaming, is cancelled.
    package func discard() {
        if case .success(let streamed) = response {
            streamed.body.cancel()
        }
    }
}
