import Foundation

/// Bytes that wait for a slow reader on disk rather than in memory, appended by a producer that
/// cannot pause and read back in order.
///
/// They go into a chain of unnamed temporary files of ``segmentSize`` bytes each; a file is
/// closed, and its space returned, as soon as the reader has read past it, so the disk holds
/// what waits unread and at most one segment more, not the whole body that passed through.
/// Each file is unlinked as soon as it is created, so that nothing is left behind whatever
/// becomes of the process, and no other user can open it (it is created 0600).
final class SpillFile {
    /// One file of the chain.
    private struct Segment {
        let handle: FileHandle
        var readOffset: UInt64 = 0
        var writeOffset: UInt64 = 0
    }

    /// Bytes past which appending starts a new file: 4 MiB, small enough that what is read is
    /// soon given back, large enough that files are made rarely.
    static let segmentSize: UInt64 = 4 << 20

    private var segments: [Segment] = []
    private let makeFile: () throws -> FileHandle
    private let segmentSize: UInt64

    /// The bytes written and not yet read.
    private(set) var count = 0

    /// Creates an empty spill whose files go in the temporary directory.
    convenience init() {
        self.init(segmentSize: Self.segmentSize, makingFilesWith: Self.makeTemporaryFile)
    }

    /// Creates an empty spill whose files `makeFile` opens for reading and writing.
    init(segmentSize: UInt64, makingFilesWith makeFile: @escaping () throws -> FileHandle) {
        self.segmentSize = segmentSize
        self.makeFile = makeFile
    }

    /// Appends `data` at the end.
    ///
    /// - Throws: `URLError(.cannotWriteToFile)`, with the file system's error underneath, when
    ///   the disk is full or the file cannot be made or written.
    func append(_ data: Data) throws {
        do {
            if segments.last.map({ $0.writeOffset >= segmentSize }) ?? true {
                segments.append(Segment(handle: try makeFile()))
            }
            let last = segments.count - 1
            try segments[last].handle.seek(toOffset: segments[last].writeOffset)
            try segments[last].handle.write(contentsOf: data)
            segments[last].writeOffset += UInt64(data.count)
            count += data.count
        } catch {
            throw URLError(
                .cannotWriteToFile,
                userInfo: [
                    NSLocalizedDescriptionKey: "A response's unread bytes could not be kept in a temporary file.",
                    NSUnderlyingErrorKey: error,
                ]
            )
        }
    }

    /// Reads up to `limit` of the oldest unread bytes, or `nil` when none are left; a file read
    /// to its end is closed.
    ///
    /// - Throws: The file system's error.
    func read(upTo limit: Int) throws -> Data? {
        guard count > 0, var first = segments.first else { return nil }
        try first.handle.seek(toOffset: first.readOffset)
        let wanted = min(UInt64(limit), first.writeOffset - first.readOffset)
        let data = try first.handle.read(upToCount: Int(wanted)) ?? Data()
        guard !data.isEmpty else {
            throw CocoaError(.fileReadUnknown)  // shorter than what was written to it
        }
        first.readOffset += UInt64(data.count)
        count -= data.count
        if first.readOffset == first.writeOffset {
            segments.removeFirst()  // read to its end: its space goes back at once
        } else {
            segments[0] = first
        }
        return data
    }

    /// The bytes the files take on disk now, as the file system counts them.
    var bytesOnDisk: Int {
        segments.reduce(0) { total, segment in
            var status = stat()
            guard fstat(segment.handle.fileDescriptor, &status) == 0 else { return total }
            return total + Int(status.st_blocks) * 512
        }
    }

    /// Makes an unlinked file in the temporary directory, readable and writable by this user
    /// alone.
    private static func makeTemporaryFile() throws -> FileHandle {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("kilo-body-\(UUID().uuidString).spill").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: [NSFilePathErrorKey: path])
        }
        unlink(path)
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
}
