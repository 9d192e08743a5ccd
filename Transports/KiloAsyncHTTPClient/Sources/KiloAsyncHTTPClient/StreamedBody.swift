import AsyncHTTPClient
import Foundation
import Kilo
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOPosix

/// A request body handed to the client in chunks as it sends them, so that progress and the idle
/// timeout see the upload move, with its size known up front so that `Content-Length` is sent.
///
/// A file is read from disk a chunk at a time, so no more than a few chunks are ever in memory.
struct StreamedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// Where the bytes come from.
    enum Source: Sendable {
        case data(Data)
        case file(URL)
    }

    /// How many bytes go to the client at a time.
    static let chunkSize = 256 * 1024

    /// Data bodies up to this size are handed to the client whole; larger ones are streamed.
    static let wholeDataLimit = 1024 * 1024

    let source: Source
    let size: Int64
    let progress: ProgressObserver?
    let timer: IdleTimer?
    private let started = NIOLockedValueBox(false)

    /// Whether the client has asked for a chunk, so that the server may have seen part of the body.
    var hasStarted: Bool {
        started.withLockedValue { $0 }
    }

    /// The size of a body in bytes, reading a file's from the file system.
    ///
    /// - Parameter body: The body.
    /// - Returns: The size, or `nil` for no body.
    /// - Throws: `URLError.fileDoesNotExist` when a file body cannot be read or is not a regular
    ///   file after following symbolic links (a directory, a device, a pipe), as
    ///   ``URLSessionTransport`` reports it; nothing has been sent.
    static func size(of body: TransportRequest.Body?) throws -> Int64? {
        switch body {
        case nil:
            return nil
        case .data(let data):
            return Int64(data.count)
        case .file(let url):
            do {
                // The file a symbolic link names: `attributesOfItem` describes the link itself.
                let attributes = try FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
                guard let size = (attributes[.size] as? NSNumber)?.int64Value,
                    attributes[.type] as? FileAttributeType == .typeRegular,
                    FileManager.default.isReadableFile(atPath: url.path)
                else {
                    throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: url.path])
                }
                return size
            } catch {
                throw URLError(
                    .fileDoesNotExist,
                    userInfo: [
                        NSUnderlyingErrorKey: error as NSError, NSURLErrorFailingURLErrorKey: url,
                        NSLocalizedDescriptionKey: TransportFailure.describe(.fileDoesNotExist),
                    ]
                )
            }
        }
    }

    /// Whether ``makeBody(_:size:progress:timer:)`` streams a body rather than hand it over whole.
    static func isStreamed(_ body: TransportRequest.Body?) -> Bool {
        switch body {
        case nil: false
        case .data(let data): data.count > wholeDataLimit
        case .file: true
        }
    }

    /// The client's body for a transport request's body.
    ///
    /// Data up to ``wholeDataLimit`` is handed over whole; a file or more data is streamed.
    ///
    /// - Parameters:
    ///   - body: The transport request's body.
    ///   - size: Its size, from ``size(of:)``.
    ///   - progress: Told of each chunk as it is handed to the client.
    ///   - timer: Touched with each chunk.
    /// - Returns: The client's body (`nil` for none), and the stream it reads, if it is streamed.
    static func makeBody(
        _ body: TransportRequest.Body?,
        size: Int64?,
        progress: ProgressObserver?,
        timer: IdleTimer?
    ) -> (body: HTTPClientRequest.Body?, stream: StreamedBody?) {
        let source: Source
        switch body {
        case nil:
            return (nil, nil)
        case .data(let data) where !isStreamed(body):
            return (.bytes(data), nil)
        case .data(let data):
            source = .data(data)
        case .file(let url):
            source = .file(url)
        }
        let size = size ?? 0
        let streamed = StreamedBody(source: source, size: size, progress: progress, timer: timer)
        return (.stream(streamed, length: .known(size)), streamed)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(body: self)
    }

    /// Produces the chunks from the start; a file is read on `NIOThreadPool.singleton`.
    struct Iterator: AsyncIteratorProtocol {
        let body: StreamedBody
        private var reader: FileReader?
        private var sent: Int64 = 0

        init(body: StreamedBody) {
            self.body = body
        }

        mutating func next() async throws -> ByteBuffer? {
            if sent == 0 {
                body.started.withLockedValue { $0 = true }
            }
            guard sent < body.size else { return nil }
            let count = Int(Swift.min(Int64(StreamedBody.chunkSize), body.size - sent))
            let chunk: ByteBuffer
            switch body.source {
            case .data(let data):
                let start = data.startIndex + Int(sent)
                chunk = ByteBuffer(bytes: data[start..<(start + count)])
            case .file(let url):
                let reader = try await openedReader(url)
                let read = try await NIOThreadPool.singleton.runIfActive { try reader.read(upToCount: count) }
                guard !read.isEmpty else {
                    // It shrank: the request cannot carry the length it announced.
                    throw RequestError.bodyFileChanged(url.path)
                }
                // Whether it grew is asked before its last chunk goes, not after: the body must
                // end as soon as its last byte is sent, since a server may answer and close the
                // connection then, and the client fails a request whose body has not ended.
                if sent + Int64(read.count) == body.size, try await Self.size(of: url) != body.size {
                    throw RequestError.bodyFileChanged(url.path)
                }
                chunk = ByteBuffer(data: read)
            }
            sent += Int64(chunk.readableBytes)
            body.timer?.touch()
            body.progress?.reportSent(sent, of: body.size)
            return chunk
        }

        /// The size of the file at `url` now.
        private static func size(of url: URL) async throws -> Int64? {
            try await NIOThreadPool.singleton.runIfActive {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
                return (attributes[.size] as? NSNumber)?.int64Value
            }
        }

        private mutating func openedReader(_ url: URL) async throws -> FileReader {
            if let reader { return reader }
            let opened = try await NIOThreadPool.singleton.runIfActive { try FileReader(url: url) }
            reader = opened
            return opened
        }
    }
}

/// An open file that one iterator reads from, one call at a time; it is closed when released.
///
/// `@unchecked Sendable`: its only state is the file handle, which only the iterator that owns
/// the reader uses, one read at a time, each on a thread-pool thread.
final class FileReader: @unchecked Sendable {
    private let handle: FileHandle

    init(url: URL) throws {
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw LocalFileError(underlying: error)
        }
    }

    func read(upToCount count: Int) throws -> Data {
        do {
            return try handle.read(upToCount: count) ?? Data()
        } catch {
            throw LocalFileError(underlying: error)
        }
    }

    deinit {
        try? handle.close()  // Read-only: closing cannot lose data.
    }
}
