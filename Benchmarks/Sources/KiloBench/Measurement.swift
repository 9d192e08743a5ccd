import BenchmarkSupport
import Foundation
import MallocCounter

/// What every thread of this process has used so far: CPU time (user + system) in
/// nanoseconds, and context switches (a thread giving up or losing its core: each hop of work
/// from one thread to a sleeping one costs at least one).
func processUsage() -> (cpu: UInt64, switches: Int) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func nanoseconds(_ time: timeval) -> UInt64 {
        UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000
    }
    return (nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime), usage.ru_nvcsw + usage.ru_nivcsw)
}

/// Keeps a result alive, so the optimizer cannot drop the work that made it.
@_optimize(none)
func blackHole<T>(_ value: T) {}

/// The calling thread's heap allocations so far (see MallocCounter.c).
@inline(__always)
func threadAllocations() -> UInt64 {
    kilo_bench_thread_allocations()
}

/// Whether allocation counting works in this process: one array allocation must be seen.
let canCountAllocations: Bool = {
    let before = threadAllocations()
    blackHole([Int](repeating: 7, count: 100))
    return threadAllocations() > before
}()

/// The benchmark's units.
extension Format {
    /// A duration given in nanoseconds, in ns, µs or ms.
    static func duration(_ nanoseconds: Double) -> String {
        guard nanoseconds.isFinite else { return "–" }
        switch nanoseconds {
        case ..<10_000: return String(format: "%.0f ns", nanoseconds)
        case ..<10_000_000: return String(format: "%.1f µs", nanoseconds / 1_000)
        default: return String(format: "%.1f ms", nanoseconds / 1_000_000)
        }
    }

    static func bytes(_ count: Int) -> String {
        let sign = count < 0 ? "-" : "+"
        let magnitude = Double(abs(count))
        if magnitude >= 1_048_576 { return sign + String(format: "%.2f MiB", magnitude / 1_048_576) }
        return sign + String(format: "%.0f KiB", magnitude / 1024)
    }
}

/// Resident set size and heap in use, for the memory check.
enum Memory {
    /// Resident set size in bytes, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return -1 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Bytes that malloc has handed out and not had back (all arenas, mmapped blocks included).
    static func heapInUse() -> Int {
        Int(kilo_bench_heap_in_use())
    }

    /// Starts or stops counting the heap blocks that the whole process allocates and frees.
    static func countLiveBlocks(_ on: Bool) {
        kilo_bench_count_live_blocks(on)
    }

    /// Heap blocks allocated minus those freed while counting was on, by every thread.
    static func liveBlocks() -> Int {
        Int(kilo_bench_live_blocks())
    }

    /// Heap blocks handed out by every thread while counting was on (``countLiveBlocks(_:)``).
    static func processAllocations() -> Int {
        Int(kilo_bench_process_allocations())
    }

    /// Returns free heap pages to the system, so that RSS reflects live memory.
    static func trim() {
        kilo_bench_trim()
    }
}
