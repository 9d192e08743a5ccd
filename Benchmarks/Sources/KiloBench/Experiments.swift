import AsyncHTTPClient
import Foundation
import Kilo
import KiloAsyncHTTPClient
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Prototypes of changes suggested for Kilo's transport, built here from Kilo's public API so
/// that their effect can be measured before anyone edits Sources/. Shown with `--experiments`.
enum Experiments {
    static func getRows(session: URLSession, url: URL) -> [RequestRow] {
        let decoder = JSONCoding.makeDecoder()
        let callbackQueue = DispatchQueue(label: "kilo-bench.experiment-callbacks")
        let noOpDelegate = NoOpTaskDelegate()
        let inlineSession = URLSession(
            configuration: RequestBenchmarks.makeConfiguration(), delegate: nil, delegateQueue: InlineOperationQueue())
        return [
            .callbacks("experiment: raw dataTask with a no-op task delegate") { completion in
                var request = URLRequest(url: url)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                let task = session.dataTask(with: request) { data, response, error in
                    completion(Result {
                        blackHole(try RequestBenchmarks.decode(Item.self, data: data, response: response, error: error, decoder: decoder).id)
                    })
                }
                task.delegate = noOpDelegate
                task.resume()
            },
            .tasks("experiment: continuation around dataTask, inline delegate queue session") {
                var request = URLRequest(url: url)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
                    inlineSession.dataTask(with: request) { data, response, error in
                        if let error {
                            continuation.resume(throwing: error)
                        } else {
                            continuation.resume(returning: (data ?? Data(), response!))
                        }
                    }.resume()
                }
                blackHole(try RequestBenchmarks.decode(Item.self, data: data, response: response, error: nil, decoder: decoder).id)
            },
            // What URLSessionTransport.send does today, reduced to its hops: the completion
            // handler runs on the session's delegate queue, then resumes the continuation.
            .tasks("experiment: continuation around dataTask(with:completionHandler:)") {
                var request = URLRequest(url: url)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
                    session.dataTask(with: request) { data, response, error in
                        if let error {
                            continuation.resume(throwing: error)
                        } else {
                            continuation.resume(returning: (data ?? Data(), response!))
                        }
                    }.resume()
                }
                blackHole(try RequestBenchmarks.decode(Item.self, data: data, response: response, error: nil, decoder: decoder).id)
            },
            // Suggested: URLSessionTransport.send through session.data(for:), which resumes the
            // caller straight from the session's work queue, skipping the delegate queue.
            .tasks("experiment: Kilo's transport work via session.data(for:)") {
                let transportRequest = TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"])
                try transportRequest.headers.validate()
                let (data, response) = try await session.data(for: URLRequest(transportRequest))
                guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                let mapped = TransportResponse(response, body: data)
                guard mapped.isSuccess else { throw URLError(.badServerResponse) }
                blackHole(try JSONCoding.makeDecoder().decode(Item.self, from: mapped.body).id)
            },
            // Suggested: callback invokes over a URLSessionTransport without a Task: the
            // completion handler maps the response and hops once, to the callback queue.
            .callbacks("experiment: callback path without a Task, private serial queue") { completion in
                let transportRequest = TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"])
                session.dataTask(with: URLRequest(transportRequest)) { data, response, error in
                    let result = Result<Item, any Error> {
                        if let error { throw error }
                        guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                        let mapped = TransportResponse(response, body: data ?? Data())
                        guard mapped.isSuccess else { throw URLError(.badServerResponse) }
                        return try JSONCoding.makeDecoder().decode(Item.self, from: mapped.body)
                    }
                    callbackQueue.async { completion(result.map { blackHole($0.id) }) }
                }.resume()
            },
        ]
    }

    /// Rows that split Kilo's cost over AsyncHTTPClientTransport, and a prototype of a cheaper
    /// callback path: the same client as the other async-http-client rows.
    static func nioRows(client: HTTPClient, baseURL: URL, url: URL) -> [RequestRow] {
        let decoder = JSONCoding.makeDecoder()
        let transport = AsyncHTTPClientTransport(client: client)
        let proxy = WebServiceProxy(baseURL: baseURL, transport: transport)
        let callbackQueue = DispatchQueue(label: "kilo-bench.experiment-nio-callbacks")
        return [
            // The reference row with a per-request deadline, as a caller with a timeout writes it.
            .tasks("experiment: async-http-client execute with a 30 s timeout + JSONDecoder") {
                var request = HTTPClientRequest(url: url.absoluteString)
                request.headers.add(name: "Accept", value: "application/json")
                let response = try await client.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                guard response.status == .ok else { throw URLError(.badServerResponse) }
                blackHole(try decoder.decode(Item.self, from: body).id)
            },
            // The transport alone, without the facade: what the facade adds is the rest.
            .tasks("experiment: AsyncHTTPClientTransport.send + JSONDecoder (no facade)") {
                let response = try await transport.send(
                    TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
                guard response.isSuccess else { throw URLError(.badServerResponse) }
                blackHole(try decoder.decode(Item.self, from: response.body).id)
            },
            // What Kilo's callback invoke does (WebServiceProxy.start): a Task that awaits the
            // request, then a hop to the callback queue.
            .callbacks("experiment: async invoke over AsyncHTTPClientTransport in a Task, then callbackQueue") { completion in
                Task {
                    let result = await Result { () async throws -> Item in try await proxy.invoke(.get, path: "json") }
                    callbackQueue.async { completion(result.map { blackHole($0.id) }) }
                }
            },
            // Suggested for WebServiceProxy.start: Task.immediate (Swift 6.2) runs the request on
            // the calling thread until it first suspends, which saves one hand-off to the pool.
            .callbacks("experiment: async invoke over AsyncHTTPClientTransport in Task.immediate, then callbackQueue") { completion in
                Task.immediate {
                    let result = await Result { () async throws -> Item in try await proxy.invoke(.get, path: "json") }
                    callbackQueue.async { completion(result.map { blackHole($0.id) }) }
                }
            },
        ]
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing operation.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

final class NoOpTaskDelegate: NSObject, URLSessionTaskDelegate, Sendable {}

/// Runs every operation at once, on the thread that adds it.
final class InlineOperationQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
