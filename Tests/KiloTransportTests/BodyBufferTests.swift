import Foundation
import KiloTransport
import Testing

/// A limit set on a body is counted as the producer appends, so that a producer that cannot pause
/// (Linux's URLSession) is stopped at the limit however far behind the reader is.
@Suite struct BodyBufferTests {
    /// A producer's `cancel()` calls, counted.
    private final class Cancels: Sendable {
        let count = Locked(0)

        func attach(to buffer: BodyBuffer) {
            buffer.attach(BodyBuffer.Producer(cancel: { self.count.withLock { $0 += 1 } }))
        }
    }

    private struct Passed: Error, Equatable {}

    /// Reads a body to its end.
    private static func readAll(_ buffer: BodyBuffer) async throws -> Data {
        var data = Data()
        while let chunk = try await buffer.next() {
            data.append(chunk)
        }
        return data
    }

    @Test func aLimitFailsTheBodyAndStopsTheProducerWithNoOneReading() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        let cancels = Cancels()
        cancels.attach(to: buffer)
        buffer.limit(to: 3 << 20, failingWith: Passed())
        for _ in 0..<3 {
            buffer.append(Data(count: 1 << 20))
        }
        #expect(cancels.count.withLock { $0 } == 0, "exactly at the limit")
        buffer.append(Data(count: 1))
        #expect(cancels.count.withLock { $0 } == 1)
        buffer.append(Data(count: 1 << 20))  // what a producer sends before it stops is ignored
        await #expect(throws: Passed()) { try await buffer.next() }
    }

    @Test func bytesAppendedBeforeTheLimitIsSetCount() async throws {
        let buffer = BodyBuffer()
        let cancels = Cancels()
        cancels.attach(to: buffer)
        buffer.append(Data(count: 2000))
        buffer.limit(to: 1000, failingWith: Passed())
        #expect(cancels.count.withLock { $0 } == 1)
        await #expect(throws: Passed()) { try await buffer.next() }
    }

    @Test func aLimitWithoutAnErrorEndsTheBodyAfterItsFirstBytes() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        let cancels = Cancels()
        cancels.attach(to: buffer)
        buffer.limit(to: 100, failingWith: nil)
        buffer.append(Data(repeating: 1, count: 60))
        buffer.append(Data(repeating: 2, count: 60))
        buffer.append(Data(repeating: 3, count: 60))
        #expect(cancels.count.withLock { $0 } == 1)
        #expect(try await Self.readAll(buffer) == Data(repeating: 1, count: 60) + Data(repeating: 2, count: 40))
    }

    /// A reader waiting for a chunk when the producer passes the limit gets the error at once.
    /// A limit the body has already passed, set while the producer appends on another thread:
    /// a chunk that came between the limit and the body's end took a prefix of negative length,
    /// which crashed the process (seen once in CI, reading a collected body over URLSession).
    @Test func aLimitSetWhileChunksArriveNeverCrashes() async throws {
        for _ in 0..<2_000 {
            let buffer = BodyBuffer()
            buffer.append(Data(count: 10))
            let appending = Task.detached {
                for _ in 0..<20 {
                    buffer.append(Data(count: 10))
                }
            }
            buffer.limit(to: 5, failingWith: nil)
            await appending.value
            #expect(buffer.hasEnded)
        }
    }

    @Test func aWaitingReaderGetsTheLimitsError() async throws {
        let buffer = BodyBuffer()
        buffer.limit(to: 10, failingWith: Passed())
        let reader = Task { try await Self.readAll(buffer) }
        buffer.append(Data(count: 5))
        buffer.append(Data(count: 6))
        await #expect(throws: Passed()) { try await reader.value }
    }

    /// A body that stays within its limit arrives whole, from memory and the spill file alike.
    @Test func aBodyWithinItsLimitArrivesWhole() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        buffer.limit(to: 4 << 20, failingWith: Passed())
        let chunks = (0..<64).map { Data(repeating: UInt8($0), count: 64 << 10) }
        for chunk in chunks {
            buffer.append(chunk)
        }
        buffer.finish()
        #expect(try await Self.readAll(buffer) == chunks.reduce(Data(), +))
    }

    /// A body that ended while chunks still wait on disk (a producer that cannot pause and a slow
    /// reader) fails in their place when it is cancelled, at its deadline say: what waits is
    /// not delivered.
    @Test func aBodyThatEndedUnreadStillFailsWhenCancelled() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        for _ in 0..<4 {
            buffer.append(Data(count: 1 << 20))
        }
        buffer.finish()
        _ = try await buffer.next()
        buffer.cancel(with: Passed())
        await #expect(throws: Passed()) { try await buffer.next() }
    }

    /// The deadline holds until the reader has taken the last chunk: a body that ended with
    /// chunks unread still fails when it passes.
    @Test func theDeadlineStillFailsABodyThatEndedUnread() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        for _ in 0..<4 {
            buffer.append(Data(count: 1 << 20))
        }
        buffer.finish()
        buffer.expire(after: 0.001)
        await #expect(throws: LimitError.deadlineExceeded(after: 0.001)) {
            while try await buffer.next() != nil {
                try await Task.sleep(nanoseconds: 500_000_000)  // 6 s in all, for a deadline of 1 ms
            }
        }
    }

    /// A reader whose task is cancelled stops at once, though chunks wait and the producer goes
    /// on appending: the work of a request whose deadline passed (`Deadline.run` returns without
    /// waiting for it) writes no more of the body anywhere, and the transfer is stopped.
    @Test func aCancelledReaderStopsThoughChunksWait() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        let cancels = Cancels()
        cancels.attach(to: buffer)
        for _ in 0..<4 {
            buffer.append(Data(count: 1 << 20))
        }
        let read = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var count = 0
            do {
                while count < 16 << 20, let chunk = try await buffer.next() {
                    count += chunk.count
                    buffer.append(Data(count: 1 << 20))  // a producer faster than its reader
                }
                return (count, nil as URLError?)
            } catch {
                return (count, error as? URLError)
            }
        }
        let (count, error) = await read.value
        #expect(count == 0)
        #expect(error?.code == .cancelled)
        #expect(cancels.count.withLock { $0 } == 1)
    }

    /// A body that has ended is read to its end by a cancelled reader: nothing more arrives, and a
    /// decorator may hand on a response it read whole after its task was cancelled.
    @Test func aBodyThatEndedIsReadWholeByACancelledReader() async throws {
        let buffer = BodyBuffer()
        buffer.append(Data(count: 10))
        buffer.append(Data(count: 20))
        buffer.finish()
        let read = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Self.readAll(buffer)
        }
        #expect(try await read.value.count == 30)
    }

    /// A body read to its end is not failed afterwards: the reader has had it all.
    @Test func aBodyReadToItsEndIsNotFailedLater() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        buffer.append(Data(count: 3 << 20))
        buffer.finish()
        #expect(try await Self.readAll(buffer).count == 3 << 20)
        buffer.cancel(with: Passed())
        #expect(try await buffer.next() == nil)
    }
}
