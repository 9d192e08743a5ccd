// One trailing closure given to stream is refused, in an async function or not, with the fix in
// the message: the callback stream needs its completion handler too, and the async one takes no
// closure.
import Foundation
import Kilo

func read(_ proxy: WebServiceProxy) async throws {
    try await proxy.stream(.get, path: "lines", as: .lines) { line in
        print(line)
    }
}
func readLater(_ proxy: WebServiceProxy) {
    proxy.stream(.get, path: "lines", as: .lines) { line in
        print(line)
    }
}
// expected-error: 'stream(_:path:arguments:content:contentType:as:_:)' is unavailable: add completionHandler: { result in … } after the element handler, or read the async stream: for try await element in try await proxy.stream(…)
