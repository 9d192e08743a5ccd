import Foundation
import Kilo
import Testing

/// What the fault server saw of the bodies it sent: the event that shows a client stopped a
/// transfer, rather than a clock.
extension FaultServer {
    /// `/transfer`: how the last body the server sent under a key went.
    struct Transfer: Decodable, Sendable {
        /// Whether the body is over: all written, or the client closed the connection.
        var done: Bool
        /// Whether the client closed the connection before the whole body was written.
        var closed: Bool?
        /// The bytes written to the connection, before the close if there was one.
        var sent: Int?
        /// The body's length.
        var size: Int?
        /// The seconds from the response's head to the end of the body or the close.
        var seconds: Double?

        /// Whether the client closed the connection with part of the body still unwritten.
        var wasCutShort: Bool {
            closed == true && (sent ?? 0) < (size ?? 0)
        }
    }

    /// How the body sent under `key` went, once it is over.
    ///
    /// - Parameter key: The key the request carried.
    /// - Returns: The server's record.
    /// - Throws: An expectation failure when the body is not over within a minute: the client is
    ///   still reading it. (A minute, because on Linux a cancelled task closes its connection
    ///   only once the work queue that all of a process's URL sessions share gets to it, which
    ///   the other tests of a full run keep busy.)
    static func transfer(_ key: String) async throws -> Transfer {
        let proxy = try self.proxy()
        let clock = ContinuousClock()
        let end = clock.now + .seconds(60)
        while clock.now < end {
            let transfer: Transfer = try await proxy.invoke(.get, path: "transfer", arguments: ["key": key])
            if transfer.done {
                return transfer
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the fault server is still sending the body under \(key) after a minute")
        return Transfer(done: false)
    }

    /// The resident set size now, and the largest seen while `operation` ran (sampled every
    /// 10 ms), in bytes; `nil` for both where there is no `/proc`.
    static func residentMemory<T: Sendable>(
        during operation: () async throws -> T
    ) async rethrows -> (value: T, before: Int?, peak: Int?) {
        guard let before = residentMemory() else {
            return (try await operation(), nil, nil)
        }
        let sampler = Task {
            var peak = before
            while !Task.isCancelled {
                peak = max(peak, residentMemory() ?? 0)
                try? await Task.sleep(for: .milliseconds(10))
            }
            return peak
        }
        let value: T
        do {
            value = try await operation()
        } catch {
            sampler.cancel()
            throw error
        }
        sampler.cancel()
        return (value, before, max(await sampler.value, residentMemory() ?? 0))
    }
}

/// The body of the fault server's `/pattern?mb=M`: each MiB is one MiB of splitmix64 output, with
/// its first 8 bytes replaced by its index, so that a chunk lost, repeated or out of order shows
/// at the byte where it happens.
enum Pattern {
    static let blockSize = 1 << 20

    /// The MiB the pattern repeats, before its index is written in.
    static let block: Data = {
        var state: UInt64 = 0x4B49_4C4F
        var words = [UInt64]()
        words.reserveCapacity(blockSize / 8)
        for _ in 0..<(blockSize / 8) {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            words.append((z ^ (z >> 31)).littleEndian)
        }
        return words.withUnsafeBytes { Data($0) }
    }()

    /// The pattern's bytes in `range`.
    static func bytes(in range: Range<Int>) -> Data {
        var data = Data(capacity: range.count)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let index = offset / blockSize
            let start = offset % blockSize
            let end = min(blockSize, start + range.upperBound - offset)
            if start < 8 {
                let head = withUnsafeBytes(of: UInt64(index).bigEndian) { Data($0) }
                data.append(head[start..<min(8, end)])
            }
            if end > 8 {
                data.append(block[max(8, start)..<end])
            }
            offset += end - start
        }
        return data
    }

    /// Checks a body against the pattern as its chunks arrive, without keeping it.
    struct Checker {
        /// The bytes checked so far.
        private(set) var count = 0
        /// The offset of the first byte that differs from the pattern, if any.
        private(set) var firstMismatch: Int?

        /// Checks the next chunk.
        mutating func check(_ chunk: Data) {
            if firstMismatch == nil {
                let expected = Pattern.bytes(in: count..<(count + chunk.count))
                if chunk != expected {
                    let offset = zip(chunk, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    firstMismatch = count + (offset ?? 0)
                }
            }
            count += chunk.count
        }

        /// Whether `count` bytes have arrived, each as the pattern has it.
        func isExact(count expected: Int) -> Bool {
            firstMismatch == nil && count == expected
        }
    }
}
