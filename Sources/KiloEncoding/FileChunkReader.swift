import Foundation

/// Reads a file argument in fixed-size chunks, so a file of any size needs little memory.
enum FileChunkReader {
    /// The size of each chunk handed to the output.
    static let chunkSize = 256 * 1024

    /// Reads `url` to its end, passing each chunk to `output`.
    ///
    /// - Throws: ``ArgumentEncodingError/unreadableFile(_:url:reason:)`` if the file cannot be
    ///   opened or read, or whatever `output` throws.
    static func read(_ url: URL, key: String, into output: (Data) throws -> Void) throws {
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
}
