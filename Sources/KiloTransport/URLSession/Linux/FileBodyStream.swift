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
    // connection before reading the body, or when the file shrinks under it; and it moves 256 MiB
    // over loopback 4 to 6 times slower than this stream.
    // Tests: ChangingFileBodyTests (a file that grows or shrinks while it is sent),
    // InterruptedFileUploadTests (an upload reset unread, or cancelled, while it is sent).
    // Remove when corelibs stops reading a file body past the size it announced.

    /// A file's first `length` bytes as a body stream, which fails rather than end anywhere else:
    /// at a file that turns out shorter, or one that goes on past `length`. It closes its file as
    /// soon as it ends or fails (the session never closes a body stream).
    ///
    /// The session opens and reads it on its work queue alone.
    final class FileBodyStream: InputStream {
        private let file: URL
        private var remaining: Int64
        private var descriptor: Int32 = -1
        private var status = Stream.Status.notOpen
        private var failure: (any Error)?

        init(_ file: URL, length: Int64) {
            self.file = file
            self.remaining = length
            super.init(data: Data())
        }

        override func open() {
            descriptor = file.withUnsafeFileSystemRepresentation { path in
                path.map { Glibc.open($0, O_RDONLY | O_CLOEXEC) } ?? -1
            }
            if descriptor < 0 {
                failure = POSIXError(errno)
                status = .error
            } else {
                status = .open
            }
        }

        override func close() {
            closeFile()
            status = .closed
        }

        deinit {
            closeFile()
        }

        private func closeFile() {
            if descriptor >= 0 {
                Glibc.close(descriptor)
                descriptor = -1
            }
        }

        override var streamStatus: Stream.Status { status }
        override var streamError: (any Error)? { failure }

        /// True until the stream has ended, and after it failed: the session reads while it is
        /// true (a read is where a changed file is found), and takes it being false for the
        /// body's end, not for a failure, which only a read can report.
        override var hasBytesAvailable: Bool { status == .open || status == .error }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
            guard status == .open else { return status == .atEnd ? 0 : -1 }
            if remaining == 0 {
                // The whole length is sent: the file must end here.
                var probe: UInt8 = 0
                let count = readRetryingInterrupts(into: &probe, count: 1)
                guard count == 0 else { return fail(count < 0 ? POSIXError(errno) : POSIXError(.EFBIG)) }
                closeFile()
                status = .atEnd
                return 0
            }
            let count = readRetryingInterrupts(into: buffer, count: Int(min(Int64(maxLength), remaining)))
            guard count > 0 else { return fail(count < 0 ? POSIXError(errno) : POSIXError(.ENODATA)) }
            remaining -= Int64(count)
            return count
        }

        private func readRetryingInterrupts(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
            while true {
                let result = Glibc.read(descriptor, buffer, count)
                if result >= 0 || errno != EINTR {
                    return result
                }
            }
        }

        private func fail(_ error: any Error) -> Int {
            closeFile()
            failure = error
            status = .error
            return -1
        }
    }

    extension POSIXError {
        /// The error for `code`, or `EIO` for a value POSIX does not name.
        fileprivate init(_ code: Int32) {
            self.init(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    extension URLSession {
        /// A task that sends `request` with `file`'s first `length` bytes as its body, framed by a
        /// `Content-Length` of `length` (see `FileBodyStream`), or with the whole file when its
        /// length is unknown (the file is gone, and the session reports it).
        func uploadTask(with request: URLRequest, fromFile file: URL, length: Int64?) -> URLSessionTask {
            guard let length else { return uploadTask(with: request, fromFile: file) }
            var request = request
            request.setValue(String(length), forHTTPHeaderField: "Content-Length")
            // A body stream has no length the session knows, so libcurl would send it chunked
            // beside that Content-Length, unless the request has a Transfer-Encoding field of its
            // own; one that is blank is not sent.
            request.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
            request.httpBodyStream = FileBodyStream(file, length: length)
            return dataTask(with: request)
        }
    }
#endif
