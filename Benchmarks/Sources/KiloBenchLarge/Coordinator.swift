import BenchmarkSupport
import Foundation
import Kilo

/// The parent process: makes the test files, runs every measurement in a child process of its
/// own, in rounds whose order rotates, and prints the table and the verdict.
enum Coordinator {
    /// The issue's targets.
    static let peakResidentTarget = 64 * 1_048_576
    static let throughputTarget = 0.8
    /// Issue 21's target for a body the default limits refuse.
    static let refusedPeakResidentTarget = 160 * 1_048_576

    static func run(_ options: LargeOptions) async throws -> Int {
        let rows = (options.only ?? (Row.standard + (options.prototypes ? Row.allCases.filter(\.isPrototype) : [])))
        let size = Int64(options.sizeMiB) * 1_048_576
        printHeader(options, rows: rows)

        // The work directory, and room for the test file, the pre-built body, Kilo's temporary
        // body (in the system's temporary directory) and a download, with a margin.
        let createdDirectory = options.directory == nil
        let directory =
            options.directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "kilo-bench-large-\(UUID().uuidString)",
                isDirectory: true
            )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let testFile = directory.appendingPathComponent("upload-\(options.sizeMiB)MiB.bin")
        let multipartBody = directory.appendingPathComponent("upload-\(options.sizeMiB)MiB.multipart")
        let cleanUp = {
            for file in [testFile, multipartBody] {
                try? FileManager.default.removeItem(at: file)
            }
            if createdDirectory {
                try? FileManager.default.removeItem(at: directory)
            }
        }
        defer { cleanUp() }
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        interrupt.setEventHandler {
            cleanUp()
            exit(130)
        }
        interrupt.resume()

        try checkDiskSpace(directory, need: 4 * size + 512 * 1_048_576)

        var start = now()
        try writeTestFile(testFile, size: size)
        let createSeconds = seconds(from: start, to: now())
        print(String(format: "test file: %@, %d MiB of real bytes (a random 1 MiB block repeated), written and fsynced in %.2f s (%.0f MiB/s)",
            testFile.path, options.sizeMiB, createSeconds, Double(options.sizeMiB) / createSeconds))
        let boundary = "kilo-bench-" + UUID().uuidString
        start = now()
        let bodySize = try MultipartEncoder(boundary: boundary).encode(["file": .file(testFile)], toFile: multipartBody)
        print(String(format: "pre-built multipart body: %lld bytes (the file + %lld), by MultipartEncoder.encode(_:toFile:) in %.2f s",
            bodySize, bodySize - size, seconds(from: start, to: now())))
        print()
        fflush(nil)

