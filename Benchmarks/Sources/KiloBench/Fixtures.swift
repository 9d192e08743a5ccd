import Foundation
import Kilo

/// What `GET /json` returns.
struct Item: Decodable, Sendable {
    var id: Int
    var name: String
    var tags: [String]
    var created: Date
    var price: Double
    var active: Bool
    var description: String
}

/// What `POST /discard` returns.
struct Received: Decodable, Sendable {
    var received: Int
}

/// The inputs every section shares.
enum Fixtures {
    static let date = Date(timeIntervalSince1970: 1_700_000_000.123)

    /// The typical argument set, as a Kilo 3.x caller writes it: five arguments, one of them a
    /// list of three strings and one a date. Built anew on each call, as a call site does.
    static func arguments() -> [String: Any] {
        ["q": "swift & kilo", "page": 2, "size": 50, "tags": ["new", "a+b", "été"], "since": date]
    }

    /// The same arguments, typed, as a user of KiloEncoding alone writes them.
    static func typedArguments() -> [String: Argument] {
        ["q": "swift & kilo", "page": 2, "size": 50, "tags": ["new", "a+b", "été"], "since": .date(date)]
    }

    /// Ten text fields for a multipart body.
    static func tenFields() -> [String: Argument] {
        var fields: [String: Argument] = [:]
        for index in 0..<10 {
            fields["field\(index)"] = .string("value \(index) of a typical form, ünïcödé included")
        }
        return fields
    }

    /// The same ten fields, untyped, for the Kilo 3.x reference.
    static func tenFieldsUntyped() -> [String: Any] {
        var fields: [String: Any] = [:]
        for index in 0..<10 {
            fields["field\(index)"] = "value \(index) of a typical form, ünïcödé included"
        }
        return fields
    }

    /// The body of `GET /json`, for the in-memory rows (the same bytes the server sends).
    static let jsonBody = Data(
        (#"{"id":1,"name":"Kilo benchmark item","tags":["swift","rest","client"],"#
            + #""created":1700000000123,"price":12.5,"active":true,"#
            + #""description":"A small JSON object, about the size of a typical REST resource."}"#).utf8)
}

/// Kilo 3.x's way of building a query string, kept here only as the baseline that the new
/// encoders are measured against. It is NOT Kilo's code any more: `URLComponents.queryItems`
/// leaves `+ ; / ?` unescaped, so 3.x patched `+` afterwards with string replacement.
enum Kilo3xReference {
    static func query(_ arguments: [String: Any]) -> String? {
        var items: [URLQueryItem] = []
        for (key, argument) in arguments {
            for element in argument as? [Any] ?? [argument] {
                guard let value = value(for: element) else { continue }
                items.append(URLQueryItem(name: key, value: value))
            }
        }
        var components = URLComponents()
        components.queryItems = items
        return components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
    }

    /// 3.x sent a form body as the same query text.
    static func formBody(_ arguments: [String: Any]) -> Data? {
        query(arguments)?.data(using: .utf8)
    }

    /// 3.x built multipart bodies from interpolated strings, each converted to `Data`.
    static func multipartBody(_ arguments: [String: Any], boundary: String) -> Data {
        var body = Data()
        func append(_ string: String) {
            body.append(string.data(using: .utf8)!)
        }
        for (key, argument) in arguments {
            for element in argument as? [Any] ?? [argument] {
                append("--\(boundary)\r\n")
                append("Content-Disposition: form-data; name=\"\(key)\"")
                append("\r\n\r\n")
                append(value(for: element) ?? "")
                append("\r\n")
            }
        }
        append("--\(boundary)--\r\n")
        return body
    }

    private static func value(for element: Any) -> String? {
        switch element {
        case is NSNull: return nil
        case let date as Date: return String(describing: Int64(date.timeIntervalSince1970 * 1000))
        default: return String(describing: element)
        }
    }
}
