import Foundation

/// One attempt of a decorating transport: the outcome its policy judges, and the response to
/// return if the attempt stands.
///
/// A retry never follows body bytes already delivered. For a request whose body is read as it
/// arrives, a policy decides before any of a success's body is read: it sees a 2xx response with
/// an empty body. For one whose body is collected whole in memory
/// (``ResponseConsumption/collectsInMemory``), the body is read first, within its limit, so that
/// a connection lost mid-body can be retried. The body of any other status is read first, up to
/// the consumption's error body limit (``ResponseConsumption/standardErrorBodyLimit`` when it
/// has none), so that a policy can look into an error (a token refresh after a 401, say); the
/// response returned then holds what was read.
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
            } else if streamed.isSuccess {
                outcome = .success(streamed.collected(Data()))
                response = .success(streamed)
            } else {
                let limit = consumption.errorBodyLimit ?? ResponseConsumption.standardErrorBodyLimit
                let body = try await streamed.body.prefix(limit)
                progress?.reportReceived(Int64(body.count), of: Int64(body.count))
                let whole = streamed.collected(body)
                outcome = .success(whole)
                response = .success(StreamedResponse(whole))
            }
        } catch {
            outcome = .failure(error)
            response = .failure(error)
        }
    }

    /// Gives the attempt up for another: its body, if still streaming, is cancelled.
    package func discard() {
        if case .success(let streamed) = response {
            streamed.body.cancel()
        }
    }
}
