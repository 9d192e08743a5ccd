import BenchmarkSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Seconds between two readings of ``now()``.
func seconds(from start: UInt64, to end: UInt64) -> Double {
    Double(end - start) / 1e9
}

/// CPU time (user + system, all threads) this process has used so far, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return value(usage.ru_utime) + value(usage.ru_stime)
}

/// This process's memory, from /proc/self/status (Linux).
enum ProcessMemory {
    /// The peak resident set size so far (`VmHWM`), in bytes; -1 where unavailable.
    static func peakResident() -> Int { field("VmHWM:") }

    /// The resident set size now (`VmRSS`), in bytes; -1 where unavailable.
    static func resident() -> Int { field("VmRSS:") }

    private static func field(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            // "VmHWM:     12345 kB"
            let number = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) }
            return (number ?? -1) * 1024
        }
        return -1
    }
}

/// What one measurement, run in a child process of its own, reports to the coordinator: one line
/// on standard output, `RESULT ` followed by this as JSON.
struct ChildResult: Codable, Sendable {
    var row: String
    /// The payload bytes moved: the file's size for uploads, the body's size for downloads, the
    /// size of the body refused (decoded) for the limit rows.
    var bytes: Int64
    /// Wall-clock time of the whole operation, from the call to its completion.
    var seconds: Double
    /// For uploads through a temporary body file: the time until the upload itself started (the
    /// body file written), taken from the first progress report.
    var writeSeconds: Double?
    /// For Kilo's uploads: the time until the last progress report, which Kilo makes when the
    /// response has arrived, before it maps the response and removes its temporary body file.
    var lastReportSeconds: Double?
    /// The child's CPU time (all threads, user + system) during the operation.
    var cpuSeconds: Double
    /// `VmHWM` when the child had started (Foundation loaded, nothing measured yet).
    var startPeakResident: Int
    /// `VmHWM` at the end: the peak resident set size over the child's whole life.
    var peakResident: Int
    /// For the limit rows: how long a small request through the same transport took, made as soon
    /// as the limit had failed the request (on Linux, URLSession first finishes decoding what
    /// libcurl has read).
    var settleSeconds: Double?

    static let prefix = "RESULT "
}

/// The session configuration every measurement uses: ephemeral, no cache.
func makeConfiguration() -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.timeoutIntervalForRequest = 120  // an idle timeout: the machine may be busy
    return configuration
}

/// The size of a file, or -1.
func fileSize(_ url: URL) -> Int64 {
    var info = stat()
    guard stat(url.path, &info) == 0 else { return -1 }
    return Int64(info.st_size)
}

/// The times of the first and the last of a series of events from any thread, and their count.
final class Marks: @unchecked Sendable {
    private let lock = NSLock()
    private var firstTime: UInt64?
    private var lastTime: UInt64?
    private var events = 0

    func mark() {
        let time = now()
        lock.withLock {
            if firstTime == nil { firstTime = time }
            lastTime = time
            events += 1
        }
    }

    var first: UInt64? { lock.withLock { firstTime } }
    var last: UInt64? { lock.withLock { lastTime } }
    var count: Int { lock.withLock { events } }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The large-body benchmark's units.
extension Format {
    static func mib(_ bytes: Int) -> String {
        bytes < 0 ? "–" : String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    static func seconds(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.2f s", value)
    }
}
