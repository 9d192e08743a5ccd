import Foundation
import Kilo
import Testing

/// Checks the errors each kind of failure gives, from both the async and the callback methods.
@Suite(
    .enabled(if: Servers.httpbin != nil, "needs KILO_HTTPBIN_URL (run Scripts/test.sh)"),
    .enabled(if: Servers.sample != nil, "needs KILO_SAMPLE_URL (run Scripts/test.sh)")
)
struct ErrorTests {
    private let httpbin: WebServiceProxy
    private let sample: WebServiceProxy

    init() throws {
        httpbin = try Servers.httpbinProxy()
        sample = try Servers.sampleProxy()
    }

    // MARK: Status codes

    @Test func notFoundGivesWebServiceError() async throws {
        let error = await #expect(throws: WebServiceError.self) {
            let _: HttpbinEcho = try await httpbin.invoke(.get, path: "status/404")
        }
        #expect(error?.statusCode == 404)
        #expect(error?.body.isEmpty == true)
        #expect(error?.headers["access-control-allow-origin"] == "*")
        #expect(error?.localizedDescription == "Not Found")
    }

    @Test func notFoundGivesWebServiceErrorThroughCallback() async throws {
        httpbin.callbackQueue = CallbackQueues.make("errors.404")
        let outcome: CallbackOutcome<HttpbinEcho> = try await callback {
            httpbin.invoke(.get, path: "status/404", resultHandler: $0)
        }
        let error = try #require(outcome.error as? WebServiceError)
        #expect(error.statusCode == 404)
        #expect(error.headers["Access-Control-Allow-Origin"] == "*")
        #expect(outcome.queueLabel == "errors.404")
    }

    @Test(arguments: [HTTPMethod.get, .post, .put, .patch, .delete])
    func serverErrorStatusGivesWebServiceError(method: HTTPMethod) async throws {
        let error = await #expect(throws: WebServiceError.self) {
            try await httpbin.invoke(method, path: "status/500", arguments: ["a": 1])
        }
        #expect(error?.statusCode == 500)
    }

    @Test func textErrorBodyIsDescription() async throws {
        let error = await #expect(throws: WebServiceError.self) {
            let _: [Int] = try await sample.invoke(.get, path: "error")
        }
        #expect(error?.statusCode == 500)
        #expect(error?.body == Data("This is an error message.".utf8))
        #expect(error?.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(error?.localizedDescription == "This is an error message.")
    }

    /// Flask's 404 page is HTML: the description is the reason phrase, and the page stays readable.
    @Test func htmlErrorPageGivesTheReasonPhrase() async throws {
        let error = await #expect(throws: WebServiceError.self) {
            try await sample.invoke(.get, path: "no/such/operation")
        }
        #expect(error?.statusCode == 404)
        #expect(error?.contentType?.hasPrefix("text/html") == true)
        #expect(error?.text?.contains("<title>404 Not Found</title>") == true)
        #expect(error?.description == "WebServiceError(404): Not Found")
    }

    @Test func textErrorBodyIsDescriptionThroughCallback() async throws {
        sample.callbackQueue = CallbackQueues.make("errors.text")
        let outcome: CallbackOutcome<String> = try await callback {
            sample.invoke(
                .get, path: "error", responseHandler: { content, _ in String(decoding: content, as: UTF8.self) },
                resultHandler: $0)
        }
        let error = try #require(outcome.error as? WebServiceError)
        #expect(error.statusCode == 500)
        #expect(error.text == "This is an error message.")
        #expect(outcome.error?.localizedDescription == "This is an error message.")
    }

    @Test func jsonErrorBodyDecodes() async throws {
        let error = await #expect(throws: WebServiceError.self) {
            try await sample.invoke(.get, path: "error/json")
        }
        #expect(error?.statusCode == 422)
        #expect(try error?.decodeBody(ErrorDetail.self) == ErrorDetail(message: "Invalid input", code: 42))
        #expect(error?.contentType == "application/json")
    }

    @Test func jsonErrorBodyDecodesThroughCallback() async throws {
        sample.callbackQueue = CallbackQueues.make("errors.json")
        let outcome: CallbackOutcome<Item> = try await callback {
            sample.invoke(.get, path: "error/json", resultHandler: $0)
        }
        let error = try #require(outcome.error as? WebServiceError)
        #expect(try error.decodeBody(ErrorDetail.self) == ErrorDetail(message: "Invalid input", code: 42))
    }

    @Test(arguments: [(400, "Bad Request"), (409, "Conflict"), (503, "Service Unavailable"), (599, "Server Error")])
    func emptyErrorBodyDescribedByReasonPhrase(statusCode: Int, phrase: String) async throws {
        let error = await #expect(throws: WebServiceError.self) {
            try await sample.invoke(.get, path: "error/status/\(statusCode)")
        }
        #expect(error?.statusCode == statusCode)
        #expect(error?.body.isEmpty == true)
        #expect(error?.localizedDescription == phrase)
    }

    /// httpbin's `/status/401` sends `WWW-Authenticate: Basic`; URLSession on Linux has been
    /// seen to wait for a credential that never comes. The timeout, and a deadline beyond it,
    /// keep the test from hanging.
    @Test(arguments: ["ephemeral", "shared"])
    func unauthorizedWithChallengeCompletes(session: String) async throws {
        let baseURL = try #require(Servers.httpbin)
        let proxy = WebServiceProxy(session: session == "shared" ? .shared : Servers.session, baseURL: baseURL)
        proxy.timeoutInterval = 60
        let start = ContinuousClock.now
        let result = await Deadline.run(seconds: 90) {
            try await proxy.invoke(.get, path: "status/401")
        }
        let elapsed = ContinuousClock.now - start
        let error = try #require(result, "a 401 with WWW-Authenticate hung for \(elapsed) despite a 60 s timeout")
            .failure
        let serviceError = try #require(
            error as? WebServiceError, "a 401 with WWW-Authenticate gave \(String(describing: error)) after \(elapsed)")
        #expect(serviceError.statusCode == 401)
        #expect(serviceError.headers["www-authenticate"]?.hasPrefix("Basic") == true)
        // Well under the timeout, with room for a busy parallel run.
        #expect(elapsed < .seconds(40))
    }

    @Test func unauthorizedWithChallengeCompletesThroughCallback() async throws {
        httpbin.timeoutInterval = 5
        httpbin.callbackQueue = CallbackQueues.make("errors.401")
        let proxy = httpbin
        let result = await Deadline.run(seconds: 30) { () -> CallbackOutcome<Void> in
            try await callback { proxy.invoke(.post, path: "status/401", arguments: ["a": 1], resultHandler: $0) }
        }
        let outcome = try #require(result, "a 401 with WWW-Authenticate hung despite a 5 s timeout").get()
        #expect((outcome.error as? WebServiceError)?.statusCode == 401)
    }

    // MARK: Bad input: nothing is sent

    @Test func emptyKeyIsRejected() async throws {
        let error = await #expect(throws: ArgumentEncodingError.self) {
            let _: MethodEcho = try await sample.invoke(.get, path: "echo/method", arguments: ["": 1, "a": 2])
        }
        #expect(error == .emptyKey)
    }

    @Test func emptyKeyIsRejectedThroughCallback() async throws {
        sample.callbackQueue = CallbackQueues.make("errors.empty-key")
        let outcome: CallbackOutcome<MethodEcho> = try await callback {
            sample.invoke(.post, path: "echo/method", arguments: ["": 1], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? ArgumentEncodingError == .emptyKey)
        #expect(outcome.queueLabel == "errors.empty-key")
    }

    @Test(arguments: ["a\r\nX-Injected: yes", "line\nfeed", "carriage\rreturn"])
    func lineBreakInHeaderIsRejected(value: String) async throws {
        sample.headers = ["X-Kilo-Token": value]
        let error = await #expect(throws: RequestError.self) {
            let _: [String: String] = try await sample.invoke(.get, path: "echo/headers")
        }
        #expect(error == .invalidHeaderValue("X-Kilo-Token"))
    }

    @Test func invalidHeaderNameIsRejected() async throws {
        sample.headers = ["Bad Name": "x"]
        let error = await #expect(throws: RequestError.self) {
            try await sample.invoke(.get, path: "empty")
        }
        #expect(error == .invalidHeaderName("Bad Name"))
    }

    @Test func lineBreakInHeaderIsRejectedThroughCallback() async throws {
        sample.headers = ["X-Kilo-Token": "a\r\nX-Injected: yes"]
        sample.callbackQueue = CallbackQueues.make("errors.header")
        let outcome: CallbackOutcome<Void> = try await callback {
            sample.invoke(.get, path: "echo/headers", resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? RequestError == .invalidHeaderValue("X-Kilo-Token"))
    }

    @Test func unreadableFileIsRejected() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.png")
        sample.encoding = .multipartFormData
        let error = await #expect(throws: ArgumentEncodingError.self) {
            let _: MultipartEcho = try await sample.invoke(
                .post, path: "echo/multipart", arguments: ["title": "x", "photo": missing])
        }
        #expect(error?.isUnreadableFile == true)
        #expect(error?.key == "photo")
        #expect(error?.fileURL == missing)
    }

    @Test func unreadableFileIsRejectedThroughCallback() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.txt")
        sample.encoding = .multipartFormData
        sample.callbackQueue = CallbackQueues.make("errors.file")
        let outcome: CallbackOutcome<MultipartEcho> = try await callback {
            sample.invoke(.post, path: "echo/multipart", arguments: ["files": [missing]], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        let error = try #require(outcome.error as? ArgumentEncodingError)
        #expect(error.isUnreadableFile)
        #expect(error.key == "files")
    }

    @Test func fileInFormIsRejected() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data("x".utf8), named: "a.txt")
        let error = await #expect(throws: ArgumentEncodingError.self) {
            let _: FormEcho = try await sample.invoke(.post, path: "echo/form", arguments: ["doc": file])
        }
        #expect(error == .fileNotAllowed("doc"))
    }

    @Test func unsupportedValuesAreRejected() async throws {
        let dictionary = await #expect(throws: ArgumentEncodingError.self) {
            let _: QueryEcho = try await sample.invoke(.get, path: "echo/query", arguments: ["map": ["a": 1]])
        }
        #expect(dictionary?.key == "map")
        let infinite = await #expect(throws: ArgumentEncodingError.self) {
            let _: QueryEcho = try await sample.invoke(.get, path: "echo/query", arguments: ["n": Double.infinity])
        }
        #expect(infinite == .nonFiniteNumber("n"))
    }

    @Test(arguments: ["http://[::1", "ftp://127.0.0.1/file", "file:///etc/hosts", "http://"])
    func invalidPathIsRejected(path: String) async throws {
        let error = await #expect(throws: RequestError.self) {
            try await sample.invoke(.get, path: path)
        }
        #expect(error == .invalidPath(path))
    }

    @Test(arguments: ["http://[::1", "ftp://127.0.0.1/file"])
    func invalidPathIsRejectedThroughCallback(path: String) async throws {
        sample.callbackQueue = CallbackQueues.make("errors.path")
        let outcome: CallbackOutcome<[Int]> = try await callback {
            sample.invoke(.get, path: path, resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? RequestError == .invalidPath(path))
        #expect(outcome.queueLabel == "errors.path")
    }

    @Test func unencodableBodyThrowsEncodingError() async throws {
        await #expect(throws: EncodingError.self) {
            try await sample.invoke(.post, path: "echo/body", body: [Double.nan])
        }
        #expect(throws: EncodingError.self) {
            try sample.invoke(.post, path: "echo/body", body: [Double.nan]) { (_: Result<BodyEcho, any Error>) in
                Issue.record("the result handler ran for a body that cannot be encoded")
            }
        }
    }

    // MARK: Decoding

    @Test func undecodableBodyGivesDecodingError() async throws {
        await #expect(throws: DecodingError.self) {
            let _: [Int] = try await sample.invoke(.get, path: "text")
        }
        await #expect(throws: DecodingError.self) {
            let _: [String] = try await sample.invoke(.get, path: "fibonacci", arguments: ["count": 3])
        }
        await #expect(throws: DecodingError.self) {
            let _: Item = try await sample.invoke(.get, path: "empty")
        }
    }

    @Test func undecodableBodyGivesDecodingErrorThroughCallback() async throws {
        sample.callbackQueue = CallbackQueues.make("errors.decoding")
        let outcome: CallbackOutcome<Item> = try await callback {
            sample.invoke(.get, path: "fibonacci", arguments: ["count": 3], resultHandler: $0)
        }
        #expect(outcome.error is DecodingError)
        #expect(outcome.task != nil)
    }

    @Test func responseHandlerErrorIsPassedOn() async throws {
        let error = await #expect(throws: CocoaError.self) {
            try await sample.invoke(.get, path: "text", responseHandler: { _, _ in
                throw CocoaError(.coderReadCorrupt)
            })
        }
        #expect(error?.code == .coderReadCorrupt)
    }

    // MARK: Transport

    @Test func idleTimeoutGivesTimedOut() async throws {
        sample.timeoutInterval = 1
        let error = await #expect(throws: URLError.self) {
            let _: Slept = try await sample.invoke(.get, path: "slow", arguments: ["seconds": 10])
        }
        #expect(error?.code == .timedOut)
    }
}
