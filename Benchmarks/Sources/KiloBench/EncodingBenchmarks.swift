import BenchmarkSupport
import Foundation
import Kilo

/// Section a: the encoders alone, and the other pieces of work Kilo adds to each request,
/// in nanoseconds per operation, with no network.
enum EncodingBenchmarks {
    private enum Operation {
        case sync(() throws -> Int)
        case async(() async throws -> Int)
    }

    private struct Row {
        var name: String
        /// The row this one is compared with; `nil` for a baseline or a row without one.
        var baseline: String?
        var operation: Operation
        var nanosecondsPerOp: [Double] = []
        var allocationsPerOp: [Double] = []
    }

    /// Runs every row in interleaved batches and prints the table.
    nonisolated static func run(_ options: Options) async throws -> [String: Double] {
        print("== a. Encoding and per-request work, no network (ns per operation over \(options.encodingBatches) batches of \(options.encodingBatchSize); rows interleaved) ==")
        var rows = try makeRows(experiments: options.experiments).filter { options.includes($0.name) }
        // One untimed batch each, so that lazy initialisation is not measured.
        for index in rows.indices {
            _ = try await measure(rows[index].operation, count: 10)
        }
        for batch in 0..<options.encodingBatches {
            for offset in rows.indices {
                let index = (batch + offset) % rows.count
                let (nanoseconds, allocations) = try await measure(rows[index].operation, count: options.encodingBatchSize)
                rows[index].nanosecondsPerOp.append(nanoseconds)
                rows[index].allocationsPerOp.append(allocations)
            }
        }
        var table = Table("row", "median", "p99", "ratio", "allocs/op")
        let medians = Dictionary(uniqueKeysWithValues: rows.map { ($0.name, Statistics.median($0.nanosecondsPerOp)) })
        for row in rows {
            if row.name.hasSuffix("(baseline)"), row.name != rows.first?.name {
                table.add("", "", "", "", "")
            }
            let median = Statistics.median(row.nanosecondsPerOp)
            var ratio: Double?
            if row.name.hasSuffix("(baseline)") {
                ratio = 1
            } else if let baseline = row.baseline, let reference = medians[baseline] {
                ratio = median / reference
            }
            table.add(
                row.name, Format.duration(median), Format.duration(Statistics.percentile(row.nanosecondsPerOp, 0.99)),
                Format.ratio(ratio),
                canCountAllocations && !row.allocationsPerOp.contains(where: \.isNaN)
                    ? String(format: "%.1f", Statistics.median(row.allocationsPerOp)) : "n/a")
        }
        table.print()
        return medians
    }

    /// Times `count` runs of `operation`; returns nanoseconds and allocations per run (NaN for
    /// an async operation, which may resume on another thread than the one whose mallocs count).
    private nonisolated static func measure(_ operation: Operation, count: Int) async throws -> (Double, Double) {
        var sink = 0
        let allocationsBefore = threadAllocations()
        let start = now()
        var allocations = Double.nan
        switch operation {
        case .sync(let body):
            for _ in 0..<count {
                sink &+= try body()
            }
            allocations = Double(threadAllocations() - allocationsBefore)
        case .async(let body):
            for _ in 0..<count {
                sink &+= try await body()
            }
        }
        let elapsed = now() - start
        blackHole(sink)
        return (Double(elapsed) / Double(count), allocations / Double(count))
    }

