import Foundation
import Kilo
import Testing

/// Event streams from the fault server that aim at the limits: fields that each fit
/// ``WebServiceProxy/Limits/maximumElementSize`` but not together, and an `id` too long to
/// send back that would otherwise be copied into every later event.
@Suite(.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"))
struct FaultEventStreamingTests {
    /// An event's data as `/events/long-id` sends it.
    struct Echo: Decodable, Sendable, Equatable {
        var index: Int
        var lastEventID: String?
    }

    private let proxy: WebServiceProxy

    init() throws {
        proxy = try FaultServer.proxy()
    }

    /// `event:`, `id:` and `data:` of 1 MiB less 7 bytes each: every line fits the default
    /// 1 MiB, but the event is one element, so it fails at its `data:` line (its `id:` is over
    /// 4 KiB, so ignored), after the event before it and before it is kept.
    @Test func anEventWhoseFieldsEachFitTheLimitButNotTogetherFails() async throws {
        let events = try await proxy.stream(.get, path: "events/wide", as: .serverSentEvents)
        let (received, error) = await drain(events)
        #expect(received == [ServerSentEvent(data: "before")])
        #expect(error as? StreamElementError == .elementTooLong(limit: 1 << 20, line: 5))
    }

    /// The same with `id:` short enough to keep: 3 × 1,000 bytes under a limit of 2,500.
    @Test func anEventsTypeIDAndDataShareOneBudget() async throws {
        let limited = proxy.withLimits { $0.maximumElementSize = 2_500 }
        let events = try await limited.stream(
            .get,
            path: "events/wide",
            arguments: ["size": 1_000],
            as: .serverSentEvents
        )
        let (received, error) = await drain(events)
        #expect(received == [ServerSentEvent(data: "before")])
        #expect(error as? StreamElementError == .elementTooLong(limit: 2_500, line: 5))
    }

    /// An `id:` of 1 MiB less 4 bytes (its line fits the limit) is ignored, as an `id` with NUL
    /// is: the later events carry the ID before it, not a copy of the megabyte each.
    @Test func anIDOver4KiBIsNotCopiedIntoLaterEvents() async throws {
        let events = try await proxy.stream(.get, path: "events/long-id", as: .serverSentEvents)
        let (received, error) = await drain(events)
        #expect(error == nil)
        #expect(received.map(\.lastEventID) == Array(repeating: "first", count: 5))
        let echoes = try received.map { try JSONDecoder().decode(Echo.self, from: Data($0.data.utf8)) }
        #expect(echoes.map(\.index) == Array(0..<5))
    }

    /// After an ignored `id:` over 4 KiB, a reconnection sends back the ID before it.
    @Test func aReconnectionAfterAnIDOver4KiBSendsBackTheOneBefore() async throws {
        let echoes = try await proxy.stream(
            .get,
            path: "events/long-id",
            arguments: ["size": 8_192, "count": 1],
            as: .serverSentEvents(of: Echo.self, reconnecting: EventStreamReconnection(delay: 60))
        )
        var received: [Echo] = []
        for try await echo in echoes {
            received.append(echo)
            if received.count == 4 { break }
        }
        #expect(received.map(\.index) == [0, 1, 2, 0])
        #expect(received.map(\.lastEventID) == [nil, nil, nil, "first"])
    }
}
