import Foundation
import Kilo
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A spill file that cannot be written, as on a full disk, fails the stream at once with
/// `URLError(.cannotWriteToFile)`, against `Service/fault_server.py` on 127.0.0.1: the process's
/// file size limit (`RLIMIT_FSIZE`, 1 MiB, with `SIGXFSZ` ignored) makes the system refuse the
/// write with `EFBIG`, as a full disk refuses one with `ENOSPC`. Only Linux's URLSession spills;
/// over a transport that pauses, nothing is written and the test has nothing to show.
///
/// The limit holds for every file the process writes, so the test runs alone, with the memory
/// checks (its name ends in `InBoundedMemory`; see Scripts/test.sh).
@Suite(
    .serialized,
    .enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"),
    .timeLimit(.minutes(2))
)
struct FullDiskTests {
    #if !KILO_ASYNC_HTTP_CLIENT && os(Linux)
        @Test func aSpillFileThatCannotBeWrittenFailsTheStreamInBoundedMemory() async throws {
            let proxy = try FaultServer.proxy().withLimits { $0.deadline = 60 }
            let chunks = try await proxy.stream(.get, path: "pattern", arguments: ["mb": 64], as: .bytes)
            var iterator = chunks.makeAsyncIterator()
            let error = try await Self.withFileSizeLimit(1 << 20) {
                _ = try await iterator.next()
                try await Task.sleep(for: .seconds(2))  // the reader falls behind; the spill fails
                return await #expect(throws: URLError.self) {
                    while try await iterator.next() != nil {}
                }
            }
            #expect(error?.code == .cannotWriteToFile)
            #expect(SpillFiles.bytesOnDisk() == 0)
        }

        /// Runs `body` with the process's file size limit at `bytes`, and `SIGXFSZ` ignored, so that
        /// a write past it fails with `EFBIG` instead of ending the process; restores both after.
        private static func withFileSizeLimit<T>(_ bytes: Int, _ body: () async throws -> T) async throws -> T {
            var saved = rlimit()
            try #require(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved) == 0)
            let savedSignal = signal(SIGXFSZ, SIG_IGN)
            var limit = saved
            limit.rlim_cur = rlim_t(bytes)
            try #require(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0)
            defer {
                setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
                signal(SIGXFSZ, savedSignal)
            }
            return try await body()
        }
    #endif
}
