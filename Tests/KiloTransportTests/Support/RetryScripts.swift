import Foundation
import KiloTransport

/// Answers for a ``FakeTransport``, given one per attempt, in order; the last one repeats.
actor ScriptedOutcomes {
    private var outcomes: [Result<TransportResponse, any Error>]

    /// Creates a script.
    ///
    /// - Parameter outcomes: A response or an error for each attempt; must not be empty.
    init(_ outcomes: [Result<TransportResponse, any Error>]) {
        precondition(!outcomes.isEmpty, "a script needs at least one outcome")
        self.outcomes = outcomes
    }

    /// The next attempt's response, or its error.
    func next() throws -> TransportResponse {
        let outcome = outcomes.count > 1 ? outcomes.removeFirst() : outcomes[0]
        return try outcome.get()
    }

    /// A fake transport that plays `outcomes` in order and records what it was sent.
    static func transport(_ outcomes: [Result<TransportResponse, any Error>]) -> FakeTransport {
        let script = ScriptedOutcomes(outcomes)
        return FakeTransport { _ in try await script.next() }
    }
}

/// The delays a ``RetryingTransport`` asked to sleep, in order.
actor RecordedDelays {
    private(set) var delays: [TimeInterval] = []

    func record(_ delay: TimeInterval) {
        delays.append(delay)
    }
}

extension Result where Success == TransportResponse, Failure == any Error {
    /// A response with a status and, if given, a `Retry-After` header.
    static func status(_ statusCode: Int, retryAfter: String? = nil) -> Self {
        var headers = HTTPHeaders()
        headers["Retry-After"] = retryAfter
        return .success(TransportResponse(statusCode: statusCode, headers: headers, body: Data("\(statusCode)".utf8)))
    }

    /// A `URLError` with `code`.
    static func urlError(_ code: URLError.Code) -> Self {
        .failure(URLError(code))
    }
}

/// Formats dates as HTTP dates (IMF-fixdate): `Tue, 14 Nov 2023 22:13:20 GMT`.
enum HTTPDate {
    static func string(from date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
