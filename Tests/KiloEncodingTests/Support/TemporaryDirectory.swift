import Foundation

/// A directory of its own under the system's temporary directory, removed with everything in it
/// when the last reference goes away.
///
/// Hold one in a test suite's stored property: Swift Testing makes a new suite instance for each
/// test, so every test gets a fresh, empty directory that is cleaned up when the test ends.
final class TemporaryDirectory: Sendable {
    /// The directory.
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("KiloEncodingTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)  // Best effort: a leftover temp dir harms nothing.
    }

    /// The URL of `name` inside the directory, without creating anything.
    func url(for name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: false)
    }

    /// Creates a file named `name` holding `contents`.
    @discardableResult
    func makeFile(named name: String, contents: Data) throws -> URL {
        let fileURL = url(for: name)
        try contents.write(to: fileURL)
        return fileURL
    }

    /// Creates a file named `name` holding `text` as UTF-8.
    @discardableResult
    func makeFile(named name: String, text: String) throws -> URL {
        try makeFile(named: name, contents: Data(text.utf8))
    }

    /// Creates a subdirectory named `name`.
    func makeDirectory(named name: String) throws -> URL {
        let directoryURL = url.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directoryURL, withIntermediateDirectories: false)
        return directoryURL
    }

    /// Whether anything exists at `fileURL`.
    func fileExists(at fileURL: URL) -> Bool {
        FileManager.default.fileExists(atPath: fileURL.path)
    }
}
