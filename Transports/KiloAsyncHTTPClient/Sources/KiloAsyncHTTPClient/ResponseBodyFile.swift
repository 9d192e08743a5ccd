import AsyncHTTPClient
import Foundation
import Kilo
import NIOCore
import NIOFoundationCompat
import NIOPosix

/// Streams a response body to a file, in bounded memory.
///
/// The body goes to a temporary file beside the destination, which replaces the destination only
/// when the whole body has arrived, as a `URLSession` download task's file does; on any failure
/// the destination is left as it was and the temporary file is removed.
enum ResponseBodyFile {
    /// How many received bytes are gathered before they are written.
    static let writeSize = 256 * 1024

    /// Writes a body to a file.
    ///
    /// - Parameters:
    ///   - body: The response body.
    ///   - destination: The file to write, replacing any there.
    ///   - expected: The body's size, if the response gave one.
    ///   - progress: Told of the bytes received as they are written.
    ///   - timer: Touched with each chunk received.
    /// - Returns: The number of bytes written.
    /// - Throws: ``LocalFileError`` if the file cannot be written, or what the body throws.
    static func write(
        _ body: ResponseBody,
        to destination: URL,
        expected: Int64?,
        progress: ProgressObserver?,
        timer: IdleTimer?
    ) async throws -> Int64 {
        // A name of fixed length, not the destination's own with a suffix: the destination may
        // already have the longest name its file system takes.
        let partial = destination.deletingLastPathComponent()
            .appendingPathComponent(".kilo-part-\(UUID().uuidString)")
        let writer = try await NIOThreadPool.singleton.runIfActive { try FileWriter(url: partial) }
        var isComplete = false
        defer {
            if !isComplete {
                writer.discard()
            }
        }
        var pending = ByteBuffer()
        var written: Int64 = 0
        for try await chunk in body {
            timer?.touch()
            pending.writeImmutableBuffer(chunk)
            if pending.readableBytes >= writeSize {
                written += try await write(&pending, with: writer)
                progress?.reportReceived(written, of: expected)
            }
        }
        written += try await write(&pending, with: writer)
        try await NIOThreadPool.singleton.runIfActive { try writer.finish(replacing: destination) }
        isComplete = true
        return written
    }

    private static func write(_ pending: inout ByteBuffer, with writer: FileWriter) async throws -> Int64 {
        let chunk = pending
        pending.clear()
        guard chunk.readableBytes > 0 else { return 0 }
        try await NIOThreadPool.singleton.runIfActive { try writer.write(chunk) }
        return Int64(chunk.readableBytes)
    }
}

/// A temporary file that a response body is written to, one call at a time.
///
/// `@unchecked Sendable`: its only state is the file handle, which only one download uses, one
/// call at a time, each on a thread-pool thread.
final class FileWriter: @unchecked Sendable {
    private let url: URL
    private let handle: FileHandle

    init(url: URL) throws {
        self.url = url
        do {
            // Not `FileManager.createFile`, which says only that it failed: this throws the
            // reason (a missing folder, no permission), as URLSessionTransport reports it.
            try Data().write(to: url)
        } catch {
            throw LocalFileError(underlying: error)
        }
        do {
            handle = try FileHandle(forWritingTo: url)
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw LocalFileError(underlying: error)
        }
    }

    func write(_ buffer: ByteBuffer) throws {
        do {
            try handle.write(contentsOf: buffer.readableBytesView)
        } catch {
            throw LocalFileError(underlying: error)
        }
    }

    /// Closes the file and moves it to `destination`, replacing any file there atomically.
    func finish(replacing destination: URL) throws {
        do {
            try handle.close()
            guard rename(url.path, destination.path) == 0 else {
                throw POSIXError(
                    POSIXErrorCode(rawValue: errno) ?? .EIO,
                    userInfo: [NSFilePathErrorKey: destination.path]
                )
            }
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw LocalFileError(underlying: error)
        }
    }

    /// Closes and removes the file after a failure. Failing to remove it loses nothing that
    /// matters: it is a partial body in the destination's folder, with a name of its own.
    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }
}
