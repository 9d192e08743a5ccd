import Foundation
import Kilo
import Testing

/// Checks, through httpbin's echo, what the server received from each `invoke` variant.
@Suite(.enabled(if: Servers.httpbin != nil, "needs KILO_HTTPBIN_URL (run Scripts/test.sh)"))
struct HttpbinTests {
    private let proxy: WebServiceProxy

    init() throws {
        proxy = try Servers.httpbinProxy()
    }

    /// Arguments of every scalar kind, a list, and two values that must be left out.
    private static func arguments() -> [String: Any] {
        [
            "name": "Ann Lee", "page": 2, "ratio": 1.5, "flag": true, "tags": ["a", "b c"],
            "missing": WebServiceProxy.undefined, "nothing": String?.none as Any,
        ]
    }

    /// What httpbin reports for ``arguments()``, wherever they were sent.
    private static let expectedFields: [String: [String]] = [
        "name": ["Ann Lee"], "page": ["2"], "ratio": ["1.5"], "flag": ["true"], "tags": ["a", "b c"],
    ]

    private static let note = Note(
        title: "Plan + test", count: 3, due: Fixtures.date(milliseconds: 1_700_000_000_123), tags: ["x", "y"])

    // MARK: Query and form

    @Test func getArgumentsArriveInQuery() async throws {
        let echo: HttpbinEcho = try await proxy.invoke(.get, path: "get", arguments: Self.arguments())
        #expect(echo.args == Self.expectedFields)
        #expect(echo.form.isEmpty)
        #expect(echo.data.isEmpty)
    }

    @Test func getArgumentsArriveInQueryThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("httpbin.get")
        let outcome: CallbackOutcome<HttpbinEcho> = try await callback {
            proxy.invoke(.get, path: "get", arguments: Self.arguments(), resultHandler: $0)
        }
        #expect(try outcome.get().args == Self.expectedFields)
        #expect(outcome.queueLabel == "httpbin.get")
        #expect(outcome.task != nil)
    }

    @Test(arguments: [HTTPMethod.put, .patch, .delete])
    func argumentsOfPutPatchAndDeleteGoInQuery(method: HTTPMethod) async throws {
        let echo: HttpbinEcho = try await proxy.invoke(
            method, path: method.rawValue.lowercased(), arguments: Self.arguments())
        #expect(echo.args == Self.expectedFields)
        #expect(echo.form.isEmpty)
        #expect(echo.data.isEmpty)
    }

    @Test(arguments: [HTTPMethod.put, .patch, .delete])
    func argumentsOfPutPatchAndDeleteGoInQueryThroughCallback(method: HTTPMethod) async throws {
        proxy.callbackQueue = CallbackQueues.make("httpbin.methods")
        let outcome: CallbackOutcome<HttpbinEcho> = try await callback {
            proxy.invoke(method, path: method.rawValue.lowercased(), arguments: Self.arguments(), resultHandler: $0)
        }
        let echo = try outcome.get()
        #expect(echo.args == Self.expectedFields)
        #expect(echo.form.isEmpty)
        #expect(outcome.queueLabel == "httpbin.methods")
    }

    @Test func postArgumentsGoInFormBody() async throws {
        let echo: HttpbinEcho = try await proxy.invoke(.post, path: "post", arguments: Self.arguments())
        #expect(echo.form == Self.expectedFields)
        #expect(echo.args.isEmpty)
        #expect(echo.header("Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test func callbacksRunOnMainQueueByDefault() async throws {
        let outcome: CallbackOutcome<HttpbinEcho> = try await callback {
            proxy.invoke(.post, path: "post", arguments: Self.arguments(), resultHandler: $0)
        }
        #expect(outcome.queueLabel == "main")
        let echo = try outcome.get()
        #expect(echo.form == Self.expectedFields)
        #expect(echo.args.isEmpty)
    }

    @Test(arguments: Fixtures.awkwardValues)
    func awkwardValuesArriveIntactInQueryAndForm(value: String) async throws {
        let arguments: [String: Any] = ["v": value, Fixtures.awkwardKey: value]
        let query: HttpbinEcho = try await proxy.invoke(.get, path: "get", arguments: arguments)
        #expect(query.args == ["v": [value], Fixtures.awkwardKey: [value]])
        let form: HttpbinEcho = try await proxy.invoke(.post, path: "post", arguments: arguments)
        #expect(form.form == ["v": [value], Fixtures.awkwardKey: [value]])
    }

    @Test func multipartTextAndFileArrive() async throws {
        let directory = try TemporaryDirectory()
        let text = "Grüße, world 😀\n"
        let file = try directory.write(Data(text.utf8), named: "note.txt")
        proxy.encoding = .multipartFormData
        let echo: HttpbinEcho = try await proxy.invoke(
            .post, path: "post", arguments: ["title": "Trip & more", "note": file, "gone": WebServiceProxy.undefined])
        #expect(echo.form == ["title": ["Trip & more"]])
        #expect(echo.files == ["note": [text]])
        #expect(echo.args.isEmpty)
        #expect(echo.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    // MARK: Headers, HEAD and OPTIONS

    @Test func headersPropertyArrives() async throws {
        proxy.headers = ["X-Kilo-Token": "s3cr3t", "X-Kilo-Text": "a b, c; d=\"q\""]
        let echo: HttpbinEcho = try await proxy.invoke(.get, path: "headers")
        #expect(echo.header("X-Kilo-Token") == "s3cr3t")
        #expect(echo.header("X-Kilo-Text") == "a b, c; d=\"q\"")
    }

    @Test func headersPropertyArrivesThroughCallback() async throws {
        proxy.headers = ["X-Kilo-Token": "s3cr3t"]
        proxy.callbackQueue = CallbackQueues.make("httpbin.headers")
        let outcome: CallbackOutcome<HttpbinEcho> = try await callback {
            proxy.invoke(.get, path: "headers", resultHandler: $0)
        }
        #expect(try outcome.get().header("X-Kilo-Token") == "s3cr3t")
    }

    @Test func framingHeadersOfTheCallerDoNotCutTheBodyShort() async throws {
        proxy.headers = ["content-length": "1", "X-Kilo-Token": "s3cr3t"]
        proxy.timeoutInterval = 10  // a body the server waits for would otherwise take a minute
        let echo: HttpbinEcho = try await proxy.invoke(.post, path: "post", arguments: ["name": "value"])
        #expect(echo.form == ["name": ["value"]])
        #expect(echo.header("Content-Length") == "10")
        #expect(echo.header("X-Kilo-Token") == "s3cr3t")
        proxy.headers = ["Transfer-Encoding": "chunked"]
        let get: HttpbinEcho = try await proxy.invoke(.get, path: "get", arguments: ["page": 2])
        #expect(get.args == ["page": ["2"]])
        #expect(get.header("Transfer-Encoding") == nil)
    }

    @Test func headReturnsHeadersWithoutBody() async throws {
        try await proxy.invoke(.head, path: "get")
        let (content, contentType) = try await proxy.invoke(
            .head, path: "get", responseHandler: { content, contentType, _ in (content, contentType) })
        #expect(content.isEmpty)
        #expect(contentType == "application/json")
    }

    @Test func headSucceedsThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("httpbin.head")
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.head, path: "get", resultHandler: $0)
        }
        #expect(throws: Never.self) { try outcome.get() }
    }

    @Test func optionsReportsAllowedMethods() async throws {
        let allow = try await proxy.invoke(
            .options, path: "get", responseHandler: { _, _, headers in headers["allow"] })
        #expect(allow?.contains("GET") == true)
    }

    @Test func optionsReportsAllowedMethodsThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("httpbin.options")
        let outcome: CallbackOutcome<String?> = try await callback {
            proxy.invoke(
                .options, path: "get", responseHandler: { _, _, headers in headers["Allow"] }, resultHandler: $0)
        }
        #expect(try outcome.get()?.contains("GET") == true)
    }

    // MARK: JSON bodies

    @Test(arguments: [HTTPMethod.post, .put, .patch])
    func jsonBodyArrivesWithArgumentsInQuery(method: HTTPMethod) async throws {
        let echo: HttpbinEcho = try await proxy.invoke(
            method, path: method.rawValue.lowercased(), arguments: ["id": 7, "q": "a b+c"], body: Self.note)
        try Self.expectNoteArrived(echo)
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch])
    func jsonBodyArrivesWithArgumentsInQueryThroughCallback(method: HTTPMethod) async throws {
        proxy.callbackQueue = CallbackQueues.make("httpbin.body")
        let outcome: CallbackOutcome<HttpbinEcho> = try await callback {
            try proxy.invoke(
                method, path: method.rawValue.lowercased(), arguments: ["id": 7, "q": "a b+c"], body: Self.note,
                resultHandler: $0)
        }
        try Self.expectNoteArrived(try outcome.get())
    }

    private static func expectNoteArrived(_ echo: HttpbinEcho) throws {
        #expect(echo.args == ["id": ["7"], "q": ["a b+c"]])
        #expect(echo.form.isEmpty)
        #expect(echo.header("Content-Type") == "application/json")
        let received = try JSONCoding.makeDecoder().decode(Note.self, from: Data(echo.data.utf8))
        #expect(received.title == note.title)
        #expect(received.tags == note.tags)
        #expect(Fixtures.milliseconds(of: received.due) == 1_700_000_000_123)
        #expect(rawJSONValue(of: "due", in: echo.data) == "1700000000123", "dates go out as whole milliseconds")
    }

    /// The text of a top-level JSON member's value, as it appears in the raw body.
    private static func rawJSONValue(of key: String, in json: String) -> String? {
        guard let range = json.range(of: "\"\(key)\":") else { return nil }
        return String(json[range.upperBound...].prefix { $0 != "," && $0 != "}" })
            .trimmingCharacters(in: .whitespaces)
    }

    @Test func jsonBodyWithoutResultIsSent() async throws {
        try await proxy.invoke(.post, path: "anything", arguments: ["id": 1], body: Self.note)
        let error = await #expect(throws: WebServiceError.self) {
            try await proxy.invoke(.put, path: "status/418", arguments: ["id": 1], body: Self.note)
        }
        #expect(error?.statusCode == 418)
    }

    @Test func jsonBodyWithoutResultIsSentThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("httpbin.body-void")
        let sent: CallbackOutcome<Void> = try await callback {
            try proxy.invoke(.post, path: "anything", arguments: ["id": 1], body: Self.note, resultHandler: $0)
        }
        #expect(throws: Never.self) { try sent.get() }
        let refused: CallbackOutcome<Void> = try await callback {
            try proxy.invoke(.put, path: "status/418", body: Self.note, resultHandler: $0)
        }
        #expect((refused.error as? WebServiceError)?.statusCode == 418)
    }

    // MARK: Results

    @Test func voidInvokeSucceedsOnNoContent() async throws {
        try await proxy.invoke(.get, path: "status/204")
        try await proxy.invoke(.delete, path: "status/200", arguments: ["id": 3])
    }

    @Test func voidInvokeSucceedsOnNoContentThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("httpbin.void")
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.get, path: "status/204", resultHandler: $0)
        }
        #expect(throws: Never.self) { try outcome.get() }
        #expect(outcome.queueLabel == "httpbin.void")
    }

    @Test func responseHeadersHandlerSeesHeaders() async throws {
        let value = try await proxy.invoke(
            .get, path: "response-headers", arguments: ["X-Kilo-Echo": "hello"],
            responseHandler: { _, _, headers in headers["x-kilo-echo"] })
        #expect(value == "hello")
    }

    @Test func responseHeadersHandlerSeesHeadersThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("httpbin.response-headers")
        let outcome: CallbackOutcome<String?> = try await callback {
            proxy.invoke(
                .get, path: "response-headers", arguments: ["X-Kilo-Echo": "hello"],
                responseHandler: { _, _, headers in headers["X-KILO-ECHO"] }, resultHandler: $0)
        }
        #expect(try outcome.get() == "hello")
    }

    @Test func contentWithoutTypeArrivesAsOctetStream() async throws {
        let echo: HttpbinEcho = try await proxy.invoke(
            .post, path: "post", arguments: ["a": "1 2"], content: Data("raw bytes".utf8))
        #expect(echo.args == ["a": ["1 2"]])
        #expect(echo.header("Content-Type") == "application/octet-stream")
        #expect(echo.data == "raw bytes")
        #expect(echo.form.isEmpty)
    }
}
