import BenchmarkSupport
import Foundation
import Kilo

/// Section d: resident memory before and after many sequential requests.
enum MemoryBenchmark {
    struct Result: Sendable {
        var name: String
        var requests: Int
        var residentGrowth: Int
        var heapGrowth: Int
        /// Heap blocks allocated and not freed over the measured requests, by the whole process.
        var liveBlockGrowth: Int
        var failures: Int
    }

    static func run(_ options: Options, session: URLSession) async -> [Result] {
        let slices = 5
        let perSlice = max(1, options.memoryRequests / slices)
        let total = perSlice * slices
        print(
            "== d. Memory: RSS and heap in use (malloc_trim first), and the heap blocks the process keeps, around "
                + "\(total) sequential GET /json, after \(options.memoryWarmup) warm-up requests; sampled every \(perSlice) ==")
        let baseURL = options.baseURL
        let url = baseURL.appendingPathComponent("json")
        let decoder = JSONCoding.makeDecoder()
        let proxy = WebServiceProxy(session: session, baseURL: baseURL)
        let owningProxy = WebServiceProxy(configuration: RequestBenchmarks.makeConfiguration(), baseURL: baseURL)
        let callbackProxy = WebServiceProxy(session: session, baseURL: baseURL)
        callbackProxy.callbackQueue = DispatchQueue(label: "kilo-bench.memory-callbacks", qos: .default)
        let rows: [RequestRow] = [
            .callbacks("URLSession dataTask + JSONDecoder (reference)") { completion in
                var request = URLRequest(url: url)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                session.dataTask(with: request) { data, response, error in
                    completion(Swift.Result {
                        blackHole(
                            try RequestBenchmarks.decode(Item.self, data: data, response: response, error: error, decoder: decoder).id)
                    })
                }.resume()
            },
            .tasks("Kilo async invoke") {
                let item: Item = try await proxy.invoke(.get, path: "json")
                blackHole(item.id)
            },
            .tasks("Kilo own-session (init(configuration:)) async invoke") {
                let item: Item = try await owningProxy.invoke(.get, path: "json")
                blackHole(item.id)
            },
            .callbacks("Kilo callback invoke, private serial callbackQueue") { completion in
                callbackProxy.invoke(.get, path: "json") { (result: Swift.Result<Item, any Error>) in
                    completion(result.map { blackHole($0.id) })
                }
            },
        ].filter { options.includes($0.name) }

        var table = Table(
            "row", "requests", "RSS before", "RSS after", "RSS growth", "heap growth", "live blocks", "RSS samples (MiB)")
        var results: [Result] = []
        for row in rows {
            var failures = await row.run(1, options.memoryWarmup).failures
            Memory.trim()
            let residentBefore = Memory.residentBytes()
            let heapBefore = Memory.heapInUse()
            Memory.countLiveBlocks(true)
            let blocksBefore = Memory.liveBlocks()
            var samples: [String] = []
            for _ in 0..<slices {
                failures += await row.run(1, perSlice).failures
                Memory.trim()
                samples.append(String(format: "%.1f", Double(Memory.residentBytes()) / 1_048_576))
            }
            let blocksAfter = Memory.liveBlocks()
            Memory.countLiveBlocks(false)
            let residentAfter = Memory.residentBytes()
            let heapAfter = Memory.heapInUse()
            table.add(
                row.name, String(total), String(format: "%.1f MiB", Double(residentBefore) / 1_048_576),
                String(format: "%.1f MiB", Double(residentAfter) / 1_048_576), Format.bytes(residentAfter - residentBefore),
                Format.bytes(heapAfter - heapBefore), String(blocksAfter - blocksBefore), samples.joined(separator: " "))
            results.append(
                Result(name: row.name, requests: total, residentGrowth: residentAfter - residentBefore, heapGrowth: heapAfter - heapBefore,
                    liveBlockGrowth: blocksAfter - blocksBefore, failures: failures))
        }
        table.print()
        return results
    }
}
