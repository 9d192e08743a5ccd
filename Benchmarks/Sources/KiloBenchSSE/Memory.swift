import Foundation

/// The process's resident memory, from `/proc/self/status` (Linux).
enum Memory {
    /// Resets the peak resident set size to the current one, so that ``peakKiB()`` measures from
    /// now; returns whether the kernel allowed it.
    @discardableResult
    static func resetPeak() -> Bool {
        FileManager.default.createFile(atPath: "/proc/self/clear_refs", contents: Data("5".utf8))
    }

    /// The current resident set size, in KiB, or `nil` where `/proc` does not say.
    static func residentKiB() -> Int? {
        field("VmRSS")
    }

    /// The peak resident set size since the last reset, in KiB, or `nil` where `/proc` does not say.
    static func peakKiB() -> Int? {
        field("VmHWM")
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }
}
