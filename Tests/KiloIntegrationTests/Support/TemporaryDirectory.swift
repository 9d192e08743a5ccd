import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is released.
final class TemporaryDirectory {
    /// The directory.
    let url: URL

    /// Creates the directory.
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("kilo-integration-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)  // Best effort: the system cleans up the rest.
    }

    /// Writes a file into the directory.
    ///
    /// - Parameters:
    ///   - data: The file's contents.
    ///   - name: The file's name.
    /// - Returns: The file's URL.
    func write(_ data: Data, named name: String) throws -> URL {
        let fileURL = url.appendingPathComponent(name, isDirectory: false)
        try data.write(to: fileURL)
        return fileURL
    }
}
