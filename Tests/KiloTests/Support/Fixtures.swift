import Foundation
import Kilo

/// The base URL of the fake service.
let baseURL = URL(string: "https://api.example.com/v1/")!

/// A proxy over `transport` whose callbacks run on a private queue.
func makeProxy(_ transport: any Transport, queue: DispatchQueue = DispatchQueue(label: "kilo.tests")) -> WebServiceProxy {
    let proxy = WebServiceProxy(baseURL: baseURL, transport: transport)
    proxy.callbackQueue = queue
    return proxy
}

/// Decodes a request's query string into name–value pairs, in order.
func queryPairs(_ url: URL) -> [String] {
    guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery else { return [] }
    return query.split(separator: "&").map(String.init)
}

/// A body as UTF-8 text.
func text(_ request: TransportRequest?) -> String? {
    guard case .data(let data)? = request?.body else { return nil }
    return String(decoding: data, as: UTF8.self)
}

/// Calls a callback-style invoke and waits for its result.
func result<T>(_ start: (@escaping WebServiceProxy.ResultHandler<T>) -> RequestTask?) async -> Result<T, any Error> {
    await withCheckedContinuation { (continuation: CheckedContinuation<Handoff<T>, Never>) in
        _ = start { result in continuation.resume(returning: Handoff(result: result)) }
    }.result
}

/// Carries a callback's result out of the callback in tests.
///
/// `@unchecked Sendable`: each is made in a result handler and read once by the waiting test.
struct Handoff<T>: @unchecked Sendable {
    let result: Result<T, any Error>
}

/// Counts calls from any thread.
final class Counter: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is only read and written under `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.withLock { count += 1 }
    }

    var value: Int {
        lock.withLock { count }
    }
}

struct Person: Codable, Equatable {
    var name: String
    var born: Date
}
