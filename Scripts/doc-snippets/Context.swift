// What the snippets of README.md and Docs/*.md take as given: the names they use without
// declaring them (an app's models, a proxy, a file to send). Scripts/check-doc-snippets.sh
// compiles each snippet as the body of a `@MainActor` async function, in a test target that
// depends on Kilo; a snippet that declares `@Test` functions is compiled as a file of its own.
import Foundation
import Kilo
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct User: Codable, Sendable {
    var id: Int
    var name: String
}

struct Problem: Decodable, Sendable {
    var title: String
}

struct Page: Decodable, Sendable {
    var next: String?
}

struct Receipt: Decodable, Sendable {}
struct Export: Decodable, Sendable {}
struct Report: Decodable, Sendable {}
struct Record: Decodable, Sendable {}

struct ChatRequest: Encodable, Sendable {
    var prompt: String
}

struct ChatChunk: Decodable, Sendable {
    struct Choice: Decodable, Sendable { var delta: Delta }
    struct Delta: Decodable, Sendable { var content: String? }
    var choices: [Choice]
}

/// An app's own client, as Testing.md tests it.
struct UserClient: Sendable {
    let proxy: WebServiceProxy

    func user(id: Int) async throws -> User {
        try await proxy.invoke(.get, path: "users/\(id)")
    }
}

/// A sign-in or token refresh call.
func fetchToken() async throws -> String { "token" }

/// A signal a test waits for.
final class Signal: Sendable {
    func set() {}
}

// The state of the screen or test a snippet is written in.
let baseURL = URL(string: "https://api.example.com/")!
let transport = FakeTransport()
let proxy = WebServiceProxy(baseURL: baseURL, transport: transport)
let client = UserClient(proxy: proxy)
let destination = URL(fileURLWithPath: "/tmp/video.mp4")
let videoURL = URL(fileURLWithPath: "/tmp/video.mp4")
let photoURL = URL(fileURLWithPath: "/tmp/photo.jpg")
let bodyURL = URL(fileURLWithPath: "/tmp/body")
let stopped = Signal()
@MainActor var request = URLRequest(url: baseURL)
@MainActor var task: RequestTask?
@MainActor var records: [Record] = []

@MainActor func show(_ error: any Error) {}
