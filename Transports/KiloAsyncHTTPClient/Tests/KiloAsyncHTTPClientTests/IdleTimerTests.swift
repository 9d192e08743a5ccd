import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import KiloAsyncHTTPClient

/// The idle timeout, without a network: an operation that moves no bytes runs out one interval
/// after the last, one that keeps moving them does not; so does a task watched from an event loop.
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

    /// An operation touched after it began outlives the interval it would otherwise have run out
    /// in: it returns only once a second timer of twice the interval, begun after it, has run out.
    @Test func anOperationThatKeepsMovingBytesRunsPastTheInterval() async throws {
        let timer = IdleTimer(interval: .milliseconds(200))
        let value = try await timer.run {
            timer.touch(after: .seconds(60))  // bytes moved, as far as the timer can tell
            await #expect(throws: URLError.self) {
                try await IdleTimer(interval: .milliseconds(400)).run { try await Task.sleep(for: .seconds(50)) }
            }
            return 1
        }
        #expect(value == 1)
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

    // MARK: A task watched from an event loop (a response body's reader)

    private static let eventLoop = MultiThreadedEventLoopGroup.singleton.any()

    @Test func aWatchedTaskThatMovesNothingIsCancelledAfterTheInterval() async throws {
        let timer = IdleTimer(interval: .milliseconds(200))
        let start = clock.now
        let task = Task { try await Task.sleep(for: .seconds(50)) }
        timer.cancel(whenIdle: { task.cancel() }, on: Self.eventLoop)
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(timer.hasExpired)
        #expect(clock.now - start >= .milliseconds(190))
        #expect(clock.now - start < .seconds(25))
    }

    /// A watched task touched after the watch began outlives the interval: the event loop checks
    /// it before a second watch of twice the interval, begun after it, runs out.
    @Test func aWatchedTaskThatKeepsMovingBytesRunsPastTheInterval() async throws {
        let timer = IdleTimer(interval: .milliseconds(200))
        let task = Task { try await Task.sleep(for: .seconds(50)) }
        defer { task.cancel() }
        timer.cancel(whenIdle: { task.cancel() }, on: Self.eventLoop)
        timer.touch(after: .seconds(60))  // bytes moved, as far as the timer can tell
        await Self.waitForAWatchToRunOut(after: .milliseconds(400))
        #expect(!task.isCancelled)
        #expect(!timer.hasExpired)
        timer.stopWatching()
    }

    /// A watch stopped before its interval passes cancels nothing: the event to wait for is a
    /// second watch of the same interval, begun after it on the same event loop, running out.
    @Test func aStoppedWatchCancelsNothing() async throws {
        let timer = IdleTimer(interval: .milliseconds(100))
        let task = Task { try await Task.sleep(for: .seconds(50)) }
        defer { task.cancel() }
        timer.cancel(whenIdle: { task.cancel() }, on: Self.eventLoop)
        timer.stopWatching()
        await Self.waitForAWatchToRunOut(after: .milliseconds(100))
        #expect(!task.isCancelled)
        #expect(!timer.hasExpired)
    }

    /// Watches a task that moves nothing, on the same event loop, and returns once the watch
    /// has cancelled it: the event after which a watch begun earlier, of no longer an interval,
    /// has been checked.
    private static func waitForAWatchToRunOut(after interval: TimeAmount) async {
        let timer = IdleTimer(interval: interval)
        let task = Task { try await Task.sleep(for: .seconds(50)) }
        timer.cancel(whenIdle: { task.cancel() }, on: eventLoop)
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
