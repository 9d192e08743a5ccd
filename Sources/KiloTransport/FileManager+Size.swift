import Foundation

extension FileManager {
    /// The size of the file at `url` in bytes, or `nil` when it cannot be read.
    ///
    /// Used only for progress estimates: the transfer itself reports an unreadable file.
    func sizeOfItem(at url: URL) -> Int64? {
        guard let attributes = try? attributesOfItem(atPath: url.path) else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }
}
