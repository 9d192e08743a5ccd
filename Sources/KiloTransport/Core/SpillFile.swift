import Foundation

/// Bytes that wait for a slow reader on disk rather than in memory: an unnamed temporary file,
/// appended to by a producer that cannot pause and read back in order.
///
/// The file is unlinked as soon as it is created, so that nothing is left behind whatever
/// becomes of the process, and no other user can open it (it is created 0600).
final class SpillFile {
    private let handle: FileHandle
    private var readOffset: UInt64 = 0
    private var writeOffset: UInt64 = 0

    /// The bytes written and not yet read.
    var count: Int { Int(writeOffset - readOffset) }

    /// Creates an empty, unlinked file in the temporary directory.
    ///
    /// - Throws: The file system's error.
    init() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("kilo-body-\(UUID().uuidString).spill").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: [NSFilePathErrorKey: path])
        }
        unlink(path)
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Appends `data` at the end.
    func append(_ data: Data) throws {
        try handle.seek(toOffset: writeOffset)
        try handle.write(contentsOf: data)
        writeOffset += UInt64(data.count)
    }

    /// Reads up to `limit` of the oldest unread bytes, or `nil` when none are left.
    func read(upTo limit: Int) throws -> Data? {
        guard count > 0 else { return nil }
        try handle.seek(toOffset: readOffset)
        let data = try handle.read(upToCount: min(limit, count)) ?? Data()
        readOffset += UInt64(data.count)
        return data
    }
}
