import Foundation

// The JSON documents of the sample service (`Service/sample_service.py`). Every field map
// holds each name's values in the order received, so repeated keys are kept.

/// `GET /echo/query`.
struct QueryEcho: Decodable, Sendable {
    var args: [String: [String]]
    /// The query string as received, still percent-encoded.
    var raw: String
}

/// `POST /echo/form`.
struct FormEcho: Decodable, Sendable {
    var args: [String: [String]]
    var form: [String: [String]]
    var contentType: String?
    /// The body as received.
    var raw: String
}

/// `POST /echo/multipart`.
struct MultipartEcho: Decodable, Sendable {
    var args: [String: [String]]
    var form: [String: [String]]
    var files: [String: [UploadedFile]]
    var contentType: String?
}

/// One file part, as the sample service received it.
struct UploadedFile: Decodable, Sendable, Equatable {
    var filename: String?
    var contentType: String?
    var size: Int
    var sha256: String
}

/// `POST|PUT|PATCH /echo/body`.
struct BodyEcho: Decodable, Sendable {
    var method: String
    var args: [String: [String]]
    var contentType: String?
    /// The body read as a ``Note``; `nil` when it was not JSON.
    var json: Note?
    var size: Int
    var sha256: String
}

/// `/echo/method`.
struct MethodEcho: Decodable, Sendable {
    var method: String
    var args: [String: [String]]
}

/// A JSON request body with a date, sent as epoch milliseconds.
struct Note: Codable, Sendable {
    var title: String
    var count: Int
    var due: Date
    var tags: [String]
}

/// `GET /items/<id>`.
struct Item: Decodable, Sendable {
    var id: Int
    var name: String
    var created: Date
}

/// The body of `PUT /items/<id>`, echoed back with the id.
struct ItemUpdate: Codable, Sendable, Equatable {
    var name: String
    var id: Int?
}

/// `GET /dates/echo`.
struct DateEcho: Decodable, Sendable {
    var date: Date
}

/// The body of `GET /error/json` (422).
struct ErrorDetail: Decodable, Sendable, Equatable {
    var message: String
    var code: Int
}

/// `GET /slow`.
struct Slept: Decodable, Sendable {
    var slept: Double
}
