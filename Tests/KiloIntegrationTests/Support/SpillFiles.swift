import Foundation

/// Kilo's spill files, the unnamed temporary files where a body waits for a slow reader on Linux,
/// seen through this process's open file descriptors.
enum SpillFiles {
    /// The size of the largest one open now, or 0.
    static func largest() -> Int {
        let directory = "/proc/self/fd"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var largest = 0
        for descriptor in descriptors {
            let path = directory + "/" + descriptor
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
                target.contains("/kilo-body-"), target.hasSuffix(".spill (deleted)")
            else { continue }
            var status = stat()
            if stat(path, &status) == 0 {
                largest = max(largest, Int(status.st_size))
            }
        }
        return largest
    }
}
