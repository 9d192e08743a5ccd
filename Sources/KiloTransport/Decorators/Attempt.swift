import Foundation

/// One attempt of a decorating transport: the outcome its policy judges, and the response to
/// return if the attempt stands.
///
/// A policy decides before any of a success's body is read, so that a retry never follows
/// body bytes already delivered: it sees a 2xx response with an empty body. The body of any
/// other status is read first, up to ``errorBodyLimit`` bytes, so that a policy can look into an
/// error (a token refresh after a 401, say); the response returned then holds that prefix.
package struct Attempt: Sendable {
    /// The most bytes of an error's body read for the policy.
    package static let errorBodyLimit = 1 << 20

    /// What the policy judges.
    package let outcome: Result<TransportResponse, any Error>
    /// What the decorator returns if the attempt stands.
    package let response: Result<StreamedResponse, any Error>

    /// Makes an attempt, and reads the body of a response outside 2xx for the policy, reporting
    /// it as received to `progress`.
    package init(
        _ attempt: @autoclosure () async throws -> StreamedResponse,
        progress: ProgressObserver?
    ) async {
        do {
            let streamed = try await attempt()
            if streamed.isSuccess {
                outcome = .success(streamed.collected(Data()))
                response = .success(streamed)
            } else {
                let body = try await streamed.body.prefix(Self.errorBodyLimit)
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
