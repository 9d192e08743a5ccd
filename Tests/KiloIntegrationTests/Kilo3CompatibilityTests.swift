import Foundation
import Kilo
import Testing

// Written as a Kilo 3.x user writes: a proxy on `URLSession.shared`, result handlers as trailing
// closures with an annotated `Result<T, Error>` type, delivered on the main queue, and the
// settings set as properties. Only `withCheckedContinuation` is added, so a test can wait for the
// handler. (This target builds without `ExistentialAny`, as a user's program does, so the bare
// `Error` spelling compiles without warnings.)

/// Checks that code written for Kilo 3.x compiles unchanged and still works.
@Suite(.enabled(if: Servers.sample != nil, "needs KILO_SAMPLE_URL (run Scripts/test.sh)"))
struct Kilo3CompatibilityTests {
    let proxy: WebServiceProxy

    init() throws {
        proxy = WebServiceProxy(session: URLSession.shared, baseURL: try #require(Servers.sample))
    }

    @Test func decodesJSONInTrailingClosure() async throws {
        let result: Result<[Int], Error> = await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "fibonacci", arguments: ["count": 8]) { (result: Result<[Int], Error>) in
                continuation.resume(returning: result)
            }
        }
        switch result {
        case .success(let numbers):
            #expect(numbers == [0, 1, 1, 2, 3, 5, 8, 13])
        case .failure(let error):
            Issue.record(error)
        }
    }

    @Test func voidResultHandler() async throws {
        let result: Result<Void, Error> = await withCheckedContinuation { continuation in
            proxy.invoke(.delete, path: "items/3") { (result: Result<Void, Error>) in
                continuation.resume(returning: result)
            }
        }
        #expect(throws: Never.self) { try result.get() }
    }

    @Test func argumentsWithUndefinedAndDates() async throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let result: Result<QueryEcho, Error> = await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "echo/query", arguments: [
                "q": "a+b & c",
                "ids": [1, 2, 3],
                "since": date,
                "filter": WebServiceProxy.undefined
            ]) { (result: Result<QueryEcho, Error>) in
                continuation.resume(returning: result)
            }
        }
        let echo = try result.get()
        #expect(echo.args == ["q": ["a+b & c"], "ids": ["1", "2", "3"], "since": ["1700000000123"]])
    }

    /// Kilo 3.x sent any value by its description: an enum with a `description` arrives as that
    /// text, and one with raw values as its raw value.
    @Test func anyValueIsSentAsItsDescriptionOrRawValue() async throws {
        let result: Result<QueryEcho, Error> = await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "echo/query", arguments: [
                "day": DayOfWeek.monday,
                "days": [DayOfWeek.monday, DayOfWeek.tuesday],
                "sort": SortOrder.descending
            ]) { (result: Result<QueryEcho, Error>) in
                continuation.resume(returning: result)
            }
        }
        let echo = try result.get()
        #expect(echo.args == ["day": ["MONDAY"], "days": ["MONDAY", "TUESDAY"], "sort": ["desc"]])
    }

    @Test func multipartUpload() async throws {
        let directory = try TemporaryDirectory()
        let photo = try directory.write(Fixtures.bytes(count: 4_096), named: "photo.jpg")
        let notes = try directory.write(Data("notes".utf8), named: "notes.txt")

        proxy.encoding = .multipartFormData

        let result: Result<MultipartEcho, Error> = await withCheckedContinuation { continuation in
            proxy.invoke(.post, path: "echo/multipart", arguments: [
                "title": "Trip",
                "photo": photo,
                "attachments": [notes, photo]
            ]) { (result: Result<MultipartEcho, Error>) in
                continuation.resume(returning: result)
            }
        }
        let echo = try result.get()
        #expect(echo.form == ["title": ["Trip"]])
        #expect(echo.files["photo"]?.map(\.filename) == ["photo.jpg"])
        #expect(echo.files["photo"]?.first?.contentType == "image/jpeg")
        #expect(echo.files["photo"]?.first?.sha256 == SHA256.hexDigest(Fixtures.bytes(count: 4_096)))
        #expect(echo.files["attachments"]?.map(\.filename) == ["notes.txt", "photo.jpg"])
    }

    @Test func headersProperty() async throws {
        proxy.headers = ["X-Token": "abc123"]

        let result: Result<[String: String], Error> = await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "echo/headers") { (result: Result<[String: String], Error>) in
                continuation.resume(returning: result)
            }
        }
        #expect(try result.get()["x-token"] == "abc123")
    }

    @Test func cancelReturnedTask() async throws {
        let result: Result<Slept, Error> = await withCheckedContinuation { continuation in
            let task = proxy.invoke(.get, path: "slow", arguments: ["seconds": 5]) {
                (result: Result<Slept, Error>) in
                continuation.resume(returning: result)
            }

            task?.cancel()
        }
        switch result {
        case .success:
            Issue.record("a cancelled request succeeded")
        case .failure(let error):
            #expect((error as? URLError)?.code == .cancelled)
        }
    }

    /// Kilo 3.x returned the `URLSessionDataTask` "to monitor the status of outstanding requests
    /// or cancel a request": the task Kilo returns tells its state and progress.
    @Test func monitorReturnedTask() async throws {
        let started = Protected<RequestTask?>(nil)
        let result: Result<Slept, Error> = await withCheckedContinuation { continuation in
            let task = proxy.invoke(.get, path: "slow", arguments: ["seconds": 0]) { (result: Result<Slept, Error>) in
                continuation.resume(returning: result)
            }
            #expect(task?.state == .running)
            started.withLock { $0 = task }
        }
        _ = try result.get()
        let task = try #require(started.current)
        #expect(task.state == .completed)
        #expect(task.progress.fractionCompleted == 1)
    }

    @Test func encodableBody() async throws {
        let note = Note(title: "Plan", count: 2, due: Date(timeIntervalSince1970: 1_700_000_000), tags: ["a"])

        let result: Result<BodyEcho, Error> = try await withCheckedThrowingContinuation { continuation in
            do {
                try proxy.invoke(.post, path: "echo/body", body: note) { (result: Result<BodyEcho, Error>) in
                    continuation.resume(returning: result)
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        let echo = try result.get()
        #expect(echo.contentType == "application/json")
        #expect(echo.json?.title == "Plan")
        #expect(echo.json?.due == note.due)
    }

    @Test func encodableBodyWithoutResult() async throws {
        let result: Result<Void, Error> = try await withCheckedThrowingContinuation { continuation in
            do {
                try proxy.invoke(.put, path: "items/5", body: ItemUpdate(name: "Chair")) {
                    (result: Result<Void, Error>) in
                    continuation.resume(returning: result)
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        #expect(throws: Never.self) { try result.get() }
    }

    @Test func contentWithType() async throws {
        let content = "Hello, Kilo".data(using: .utf8)!

        let result: Result<BodyEcho, Error> = await withCheckedContinuation { continuation in
            proxy.invoke(
                .post, path: "echo/body", arguments: ["id": 101], content: content, contentType: "text/plain"
            ) {
                (result: Result<BodyEcho, Error>) in
                continuation.resume(returning: result)
            }
        }
        let echo = try result.get()
        #expect(echo.args == ["id": ["101"]])
        #expect(echo.contentType == "text/plain")
        #expect(echo.size == content.count)
    }

    @Test func responseHandler() async throws {
        let result: Result<String?, Error> = await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "text", responseHandler: { content, contentType in
                String(data: content, encoding: .utf8)
            }) { (result: Result<String?, Error>) in
                continuation.resume(returning: result)
            }
        }
        #expect(try result.get() == "Hello, World!")
    }

    @Test func errorDescriptionAndStatusCode() async throws {
        let result: Result<Void, Error> = await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "error") { (result: Result<Void, Error>) in
                continuation.resume(returning: result)
            }
        }
        switch result {
        case .success:
            Issue.record("an error response succeeded")
        case .failure(let error):
            #expect(error.localizedDescription == "This is an error message.")
            #expect((error as? WebServiceError)?.statusCode == 500)
        }
    }
}

/// A day as a Kilo 3.x user's model might spell it, sent by its description.
private enum DayOfWeek: CustomStringConvertible {
    case monday, tuesday

    var description: String {
        switch self {
        case .monday: return "MONDAY"
        case .tuesday: return "TUESDAY"
        }
    }
}

/// A sort order sent by its raw value.
private enum SortOrder: String {
    case ascending = "asc", descending = "desc"
}
