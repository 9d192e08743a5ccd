import Foundation

/// Reads a file argument in fixed-size chunks, so a file of any size needs little memory.
enum FileChunkReader {
    /// The size of each chunk handed to the output.
    static let chunkSize = 256 * 1024

    /// Reads `url` to its end, passing each chunk to `output`.
    ///
    /// - Throws: ``ArgumentEncodingError/unreadableFile(_:url:reason:)`` if the file is not a
    ///   regular file (see ``checkRegularFile(_:key:)``), or cannot be opened or read, or whatever
    ///   `output` throws.
    static func read(_ url: URL, key: String, into output: (Data) throws -> Void) throws {
        try checkRegularFile(url, key: key)
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw ArgumentEncodingError.unreadableFile(key, url: url, reason: error.localizedDescription)
        }
        defer { try? handle.close() }  // Read-only: closing cannot lose data.
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: chunkSize)
            } catch {
                throw ArgumentEncodingError.unreadableFile(key, url: url, reason: error.localizedDescription)
            }
            guard let chunk, !chunk.isEmpty else { return }
            try output(chunk)
        }
    }

    /// Checks that `url` names a regular file, after following symbolic links, without opening
    /// it: a directory cannot be read, a device such as `/dev/zero` never ends, and opening a
    /// named pipe waits for a writer, perhaps forever.
    ///
    /// - Throws: ``ArgumentEncodingError/unreadableFile(_:url:reason:)`` if the file does not
    ///   exist or is not a regular file.
    static func checkRegularFile(_ url: URL, key: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ArgumentEncodingError.unreadableFile(key, url: url, reason: "The file does not exist.")
        }
        guard !isDirectory.boolValue else {
            throw ArgumentEncodingError.unreadableFile(key, url: url, reason: "The file is a directory.")
        }
        let type: FileAttributeType?
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
            type = attributes[.type] as? FileAttributeType
        } catch {
            throw ArgumentEncodingError.unreadableFile(key, url: url, reason: error.localizedDescription)
        }
        guard type == .typeRegular else {
            throw ArgumentEncodingError.unreadableFile(
                key,
                url: url,
                reason: "The file is not a regular file (it is a device, a pipe or a socket)."
            )
        }
    }
}
