import Foundation
import NIOCore
import Testing

@testable import KiloAsyncHTTPClient

/// The idle timeout and its shared watchdog, without a network: an operation that moves no bytes
/// runs out one interval after the last, one that keeps moving them does not.
@Suite(.timeLimit(.minutes(1)))
struct IdleTimerTests {
    private let clock = ContinuousClock()

    @Test func anOperationThatMovesNothingTimesOutAfterTheInterval() async throws {
        let timer = IdleTimer(interval: .milliseconds(200))
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            try await timer.run { try await Task.sleep(for: .seconds(50)) }
        }
        #expect(error?.code == .timedOut)
        #expect(clock.now - start >= .milliseconds(190))
        #expect(clock.now - start < .seconds(25))  // the operation alone would take 50 s
    }

    @Test func anOperationThatKeepsMovingBytesRunsPastTheInterval() async throws {
        let timer = IdleTimer(interval: .milliseconds(500))
        let start = clock.now
        let touches = try await timer.run {
            var touches = 0
            while clock.now - start < .milliseconds(1500) {
                try await Task.sleep(for: .milliseconds(50))
                timer.touch()
                touches += 1
            }
            return touches
        }
        #expect(touches > 0)
    }

    /// A timer stood back (as for a response head the client's deadline guards) and then touched
    /// again runs out one interval after that touch, not at the later time.
    @Test func aTimerTouchedNearerAgainRunsOutFromThatTouch() async throws {
        let timer = IdleTimer(interval: .milliseconds(300))
        timer.touch(after: .seconds(40))
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            try await timer.run {
                timer.touch()
                try await Task.sleep(for: .seconds(50))
            }
        }
        #expect(error?.code == .timedOut)
        #expect(clock.now - start < .seconds(20))  // not the 40 s it was stood back for
    }

    @Test func cancellingTheCallerCancelsTheOperation() async throws {
        let timer = IdleTimer(interval: .seconds(60))
        let task = Task { try await timer.run { try await Task.sleep(for: .seconds(50)) } }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
