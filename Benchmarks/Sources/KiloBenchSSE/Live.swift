import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Kilo
import KiloAsyncHTTPClient
import NIOCore
import NIOPosix

/// End to end over loopback: one stream of server-sent events (OpenAI-style chat chunks, about
/// 330 bytes each) from ``LiveServer`` to `WebServiceProxy.stream`, through each transport, next
/// to async-http-client reading the same body raw; events per second, and the peak resident
/// memory each row added (the stream is 1 GiB by default, so a stream that kept its body would
/// show it).
enum Live {
    /// The element of the decoded rows: the parts of a chat chunk a client reads.
    struct ChatChunk: Decodable, Sendable {
        struct Choice: Decodable, Sendable {
            struct Delta: Decodable, Sendable { var content: String? }
            var delta: Delta
        }
        var choices: [Choice]
    }

    /// What a row read: events (or bytes, for the raw rows) and bytes.
    struct Count {
        var events = 0
        var bytes = 0
    }

    struct Row {
        var key: String
        var name: String
        var read: (_ baseURL: URL, _ bytes: Int) async throws -> Count
    }

    static func run(megabytes: Int, runs: Int, only: String?) async throws -> Bool {
        let server = try LiveServer()
        defer { try? server.shutdown() }
        let stream = LiveServer.stream(bytes: megabytes << 20)
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration
        configuration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroup: eventLoops, configuration: configuration)
        let nio = WebServiceProxy(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(client: client))
        let session = WebServiceProxy(
            baseURL: server.baseURL,
            transport: URLSessionTransport(configuration: .ephemeral)
        )
        for proxy in [nio, session] {
            proxy.limits.deadline = nil
        }

        let rows: [Row] = [
            Row(key: "ahc-raw", name: "async-http-client, raw body (reference)") { baseURL, bytes in
                let request = HTTPClientRequest(url: baseURL.absoluteString + "events?bytes=\(bytes)")
                let response = try await client.execute(request, timeout: .seconds(600))
                var count = Count()
                for try await buffer in response.body {
                    count.bytes += buffer.readableBytes
                }
                count.events = count.bytes / LiveServer.block.bytes.readableBytes * LiveServer.block.events
                return count
            },
            Row(key: "ahc-bytes", name: "Kilo, AsyncHTTPClientTransport, .bytes") { _, bytes in
                try await read(nio, bytes: bytes, as: .bytes) { $0.count }
            },
            Row(key: "ahc-events", name: "Kilo, AsyncHTTPClientTransport, .serverSentEvents") { _, bytes in
                try await read(nio, bytes: bytes, as: .serverSentEvents) { $0.data.utf8.count }
            },
            Row(key: "ahc-decoded", name: "Kilo, AsyncHTTPClientTransport, .serverSentEvents(of:)") { _, bytes in
                try await read(nio, bytes: bytes, as: .serverSentEvents(of: ChatChunk.self)) {
                    $0.choices.first?.delta.content?.utf8.count ?? 0
                }
            },
            Row(key: "urlsession-bytes", name: "Kilo, URLSessionTransport, .bytes") { _, bytes in
                try await read(session, bytes: bytes, as: .bytes) { $0.count }
            },
            Row(key: "urlsession-events", name: "Kilo, URLSessionTransport, .serverSentEvents") { _, bytes in
                try await read(session, bytes: bytes, as: .serverSentEvents) { $0.data.utf8.count }
            },
        ]

        print(
            "Server-sent events end to end over loopback: \(String(format: "%.0f", Double(stream.bytes) / 1_048_576)) MiB,"
                + " \(stream.events) events of ~\(stream.bytes / stream.events) bytes, median of \(runs) runs\n"
        )
        var table = Table("row", "MB/s", "events/s", "wall s", "CPU s", "events", "peak RSS added")
        var failed = false
        for row in rows where only == nil || only == row.key {
            var walls: [Double] = []
            var cpus: [Double] = []
            var peak: Int?
            var count = Count()
            for _ in 0..<runs {
                Memory.resetPeak()
                let before = Memory.residentKiB()
                let (cpuStart, wallStart) = (CPUTime.now(), now())
                count = try await row.read(server.baseURL, stream.bytes)
                walls.append(Double(now() - wallStart) / 1e9)
                cpus.append(Double(CPUTime.now() - cpuStart) / 1e9)
                if let before, let after = Memory.peakKiB() {
                    peak = max(peak ?? 0, after - before)
                }
            }
            let wall = Statistics.median(walls)
            let countsBytes = row.key == "ahc-raw" || row.key.hasSuffix("bytes")
            if countsBytes ? count.bytes != stream.bytes : count.events != stream.events {
                print("mismatch in \(row.name): \(count.events) elements, \(count.bytes) bytes")
                failed = true
            }
            let events = countsBytes ? stream.events : count.events
            table.add(
                row.name,
                Format.rate(Double(stream.bytes) / 1e6 / wall),
                Format.rate(Double(events) / wall),
                String(format: "%.2f", wall),
                String(format: "%.2f", Statistics.median(cpus)),
                countsBytes ? "(\(events))" : "\(events)",
                peak.map { "\($0 / 1024) MiB" } ?? "–"
            )
        }
        table.print()
        print("\nevents in parentheses: counted from the bytes (the raw rows parse nothing).")
        try await client.shutdown()
        try await eventLoops.shutdownGracefully()
        return failed
    }

    /// Reads `GET /events?bytes=N` through `proxy` as `format`, counting elements and `size`.
    private static func read<Element>(
        _ proxy: WebServiceProxy,
        bytes: Int,
        as format: StreamFormat<Element>,
        size: (Element) -> Int
    ) async throws -> Count {
        var count = Count()
        for try await element in try await proxy.stream(.get, path: "events", arguments: ["bytes": bytes], as: format) {
            count.events += 1
            count.bytes += size(element)
        }
        return count
    }
}

/// The process's CPU time, in nanoseconds.
enum CPUTime {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
