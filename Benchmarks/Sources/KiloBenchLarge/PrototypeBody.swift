import Foundation
import Kilo

/// A prototype of the proposed way to write a large multipart body file: the part headers with
/// `write(2)`, the file's bytes copied in the kernel with `sendfile(2)` (no trip through user
/// space, no `Data` per chunk), and no `fsync` (the file is read back at once and deleted).
///
/// Built outside Kilo for one file argument: the bytes around the file's contents are taken from
/// Kilo's own encoder, run on an empty file of the same name, so the output is byte-for-byte what
/// `MultipartEncoder.encode(_:toFile:)` writes with the same boundary.
enum PrototypeBody {
    @discardableResult
    static func writeWithSendfile(
        _ arguments: [String: Argument],
        encoder: MultipartEncoder,
        to output: URL,
        scratch: URL
    ) throws -> Int64 {
        let files = arguments.compactMap { key, value -> (String, URL)? in
            if case .file(let url) = value { return (key, url) }
            return nil
        }
        guard arguments.count == 1, let (key, file) = files.first else {
            throw BenchError("the prototype writes bodies of exactly one file argument")
        }
        let (head, tail) = try frame(file: file, key: key, encoder: encoder, scratch: scratch)

        let outputDescriptor = open(output.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard outputDescriptor >= 0 else { throw BenchError("open \(output.path): errno \(errno)") }
        defer { close(outputDescriptor) }
        let inputDescriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard inputDescriptor >= 0 else { throw BenchError("open \(file.path): errno \(errno)") }
        defer { close(inputDescriptor) }

        var written: Int64 = 0
        try writeAll(head, to: outputDescriptor)
        written += Int64(head.count)
        while true {
            // sendfile(2) copies at most 0x7ffff000 bytes per call; 0 means the end of the file.
            let copied = sendfile(outputDescriptor, inputDescriptor, nil, 1 << 30)
            if copied < 0 {
                if errno == EINTR { continue }
                throw BenchError("sendfile: errno \(errno)")
            }
            if copied == 0 { break }
            written += Int64(copied)
        }
        try writeAll(tail, to: outputDescriptor)
        written += Int64(tail.count)
        return written
    }

    /// The body of `[key: .file(file)]` without the file's contents: the bytes before them and
    /// after them, from Kilo's encoder run on an empty file of the same name.
    static func frame(file: URL, key: String, encoder: MultipartEncoder, scratch: URL) throws -> (head: Data, tail: Data) {
        let emptyDirectory = scratch.appendingPathComponent("empty-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: emptyDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: emptyDirectory) }
        let empty = emptyDirectory.appendingPathComponent(file.lastPathComponent)
        guard FileManager.default.createFile(atPath: empty.path, contents: Data()) else {
            throw BenchError("cannot create \(empty.path)")
        }
        let frame = try encoder.encode([key: .file(empty)])
        // The file's contents start after the blank line that ends its part's headers.
        guard let headerEnd = frame.range(of: Data("\r\n\r\n".utf8)) else {
            throw BenchError("the prototype cannot find the file part's headers")
        }
        return (Data(frame[..<headerEnd.upperBound]), Data(frame[headerEnd.upperBound...]))
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw BenchError("write: errno \(errno)")
                }
                offset += result
            }
        }
    }
}
