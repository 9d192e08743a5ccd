import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: a file body sent as exactly the length it announced.
    //
    // Behaviour handled (swift-corelibs-foundation 6.3.1 with Debian 12's libcurl 7.88): an
    // upload task from a file announces the file's size as its Content-Length, then reads the
    // file to its end, and libcurl before 8.7 sends what it reads: bytes appended during the
    // upload went out past the length, where a server reads them as another request. The same
    // reader crashes the process (`try!` on libcurl's error 43) when a server resets the
    // connection before reading the body, or when the file shrinks under it.
    // Tests: ChangingFileBodyTests (a file that grows or shrinks while it is sent),
    // InterruptedFileUploadTests (an upload reset unread, or cancelled, while it is sent), and
    // a file sent again for a challenge (URLSessionTransport+SessionDelegateTests).
    // Remove when corelibs neither reads a file body past the size it announced nor crashes
    // on those resets.

    /// A file's first `length` bytes as a body stream, which fails rather than end anywhere else:
    /// at a file that turns out shorter, or one that goes on past `length`.
    ///
    /// The file is opened when the stream is made, before anything is sent, and closed when the
    /// stream goes away (the session never closes a body stream). The session opens the stream
    /// again to send the request again on the same task (with a credential that answers an
    /// authentication challenge): it then reads from the start. It opens and reads the stream on
    /// its work queue alone.
    final class FileBodyStream: InputStream {
        private let length: Int64
        private let descriptor: Int32
        private var remaining: Int64 = 0
        private var status = Stream.Status.notOpen
        private let changed = Locked(false)

        /// Opens `file`, which must still be a regular file of `length` bytes.
        ///
        /// - Throws: `RequestError.bodyFileChanged` for a file that no longer is, or the
        ///   system's error for one that cannot be opened.
        init(_ file: URL, length: Int64) throws {
            // Not blocking: the path may name a pipe by now, whose open would wait for a writer.
            let descriptor = file.withUnsafeFileSystemRepresentation { path in
                path.map { openFile($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } ?? -1
            }
            guard descriptor >= 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: [NSFilePathErrorKey: file.path])
            }
            var info = stat()
            let flags = fcntl(descriptor, F_GETFL)
            guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == length,
                flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0
            else {
                closeFile(descriptor)
                throw RequestError.bodyFileChanged(file.path)
            }
            self.descriptor = descriptor
            self.length = length
            super.init(data: Data())
        }

        deinit {
            closeFile(descriptor)
        }

        /// Whether a read found the file shorter or longer than its length.
        var foundFileChanged: Bool { changed.withLock { $0 } }

        override func open() {
            if lseek(descriptor, 0, SEEK_SET) == 0 {
                remaining = length
                status = .open
            } else {
                status = .error
            }
        }

        override func close() {
            status = .closed
        }

        /// Ends the stream: its next read fails, so that the session sends no more of the body.
        func stop() {
            status = .error
        }

        override var streamStatus: Stream.Status { status }

        /// True until the stream has ended, and after it failed: the session reads while it is
        /// true (a read is where a changed file is found), and takes it being false for the
        /// body's end, not for a failure, which only a read can report.
        override var hasBytesAvailable: Bool { status == .open || status == .error }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
            guard status == .open else { return status == .atEnd ? 0 : -1 }
            if remaining == 0 {
                // The whole length is sent: the file must end here.
                var probe: UInt8 = 0
                let count = readFile(descriptor, into: &probe, count: 1)
                guard count == 0 else { return fail(fileChanged: count > 0) }
                status = .atEnd
                return 0
            }
            let count = readFile(descriptor, into: buffer, count: Int(min(Int64(maxLength), remaining)))
            guard count > 0 else { return fail(fileChanged: count == 0) }
            remaining -= Int64(count)
            return count
        }

        private func fail(fileChanged: Bool) -> Int {
            if fileChanged {
                changed.withLock { $0 = true }
            }
            status = .error
            return -1
        }
    }

    // The system's calls, which `InputStream`'s own `open`, `read` and `close` hide inside the class.

    private func openFile(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
        open(path, flags)
    }

    private func closeFile(_ descriptor: Int32) {
        close(descriptor)
    }

    /// read(2), again when a signal interrupts it.
    private func readFile(_ descriptor: Int32, into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        while true {
            let result = read(descriptor, buffer, count)
            if result >= 0 || errno != EINTR {
                return result
            }
        }
    }

    extension URLSession {
        /// A task that sends `urlRequest` with `file`'s `length` bytes as its body, framed by a
        /// `Content-Length` of `length` (see `FileBodyStream`).
        ///
        /// - Throws: What ``TransportRequest/checkFileBody()`` throws for a file that cannot be
        ///   opened, or `RequestError.bodyFileChanged` for one that changed since it was checked;
        ///   nothing is sent then.
        func uploadTask(
            with urlRequest: URLRequest,
            fromFile file: URL,
            length: Int64?,
            of request: TransportRequest
        ) throws -> URLSessionTask {
            guard let length else {
                throw request.unreadableFileBody(because: CocoaError(.fileReadNoSuchFile))
            }
            let stream: FileBodyStream
            do {
                stream = try FileBodyStream(file, length: length)
            } catch let error as POSIXError {
                throw request.unreadableFileBody(because: error)
            }
            var urlRequest = urlRequest
            urlRequest.setValue(String(length), forHTTPHeaderField: "Content-Length")
            // A body stream has no length the session knows, so libcurl would send it chunked
            // beside that Content-Length, unless the request has a Transfer-Encoding field of its
            // own; one that is blank is not sent.
            urlRequest.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
            urlRequest.httpBodyStream = stream
            return dataTask(with: urlRequest)
        }
    }
#endif
