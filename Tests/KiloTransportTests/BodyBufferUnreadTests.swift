import Foundation
import KiloTransport
import Testing

/// What waits for a reader slower than a producer that cannot pause is bounded: past the bound
/// the body fails with `LimitError.unreadTooLarge` and the producer stops, whether or not anyone
/// is reading.
@Suite struct BodyBufferUnreadTests {
    /// A producer's `cancel()` calls, counted.
    private final class Cancels: Sendable {
        let count = Locked(0)

        func attach(to buffer: BodyBuffer) {
            buffer.attach(BodyBuffer.Producer(cancel: { self.count.withLock { $0 += 1 } }))
        }
    }

    @Test func whatWaitsUnreadFailsTheBodyPastItsBound() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        let cancels = Cancels()
        cancels.attach(to: buffer)
        buffer.limitUnread(to: 3 << 20)
        for _ in 0..<3 {
            buffer.append(Data(count: 1 << 20))  // the first MiB in memory, the rest on disk
        }
        #expect(cancels.count.withLock { $0 } == 0, "exactly at the bound")
        buffer.append(Data(count: 1))
        #expect(cancels.count.withLock { $0 } == 1)
        await #expect(throws: LimitError.unreadTooLarge(limit: 3 << 20)) { try await buffer.next() }
    }

    /// What the reader has taken no longer counts: a reader that keeps up passes any amount.
    @Test func aReaderThatKeepsUpNeverReachesTheBound() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        buffer.limitUnread(to: 2 << 20)
        var (appended, read) = (0, 0)
        for _ in 0..<64 {
            buffer.append(Data(count: 3 << 19))  // 1.5 MiB: half of it spills
            appended += 3 << 19
            while read < appended {
                read += try #require(try await buffer.next()).count
            }
        }
        buffer.finish()
        #expect(read == 96 << 20)
        #expect(try await buffer.next() == nil)
    }

    @Test func theBoundIsSixtyFourMebibytesUntilSet() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        for _ in 0..<64 {
            buffer.append(Data(count: 1 << 20))
        }
        buffer.append(Data(count: 1))
        await #expect(throws: LimitError.unreadTooLarge(limit: 64 << 20)) { try await buffer.next() }
        #expect(ResponseBody.defaultMaximumUnreadSize == 64 << 20)
    }

    @Test func noBoundLetsTheReaderFallBehind() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        buffer.limitUnread(to: nil)
        for _ in 0..<80 {
            buffer.append(Data(count: 1 << 20))
        }
        buffer.finish()
        var read = 0
        while let chunk = try await buffer.next() {
            read += chunk.count
        }
        #expect(read == 80 << 20)
    }

    /// A bound set below what already waits fails the body at once.
    @Test func aBoundBelowWhatWaitsFailsAtOnce() async throws {
        let buffer = BodyBuffer(policy: .spilling)
        let cancels = Cancels()
        cancels.attach(to: buffer)
        buffer.append(Data(count: 2 << 20))
        buffer.limitUnread(to: 1 << 20)
        #expect(cancels.count.withLock { $0 } == 1)
        await #expect(throws: LimitError.unreadTooLarge(limit: 1 << 20)) { try await buffer.next() }
    }

    /// A producer that pauses is asked to pause long before; the bound is not its to reach.
    @Test func aPausingProducerIsPausedNotFailed() async throws {
        let buffer = BodyBuffer(policy: .pausing)
        let pauses = Locked(0)
        buffer.attach(BodyBuffer.Producer(cancel: {}, pause: { pauses.withLock { $0 += 1 } }))
        buffer.limitUnread(to: 1 << 20)
        for _ in 0..<3 {
            buffer.append(Data(count: 1 << 20))  // a producer may deliver what is in flight
        }
        buffer.finish()
        #expect(pauses.withLock { $0 } == 1)
        var read = 0
        while let chunk = try await buffer.next() {
            read += chunk.count
        }
        #expect(read == 3 << 20)
    }
}
