import Foundation
import Kilo
import Testing

/// Checks, through the sample service's echoes, what it received from each `invoke` variant,
/// and how its responses are read.
@Suite(.enabled(if: Servers.sample != nil, "needs KILO_SAMPLE_URL (run Scripts/test.sh)"))
struct SampleServiceTests {
    private let proxy: WebServiceProxy

    init() throws {
        proxy = try Servers.sampleProxy()
    }

    private static let createdMilliseconds: Int64 = 1_700_000_000_123

    private static let note = Note(
        title: "Plan + test é", count: 3, due: Fixtures.date(milliseconds: 1_700_000_000_123), tags: ["x", "y z"])

    // MARK: JSON results

    @Test func fibonacciDecodes() async throws {
        let numbers: [Int] = try await proxy.invoke(.get, path: "fibonacci", arguments: ["count": 8])
        #expect(numbers == [0, 1, 1, 2, 3, 5, 8, 13])
    }

    @Test func fibonacciDecodesThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.fibonacci")
        let outcome: CallbackOutcome<[Int]> = try await callback {
            proxy.invoke(.get, path: "fibonacci", arguments: ["count": 8], resultHandler: $0)
        }
        #expect(try outcome.get() == [0, 1, 1, 2, 3, 5, 8, 13])
        #expect(outcome.queueLabel == "sample.fibonacci")
    }

    @Test func repeatedValuesArriveAsList() async throws {
        let sum: Double = try await proxy.invoke(.get, path: "math/sum", arguments: ["values": [1, 2.5, 3]])
        #expect(sum == 6.5)
    }

    @Test func emptyBodyDecodesAsNilForOptional() async throws {
        let item: Item? = try await proxy.invoke(.get, path: "empty")
        #expect(item == nil)
    }

    @Test func emptyBodyDecodesAsNilForOptionalThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.empty")
        let outcome: CallbackOutcome<Item?> = try await callback {
            proxy.invoke(.get, path: "empty", resultHandler: $0)
        }
        #expect(try outcome.get() == nil)
    }

    // MARK: Argument placement

    @Test(arguments: [HTTPMethod.get, .put, .patch, .delete, .options])
    func argumentsGoInQueryExceptForPost(method: HTTPMethod) async throws {
        let echo: MethodEcho = try await proxy.invoke(
            method, path: "echo/method", arguments: ["id": 5, "tags": ["a", "b"]])
        #expect(echo.method == method.rawValue)
        #expect(echo.args == ["id": ["5"], "tags": ["a", "b"]])
    }

    @Test(arguments: [HTTPMethod.get, .put, .patch, .delete, .options])
    func argumentsGoInQueryExceptForPostThroughCallback(method: HTTPMethod) async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.methods")
        let outcome: CallbackOutcome<MethodEcho> = try await callback {
            proxy.invoke(method, path: "echo/method", arguments: ["id": 5, "tags": ["a", "b"]], resultHandler: $0)
        }
        let echo = try outcome.get()
        #expect(echo.method == method.rawValue)
        #expect(echo.args == ["id": ["5"], "tags": ["a", "b"]])
    }

    @Test func argumentKindsArriveAsText() async throws {
        let arguments: [String: Any] = [
            "int8": Int8(-3), "uint64": UInt64.max, "float": Float(0.1), "double": 0.1,
            "decimal": Decimal(string: "1.10") as Any, "nsOne": NSNumber(value: 1), "nsTrue": NSNumber(value: true),
            "nsHalf": NSNumber(value: 2.5), "substring": "abc".dropFirst(), "empty": "", "emptyList": [Int](),
            "uuid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") as Any,
            "link": URL(string: "https://example.com/a%20b?x=1") as Any,
        ]
        let echo: QueryEcho = try await proxy.invoke(.get, path: "echo/query", arguments: arguments)
        #expect(
            echo.args == [
                "int8": ["-3"], "uint64": ["18446744073709551615"], "float": ["0.1"], "double": ["0.1"],
                "decimal": ["1.1"], "nsOne": ["1"], "nsTrue": ["true"], "nsHalf": ["2.5"], "substring": ["bc"],
                "empty": [""], "uuid": ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F"],
                "link": ["https://example.com/a%20b?x=1"],
            ])
    }

    /// A Foundation number inside an optional, as `json["count"] as? NSNumber` gives it, arrives
    /// as its digits, not as `true` or `false`.
    @Test func optionalFoundationNumbersArriveAsTheirDigits() async throws {
        let one: NSNumber? = NSNumber(value: 1)
        let zero: NSNumber? = NSNumber(value: 0)
        let largest: NSNumber? = NSNumber(value: UInt64.max)
        let arguments: [String: Any] = ["one": one as Any, "zero": zero as Any, "largest": largest as Any]
        let echo: QueryEcho = try await proxy.invoke(.get, path: "echo/query", arguments: arguments)
        #expect(echo.args == ["one": ["1"], "zero": ["0"], "largest": ["18446744073709551615"]])
    }

    @Test func argumentsJoinQueryAlreadyInPath() async throws {
        let echo: QueryEcho = try await proxy.invoke(
            .get, path: "echo/query?fixed=a%20b#fragment", arguments: ["x": "1 2"])
        #expect(echo.args == ["fixed": ["a b"], "x": ["1 2"]])
        let absolute: MethodEcho = try await proxy.invoke(.get, path: "/echo/method", arguments: ["a": 1])
        #expect(absolute.args == ["a": ["1"]])
    }

    /// A path whose query is empty or ends with `&` gets the arguments without an empty pair.
    @Test(arguments: [("echo/query?", "x=1"), ("echo/query?a=b&", "a=b&x=1"), ("echo/query?a=b", "a=b&x=1")])
    func argumentsJoinQueryWithoutAnEmptyPair(path: String, raw: String) async throws {
        let echo: QueryEcho = try await proxy.invoke(.get, path: path, arguments: ["x": 1])
        #expect(echo.raw == raw)
    }

    /// An endpoint that is the base URL itself, as upload services give one: the empty path
    /// calls it, with its query kept and the arguments added to it, or in a multipart body.
    @Test func theEmptyPathCallsTheBaseURLItself() async throws {
        let sample = try #require(Servers.sample)
        let query = Servers.makeProxy(baseURL: try #require(URL(string: "echo/query?fixed=1", relativeTo: sample)))
        let echo: QueryEcho = try await query.invoke(.get, path: "", arguments: ["q": "a b"])
        #expect(echo.args == ["fixed": ["1"], "q": ["a b"]])
        let upload = Servers.makeProxy(baseURL: try #require(URL(string: "echo/multipart", relativeTo: sample)))
        upload.encoding = .multipartFormData
        upload.callbackQueue = CallbackQueues.make("sample.empty-path")
        let outcome: CallbackOutcome<MultipartEcho> = try await callback {
            upload.invoke(.post, path: "", arguments: ["title": "Trip"], resultHandler: $0)
        }
        #expect(try outcome.get().form == ["title": ["Trip"]])
    }

    /// A scheme is matched without regard to case (RFC 3986): a base URL or an absolute path
    /// spelled `HTTP://` reaches the server, where Linux's URLSession refuses it as unsupported.
    @Test func schemeInCapitalsReachesTheServer() async throws {
        let sample = try #require(Servers.sample)
        let capitals = try #require(URL(string: "HTTP" + sample.absoluteString.dropFirst("http".count)))
        let proxy = Servers.makeProxy(baseURL: capitals)
        let plain: QueryEcho = try await proxy.invoke(.get, path: "echo/query", arguments: ["a": 1])
        #expect(plain.args == ["a": ["1"]])
        let rooted: MethodEcho = try await proxy.invoke(.get, path: "/echo/method", arguments: ["b": 2])
        #expect(rooted.args == ["b": ["2"]])
        let absolute: QueryEcho = try await self.proxy.invoke(
            .get, path: capitals.absoluteString + "echo/query", arguments: ["c": 3])
        #expect(absolute.args == ["c": ["3"]])
    }

    @Test func postArgumentsStayOutOfQuery() async throws {
        let echo: MethodEcho = try await proxy.invoke(.post, path: "echo/method", arguments: ["id": 5])
        #expect(echo.method == "POST")
        #expect(echo.args.isEmpty)
    }

    @Test func headSucceedsWithEmptyBody() async throws {
        try await proxy.invoke(.head, path: "echo/method", arguments: ["id": 5])
        let content = try await proxy.invoke(.head, path: "echo/method", responseHandler: { content, _ in content })
        #expect(content.isEmpty)
    }

    @Test(arguments: Fixtures.awkwardValues)
    func awkwardValuesArriveIntactInQuery(value: String) async throws {
        let echo: QueryEcho = try await proxy.invoke(
            .get, path: "echo/query", arguments: ["v": value, Fixtures.awkwardKey: value])
        #expect(echo.args == ["v": [value], Fixtures.awkwardKey: [value]])
        #expect(echo.raw.allSatisfy(Self.isUnreservedOrDelimiter), "raw query: \(echo.raw)")
    }

    @Test(arguments: Fixtures.awkwardValues)
    func awkwardValuesArriveIntactInForm(value: String) async throws {
        let echo: FormEcho = try await proxy.invoke(
            .post, path: "echo/form", arguments: ["v": value, Fixtures.awkwardKey: value])
        #expect(echo.form == ["v": [value], Fixtures.awkwardKey: [value]])
        #expect(echo.args.isEmpty)
        #expect(echo.contentType == "application/x-www-form-urlencoded")
        #expect(echo.raw.allSatisfy(Self.isUnreservedOrDelimiter), "raw body: \(echo.raw)")
    }

    @Test func awkwardValuesArriveIntactThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.awkward")
        var arguments: [String: Any] = [:]
        var expected: [String: [String]] = [:]
        for (index, value) in Fixtures.awkwardValues.enumerated() {
            arguments["v\(index)"] = value
            expected["v\(index)"] = [value]
        }
        arguments[Fixtures.awkwardKey] = Fixtures.awkwardValues
        expected[Fixtures.awkwardKey] = Fixtures.awkwardValues
        let sent = arguments
        let query: CallbackOutcome<QueryEcho> = try await callback {
            proxy.invoke(.get, path: "echo/query", arguments: sent, resultHandler: $0)
        }
        #expect(try query.get().args == expected)
        let form: CallbackOutcome<FormEcho> = try await callback {
            proxy.invoke(.post, path: "echo/form", arguments: sent, resultHandler: $0)
        }
        #expect(try form.get().form == expected)
    }

    /// Whether a character may appear in a query or form body Kilo encoded: RFC 3986's
    /// unreserved set, `%` escapes, and the `&` and `=` delimiters.
    private static func isUnreservedOrDelimiter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "-._~%&=".contains(character))
    }

    // MARK: Forms

    private static func formArguments() -> [String: Any] {
        [
            "tags": ["x", "y z"], "when": Fixtures.date(milliseconds: createdMilliseconds), "count": 3,
            "flag": false, "skip": WebServiceProxy.undefined,
        ]
    }

    private static let expectedForm: [String: [String]] = [
        "tags": ["x", "y z"], "when": ["1700000000123"], "count": ["3"], "flag": ["false"],
    ]

    @Test func formCarriesListsAndDatesAndSkipsUndefined() async throws {
        let echo: FormEcho = try await proxy.invoke(.post, path: "echo/form", arguments: Self.formArguments())
        #expect(echo.form == Self.expectedForm)
        #expect(echo.args.isEmpty)
        #expect(echo.contentType == "application/x-www-form-urlencoded")
    }

    @Test func formCarriesListsAndDatesAndSkipsUndefinedThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.form")
        let outcome: CallbackOutcome<FormEcho> = try await callback {
            proxy.invoke(.post, path: "echo/form", arguments: Self.formArguments(), resultHandler: $0)
        }
        let echo = try outcome.get()
        #expect(echo.form == Self.expectedForm)
        #expect(echo.args.isEmpty)
    }

    // MARK: Multipart

    /// Files for a multipart upload; the photo is larger than one 256 KiB read chunk.
    private struct Uploads {
        let directory: TemporaryDirectory
        let photo: URL, first: URL, second: URL
        let photoData = Fixtures.bytes(count: 300_000, seed: 7)
        let firstData = Data("first attachment é\n".utf8)
        let secondData = Fixtures.bytes(count: 1_000, seed: 9)

        init() throws {
            directory = try TemporaryDirectory()
            photo = try directory.write(photoData, named: "photo.png")
            first = try directory.write(firstData, named: "first notes.txt")
            second = try directory.write(secondData, named: "second.bin")
        }

        var arguments: [String: Any] {
            [
                "title": "Trip & more é😀", "photo": photo, "attachments": [first, second], "tags": ["x", "y z"],
                "when": Fixtures.date(milliseconds: createdMilliseconds), "skip": WebServiceProxy.undefined,
            ]
        }

        func expectReceived(_ echo: MultipartEcho) {
            #expect(echo.form == ["title": ["Trip & more é😀"], "tags": ["x", "y z"], "when": ["1700000000123"]])
            #expect(
                echo.files["photo"] == [
                    UploadedFile(
                        filename: "photo.png", contentType: "image/png", size: 300_000,
                        sha256: SHA256.hexDigest(photoData))
                ])
            #expect(
                echo.files["attachments"] == [
                    UploadedFile(
                        filename: "first notes.txt", contentType: "text/plain", size: firstData.count,
                        sha256: SHA256.hexDigest(firstData)),
                    UploadedFile(
                        filename: "second.bin", contentType: "application/octet-stream", size: 1_000,
                        sha256: SHA256.hexDigest(secondData)),
                ])
            #expect(echo.files.count == 2)
            #expect(echo.args.isEmpty)
            #expect(echo.contentType?.hasPrefix("multipart/form-data; boundary=") == true)
        }
    }

    @Test func multipartCarriesTextFilesListsAndDates() async throws {
        let uploads = try Uploads()
        proxy.encoding = .multipartFormData
        let echo: MultipartEcho = try await proxy.invoke(.post, path: "echo/multipart", arguments: uploads.arguments)
        uploads.expectReceived(echo)
    }

    @Test func multipartKeepsNonASCIIAndQuotedNames() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data("x".utf8), named: "résumé \"final\".TXT")
        proxy.encoding = .multipartFormData
        let echo: MultipartEcho = try await proxy.invoke(
            .post, path: "echo/multipart", arguments: ["clé \"q\"": "välue 😀", "fïle": file])
        #expect(echo.form == ["clé \"q\"": ["välue 😀"]])
        #expect(echo.files["fïle"]?.map(\.filename) == ["résumé \"final\".TXT"])
        #expect(echo.files["fïle"]?.map(\.contentType) == ["text/plain"])
    }

    @Test func multipartCarriesTextFilesListsAndDatesThroughCallback() async throws {
        let uploads = try Uploads()
        proxy.encoding = .multipartFormData
        proxy.callbackQueue = CallbackQueues.make("sample.multipart")
        let arguments = uploads.arguments
        let outcome: CallbackOutcome<MultipartEcho> = try await callback {
            proxy.invoke(.post, path: "echo/multipart", arguments: arguments, resultHandler: $0)
        }
        uploads.expectReceived(try outcome.get())
    }

    // MARK: Request bodies

    @Test func postContentSendsArgumentsInQuery() async throws {
        let content = Fixtures.bytes(count: 5_000, seed: 3)
        let echo: BodyEcho = try await proxy.invoke(
            .post, path: "echo/body", arguments: ["page": 2, "q": "a+b c"], content: content, contentType: "image/png")
        #expect(echo.method == "POST")
        #expect(echo.args == ["page": ["2"], "q": ["a+b c"]])
        #expect(echo.contentType == "image/png")
        #expect(echo.size == 5_000)
        #expect(echo.sha256 == SHA256.hexDigest(content))
    }

    @Test func postContentSendsArgumentsInQueryThroughCallback() async throws {
        let content = Data("Grüße, server 😀".utf8)
        proxy.callbackQueue = CallbackQueues.make("sample.content")
        let outcome: CallbackOutcome<BodyEcho> = try await callback {
            proxy.invoke(
                .post, path: "echo/body", arguments: ["page": 2], content: content,
                contentType: "text/plain; charset=utf-8", resultHandler: $0)
        }
        let echo = try outcome.get()
        #expect(echo.args == ["page": ["2"]])
        #expect(echo.contentType == "text/plain; charset=utf-8")
        #expect(echo.sha256 == SHA256.hexDigest(content))
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch])
    func contentWithoutTypeArrivesAsOctetStream(method: HTTPMethod) async throws {
        let content = Data("plain bytes".utf8)
        let echo: BodyEcho = try await proxy.invoke(method, path: "echo/body", content: content)
        #expect(echo.method == method.rawValue)
        #expect(echo.contentType == "application/octet-stream")
        #expect(echo.size == content.count)
    }

    @Test func contentWithoutTypeArrivesAsOctetStreamThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.octet")
        let outcome: CallbackOutcome<BodyEcho> = try await callback {
            proxy.invoke(.put, path: "echo/body", arguments: ["a": 1], content: Data([0, 1, 2]), resultHandler: $0)
        }
        let echo = try outcome.get()
        #expect(echo.contentType == "application/octet-stream")
        #expect(echo.args == ["a": ["1"]])
        #expect(echo.size == 3)
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch])
    func jsonBodyArrivesWithArgumentsInQuery(method: HTTPMethod) async throws {
        let echo: BodyEcho = try await proxy.invoke(
            method, path: "echo/body", arguments: ["tag": "a b", "n": 1], body: Self.note)
        Self.expectNoteArrived(echo, method: method)
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch])
    func jsonBodyArrivesWithArgumentsInQueryThroughCallback(method: HTTPMethod) async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.body")
        let outcome: CallbackOutcome<BodyEcho> = try await callback {
            try proxy.invoke(
                method, path: "echo/body", arguments: ["tag": "a b", "n": 1], body: Self.note, resultHandler: $0)
        }
        Self.expectNoteArrived(try outcome.get(), method: method)
    }

    private static func expectNoteArrived(_ echo: BodyEcho, method: HTTPMethod) {
        #expect(echo.method == method.rawValue)
        #expect(echo.args == ["tag": ["a b"], "n": ["1"]])
        #expect(echo.contentType == "application/json")
        #expect(echo.json?.title == note.title)
        #expect(echo.json?.count == note.count)
        #expect(echo.json?.tags == note.tags)
        #expect(echo.json.map { Fixtures.milliseconds(of: $0.due) } == 1_700_000_000_123)
    }

    // MARK: Your own JSON coders

    /// A person whose birthday an API writes as a day, `"1866-01-01"`.
    private struct Birth: Codable, Equatable, Sendable {
        var name: String
        var born: Date
    }

    /// `/echo/body`, with the body as the server parsed it.
    private struct EchoOf<Body: Decodable & Sendable>: Decodable, Sendable {
        var json: Body
    }

    /// Docs/GettingStarted.md's recipe: coders that read and write dates as days.
    @Test func ownCodersWriteAndReadDatesAsDays() async throws {
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd"
        proxy.makeJSONDecoder = {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .formatted(day)
            return decoder
        }
        proxy.makeJSONEncoder = {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .formatted(day)
            return encoder
        }
        proxy.callbackQueue = CallbackQueues.make("sample.coders")
        let birth = Birth(name: "Ada", born: try #require(day.date(from: "1866-01-01")))

        let sent: EchoOf<[String: String]> = try await proxy.invoke(.post, path: "echo/body", body: birth)
        #expect(sent.json == ["name": "Ada", "born": "1866-01-01"])
        let echoed: CallbackOutcome<EchoOf<Birth>> = try await callback {
            try proxy.invoke(.post, path: "echo/body", body: birth, resultHandler: $0)
        }
        #expect(try echoed.get().json == birth)
    }

    @Test func putItemEchoesBody() async throws {
        let item: ItemUpdate = try await proxy.invoke(.put, path: "items/5", body: ItemUpdate(name: "Chair"))
        #expect(item == ItemUpdate(name: "Chair", id: 5))
        try await proxy.invoke(.put, path: "items/5", body: ItemUpdate(name: "Chair"))
    }

    @Test func putItemWithoutResultThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.put")
        let outcome: CallbackOutcome<Void> = try await callback {
            try proxy.invoke(.put, path: "items/5", body: ItemUpdate(name: "Chair"), resultHandler: $0)
        }
        #expect(throws: Never.self) { try outcome.get() }
        let refused: CallbackOutcome<Void> = try await callback {
            try proxy.invoke(.put, path: "items/5", body: ["not", "an", "object"], resultHandler: $0)
        }
        #expect((refused.error as? WebServiceError)?.statusCode == 400)
    }

    // MARK: No content

    @Test func voidInvokeAcceptsNoContent() async throws {
        try await proxy.invoke(.delete, path: "items/3")
        try await proxy.invoke(.get, path: "empty")
        try await proxy.invoke(.get, path: "items/3")  // a body is ignored
    }

    @Test func voidInvokeAcceptsNoContentThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.void")
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.delete, path: "items/3", resultHandler: $0)
        }
        #expect(throws: Never.self) { try outcome.get() }
        #expect(outcome.queueLabel == "sample.void")
    }

    // MARK: Custom response handlers

    @Test func textResponseHandler() async throws {
        let (text, contentType) = try await proxy.invoke(
            .get, path: "text", responseHandler: { content, contentType in
                (String(decoding: content, as: UTF8.self), contentType)
            })
        #expect(text == "Hello, World!")
        #expect(contentType == "text/plain; charset=utf-8")
    }

    @Test func textResponseHandlerThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.text")
        let outcome: CallbackOutcome<String?> = try await callback {
            proxy.invoke(
                .get, path: "text", responseHandler: { content, _ in String(data: content, encoding: .utf8) },
                resultHandler: $0)
        }
        #expect(try outcome.get() == "Hello, World!")
    }

    @Test func csvResponseHandler() async throws {
        let rows = try await proxy.invoke(.get, path: "csv", responseHandler: Self.parseCSV)
        #expect(rows == [["a", "b"], ["1", "2"], ["3", "4"]])
    }

    @Test func csvResponseHandlerThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.csv")
        let outcome: CallbackOutcome<[[String]]> = try await callback {
            proxy.invoke(.get, path: "csv", responseHandler: Self.parseCSV, resultHandler: $0)
        }
        #expect(try outcome.get() == [["a", "b"], ["1", "2"], ["3", "4"]])
    }

    @Sendable private static func parseCSV(_ content: Data, _ contentType: String?) throws -> [[String]] {
        guard contentType?.hasPrefix("text/csv") == true else { throw CocoaError(.fileReadCorruptFile) }
        return String(decoding: content, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    @Test func responseHeadersHandlerSeesHeaders() async throws {
        let (length, contentType) = try await proxy.invoke(
            .get, path: "text",
            responseHandler: { _, contentType, headers in (headers["content-length"], contentType) })
        #expect(length == "13")
        #expect(contentType == "text/plain; charset=utf-8")
    }

    @Test func responseHeadersHandlerSeesHeadersThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.response-headers")
        let outcome: CallbackOutcome<String?> = try await callback {
            proxy.invoke(
                .get, path: "csv", responseHandler: { _, _, headers in headers["CONTENT-TYPE"] }, resultHandler: $0)
        }
        #expect(try outcome.get() == "text/csv; charset=utf-8")
    }

    // MARK: Headers

    @Test func headersPropertyArrives() async throws {
        proxy.headers = ["X-Kilo-Token": "s3cr3t", "Accept-Language": "fr-CH"]
        let headers: [String: String] = try await proxy.invoke(.get, path: "echo/headers")
        #expect(headers["x-kilo-token"] == "s3cr3t")
        #expect(headers["accept-language"] == "fr-CH")
        #expect(headers["accept"] == "application/json")
    }

    /// A field set again under another spelling, as a token refresh may write it, replaces the
    /// first: the server gets the new value, and the dictionary holds one field.
    @Test func headerSetUnderAnotherSpellingReplacesTheFirst() async throws {
        proxy.headers["authorization"] = "Bearer old"
        proxy.headers["Authorization"] = "Bearer new"
        let headers: [String: String] = try await proxy.invoke(.get, path: "echo/headers")
        #expect(headers["authorization"] == "Bearer new")
        #expect(proxy.headers == ["Authorization": "Bearer new"])
        proxy.headers["X-API-KEY"] = "first"
        proxy.headers["x-api-key"] = "second"
        let again: [String: String] = try await proxy.invoke(.get, path: "echo/headers")
        #expect(again["x-api-key"] == "second")
    }

    @Test func headersPropertyArrivesThroughCallback() async throws {
        proxy.headers = ["X-Kilo-Token": "s3cr3t"]
        proxy.callbackQueue = CallbackQueues.make("sample.headers")
        let outcome: CallbackOutcome<[String: String]> = try await callback {
            proxy.invoke(.get, path: "echo/headers", resultHandler: $0)
        }
        #expect(try outcome.get()["x-kilo-token"] == "s3cr3t")
    }

    // MARK: Dates

    @Test func jsonDatesDecodeFromEpochMilliseconds() async throws {
        let item: Item = try await proxy.invoke(.get, path: "items/7")
        #expect(item.id == 7)
        #expect(item.name == "Item 7")
        #expect(Fixtures.milliseconds(of: item.created) == Self.createdMilliseconds)
    }

    @Test func jsonDatesDecodeFromEpochMillisecondsThroughCallback() async throws {
        proxy.callbackQueue = CallbackQueues.make("sample.dates")
        let outcome: CallbackOutcome<Item> = try await callback {
            proxy.invoke(.get, path: "items/7", resultHandler: $0)
        }
        #expect(Fixtures.milliseconds(of: try outcome.get().created) == Self.createdMilliseconds)
    }

    @Test(arguments: Fixtures.epochMilliseconds)
    func dateArgumentsArriveAsExactMilliseconds(milliseconds: Int64) async throws {
        let date = Fixtures.date(milliseconds: milliseconds)
        let query: QueryEcho = try await proxy.invoke(.get, path: "echo/query", arguments: ["date": date])
        #expect(query.args == ["date": [String(milliseconds)]])
        let echo: DateEcho = try await proxy.invoke(.get, path: "dates/echo", arguments: ["date": date])
        #expect(Fixtures.milliseconds(of: echo.date) == milliseconds)
    }
}
