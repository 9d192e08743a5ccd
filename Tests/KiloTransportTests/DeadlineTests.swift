import Foundation
import Testing

@testable import KiloTransport

/// `Deadline.run`, the whole-request deadline of `send(_:)` and of every `invoke`.
///
/// Deadlines that should not be reached are seconds long: a busy machine can keep a new task
/// from running for seconds, and the deadline's timer does not wait for the cooperative pool.
@Suite struct DeadlineTests {
    @Test func returnsTheValueOfAnOperationThatEndsInTime() async throws {
        let value = try await Deadline.run(60) { 42 }
        #expect(value == 42)
    }

    @Test func cancelsAnOperationPastItsDeadline() async throws {
        let started = ContinuousClock.now
        let error = await #expect(throws: LimitError.self) {
            try await Deadline.run(0.2) {
                try await Task.sleep(for: .seconds(30))
            }
        }
        #expect(error == LimitError.deadlineExceeded(after: 0.2))
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func passesOnTheOperationsError() async throws {
        await #expect(throws: URLError(.networkConnectionLost)) {
            try await Deadline.run(60) { () async throws -> Int in throw URLError(.networkConnectionLost) }
        }
    }

    /// Cancelling the caller cancels the operation, which surfaces as `URLError.cancelled`.
    @Test func cancellingTheCallerCancelsTheOperation() async throws {
        let caller = Task {
            try await Deadline.run(60) {
                try await Task.sleep(for: .seconds(30))
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        caller.cancel()
        await #expect(throws: URLError(.cancelled)) { try await caller.value }
    }

    @TaskLocal static var marker = false

    /// The operation sees the caller's task-local values, as a child task does.
    @Test func runsTheOperationWithTheCallersTaskLocals() async throws {
        let marked = try await Self.$marker.withValue(true) {
            try await Deadline.run(60) { Self.marker }
        }
        #expect(marked)
    }

    /// One timer serves every deadline: one earlier than those in flight is still kept, and one
    /// later than a deadline that was not reached still comes when its time does.
    @Test func deadlinesShareOneTimer() async throws {
        let long = Task {
            try await Deadline.run(60) { try await Task.sleep(for: .seconds(30)) }
        }
        defer { long.cancel() }
        let started = ContinuousClock.now
        await #expect(throws: LimitError.deadlineExceeded(after: 0.3)) {
            try await Deadline.run(0.3) { try await Task.sleep(for: .seconds(30)) }
        }
        _ = try await Deadline.run(5) { 1 }
        await #expect(throws: LimitError.deadlineExceeded(after: 6)) {
            try await Deadline.run(6) { try await Task.sleep(for: .seconds(30)) }
        }
        #expect(ContinuousClock.now - started < .seconds(28))
    }
}

/// A deadline or a cancellation returns at once, even when the work it cancels does not end:
/// a platform stuck in a transfer holds only its own task.
@Suite struct DeadlineOverStuckWorkTests {
    /// Work that ignores cancellation and ends only when `release` is called.
    private final class StuckWork: Sendable {
        private let state = Locked<(released: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        func run() async {
            await withCheckedContinuation { continuation in
                let released = state.withLock { state in
                    if !state.released {
                        state.waiter = continuation
                    }
                    return state.released
                }
                if released {
                    continuation.resume()
                }
            }
        }

        func release() {
            let waiter = state.withLock { state in
                state.released = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    @Test func theDeadlineReturnsWhileTheWorkIgnoresCancellation() async throws {
        let work = StuckWork()
        defer { work.release() }
        let started = ContinuousClock.now
        await #expect(throws: LimitError.deadlineExceeded(after: 0.5)) {
            try await Deadline.run(0.5) { await work.run() }
        }
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func cancellingTheCallerReturnsWhileTheWorkIgnoresIt() async throws {
        let work = StuckWork()
        defer { work.release() }
        let caller = Task {
            try await Deadline.run(600) { await work.run() }
        }
        try await Task.sleep(for: .milliseconds(50))
        caller.cancel()
        await #expect(throws: URLError(.cancelled)) { try await caller.value }
    }
}

/// A step that cannot be undone is sealed: once taken, the operation's own end is the caller's;
/// after a deadline or a cancellation, it is not taken.
@Suite struct DeadlineSealTests {
    @Test func aSealedOperationEndsAsItsOwnThoughCancelled() async throws {
        let sealed = AsyncStream<Void>.makeStream()
        let caller = Task {
            try await Deadline.run(60) { seal in
                #expect(seal())
                sealed.continuation.yield()
                try? await Task.sleep(for: .milliseconds(200))  // cancelled meanwhile
                return "done"
            }
        }
        for await _ in sealed.stream { break }
        caller.cancel()
        #expect(try await caller.value == "done")
    }

    @Test func aStepAfterTheDeadlineIsNotTaken() async throws {
        let taken = Locked<Bool?>(nil)
        await #expect(throws: LimitError.deadlineExceeded(after: 0.2)) {
            try await Deadline.run(0.2) { seal in
                try? await Task.sleep(for: .seconds(1))
                taken.withLock { $0 = seal() }
            }
        }
        for _ in 0..<200 where taken.withLock({ $0 }) == nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(taken.withLock { $0 } == false)
    }
}