        let bombServer = try BombServer()
        let executable = try ownExecutable()
        var results: [Row: [Int: ChildResult]] = [:]
        var failures = 0
        for round in 0..<options.rounds {
            let order = Array(rows[(round % rows.count)...] + rows[..<(round % rows.count)])
            for row in order {
                let child = ChildOptions(
                    row: row,
                    baseURL: options.baseURL,
                    file: testFile,
                    multipartBody: multipartBody,
                    boundary: boundary,
                    directory: directory,
                    bombURL: bombServer.baseURL
                )
                sync()  // so that the previous measurement's dirty pages are not written back during this one
                do {
                    let result = try runChild(executable, child.arguments())
                    results[row, default: [:]][round] = result
                    print(progressLine(round: round, of: options.rounds, row: row, result))
                } catch {
                    failures += 1
                    print("round \(round + 1)/\(options.rounds)  \(row.rawValue): FAILED: \(error)")
                }
                fflush(nil)
            }
        }
        print()
        printTable(rows: rows, results: results)
        printVerdict(rows: rows, results: results)
        return failures
    }

    // MARK: Set-up

    private static func printHeader(_ options: LargeOptions, rows: [Row]) {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        print("kilo-bench-large: server \(options.baseURL.absoluteString), \(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "Linux \(release), load average \(load)")
        print("\(options.rounds) rounds of \(rows.count) measurements (order rotated each round), each in a fresh child process; "
            + "peak RSS = the child's VmHWM at its end")
        print()
    }

    private static func checkDiskSpace(_ directory: URL, need: Int64) throws {
        for place in Set([directory.path, FileManager.default.temporaryDirectory.path]) {
            var info = statvfs()
            guard statvfs(place, &info) == 0 else { throw BenchError("statvfs \(place): errno \(errno)") }
            let free = Int64(info.f_bavail) * Int64(info.f_frsize)
            print(String(format: "disk: %.1f GiB free in %@ (need %.1f GiB)", Double(free) / 1_073_741_824, place,
                Double(need) / 1_073_741_824))
            guard free >= need else { throw BenchError("not enough free disk space in \(place)") }
        }
    }

    /// Writes `size` bytes of a random 1 MiB block, repeated, with 1 MiB writes, and syncs it.
    /// Real bytes (not a sparse file), so that reading it costs what reading a real file costs.
    private static func writeTestFile(_ file: URL, size: Int64) throws {
        var generator = SystemRandomNumberGenerator()
        let block = (0..<1_048_576 / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError("open \(file.path): errno \(errno)") }
        defer { close(descriptor) }
        var remaining = size
        try block.withUnsafeBytes { buffer in
            while remaining > 0 {
                let count = Int(min(remaining, Int64(buffer.count)))
                var offset = 0
                while offset < count {
                    let written = write(descriptor, buffer.baseAddress! + offset, count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw BenchError("write \(file.path): errno \(errno)")
                    }
                    offset += written
                }
                remaining -= Int64(count)
            }
        }
        guard fsync(descriptor) == 0 else { throw BenchError("fsync \(file.path): errno \(errno)") }
    }

    private static func ownExecutable() throws -> URL {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return URL(fileURLWithPath: CommandLine.arguments[0]) }
        return URL(fileURLWithPath: String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Runs `kilo-bench-large measure …` and reads its result line; its standard error is ours.
    private static func runChild(_ executable: URL, _ arguments: [String]) throws -> ChildResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError("the child exited with status \(process.terminationStatus)")
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix(ChildResult.prefix) }) else {
            throw BenchError("the child printed no result")
        }
        return try JSONDecoder().decode(ChildResult.self, from: Data(line.dropFirst(ChildResult.prefix.count).utf8))
    }

    // MARK: Figures

    private static func rate(_ result: ChildResult) -> Double {
        Double(result.bytes) / 1_048_576 / result.seconds
    }

    private static func baseline(of row: Row) -> Row? {
        switch row.group {
        case .upload: return .rawUploadMultipart
        case .download: return .rawDownload
        case .write, .limit: return nil
        }
    }

    /// The raw upload that works as Kilo's mode does: a completion handler and a task delegate
    /// (a caller's session, on Linux), or a session delegate that receives progress (Kilo's own).
    private static func sameModeBaseline(of row: Row) -> Row? {
        switch row {
        case .kiloUploadSession: return .rawUploadTaskDelegate
        case .kiloUploadOwn: return .rawUploadDelegate
        default: return nil
        }
    }

    /// The median over rounds of the row's MiB/s divided by its baseline's in the same round.
    private static func ratio(_ row: Row, _ results: [Row: [Int: ChildResult]], to other: Row? = nil) -> Double? {
        guard let baseline = other ?? baseline(of: row), let own = results[row], let base = results[baseline] else {
            return nil
        }
        let ratios = own.compactMap { round, result in base[round].map { rate(result) / rate($0) } }
        return ratios.isEmpty ? nil : Statistics.median(ratios)
    }

    private static func progressLine(round: Int, of rounds: Int, row: Row, _ result: ChildResult) -> String {
        let name = row.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0)
        if row.isLimit {
            return String(format: "round %d/%d  %@ refused in %.2f s  CPU %5.2f s  peak RSS %@  (then a request took %.2f s)",
                round + 1, rounds, name, result.seconds, result.cpuSeconds, Format.mib(result.peakResident),
                result.settleSeconds ?? -1)
        }
        var line = String(format: "round %d/%d  %@ %6.0f MiB/s  %6.2f s  CPU %5.2f s  peak RSS %@",
            round + 1, rounds, name, rate(result), result.seconds, result.cpuSeconds, Format.mib(result.peakResident))
        if let write = result.writeSeconds {
            let last = result.lastReportSeconds ?? result.seconds
            line += String(format: "  (body file written in %.2f s, sent in %.2f s", write, last - write)
            line += result.lastReportSeconds == nil ? ")" : String(format: ", then %.2f s to return)", result.seconds - last)
        }
        return line
    }

    private static func printTable(rows: [Row], results: [Row: [Int: ChildResult]]) {
        print("== Large bodies: MiB/s of payload (median over rounds, min–max), ratio to the raw baseline of its group (paired by round, median), peak RSS (VmHWM) of the child ==")
        var table = Table(
            "row", "MiB/s", "min–max", "ratio", "peak RSS max", "median", "RSS at start", "CPU s", "write + send (+ return) s"
        )
        for row in rows {
            let all = (results[row] ?? [:]).values.sorted { $0.seconds < $1.seconds }
            guard !all.isEmpty else {
                table.add([row.label, "–", "–", "–", "–", "–", "–", "–", "–"])
                continue
            }
            let rates = all.map(rate)
            let peaks = all.map { Double($0.peakResident) }
            if row.isLimit {
                // No throughput: the time to the error, and the small request after it.
                let settles = all.compactMap(\.settleSeconds)
                table.add([
                    "\(row.label) [\(row.rawValue)]",
                    "–",
                    "–",
                    "–",
                    Format.mib(Int(peaks.max()!)),
                    Format.mib(Int(Statistics.median(peaks))),
                    Format.mib(Int(Statistics.median(all.map { Double($0.startPeakResident) }))),
                    String(format: "%.2f", Statistics.median(all.map(\.cpuSeconds))),
                    String(format: "refused in %.2f s; then a request %.2f s", Statistics.median(all.map(\.seconds)),
                        settles.isEmpty ? -1 : Statistics.median(settles)),
                ])
                continue
            }
            var phases = "–"
            let writes = all.compactMap(\.writeSeconds)
            if writes.count == all.count {
                let sends = all.map { ($0.lastReportSeconds ?? $0.seconds) - ($0.writeSeconds ?? 0) }
                phases = String(format: "%.2f + %.2f", Statistics.median(writes), Statistics.median(sends))
                let rests = all.compactMap { result in result.lastReportSeconds.map { result.seconds - $0 } }
                phases += rests.count == all.count ? String(format: " + %.2f s", Statistics.median(rests)) : " s"
            }
            table.add([
                "\(row.label) [\(row.rawValue)]",
                Format.rate(Statistics.median(rates)),
                "\(Format.rate(rates.min()!))–\(Format.rate(rates.max()!))",
                row.isBaseline ? "1.00×" : Format.ratio(ratio(row, results)),
                Format.mib(Int(peaks.max()!)),
                Format.mib(Int(Statistics.median(peaks))),
                Format.mib(Int(Statistics.median(all.map { Double($0.startPeakResident) }))),
                String(format: "%.2f", Statistics.median(all.map(\.cpuSeconds))),
                phases,
            ])
        }
        table.print()
    }

    private static func printVerdict(rows: [Row], results: [Row: [Int: ChildResult]]) {
        print("== Targets (issue 3): peak RSS ≤ 64 MiB for each; throughput ≥ 0.80× raw URLSession of the same bytes, same run;"
            + " (issue 21) a refused body: peak RSS < 160 MiB ==")
        for row in rows where row.isKilo {
            guard let all = results[row]?.values, !all.isEmpty else { continue }
            let peak = all.map(\.peakResident).max()!
            print(String(format: "  %@ %@: peak RSS %@ at most, over %d runs (target ≤ 64 MiB)",
                peak <= peakResidentTarget ? "MET   " : "MISSED", row.label, Format.mib(peak), all.count))
            if let ratio = ratio(row, results) {
                print(String(format: "  %@ %@: %.2f× the raw baseline's throughput (target ≥ 0.80×)",
                    ratio >= throughputTarget ? "MET   " : "MISSED", row.label, ratio))
            }
            if let other = sameModeBaseline(of: row), let ratio = ratio(row, results, to: other) {
                print(String(format: "  INFO   %@: %.2f× %@", row.label, ratio, other.label))
            }
        }
        for row in rows where row.isLimit && !row.isRaw {
            guard let all = results[row]?.values, !all.isEmpty else { continue }
            let peak = all.map(\.peakResident).max()!
            print(String(format: "  %@ %@: peak RSS %@ at most, over %d runs (target < 160 MiB)",
                peak < refusedPeakResidentTarget ? "MET   " : "MISSED", row.label, Format.mib(peak), all.count))
        }
        for row in rows where !row.isKilo && (!row.isLimit || row.isRaw) {
            guard let all = results[row]?.values, !all.isEmpty else { continue }
            let ratio = row.isBaseline ? nil : ratio(row, results)
            print("  INFO   \(row.label): peak RSS \(Format.mib(all.map(\.peakResident).max()!))"
                + (ratio.map { String(format: ", %.2f× the raw baseline", $0) } ?? ""))
        }
        print()
        fflush(nil)
    }
}