    private static func makeRows(experiments: Bool) throws -> [Row] {
        let untyped = Fixtures.arguments()
        let typed = Fixtures.typedArguments()
        let fields = Fixtures.tenFields()
        let untypedFields = Fixtures.tenFieldsUntyped()
        let fixedBoundary = MultipartEncoder(boundary: "kilo-benchmark-boundary-0123456789")

        // Sanity: the encoders produce what the tables claim they do.
        let query = try QueryEncoder().encode(typed)
        precondition(query == "page=2&q=swift%20%26%20kilo&since=1700000000123&size=50&tags=new&tags=a%2Bb&tags=%C3%A9t%C3%A9")
        precondition(Kilo3xReference.query(untyped)?.contains("a%2Bb") == true)

        let query3x = "Kilo 3.x-style query: URLComponents + \"+\" → %2B (baseline)"
        let form3x = "Kilo 3.x-style form body: same query → Data (baseline)"
        let multipart3x = "Kilo 3.x-style multipart, 10 fields: String → Data appends (baseline)"
        let decodeShared = "JSONDecoder.decode(Item), one shared decoder (baseline)"
        let rawRequest = "URLRequest(url:) + Accept header, by hand (baseline)"
        let rawWork = "raw equivalent: URLRequest + status check + shared-decoder decode (baseline)"

        let response = HTTPURLResponse(
            url: URL(string: "http://127.0.0.1:8080/json")!, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: [
                "Content-Type": "application/json", "Content-Length": "206", "Connection": "keep-alive",
                "Date": "Tue, 14 Nov 2023 22:13:20 GMT", "Server": "kilo-bench-server",
            ])!
        let body = Fixtures.jsonBody
        let url = URL(string: "http://127.0.0.1:8080/json")!
        let transportRequest = TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"])
        let decoder = JSONCoding.makeDecoder()
        let cannedProxy = WebServiceProxy(
            baseURL: URL(string: "http://127.0.0.1:8080/")!,
            transport: CannedTransport(response: TransportResponse(response, body: body)))

        let resolveNow = "experiment: URL(string:relativeTo:).absoluteURL + scheme/host checks, as resolve(_:) (baseline)"
        let baseURL = URL(string: "http://127.0.0.1:8080/api/")!
        let baseString = baseURL.absoluteString
        let undeadlinedProxy = cannedProxy.withLimits { $0.deadline = nil }
        let laterRows = !experiments ? [] : [
            // What the deadline's task (Deadline.run) costs Kilo's own work.
            Row(name: "experiment: Kilo async invoke over an in-memory Transport, no deadline", baseline: rawWork,
                operation: .async {
                    let item: Item = try await undeadlinedProxy.invoke(.get, path: "json")
                    return item.id
                }),
            Row(name: resolveNow, operation: .sync {
                guard let url = URL(string: "users/42", relativeTo: baseURL)?.absoluteURL,
                    let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                    let host = url.host, !host.isEmpty
                else { return 0 }
                return url.absoluteString.utf8.count
            }),
            Row(name: "experiment: URL(string: base + path), base checked once", baseline: resolveNow, operation: .sync {
                URL(string: baseString + "users/42")!.absoluteString.utf8.count
            }),
        ]
        return [
            Row(name: query3x, operation: .sync { Kilo3xReference.query(untyped)!.utf8.count }),
            Row(name: "QueryEncoder.encode, typed arguments", baseline: query3x, operation: .sync {
                try QueryEncoder().encode(typed).utf8.count
            }),
            Row(name: "[String: Any] → Argument, then QueryEncoder (what a GET invoke does)", baseline: query3x,
                operation: .sync { try QueryEncoder().encode(Argument.arguments(from: untyped)).utf8.count }),
            Row(name: form3x, operation: .sync { Kilo3xReference.formBody(untyped)!.count }),
            Row(name: "FormEncoder.encode, typed arguments", baseline: form3x, operation: .sync {
                try FormEncoder().encode(typed).count
            }),

            Row(name: multipart3x, operation: .sync {
                Kilo3xReference.multipartBody(untypedFields, boundary: "kilo-benchmark-boundary-0123456789").count
            }),
            Row(name: "MultipartEncoder.encode, 10 text fields, fixed boundary", baseline: multipart3x, operation: .sync {
                try fixedBoundary.encode(fields).count
            }),
            Row(name: "MultipartEncoder() + encode, random boundary (what a POST invoke does)", baseline: multipart3x,
                operation: .sync { try MultipartEncoder().encode(fields).count }),

            Row(name: decodeShared, operation: .sync { try decoder.decode(Item.self, from: body).id }),
            Row(name: "JSONCoding.makeDecoder() + decode (a new decoder per response; ResponseMapper shares one)", baseline: decodeShared,
                operation: .sync { try JSONCoding.makeDecoder().decode(Item.self, from: body).id }),

            Row(name: rawRequest, operation: .sync {
                var request = URLRequest(url: url)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                return request.timeoutInterval > 0 ? 1 : 0
            }),
            Row(name: "URLRequest(TransportRequest) (URLSessionTransport's conversion)", baseline: rawRequest,
                operation: .sync { URLRequest(transportRequest).timeoutInterval > 0 ? 1 : 0 }),
            Row(name: "TransportResponse(HTTPURLResponse, body:), 5 headers read", baseline: nil, operation: .sync {
                TransportResponse(response, body: body).headers.count
            }),
            // What a decoded result costs: the headers are converted only when read.
            Row(name: "TransportResponse(HTTPURLResponse, body:), headers not read", baseline: nil, operation: .sync {
                TransportResponse(response, body: body).statusCode
            }),

            Row(name: rawWork, operation: .sync {
                var request = URLRequest(url: url)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                blackHole(request)
                guard (200..<300).contains(response.statusCode) else { return 0 }
                return try decoder.decode(Item.self, from: body).id
            }),
            Row(name: "Kilo async invoke over an in-memory Transport (all of Kilo's work)", baseline: rawWork,
                operation: .async {
                    let item: Item = try await cannedProxy.invoke(.get, path: "json")
                    return item.id
                }),
        ] + laterRows
    }
}

/// A transport that answers every request at once with the same response: Kilo's own work
/// per request, without a network.
struct CannedTransport: Transport {
    var response: TransportResponse

    func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        blackHole(request)
        return StreamedResponse(response)
    }
}
