import AsyncHTTPClient
import ColdCode
import Foundation
import Kilo
import KiloAsyncHTTPClient
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// Rows that explain Kilo's costs over URLSession, and prototypes of changes, built here from
/// Kilo's public API so that their effect can be measured before anyone edits Sources/. Shown
/// with `--experiments` (see Benchmarks/NOTES.md).
enum Experiments {
    static func getRows(session: URLSession, url: URL, baseURL: URL) -> [RequestRow] {
        let decoder = JSONCoding.makeDecoder()
        let transport = URLSessionTransport(session: session)
        let proxy = WebServiceProxy(session: session, baseURL: baseURL)
        // The same proxy without the per-request deadline (WebServiceProxy.Limits.deadline):
        // what its task and timer cost.
        let undeadlinedProxy = proxy.withLimits { $0.deadline = nil }
        let noOpDelegate = NoOpTaskDelegate()
        // Sessions whose delegate queue runs completions on the session's work queue, as
        // the sessions URLSessionTransport sends with on Linux do (its own, or a companion of yours).
        let inlineSession = URLSession(
            configuration: RequestBenchmarks.makeConfiguration(), delegate: nil, delegateQueue: InlineOperationQueue())
        let inlineDelegatedSession = URLSession(
            configuration: RequestBenchmarks.makeConfiguration(), delegate: NoOpTaskDelegate(),
            delegateQueue: InlineOperationQueue())
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let plainRequest = request

        /// An async request as one writes it by hand on Linux (see RequestBenchmarks.data(for:on:)).
        func continuationRow(_ name: String, _ session: URLSession) -> RequestRow {
            .tasks(name) {
                let (data, response) = try await RequestBenchmarks.data(for: plainRequest, on: session)
                blackHole(try RequestBenchmarks.decode(Item.self, data: data, response: response, error: nil, decoder: decoder).id)
            }
        }

        let hopFirstQueue = DispatchQueue(label: "kilo-bench.experiment-hop-first", qos: .default)
        // The rows keep the transport, and so its session, alive.
        let owningTransport = URLSessionTransport(configuration: RequestBenchmarks.makeConfiguration())

        /// Raw async code on the session of `owningTransport`, after `work` µs of busy waiting.
        func ownSessionRow(_ name: String, work: UInt64, touching kibibytes: Int = 0) -> RequestRow {
            .tasks(name) {
                spin(microseconds: work)
                touchedMemory.read(kibibytes: kibibytes)
                let (data, response) = try await RequestBenchmarks.data(for: plainRequest, on: owningTransport.session)
                blackHole(try RequestBenchmarks.decode(Item.self, data: data, response: response, error: nil, decoder: decoder).id)
            }
        }

        /// Raw async code on the caller's session, as SameWork's row, after running `lines` cache
        /// lines of code before each request (see ColdCode.h).
        func coldCodeRow(lines: Int32) -> RequestRow {
            .tasks("experiment: raw async on the caller's session, after \(lines) cache lines of code of its own") {
                kilo_bench_cold_code(lines)
                try await RequestBenchmarks.rawAsyncGet(url, on: session, decoder: decoder)
            }
        }

        return [
            // Kilo's transport alone, without the facade (and without its deadline: send(_:)
            // sets none for a request without one).
            .tasks("experiment: URLSessionTransport(session:).send + JSONDecoder (no facade)") {
                let response = try await transport.send(
                    TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
                guard response.isSuccess else { throw URLError(.badServerResponse) }
                blackHole(try decoder.decode(Item.self, from: response.body).id)
            },
            .tasks("experiment: Kilo async, your session, no deadline (limits.deadline = nil)") {
                let item: Item = try await undeadlinedProxy.invoke(.get, path: "json")
                blackHole(item.id)
            },
            .tasks("experiment: Kilo async, your session, no deadline, in a task group with Task.sleep") {
                let item: Item = try await SleepingDeadline.run(600) { try await undeadlinedProxy.invoke(.get, path: "json") }
                blackHole(item.id)
            },
            // What a callback API that is a layer over async code costs by itself: the raw async
            // row's code in a Task, its result hopped to the main queue, as Kilo's callbacks run.
            .callbacks("experiment: raw async code in a Task, result hopped to the main queue") { completion in
                Task {
                    let result = await Result { try await RequestBenchmarks.rawAsyncGet(url, on: session, decoder: decoder) }
                    DispatchQueue.main.async { completion(result) }
                }
            },
            // Where a lone callback request decodes: raw code that hands the undecoded response
            // to a serial queue and decodes there (as Kilo does for a lone request), against the
            // same-work row that decodes on the delegate queue, then hops.
            .callbacks("experiment: raw dataTask, hop to a serial queue, then decode there") { completion in
                session.dataTask(with: plainRequest) { data, response, error in
                    let delivery = UncheckedBox(value: (data, response, error))
                    hopFirstQueue.async {
                        let (data, response, error) = delivery.value
                        completion(Result {
                            blackHole(try RequestBenchmarks.decode(Item.self, data: data, response: response, error: error, decoder: decoder).id)
                        })
                    }
                }.resume()
            },
            // Kilo's transport work without its state (SessionTransfer, locks, cancellation): the
            // conversions to and from URLSession's types, around the same continuation.
            .tasks("experiment: continuation, URLRequest(TransportRequest), TransportResponse") {
                let transportRequest = TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"])
                try transportRequest.headers.validate()
                let (data, response) = try await RequestBenchmarks.data(for: URLRequest(transportRequest), on: session)
                guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                let transportResponse = TransportResponse(response, body: data)
                guard transportResponse.isSuccess else { throw URLError(.badServerResponse) }
                blackHole(try decoder.decode(Item.self, from: transportResponse.body).id)
            },
            // Kilo's transport on a session of its own, against raw code on that same session
            // (a continuation around dataTask), and against that raw code with a busy wait of 2,
            // 5 or 10 µs before each request: what a microsecond of work costs at one request in
            // flight.
            .tasks("experiment: URLSessionTransport(configuration:).send + JSONDecoder (no facade)") {
                let response = try await owningTransport.send(
                    TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
                guard response.isSuccess else { throw URLError(.badServerResponse) }
                blackHole(try decoder.decode(Item.self, from: response.body).id)
            },
            ownSessionRow("experiment: continuation around dataTask on URLSessionTransport(configuration:).session", work: 0),
            ownSessionRow("experiment: the same, with 2 µs of work per request", work: 2),
            ownSessionRow("experiment: the same, with 5 µs of work per request", work: 5),
            ownSessionRow("experiment: the same, with 10 µs of work per request", work: 10),
            // The same, reading the same 16 or 64 KiB of memory before each request (one load per
            // 64-byte line): what touching a fixed working set of Kilo's size costs when
            // URLSession, libcurl and the kernel run between two touches.
            ownSessionRow("experiment: the same, reading the same 16 KiB before each request", work: 0, touching: 16),
            ownSessionRow("experiment: the same, reading the same 64 KiB before each request", work: 0, touching: 64),
            // What running code of its own costs raw code per request: 64 to 512 cache lines (4 to
            // 32 KiB) of code, each line far from the last, before each request. With warm caches
            // 512 lines take well under a microsecond (see Benchmarks/NOTES.md).
            coldCodeRow(lines: 64),
            coldCodeRow(lines: 128),
            coldCodeRow(lines: 256),
            coldCodeRow(lines: 512),
            // The cost of a task delegate on a task with a completion handler.
            .callbacks("experiment: raw dataTask with a no-op task delegate") { completion in
                let task = session.dataTask(with: plainRequest) { data, response, error in
                    completion(Result {
                        blackHole(try RequestBenchmarks.decode(Item.self, data: data, response: response, error: error, decoder: decoder).id)
                    })
                }
                task.delegate = noOpDelegate
                task.resume()
            },
            // The hand-offs of an async request: over the caller's session (the completion runs
            // on the delegate queue, then resumes the task), and over sessions that deliver
            // completions inline, with and without a session delegate.
            continuationRow("experiment: continuation around dataTask(with:completionHandler:)", session),
            continuationRow("experiment: continuation around dataTask, inline delegate queue session", inlineSession),
            continuationRow(
                "experiment: continuation around dataTask, inline delegate queue session with a delegate",
                inlineDelegatedSession),
            // Not usable: session.data(for:) resumes the caller straight from the session's work
            // queue, but on Linux (Swift 6.3.1) cancelling it can deadlock (corelibs #5412).
            .tasks("experiment: Kilo's transport work via session.data(for:)") {
                let transportRequest = TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"])
                try transportRequest.headers.validate()
                let (data, response) = try await session.data(for: URLRequest(transportRequest))
                guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                let mapped = TransportResponse(response, body: data)
                guard mapped.isSuccess else { throw URLError(.badServerResponse) }
                blackHole(try JSONCoding.makeDecoder().decode(Item.self, from: mapped.body).id)
            },
        ]
    }

    /// Rows that split Kilo's cost over AsyncHTTPClientTransport, and a prototype of a cheaper
    /// callback path: the same client as the other async-http-client rows.
    static func nioRows(client: HTTPClient, baseURL: URL, url: URL) -> [RequestRow] {
        let decoder = JSONCoding.makeDecoder()
        let transport = AsyncHTTPClientTransport(client: client)
        let proxy = WebServiceProxy(baseURL: baseURL, transport: transport)
        let undeadlinedProxy = proxy.withLimits { $0.deadline = nil }
        let idleTimedProxy = proxy.withTimeout(30)
        let callbackQueue = DispatchQueue(label: "kilo-bench.experiment-nio-callbacks", qos: .default)
        return [
            .tasks("experiment: Kilo async over AsyncHTTPClientTransport, no deadline (limits.deadline = nil)") {
                let item: Item = try await undeadlinedProxy.invoke(.get, path: "json")
                blackHole(item.id)
            },
            .tasks("experiment: Kilo async over AsyncHTTPClientTransport, no deadline, in a task group with Task.sleep") {
                let item: Item = try await SleepingDeadline.run(600) { try await undeadlinedProxy.invoke(.get, path: "json") }
                blackHole(item.id)
            },
            // The other rows set no timeoutInterval, so the transport's idle timer does not run in
            // them: this row shows what it costs those who set one (the reference row below).
            .tasks("experiment: Kilo async over AsyncHTTPClientTransport, 30 s idle timeout (withTimeout(30))") {
                let item: Item = try await idleTimedProxy.invoke(.get, path: "json")
                blackHole(item.id)
            },

            // The reference row with a per-request deadline, as a caller with a timeout writes it.
            .tasks("experiment: async-http-client execute with a 30 s timeout + JSONDecoder") {
                var request = HTTPClientRequest(url: url.absoluteString)
                request.headers.add(name: "Accept", value: "application/json")
                let response = try await client.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                guard response.status == .ok else { throw URLError(.badServerResponse) }
                blackHole(try decoder.decode(Item.self, from: body).id)
            },
            // Raw code in a task of its own that the caller awaits, as Deadline.run runs a request:
            // what that task and its hand-back cost without anything else of Kilo's.
            .tasks("experiment: async-http-client execute + JSONDecoder in an awaited Task.immediate") {
                let work = Task.immediate { try await RequestBenchmarks.ahcGet(url, on: client, decoder: decoder) }
                try await withTaskCancellationHandler {
                    try await work.value
                } onCancel: {
                    work.cancel()
                }
            },
            // The transport alone, without the facade: what the facade adds is the rest.
            .tasks("experiment: AsyncHTTPClientTransport.send + JSONDecoder (no facade)") {
                let response = try await transport.send(
                    TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
                guard response.isSuccess else { throw URLError(.badServerResponse) }
                blackHole(try decoder.decode(Item.self, from: response.body).id)
            },
            // What Kilo's callback invoke does (WebServiceProxy.start), without its RequestTask:
            // a Task that awaits the request, then a hop to the callback queue.
            .callbacks("experiment: async invoke over AsyncHTTPClientTransport in a Task, then callbackQueue") { completion in
                Task {
                    let result = await Result { () async throws -> Item in try await proxy.invoke(.get, path: "json") }
                    callbackQueue.async { completion(result.map { blackHole($0.id) }) }
                }
            },
            // Task.immediate (Swift 6.2) runs the request on the calling thread until it first
            // suspends, which saves one hand-off to the pool (tried in Kilo before Transport 2.0;
            // see Benchmarks/NOTES.md).
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

/// A task delegate that does nothing but exist.
final class NoOpTaskDelegate: NSObject, URLSessionTaskDelegate, Sendable {}

/// Runs every operation at once, on the thread that adds it (Kilo's ImmediateOperationQueue is
/// internal).
final class InlineOperationQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}

/// Carries a completion handler's arguments to the queue that decodes them.
///
/// `@unchecked Sendable`: each box is made in one completion handler and read once, on the
/// queue it was handed to.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
}

/// Memory that the experiment rows read before each request, the same lines every time.
private let touchedMemory = TouchedMemory(kibibytes: 64)

/// A fixed block of memory, read one load per cache line.
///
/// `@unchecked Sendable`: written once, when made; only read afterwards.
private final class TouchedMemory: @unchecked Sendable {
    private let bytes: UnsafeMutableRawBufferPointer
    /// Where each read leaves its sum, so that the optimizer keeps the loads.
    private let sum = Atomic<Int>(0)

    init(kibibytes: Int) {
        bytes = .allocate(byteCount: kibibytes * 1024, alignment: 64)
        for index in bytes.indices {
            bytes[index] = UInt8(truncatingIfNeeded: index)
        }
    }

    /// Reads one byte of every 64 in the first `kibibytes`.
    func read(kibibytes: Int) {
        guard kibibytes > 0 else { return }
        var total = 0
        for offset in stride(from: 0, to: min(kibibytes * 1024, bytes.count), by: 64) {
            total &+= Int(bytes[offset])
        }
        sum.store(total, ordering: .relaxed)
    }
}

/// Keeps the calling thread busy for about `microseconds`.
private func spin(microseconds: UInt64) {
    guard microseconds > 0 else { return }
    let end = DispatchTime.now().uptimeNanoseconds + microseconds * 1_000
    while DispatchTime.now().uptimeNanoseconds < end {}
}

/// `Deadline.run` as Transport 2.0 first had it: the operation and a `Task.sleep` as two children
/// of a task group, the first to end deciding. The cancelled sleep kept about 700 B per request
/// until its own deadline (Benchmarks/NOTES.md).
enum SleepingDeadline {
    static func run<T: Sendable>(_ seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw LimitError.deadlineExceeded(after: seconds)
            }
            return value
        }
    }
}
