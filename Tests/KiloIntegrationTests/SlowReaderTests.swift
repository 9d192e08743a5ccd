import Foundation
import Kilo
import Testing

/// A reader slower than its server, against `Service/fault_server.py` on 127.0.0.1, on every
/// transport: what waits for it is bounded by `maximumUnreadSize`, and on disk (Linux's
/// URLSession, which cannot slow a server down) only what waits unread is kept. A transport that
/// pauses slows the server down instead, and keeps nothing on disk.
///
/// Each watches the process's spill files, which another test's would add to, so each runs alone,
/// with the memory checks (names ending in `InBoundedMemory`; see Scripts/test.sh).
@Suite(
    .serialized,
    .enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"),
    .timeLimit(.minutes(2))
)
struct SlowReaderTests {
    #if !KILO_ASYNC_HTTP_CLIENT && os(Linux)
        /// Whether the transport under test keeps what a slow reader has not taken on disk.
        static let spills = true
    #else
        static let spills = false
    #endif

    /// The bound the tests set, and the most the disk may hold under it: the bound, less the
    /// MiB that waits in memory, rounded up to the file system's blocks.
    private static let bound = 16 << 20

    /// Waits, up to 30 seconds, until `condition` holds; returns whether it did.
    private static func wait(until condition: () -> Bool) async throws -> Bool {
        for _ in 0..<1500 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// A reader that takes one chunk of an endless-seeming body and then stops reading fails with
    /// the named limit once 16 MiB wait for it, before the disk holds more than that; the server
    /// sees the connection close. Over a transport that pauses, the server is slowed instead, and
    /// nothing fails.
    @Test func aReaderThatFallsBehindFailsAtTheUnreadLimitInBoundedMemory() async throws {
        let key = FaultServer.makeKey("unread")
        let proxy = try FaultServer.proxy().withLimits {
            $0.maximumUnreadSize = Self.bound
            $0.deadline = 60
        }
        let chunks = try await proxy.stream(
            .get,
            path: "pattern",
            arguments: ["mb": 1024, "hold-after": 128, "key": key],
            as: .bytes
        )
        var iterator = chunks.makeAsyncIterator()
        _ = try await iterator.next()
        let mostOnDisk = MostOnDisk()
        let sampler = Task {
            while !Task.isCancelled {
                mostOnDisk.record(SpillFiles.bytesOnDisk())
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        defer { sampler.cancel() }
        guard Self.spills else {
            try await Task.sleep(for: .seconds(2))
            #expect(SpillFiles.bytesOnDisk() == 0)
            #expect(try await iterator.next() != nil, "the paused transfer goes on")
            return
        }
        // Once the body has failed, its files are closed: the disk holds nothing again.
        let filled = try await Self.wait { mostOnDisk.value > 8 << 20 }
        #expect(filled, "the reader fell behind, and what it had not read waited on disk")
        #expect(try await Self.wait { SpillFiles.bytesOnDisk() == 0 })
        let error = await #expect(throws: LimitError.self) {
            while try await iterator.next() != nil {}
        }
        #expect(error == .unreadTooLarge(limit: Self.bound))
        #expect(error?.name == "maximumUnreadSize")
        let most = mostOnDisk.value
        #expect(most <= Self.bound, "\(most) bytes on disk under a bound of \(Self.bound)")
        let transfer = try await FaultServer.transfer(key)
        #expect(transfer.wasCutShort, "the server sent \(transfer.sent ?? 0) of \(transfer.size ?? 0) bytes")
    }

    /// A compressed event stream read more slowly than it decodes (a few KiB of brotli that
    /// decode to a GiB of zeros: on Linux's URLSession, gigabytes on disk within seconds) fails
    /// with the named limit once 16 MiB wait; async-http-client, which cannot decode brotli,
    /// refuses it at once.
    @Test func aCompressedStreamReadSlowlyFailsAtTheUnreadLimitInBoundedMemory() async throws {
        let proxy = try FaultServer.proxy().withLimits {
            $0.maximumUnreadSize = Self.bound
            $0.deadline = 60
        }
        let arguments: [String: Any] = ["encoding": "br", "mb": 1024, "type": "text/event-stream"]
        guard Self.spills else {
            #if KILO_ASYNC_HTTP_CLIENT
                let error = await #expect(throws: URLError.self) {
                    let chunks = try await proxy.stream(.get, path: "bomb", arguments: arguments, as: .bytes)
                    for try await _ in chunks {}
                }
                #expect(error?.code == .cannotDecodeContentData)
            #endif
            return
        }
        let chunks = try await proxy.stream(.get, path: "bomb", arguments: arguments, as: .bytes)
        var iterator = chunks.makeAsyncIterator()
        _ = try await iterator.next()
        try await Task.sleep(for: .seconds(2))  // the reader falls behind
        #expect(try await Self.wait { SpillFiles.bytesOnDisk() == 0 }, "the stream failed and its files closed")
        let error = await #expect(throws: LimitError.self) {
            while try await iterator.next() != nil {}
        }
        #expect(error == .unreadTooLarge(limit: Self.bound))
    }

    /// The disk gives back what the reader has read: a reader that falls 100 MiB behind, then
    /// catches up by 64 MiB, leaves at most what it has not read, and 4 MiB more, on disk; a
    /// single growing file held all that had passed through, 100 MiB, until it was emptied.
    @Test func theDiskHoldsWhatWaitsUnreadInBoundedMemory() async throws {
        let size = 128 << 20
        let proxy = try FaultServer.proxy().withLimits {
            $0.maximumUnreadSize = nil
            $0.deadline = 60
        }
        let chunks = try await proxy.stream(.get, path: "pattern", arguments: ["mb": size >> 20], as: .bytes)
        var iterator = chunks.makeAsyncIterator()
        var checker = Pattern.Checker()
        checker.check(try #require(try await iterator.next()))
        if Self.spills {
            let behind = try await Self.wait { SpillFiles.bytesOnDisk() > 100 << 20 }
            #expect(behind, "the reader fell 100 MiB behind")
        }
        while checker.count < 64 << 20, let chunk = try await iterator.next() {
            checker.check(chunk)
        }
        let onDisk = SpillFiles.bytesOnDisk()
        #expect(onDisk <= size - checker.count + (4 << 20), "\(onDisk >> 20) MiB on disk, \(checker.count >> 20) MiB read")
        while let chunk = try await iterator.next() {
            checker.check(chunk)
        }
        #expect(checker.isExact(count: size), "first difference at \(checker.firstMismatch ?? -1)")
        #expect(SpillFiles.bytesOnDisk() == 0)
    }

    /// The most bytes seen on disk, from the sampling task.
    private final class MostOnDisk: @unchecked Sendable {
        // `@unchecked Sendable`: `most` is only touched under `lock`.
        private let lock = NSLock()
        private var most = 0

        var value: Int { lock.withLock { most } }

        func record(_ bytes: Int) {
            lock.withLock { most = max(most, bytes) }
        }
    }
}
