import Foundation

extension FileManager {
    /// The size of the file at `url` in bytes, after following symbolic links (`attributesOfItem`
    /// describes a link itself), or `nil` when it cannot be read.
    ///
    /// Used for estimates (progress; whether a multipart body is streamed): the transfer itself
    /// reports an unreadable file.
    package func sizeOfItem(at url: URL) -> Int64? {
        guard let attributes = try? attributesOfItem(atPath: url.resolvingSymlinksInPath().path) else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }
}
