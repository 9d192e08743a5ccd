import Foundation

/// Kilo's spill files, the unnamed temporary files where a body waits for a slow reader on Linux,
/// seen through this process's open file descriptors.
enum SpillFiles {
    /// The bytes all of them take on disk now, as the file system counts them, or 0.
    static func bytesOnDisk() -> Int {
        let directory = "/proc/self/fd"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var total = 0
        for descriptor in descriptors {
            let path = directory + "/" + descriptor
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
                target.contains("/kilo-body-"), target.hasSuffix(".spill (deleted)")
            else { continue }
            var status = stat()
            if stat(path, &status) == 0 {
                total += Int(status.st_blocks) * 512
            }
        }
        return total
    }
}
