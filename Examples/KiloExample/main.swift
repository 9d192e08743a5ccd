// Kilo's live example: calls Kilo's sample service (Service/sample_service.py) and prints what
// it gets back. Run it with `bash Scripts/example.sh`, which starts the service on loopback,
// or with `swift run kilo-example http://127.0.0.1:PORT/` against a service you started.
import Foundation
import Kilo

struct Item: Decodable {
    var id: Int
    var name: String
    var created: Date
}

struct Note: Codable {
    var title: String
    var tags: [String]
}

struct BodyEcho: Decodable {
    var method: String
    var args: [String: [String]]
    var contentType: String
}

/// One chunk of a streamed chat answer, in OpenAI's shape (the parts this example reads).
struct ChatChunk: Decodable {
    struct Choice: Decodable {
        struct Delta: Decodable {
            var content: String?
        }

        var delta: Delta
    }

    var choices: [Choice]
}

struct ChatRequest: Encodable {
    var prompt: String
    var tokens: Int
}

struct UploadEcho: Decodable {
    struct File: Decodable {
        var filename: String
        var contentType: String?
        var size: Int
    }

    var form: [String: [String]]
    var files: [String: [File]]
}

let arguments = CommandLine.arguments.dropFirst()
guard let address = arguments.first ?? ProcessInfo.processInfo.environment["KILO_SAMPLE_URL"],
    let baseURL = URL(string: address)
else {
    print("usage: kilo-example BASE_URL   (for example http://127.0.0.1:8080/)")
    exit(2)
}

let proxy = WebServiceProxy(configuration: .ephemeral, baseURL: baseURL)

// 1. GET with an argument, decoded from JSON.
let fibonacci: [Int] = try await proxy.invoke(.get, path: "fibonacci", arguments: ["count": 10])
print("fibonacci(10)      =", fibonacci)

// 2. An array is a multi-value parameter.
let sum: Double = try await proxy.invoke(.get, path: "math/sum", arguments: ["values": [1, 2, 3.5]])
print("sum(1, 2, 3.5)     =", sum)

// 3. The same call with a callback, delivered on the main queue.
let callbackSum: Double = try await withCheckedThrowingContinuation { continuation in
    proxy.invoke(.get, path: "math/sum", arguments: ["a": 2, "b": 40]) { (result: Result<Double, Error>) in
        dispatchPrecondition(condition: .onQueue(.main))  // result handlers run on the main queue by default
        continuation.resume(with: result)
    }
}
print("callback 2 + 40    =", callbackSum, "(delivered on the main queue)")

// 4. A JSON result with a date sent as epoch milliseconds.
let item: Item = try await proxy.invoke(.get, path: "items/7")
print("item 7             =", item.name, "created", item.created)

// 5. POST arguments as a form.
let form = try await proxy.invoke(.post, path: "echo/form", arguments: ["name": "Ann & Bob", "tags": ["a+b", "é"]]) {
    content,
    _ in String(decoding: content, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
print("form echo          =", form)

// 6. POST a file as multipart/form-data.
let file = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-example-\(UUID().uuidString).txt")
try Data("Hello from Kilo!\n".utf8).write(to: file)
defer { try? FileManager.default.removeItem(at: file) }  // A leftover temporary file is harmless.
let uploader = WebServiceProxy(configuration: .ephemeral, baseURL: baseURL)
uploader.encoding = .multipartFormData
let upload: UploadEcho = try await uploader.invoke(
    .post,
    path: "echo/multipart",
    arguments: ["title": "Greeting", "file": file]
)
for (name, files) in upload.files {
    for file in files {
        print("uploaded           = \(name): \(file.filename), \(file.size) bytes, \(file.contentType ?? "?")")
    }
}

// 7. An Encodable body, sent as JSON; the arguments go in the query string.
let echo: BodyEcho = try await proxy.invoke(
    .post,
    path: "echo/body",
    arguments: ["draft": true],
    body: Note(title: "Plan", tags: ["kilo"])
)
print("JSON body echo     =", echo.method, echo.contentType, echo.args)

// 8. Text content with a custom response handler.
let text = try await proxy.invoke(.get, path: "text") { content, contentType in
    (String(decoding: content, as: UTF8.self), contentType ?? "none")
}
print("text               =", text.0, "(\(text.1))")

// 9. An error status gives a WebServiceError; a text body is its description.
do {
    try await proxy.invoke(.get, path: "error")
} catch let error as WebServiceError {
    print("error              =", error.statusCode, error.localizedDescription)
}

// 10. A chat answer streamed as server-sent events, printed token by token as it arrives.
let answer = try await proxy.stream(
    .post,
    path: "chat",
    body: ChatRequest(prompt: "Kilo streams a chat answer token by token", tokens: 8),
    as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]")
)
print("streamed chat      = ", terminator: "")
for try await chunk in answer {
    print(chunk.choices.first?.delta.content ?? "", terminator: "")
    fflush(nil)  // show each token as it arrives, even when the output is not a terminal
}
print()

print("All examples ran.")
