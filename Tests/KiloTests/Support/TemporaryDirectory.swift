import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it when
/// the value is released.
final class TemporaryDirectory: Sendable {
    /// The directory.
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("KiloTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)  // Best effort: a leftover temp dir harms nothing.
    }

    /// The names of the directory's entries, sorted.
    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// Writes a file into the directory.
    @discardableResult
    func write(_ data: Data, named name: String) throws -> URL {
        let fileURL = url.appendingPathComponent(name, isDirectory: false)
        try data.write(to: fileURL)
        return fileURL
    }
}

/// The permission bits of a file (`0o600`), without following a symbolic link.
func permissions(of url: URL) throws -> Int? {
    (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue
}
