import Foundation
import KiloTransport
import Testing

@Suite struct RetryPolicyTests {
    /// 2023-11-14 22:13:20 GMT, a Tuesday.
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func request(_ method: HTTPMethod = .get) -> TransportRequest {
        TransportRequest(method: method, url: URL(string: "https://api.example.com/items")!)
    }

    private func delay(
        _ policy: RetryPolicy = .default,
        _ method: HTTPMethod = .get,
        after outcome: Result<TransportResponse, any Error>,
        attempt: Int = 1,
        jitter: Double = 0
    ) -> TimeInterval? {
        policy.delay(before: request(method), isSentAgainAfter: outcome, attempt: attempt, jitter: jitter, now: now)
    }

    // MARK: Defaults

    @Test func defaultPolicyRetriesIdempotentMethodsTwiceOnTransientFailures() {
        let policy = RetryPolicy.default
        #expect(policy.maximumAttempts == 3)
        #expect(policy.initialDelay == 0.5)
        #expect(policy.multiplier == 2)
        #expect(policy.maximumDelay == 30)
        #expect(policy.retriedMethods == [.get, .put, .delete, .head, .options])
        #expect(policy.retriedStatusCodes == [408, 429, 502, 503, 504])
        #expect(
            policy.retriedErrorCodes == [
                .timedOut, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost,
                .notConnectedToInternet,
            ])
        #expect(RetryPolicy() == .default)
    }

    // MARK: Backoff

    @Test(arguments: [
        (1, 0.0, 0.25), (1, 1.0, 0.5), (2, 0.0, 0.5), (2, 1.0, 1.0), (1, 0.5, 0.375), (2, 0.5, 0.75),
    ])
    func backoffDelayDependsOnAttemptAndJitter(attempt: Int, jitter: Double, expected: TimeInterval) {
        #expect(delay(after: .status(503), attempt: attempt, jitter: jitter) == expected)
        #expect(delay(after: .urlError(.timedOut), attempt: attempt, jitter: jitter) == expected)
    }

    @Test func backoffGrowsByTheMultiplierUpToTheMaximumDelay() {
        let policy = RetryPolicy(maximumAttempts: 10, initialDelay: 1, multiplier: 3, maximumDelay: 5)
        let delays = (1...5).map { delay(policy, after: .status(503), attempt: $0, jitter: 1) }
        #expect(delays == [1, 3, 5, 5, 5])
    }

    /// 2^1024 is infinite in a `Double`, and 0 × ∞ is NaN.
    @Test(arguments: [1, 2, 1024, 1025, 5000])
    func noInitialDelayNeverWaits(attempt: Int) {
        let immediate = RetryPolicy(maximumAttempts: .max, initialDelay: 0)
        #expect(delay(immediate, after: .status(503), attempt: attempt, jitter: 1) == 0)
        #expect(delay(immediate, after: .urlError(.timedOut), attempt: attempt, jitter: 0.5) == 0)
    }

    @Test(arguments: [(-1.0, 0.25), (2.0, 0.5)])
    func jitterOutsideZeroToOneIsClamped(jitter: Double, expected: TimeInterval) {
        #expect(delay(after: .status(503), jitter: jitter) == expected)
    }

    /// `Task.sleep(for:)` traps on a NaN or an infinite duration, so no policy may ask for one.
    @Test(arguments: [
        RetryPolicy(maximumDelay: .nan), RetryPolicy(maximumDelay: -.infinity), RetryPolicy(maximumDelay: -1),
        RetryPolicy(multiplier: -.infinity), RetryPolicy(multiplier: -2),
    ])
    func aNegativeOrNaNBackoffMeansNoWait(policy: RetryPolicy) {
        #expect(delay(policy, after: .status(503), attempt: 2, jitter: 1) == 0)
        #expect(delay(policy, after: .urlError(.timedOut), attempt: 2, jitter: 0) == 0)
    }

    @Test func aNaNJitterCountsAsZero() {
        #expect(delay(after: .status(503), jitter: .nan) == 0.25)
    }

    // MARK: Attempts

    @Test func noRetryAfterTheLastAttempt() {
        #expect(delay(after: .status(503), attempt: 2) != nil)
        #expect(delay(after: .status(503), attempt: 3) == nil)
        #expect(delay(after: .urlError(.timedOut), attempt: 3) == nil)
        #expect(delay(RetryPolicy(maximumAttempts: 1), after: .status(503), attempt: 1) == nil)
        #expect(delay(RetryPolicy(maximumAttempts: 5), after: .status(503), attempt: 4) != nil)
        #expect(delay(RetryPolicy(maximumAttempts: 5), after: .status(503), attempt: 5) == nil)
    }

    // MARK: Methods

    @Test(arguments: [HTTPMethod.get, .put, .delete, .head, .options])
    func idempotentMethodsAreRetried(method: HTTPMethod) {
        #expect(delay(.default, method, after: .status(503)) == 0.25)
        #expect(delay(.default, method, after: .urlError(.networkConnectionLost)) == 0.25)
    }

    @Test(arguments: [HTTPMethod.post, .patch, HTTPMethod(rawValue: "CONNECT")])
    func nonIdempotentMethodsAreNotRetried(method: HTTPMethod) {
        #expect(delay(.default, method, after: .status(503)) == nil)
        #expect(delay(.default, method, after: .status(503, retryAfter: "1")) == nil)
        #expect(delay(.default, method, after: .urlError(.networkConnectionLost)) == nil)
        #expect(delay(.default, method, after: .urlError(.timedOut)) == nil)
    }

    @Test func postIsRetriedWhenThePolicyListsIt() {
        var policy = RetryPolicy.default
        policy.retriedMethods.insert(.post)
        #expect(delay(policy, .post, after: .status(503)) == 0.25)
        #expect(delay(policy, .post, after: .urlError(.networkConnectionLost)) == 0.25)
        #expect(delay(policy, .patch, after: .status(503)) == nil)
    }

    // MARK: Statuses

    @Test(arguments: [408, 429, 502, 503, 504])
    func transientStatusesAreRetried(statusCode: Int) {
        #expect(delay(after: .status(statusCode)) == 0.25)
    }

    @Test(arguments: [200, 201, 204, 301, 304, 400, 401, 403, 404, 409, 422, 500, 501, 505])
    func otherStatusesAreNotRetried(statusCode: Int) {
        #expect(delay(after: .status(statusCode)) == nil)
        #expect(delay(after: .status(statusCode, retryAfter: "1")) == nil)
    }

    // MARK: Errors

    @Test(arguments: [
        URLError.Code.timedOut, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost,
        .notConnectedToInternet,
    ])
    func connectionErrorsAndTimeoutsAreRetried(code: URLError.Code) {
        #expect(delay(after: .urlError(code)) == 0.25)
    }

    @Test(arguments: [
        URLError.Code.cancelled, .badURL, .unsupportedURL, .secureConnectionFailed, .serverCertificateUntrusted,
        .userAuthenticationRequired, .cannotDecodeContentData, .fileDoesNotExist, .dataLengthExceedsMaximum,
    ])
    func otherURLErrorsAreNotRetried(code: URLError.Code) {
        #expect(delay(after: .urlError(code)) == nil)
    }

    @Test func errorsOtherThanURLErrorAreNotRetried() {
        #expect(delay(after: .failure(CancellationError())) == nil)
        #expect(delay(after: .failure(RequestError.invalidHeaderName("X Bad"))) == nil)
        #expect(delay(after: .failure(CocoaError(.fileReadNoSuchFile))) == nil)
    }

    // MARK: Retry-After

    @Test func retryAfterSecondsSetTheDelayInsteadOfBackoff() {
        #expect(delay(after: .status(503, retryAfter: "2"), jitter: 0) == 2)
        #expect(delay(after: .status(503, retryAfter: "2"), attempt: 2, jitter: 1) == 2)
        #expect(delay(after: .status(429, retryAfter: "0")) == 0)
        #expect(delay(after: .status(503, retryAfter: "30")) == 30)
    }

    @Test func retryAfterHTTPDateSetsTheDelay() {
        #expect(HTTPDate.string(from: now.addingTimeInterval(5)) == "Tue, 14 Nov 2023 22:13:25 GMT")
        #expect(delay(after: .status(503, retryAfter: "Tue, 14 Nov 2023 22:13:25 GMT")) == 5)
        #expect(delay(after: .status(503, retryAfter: "Tue, 14 Nov 2023 22:13:10 GMT")) == 0)
    }

    @Test func retryAfterLongerThanTheMaximumDelayReturnsTheResponse() {
        #expect(delay(after: .status(503, retryAfter: "31")) == nil)
        #expect(delay(after: .status(503, retryAfter: "86400")) == nil)
        #expect(delay(after: .status(503, retryAfter: HTTPDate.string(from: now.addingTimeInterval(60)))) == nil)
        var patient = RetryPolicy.default
        patient.maximumDelay = 120
        #expect(delay(patient, after: .status(503, retryAfter: "60")) == 60)
    }

    /// A number of seconds too large for an `Int` asks for a longer wait than any other, not for
    /// the backoff.
    @Test func retryAfterTooLargeForAnIntReturnsTheResponse() {
        #expect(RetryPolicy.retryAfter("99999999999999999999", now: now) == 1e20)
        #expect(delay(after: .status(503, retryAfter: "99999999999999999999")) == nil)
        #expect(delay(after: .status(503, retryAfter: String(repeating: "9", count: 400))) == nil)
    }

    /// `Task.sleep(for:)` traps on a delay of more than `Int64.max` seconds: with no maximum, a
    /// server's `Retry-After: 9223372036854775807` must not crash the process.
    @Test func noDelayIsLongerThanTheLongestDelay() {
        let unbounded = RetryPolicy(maximumAttempts: 2000, maximumDelay: .infinity)
        #expect(delay(unbounded, after: .status(503, retryAfter: "9223372036854775807")) == RetryPolicy.longestDelay)
        #expect(delay(unbounded, after: .status(503, retryAfter: "60")) == 60)
        #expect(delay(unbounded, after: .status(503), attempt: 1100, jitter: 1) == RetryPolicy.longestDelay)
    }

    @Test(arguments: ["soon", "", "1.5", "-1", "Tuesday"])
    func unreadableRetryAfterFallsBackToBackoff(value: String) {
        #expect(delay(after: .status(503, retryAfter: value), jitter: 0) == 0.25)
    }

    @Test(arguments: [
        ("120", 120.0), ("0", 0), (" 7 ", 7), ("Tue, 14 Nov 2023 22:13:25 GMT", 5),
        ("Tue, 14 Nov 2023 22:13:10 GMT", 0),
    ])
    func retryAfterReadsSecondsAndIMFFixdate(value: String, expected: TimeInterval) {
        #expect(RetryPolicy.retryAfter(value, now: now) == expected)
    }

    /// `delay-seconds` is ASCII digits alone: no sign, no fraction, no other script's digits.
    @Test(arguments: ["-1", "+20", "1.5", "soon", "", "14 Nov 2023", "\u{0663}", "1e3", "0x10"])
    func retryAfterRejectsOtherValues(value: String) {
        #expect(RetryPolicy.retryAfter(value, now: now) == nil)
    }

    /// RFC 9110 §5.6.7: "A recipient that parses a timestamp value in an HTTP field MUST accept
    /// all three HTTP-date formats": IMF-fixdate, and the obsolete RFC 850 and asctime formats.
    @Test(arguments: ["Tuesday, 14-Nov-23 22:13:25 GMT", "Tue Nov 14 22:13:25 2023"])
    func retryAfterReadsObsoleteHTTPDateFormats(value: String) {
        #expect(RetryPolicy.retryAfter(value, now: now) == 5)
    }
}
