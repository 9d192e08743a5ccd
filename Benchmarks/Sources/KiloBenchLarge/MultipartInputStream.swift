import Foundation
import Kilo

/// A prototype of a multipart body produced as it is sent, with no body file: an `InputStream`
/// that yields the part headers, then the file's bytes (read straight into URLSession's buffer
/// with `read(2)`), then the closing boundary. It counts the bytes URLSession has taken, which is
/// upload progress without any delegate.
///
/// Built for one file argument; the bytes around the file come from Kilo's own encoder (see
/// ``PrototypeBody``), so the body is byte-for-byte what `MultipartEncoder` writes.
///
/// Not `Sendable` (Foundation makes `InputStream` explicitly not so): URLSession reads it from one
/// thread at a time, and `sent` is read under a lock once the upload is over.
final class MultipartInputStream: InputStream {
    private let head: [UInt8]
    private let tail: [UInt8]
    private let file: URL
    private var descriptor: Int32 = -1
    private var phase = 0  // 0 head, 1 file, 2 tail, 3 done
    private var offset = 0
    private var status: Stream.Status = .notOpen
    private var failure: (any Error)?
    private let lock = NSLock()
    private var sentBytes: Int64 = 0

    /// The body's length, for a `Content-Length` where the platform honours it (Darwin).
    let length: Int64

    init(file: URL, key: String, encoder: MultipartEncoder, scratch: URL) throws {
        let frame = try PrototypeBody.frame(file: file, key: key, encoder: encoder, scratch: scratch)
        head = Array(frame.head)
        tail = Array(frame.tail)
        self.file = file
        length = Int64(head.count + tail.count) + fileSize(file)
        super.init(data: Data())
    }

    var sent: Int64 { lock.withLock { sentBytes } }

    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { failure }
    override var hasBytesAvailable: Bool { phase < 3 }

    override func open() {
        descriptor = Glibc.open(file.path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            status = .error
            failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            return
        }
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
        status = .open
    }

    override func close() {
        if descriptor >= 0 {
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
        status = .closed
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard status == .open else { return status == .atEnd ? 0 : -1 }
        var count = 0
        while count < maxLength, phase < 3 {
            switch phase {
            case 0, 2:
                let bytes = phase == 0 ? head : tail
                let n = min(maxLength - count, bytes.count - offset)
                bytes.withUnsafeBufferPointer { source in
                    (buffer + count).update(from: source.baseAddress! + offset, count: n)
                }
                count += n
                offset += n
                if offset == bytes.count {
                    phase += 1
                    offset = 0
                }
            default:
                let n = Glibc.read(descriptor, buffer + count, maxLength - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    status = .error
                    failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                    return -1
                }
                if n == 0 {
                    phase = 2
                } else {
                    count += n
                    // One read per call: URLSession asks for its buffer's size each time.
                    if count > 0 { break }
                }
            }
            if phase == 1, count > 0 { break }
        }
        if phase == 3 { status = .atEnd }
        lock.withLock { sentBytes += Int64(count) }
        return count
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        length len: UnsafeMutablePointer<Int>
    ) -> Bool { false }
}
