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

/// Records a request's progress reports, as `received/expected` strings (`-1` for unknown).
final class ReceivedProgress: Sendable {
    private let reports = Locked<[String]>([])

    /// An observer that records into this.
    var observer: ProgressObserver {
        ProgressObserver { progress in
            self.reports.withLock { $0.append("\(progress.bytesReceived)/\(progress.expectedBytesToReceive ?? -1)") }
        }
    }

    /// The reports so far, in order.
    var all: [String] {
        reports.withLock { $0 }
    }

    /// Sends a GET, with a progress observer, through `wrap` around a fake transport that answers
    /// first with `firstStatus` and a body of `firstBodySize` bytes, then with a 200 and "200".
    ///
    /// - Returns: The final status code and the progress reports.
    static func acrossTwoAttempts(
        firstStatus: Int,
        firstBodySize: Int,
        through wrap: (FakeTransport) -> any Transport
    ) async throws -> (statusCode: Int, reports: [String]) {
        let received = ReceivedProgress()
        let first = TransportResponse(statusCode: firstStatus, body: Data(count: firstBodySize))
        let fake = ScriptedOutcomes.transport([.success(first), .status(200)])
        var request = TransportRequest(method: .get, url: URL(string: "https://api.example.com/items")!)
        request.progress = received.observer
        let response = try await wrap(fake).send(request)
        return (response.statusCode, received.all)
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
