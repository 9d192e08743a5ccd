import Foundation
import Kilo
import Testing

/// The `curl` command Kilo exports, run by the real `curl`, sends what Kilo's transport sent for
/// the same call: the request line, every header field but those the transport adds on its own
/// (``transportFields``), and the body, byte for byte, as the fault server's `/raw` saw them.
@Suite(.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"))
struct CurlExportTests {
    /// Fields a transport adds to what Kilo asked for, which the command leaves to curl (and
    /// turns off where curl would add its own): Linux's URLSession sends its `User-Agent`
    /// (Foundation's, for the process), `Accept-Language` (the user's languages) and
    /// `Accept-Encoding` (the codings its libcurl decodes); async-http-client sends `Connection`
    /// and may send `User-Agent`. Linux's URLSession sends `Accept: */*` (libcurl's) for a
    /// request with no `Accept`, where the command turns curl's off: that field is left out of
    /// both. Linux's URLSession also sends `Content-Length: 0` for a request
    /// without a body whose method is not GET or HEAD (a DELETE), where curl sends none: both
    /// say there is no body, so that field is left out of any such request with an empty body. Every
    /// other field must match, compared by name without regard to case (Linux's URLSession
    /// capitalizes names) and by value exactly.
    static let transportFields: Set<String> = ["user-agent", "accept-language", "accept-encoding", "connection"]

    @Test func getWithQuery() async throws {
        let proxy = try makeProxy()
        let arguments: [String: Any] = ["q": "a b&c=d", "list": [1, 2], "é": "ü+'\"", "api_key": "k"]
        let call = { (proxy: WebServiceProxy) async throws -> Raw in
            try await proxy.invoke(.get, path: "raw/query", arguments: arguments)
        }
        try await expectSameRequest(proxy, call) {
            try proxy.proxy.curlCommand(.get, path: "raw/query", arguments: arguments, redacting: .none)
        }
    }

    @Test func formPost() async throws {
        let proxy = try makeProxy()
        let arguments: [String: Any] = ["name": "it's $HOME `id`", "n": 3, "password": "p&q"]
        try await expectSameRequest(proxy, { try await $0.invoke(.post, path: "raw/form", arguments: arguments) }) {
            try proxy.proxy.curlCommand(.post, path: "raw/form", arguments: arguments, redacting: .none)
        }
    }

    @Test func multipartWithAFilePart() async throws {
        let proxy = try makeProxy()
        proxy.proxy.encoding = .multipartFormData
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(#"a "quoted" it's.bin"#)
        try Data([0x00, 0x0D, 0x0A, 0xFF, 0x27, 0x22, 0x25, 0x5C, 0x2D, 0x0D, 0x0A, 0x2D, 0x2D, 0x80]).write(to: file)
        let arguments: [String: Any] = ["file": file, "note": "line\r\nnext", "token": "t"]
        let (command, _) = try await expectSameRequest(
            proxy,
            { try await $0.invoke(.post, path: "raw/multipart", arguments: arguments) }
        ) {
            try proxy.proxy.curlCommand(.post, path: "raw/multipart", arguments: arguments, redacting: .none)
        }
        #expect(command.contains("--data-binary @-"))
    }

    @Test func jsonBody() async throws {
        let proxy = try makeProxy()
        // JSONEncoder on Linux writes an object's keys in an order that may change from one
        // encoding to the next: sorted, the call's body and the proxy's command are the same.
        proxy.proxy.makeJSONEncoder = {
            let encoder = JSONCoding.makeEncoder()
            encoder.outputFormatting.insert(.sortedKeys)
            return encoder
        }
        let body = Note(text: "it's \"quoted\" $(id) `id` \\ é\n", key: "k")
        try await expectSameRequest(
            proxy,
            { try await $0.invoke(.put, path: "raw/json", arguments: ["v": 1], body: body) }
        ) {
            try proxy.proxy.curlCommand(.put, path: "raw/json", arguments: ["v": 1], body: body, redacting: .none)
        }
    }

    @Test func customMethodAndHeaders() async throws {
        let proxy = try makeProxy()
        proxy.proxy.headers = [
            "X-Quote": #"it's "quoted""#, "X-Shell": "$HOME `id` $(id) ; rm -rf / & | > <", "X-Empty": "",
            "X-Tab": "a\tb", "X-Api-Key": "k", "Authorization": "Bearer t", "Accept": "text/plain",
            "User-Agent": "Kilo-test/1",
        ]
        let content = Data("plain body\n".utf8)
        let call = { (proxy: WebServiceProxy) async throws -> Raw in
            try await proxy.invoke(
                HTTPMethod(rawValue: "PURGE"),
                path: "raw/custom",
                content: content,
                contentType: "text/plain; charset=utf-8"
            )
        }
        try await expectSameRequest(proxy, call) {
            try proxy.proxy.curlCommand(
                HTTPMethod(rawValue: "PURGE"),
                path: "raw/custom",
                content: content,
                contentType: "text/plain; charset=utf-8",
                redacting: .none
            )
        }
    }

    @Test func emptyFormPostAndDeleteWithoutABody() async throws {
        let proxy = try makeProxy()
        try await expectSameRequest(proxy, { try await $0.invoke(.post, path: "raw/empty") }) {
            try proxy.proxy.curlCommand(.post, path: "raw/empty", redacting: .none)
        }
        try await expectSameRequest(proxy, { try await $0.invoke(.delete, path: "raw/items/1") }) {
            try proxy.proxy.curlCommand(.delete, path: "raw/items/1", redacting: .none)
        }
    }

    @Test func requestWithoutAContentTypeAndWithFramingFields() async throws {
        let url = try #require(URL(string: "raw/transport", relativeTo: FaultServer.url)?.absoluteURL)
        let request = TransportRequest(
            method: .patch,
            url: url,
            headers: ["Content-Length": "99", "Transfer-Encoding": "chunked", "X-Trace": "1"],
            body: .data(Data("{\"a\":1}".utf8))
        )
        let transport = try FaultServer.proxy().transport
        let kilo = try Seen(try JSONDecoder().decode(Raw.self, from: try await transport.send(request).body))
        let command = request.curlCommand(redacting: .none)
        let curl = try Seen(try JSONDecoder().decode(Raw.self, from: try runCurl(command)))
        #expect(curl == kilo, "curl sent:\n\(curl)\n\nKilo sent:\n\(kilo)\n\ncommand:\n\(command)")
        #expect(kilo.fields.contains("content-type: application/octet-stream"))
    }

    /// A request made by hand can carry dot segments, which the proxy's paths resolve away:
    /// URLSession's libcurl resolves `.` and `..` (not `%2E%2E`) as curl does. Whether
    /// AsyncHTTPClient does is not checked here.
    #if !KILO_ASYNC_HTTP_CLIENT
        @Test func dotSegmentsSentThroughTheTransport() async throws {
            let base = try #require(FaultServer.url)
            let url = try #require(URL(string: base.absoluteString + "raw/./a/../b/%2E%2E/c"))
            #expect(url.absoluteString.hasSuffix("/raw/./a/../b/%2E%2E/c"))
            let request = TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"])
            let transport = try FaultServer.proxy().transport
            let kilo = try Seen(try JSONDecoder().decode(Raw.self, from: try await transport.send(request).body))
            let command = request.curlCommand(redacting: .none)
            let curl = try Seen(try JSONDecoder().decode(Raw.self, from: try runCurl(command)))
            #expect(curl == kilo, "curl sent:\n\(curl)\n\nKilo sent:\n\(kilo)\n\ncommand:\n\(command)")
        }
    #endif

    @Test func bodyThatIsNotUTF8() async throws {
        let proxy = try makeProxy()
        let content = Data([0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x0D, 0x0A, 0x25, 0x64, 0x27, 0xE2, 0x82, 0x40])
        let call = { (proxy: WebServiceProxy) async throws -> Raw in
            try await proxy.invoke(.post, path: "raw/binary", content: content)
        }
        try await expectSameRequest(proxy, call) {
            try proxy.proxy.curlCommand(.post, path: "raw/binary", content: content, redacting: .none)
        }
    }

    @Test func userInfoAndPercentEncodedPath() async throws {
        let base = try #require(FaultServer.url)
        var components = try #require(URLComponents(url: base, resolvingAgainstBaseURL: false))
        components.percentEncodedUser = "me%40corp"
        components.percentEncodedPassword = "p%40ss%3A'w"
        let proxy = RecordedProxy(baseURL: try #require(components.url))
        let path = "raw/a%20b/%E2%82%AC/x%2Fy"
        let (_, kilo) = try await expectSameRequest(
            proxy,
            { try await $0.invoke(.get, path: path, arguments: ["k2": "v"]) }
        ) {
            try proxy.proxy.curlCommand(.get, path: path, arguments: ["k2": "v"], redacting: .none)
        }
        // Both sent the user info as Basic credentials.
        let credentials = Data("me@corp:p@ss:'w".utf8).base64EncodedString()
        #expect(kilo.fields.contains("authorization: Basic \(credentials)"))
        #expect(kilo.requestLine.hasPrefix("GET /raw/a%20b/%E2%82%AC/x%2Fy?k2=v "))
    }

    @Test func largeTextBodyAndDotSegments() async throws {
        let proxy = try makeProxy()
        let content = Data(String(repeating: "0123456789abcdef'\n", count: 80_000).utf8)  // 1.4 MB
        let call = { (proxy: WebServiceProxy) async throws -> Raw in
            try await proxy.invoke(.post, path: "raw/./a/../b", content: content, contentType: "text/plain")
        }
        let (command, kilo) = try await expectSameRequest(proxy, call) {
            try proxy.proxy.curlCommand(
                .post,
                path: "raw/./a/../b",
                content: content,
                contentType: "text/plain",
                redacting: .none
            )
        }
        #expect(command.hasPrefix("printf "))
        #expect(!kilo.fields.contains { $0.hasPrefix("expect") })
    }

    @Test func multipartStreamedFromATemporaryFile() async throws {
        let proxy = try makeProxy()
        proxy.proxy.encoding = .multipartFormData
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.bin")
        let size = Int(WebServiceProxy.multipartMemoryLimit) + 1
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
        let arguments: [String: Any] = ["file": file, "name": "big"]
        try await expectSameRequest(proxy, { try await $0.invoke(.post, path: "raw/big", arguments: arguments) }) {
            try proxy.proxy.curlCommand(.post, path: "raw/big", arguments: arguments, redacting: .none)
        }
        // The call streamed its body from a file; the command has it in memory.
        let sent = try #require(await proxy.recorder.requests.last)
        guard case .file = sent.body else {
            Issue.record("the body was not streamed from a file: \(String(describing: sent.body).prefix(80))")
            return
        }
    }

    // MARK: Support

    struct Note: Encodable {
        var text: String
        var key: String
    }

    /// What `/raw` saw: the request head as it came and the body, base64.
    struct Raw: Decodable, Sendable {
        var head: String
        var body: String
    }

    /// A request as the server saw it, with the fields a transport adds left out.
    struct Seen: Equatable, CustomStringConvertible {
        var requestLine: String
        /// `name: value` lines, names in lowercase, sorted (transports order fields differently),
        /// each value without the white space HTTP allows around it (SwiftNIO writes `x-empty: `
        /// for an empty value, curl `x-empty:`; RFC 9110 §5.5 makes them one field).
        var fields: [String]
        var body: Data

        init(_ raw: Raw) throws {
            let lines = raw.head.components(separatedBy: "\r\n")
            requestLine = lines[0]
            fields = lines.dropFirst()
                .map { line in
                    let name = line.prefix { $0 != ":" }
                    let value = line.dropFirst(name.count + 1).trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
                    return name.lowercased() + (name.count < line.count ? ": " + value : "")
                }
                .filter { line in !CurlExportTests.transportFields.contains(String(line.prefix { $0 != ":" })) }
                .sorted()
            body = try #require(Data(base64Encoded: raw.body))
            fields.removeAll { $0 == "accept: */*" }
            if body.isEmpty, !requestLine.hasPrefix("GET "), !requestLine.hasPrefix("HEAD ") {
                fields.removeAll { $0 == "content-length: 0" }
            }
        }

        /// Replaces one multipart boundary by another, in the fields and the body.
        mutating func replace(_ boundary: String, with other: String) {
            fields = fields.map { $0.replacingOccurrences(of: boundary, with: other) }
            let pieces = body.split(separator: Data(boundary.utf8), omittingEmptySubsequences: false)
            body = Data(pieces.joined(separator: Data(other.utf8)))
        }

        var description: String {
            ([requestLine] + fields).joined(separator: "\n") + "\n\n" + body.map { String($0) }.joined(separator: " ")
        }
    }

    /// Makes the call through a proxy that records what its transport sent, runs that request's
    /// command with `curl`, and compares what the server saw of each; checks that the proxy's
    /// own command for the call is that command, the multipart boundary aside, which each
    /// request draws anew. A multipart body streamed from a temporary file, gone once the call
    /// returns, is sent by the proxy's command instead (in memory), its boundary replaced by the
    /// call's.
    ///
    /// - Returns: The command that was run, and what the server saw of Kilo's request.
    @discardableResult
    private func expectSameRequest(
        _ proxy: RecordedProxy,
        _ call: (WebServiceProxy) async throws -> Raw,
        facadeCommand: () throws -> String
    ) async throws -> (command: String, kilo: Seen) {
        let kilo = try Seen(try await call(proxy.proxy))
        let sent = try #require(await proxy.recorder.requests.last)
        let facade = try facadeCommand()
        var facadeBoundary: String?
        var boundary: String?
        if let type = sent.headers["Content-Type"], let range = type.range(of: "boundary=") {
            boundary = String(type[range.upperBound...])
            facadeBoundary = try #require(facade.range(of: "boundary=").map { facade[$0.upperBound...].prefix(37) })
                .description
        }
        let command: String
        if case .file = sent.body {
            command = facade
        } else {
            command = sent.curlCommand(redacting: .none)
            #expect(facade.replacingOccurrences(of: facadeBoundary ?? "\0", with: boundary ?? "") == command)
        }
        var curl = try Seen(try JSONDecoder().decode(Raw.self, from: try runCurl(command)))
        if let boundary, let facadeBoundary, case .file = sent.body {
            curl.replace(facadeBoundary, with: boundary)
        }
        #expect(curl == kilo, "curl sent:\n\(curl)\n\nKilo sent:\n\(kilo)\n\ncommand:\n\(command.prefix(4000))")
        #expect(!sent.curlCommand().contains("Bearer t"))
        return (command, kilo)
    }

    /// Runs `command` as a script of `/bin/sh` (a file, since a large body's command is longer
    /// than one argument may be) and returns what it wrote to standard output.
    private func runCurl(_ command: String) throws -> Data {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString).sh")
        try Data((command + " --silent --show-error\n").utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [script.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(command) exited with \(process.terminationStatus)")
        return data
    }

    private func makeProxy() throws -> RecordedProxy {
        RecordedProxy(baseURL: try #require(FaultServer.url))
    }
}

/// A proxy with the transport under test, wrapped in a ``RequestRecorder``.
struct RecordedProxy {
    let proxy: WebServiceProxy
    let recorder: RequestRecorder

    init(baseURL: URL) {
        let live = Servers.makeProxy(baseURL: baseURL).transport
        recorder = RequestRecorder(transport: live)
        proxy = WebServiceProxy(baseURL: baseURL, transport: recorder)
    }
}

/// A transport that keeps each request it passes on, as the transport under it received it.
final class RequestRecorder: Transport {
    let transport: any Transport
    private let store = Store()

    init(transport: any Transport) {
        self.transport = transport
    }

    var requests: [TransportRequest] {
        get async { await store.requests }
    }

    func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        await store.append(request)
        return try await transport.stream(request)
    }

    func stream(_ request: TransportRequest, consuming consumption: ResponseConsumption) async throws
        -> StreamedResponse
    {
        await store.append(request)
        return try await transport.stream(request, consuming: consumption)
    }

    private actor Store {
        var requests: [TransportRequest] = []

        func append(_ request: TransportRequest) {
            requests.append(request)
        }
    }
}
