import BenchmarkSupport
import Foundation

/// Server-sent event parsing throughput, in memory: two synthetic streams of about 64 MiB, fed
/// in 16 KiB chunks to Kilo's parser, to swift-openapi-runtime's, and to a bare split on blank
/// lines; the median of 3 runs of each, in one process, with the peak memory each run added.
/// Rates are per second of the process's CPU time, which other work on a shared machine does not
/// inflate; the wall-clock milliseconds are printed beside them.
///
///     swift run -c release --package-path Benchmarks kilo-bench-sse [--size MiB] [--runs N] [--only ROW]
///
/// `--only kilo`, `--only openapi` or `--only split` runs one row (for a profiler).
///
/// `--live` measures end to end over loopback instead (see ``Live``): one stream of 1 GiB unless
/// `--size` says otherwise, from a server in this process, through `WebServiceProxy.stream` on
/// each transport and through async-http-client raw; one run unless `--runs` says otherwise.
/// `--only` takes a row's key (`ahc-raw`, `ahc-bytes`, `ahc-events`, `ahc-decoded`,
/// `urlsession-bytes`, `urlsession-events`).
@main
enum KiloBenchSSE {
    static func main() async throws {
        var sizeOption: Int?
        var runsOption: Int?
        var only: String?
        var isLive = false
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--size": sizeOption = Int(arguments.next() ?? "") ?? sizeOption
            case "--runs": runsOption = Int(arguments.next() ?? "") ?? runsOption
            case "--only": only = arguments.next()
            case "--live": isLive = true
            default:
                print("usage: kilo-bench-sse [--live] [--size MiB] [--runs N] [--only ROW]")
                return
            }
        }
        if isLive {
            if try await Live.run(megabytes: sizeOption ?? 1024, runs: runsOption ?? 1, only: only) {
                print("error: a row did not read the whole stream")
                exit(1)
            }
            return
        }
        let (size, runs) = (sizeOption ?? 64, runsOption ?? 3)
        let chunkSize = 16 * 1024
        print(
            "Server-sent event parsing, \(size) MiB streams in \(chunkSize / 1024) KiB chunks, median of \(runs) runs\n"
        )
        var failed = false
        for stream in [
            SyntheticStream.singleLine(size: size << 20, chunkSize: chunkSize),
            SyntheticStream.threeLines(size: size << 20, chunkSize: chunkSize),
        ] {
            failed = try await measure(stream, runs: runs, only: only) || failed
        }
        if failed {
            print("error: the parsers disagree on the events")
            exit(1)
        }
    }

    /// Prints one table for `stream`; returns whether the parsers' tallies disagree.
    private static func measure(_ stream: SyntheticStream, runs: Int, only: String?) async throws -> Bool {
        let rows: [(key: String, name: String, parse: (SyntheticStream) async throws -> Tally)] = [
            ("kilo", "Kilo ServerSentEventParser", Parsers.kilo),
            ("openapi", "openapi-runtime asDecodedServerSentEvents", Parsers.openAPIRuntime),
            ("split", "bare split on blank lines (reference)", Parsers.blankLineSplit),
        ]
        var results: [(key: String, name: String, cpu: Double, wall: Double, tally: Tally, peakKiB: Int?)] = []
        for row in rows where only == nil || only == row.key {
            var cpuTimes: [Double] = []
            var wallTimes: [Double] = []
            var tally = Tally()
            var peak: Int?
            for _ in 0..<runs {
                Memory.resetPeak()
                let before = Memory.residentKiB()
                let (cpuStart, wallStart) = (cpuNow(), now())
                tally = try await row.parse(stream)
                cpuTimes.append(Double(cpuNow() - cpuStart) / 1e9)
                wallTimes.append(Double(now() - wallStart) / 1e9)
                if let before, let after = Memory.peakKiB() {
                    peak = max(peak ?? 0, after - before)
                }
            }
            results.append(
                (row.key, row.name, Statistics.median(cpuTimes), Statistics.median(wallTimes), tally, peak)
            )
        }
        let mebibytes = Double(stream.bytes.count) / 1_048_576
        print("\(stream.name): \(String(format: "%.1f", mebibytes)) MiB, \(stream.events) events")
        var table = Table(
            "parser",
            "MB/s",
            "events/s",
            "CPU ms",
            "wall ms",
            "events",
            "vs openapi-runtime",
            "peak RSS added"
        )
        let reference = results.first { $0.key == "openapi" }?.cpu
        for result in results {
            table.add(
                result.name,
                Format.rate(Double(stream.bytes.count) / 1e6 / result.cpu),
                Format.rate(Double(result.tally.events) / result.cpu),
                String(format: "%.1f", result.cpu * 1000),
                String(format: "%.1f", result.wall * 1000),
                "\(result.tally.events)",
                Format.ratio(reference.map { $0 / result.cpu }),
                result.peakKiB.map { "\($0) KiB" } ?? "–"
            )
        }
        table.print()
        let tallies = Dictionary(uniqueKeysWithValues: results.map { ($0.key, $0.tally) })
        let disagree =
            results.contains { $0.tally.events != stream.events }
            || (tallies["kilo"] != nil && tallies["openapi"] != nil && tallies["kilo"] != tallies["openapi"])
        if disagree {
            print("mismatch: expected \(stream.events) events; got \(results.map { "\($0.key): \($0.tally)" })")
        }
        return disagree
    }

    /// Nanoseconds of CPU time that the process has used.
    private static func cpuNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
