import Foundation
import Testing

@testable import KiloTransport

@Suite struct DeferredHeadersTests {
    /// Counts the calls of a header maker; `@unchecked Sendable`: `value` is only touched while
    /// `lock` is held.
    private final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0

        func add() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    private func response(counting calls: Calls) -> TransportResponse {
        TransportResponse(statusCode: 200, body: Data("{}".utf8)) {
            calls.add()
            return ["X-Trace": "abc", "Content-Type": "application/json"]
        }
    }

    @Test func theHeadersAreNotMadeUntilRead() {
        let calls = Calls()
        let response = response(counting: calls)
        let copy = response
        #expect(response.statusCode == 200)
        #expect(copy.body == Data("{}".utf8))
        #expect(response.isSuccess)
        #expect(calls.count == 0)
    }

    @Test func theHeadersAreMadeOnceForEveryCopyAndEveryThread() async {
        let calls = Calls()
        let response = response(counting: calls)
        let copies = Array(repeating: response, count: 8)
        let traces = await withTaskGroup(of: String?.self) { group in
            for index in 0..<64 {
                let copy = copies[index % copies.count]
                group.addTask { copy.headers["x-trace"] }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(traces == Array(repeating: "abc", count: 64))
        #expect(calls.count == 1)
    }

    @Test func changingOneHeaderInPlaceKeepsTheOthers() {
        let calls = Calls()
        var response = response(counting: calls)
        response.headers["X-More"] = "1"
        #expect(response.headers.count == 3)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(calls.count == 1)
    }

    @Test func dumpShowsTheHeaders() {
        var output = ""
        dump(response(counting: Calls()), to: &output)
        #expect(output.contains("X-Trace"))
        #expect(output.contains("statusCode: 200"))
    }
}
