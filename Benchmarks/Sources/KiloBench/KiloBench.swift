import BenchmarkSupport
import Foundation
import Kilo

/// kilo-bench: what Kilo costs next to raw URLSession, measured side by side in one run.
/// See Docs/Performance.md; run it with `bash Benchmarks/run.sh`.
@main
enum KiloBench {
    static func main() async {
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch let error as UsageError {
            if let message = error.message {
                FileHandle.standardError.write(Data("kilo-bench: \(message)\n".utf8))
            }
            FileHandle.standardError.write(Data((Options.usage + "\n").utf8))
            exit(error.message == nil ? 0 : 2)
        } catch {
            exit(2)
        }
        do {
            let failures = try await run(options)
            if failures > 0 {
                FileHandle.standardError.write(Data("kilo-bench: \(failures) requests failed\n".utf8))
                exit(1)
            }
        } catch {
            FileHandle.standardError.write(Data("kilo-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Runs the selected sections and prints the verdict; returns the number of failed requests.
    nonisolated static func run(_ options: Options) async throws -> Int {
        let start = now()
        print("kilo-bench\(options.isQuick ? " --quick" : ""): server \(options.baseURL.absoluteString), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores, allocation counting "
            + (canCountAllocations ? "on (this thread's mallocs)" : "unavailable"))
        print()
        var encoding: [String: Double] = [:]
        var get: [RowResult] = []
        var post: [RowResult] = []
        var memory: [MemoryBenchmark.Result] = []
        if options.sections.contains(.encoding) {
            encoding = try await EncodingBenchmarks.run(options)
        }
        let session = RequestBenchmarks.makeSession()
        defer { session.finishTasksAndInvalidate() }
        if options.sections.contains(.get) {
            get = try await RequestBenchmarks.get(options, session: session)
        }
        if options.sections.contains(.post) {
            post = try await RequestBenchmarks.post(options, session: session)
        }
        if options.sections.contains(.memory) {
            memory = await MemoryBenchmark.run(options, session: session)
        }
        printVerdict(encoding: encoding, get: get, requests: get + post, memory: memory)
        print(String(format: "total time %.1f s", Double(now() - start) / 1e9))
        return (get + post).reduce(0) { $0 + $1.failures } + memory.reduce(0) { $0 + $1.failures }
    }

    private static func printVerdict(
        encoding: [String: Double], get: [RowResult], requests: [RowResult], memory: [MemoryBenchmark.Result]
    ) {
        print("== Targets: each Kilo row ≥ 0.95× raw code doing the same work (SameWork.swift), paired by round ==")
        for result in requests {
            guard let references = SameWork.references(of: result.name),
                let raw = requests.first(where: { $0.name == references.raw && $0.lanes == result.lanes })
            else { continue }
            // Both ratios are over the same first-row trial of each round, so their quotient is
            // this row's req/s over the reference row's in that round.
            let ratio = Statistics.median(zip(result.ratios, raw.ratios).map { $0 / $1 })
            let cpu = Statistics.median(zip(result.cpuRatios, raw.cpuRatios).map { $0 / $1 })
            var line = String(format: "  %@ %@, %d in flight: %.2f× %@ (CPU/req %.2f×)",
                ratio >= 0.95 ? "MET   " : "MISSED", result.name, result.lanes, ratio, references.raw, cpu)
            if let name = references.information,
                let other = requests.first(where: { $0.name == name && $0.lanes == result.lanes })
            {
                let info = Statistics.median(zip(result.ratios, other.ratios).map { $0 / $1 })
                line += String(format: "; %.2f× %@", info, name == SameWork.ahc ? "its async code" : "data(for:)")
            }
            print(line)
        }
        if let roundTrip = get.first(where: { $0.name == SameWork.getAsync && $0.lanes == 1 })?.latency(0.5) {
            for (name, label) in [
                ("QueryEncoder.encode, typed arguments", "QueryEncoder"),
                ("[String: Any] → Argument, then QueryEncoder (what a GET invoke does)", "[String: Any] → Argument → query"),
                ("FormEncoder.encode, typed arguments", "FormEncoder"),
                ("MultipartEncoder.encode, 10 text fields, fixed boundary", "MultipartEncoder, 10 fields"),
            ] {
                if let cost = encoding[name] {
                    print("  INFO   \(label): \(Format.duration(cost)) = \(String(format: "%.1f", 100 * cost / roundTrip))% "
                        + "of a loopback round trip (\(Format.duration(roundTrip)), raw async GET, median)")
                }
            }
        }
        // Raw URLSession code's row grows a little per request on Linux (about 160 B in 4 heap
        // blocks, which URLSession and the benchmark's driver keep); Kilo is judged by what it
        // adds to that, two ways. The heap in use (mallinfo2 after
        // malloc_trim) may grow by at most 16 B per request more than raw's: it catches a leak of
        // about 50 B per request or more, but a single small object per request can hide in the
        // up to 0.5 MiB by which the rows differ from raw's. The live heap blocks (allocations
        // minus frees, counted by the malloc wrappers over the whole process) may grow by at most
        // half a block per request more than raw's: one object leaked per request adds a whole
        // one, where over 10,000 requests the rows have kept from about 0.4 fewer to 0.1 more per
        // request than raw. Over fewer requests (--quick) they have kept up to 1.5 fewer, which
        // could hide such a leak, so only 10,000 or more are judged. RSS moves by up to a megabyte
        // either way with the pages the allocator keeps, so it is shown, not judged.
        let reference = memory.first { !$0.name.hasPrefix("Kilo") }
        for result in memory where result.name.hasPrefix("Kilo") {
            let requests = Double(max(result.requests, 1))
            let added = result.heapGrowth - (reference?.heapGrowth ?? 0)
            let perRequest = Double(added) / requests
            let addedBlocks = result.liveBlockGrowth - (reference?.liveBlockGrowth ?? 0)
            let blocksPerRequest = Double(addedBlocks) / requests
            let verdict =
                switch (result.requests >= 10_000, perRequest <= 16 && blocksPerRequest <= 0.5) {
                case (false, _): "INFO  "
                case (true, true): "MET   "
                case (true, false): "MISSED"
                }
            print("  \(verdict) no memory growth over \(result.requests) requests, "
                + "\(result.name): heap \(Format.bytes(result.heapGrowth)), \(Format.bytes(added)) more than raw "
                + "URLSession (\(String(format: "%.0f", max(0, perRequest))) B per request); live blocks "
                + "\(result.liveBlockGrowth), \(addedBlocks) more than raw "
                + "(\(String(format: "%.2f", blocksPerRequest)) per request); RSS \(Format.bytes(result.residentGrowth)), "
                + "raw \(Format.bytes(reference?.residentGrowth ?? 0)) (target: heap at most 16 B and 0.5 blocks per "
                + "request more than raw, over at least 10,000 requests)")
        }
        print()
    }
}
