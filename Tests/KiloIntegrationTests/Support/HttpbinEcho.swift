import Foundation

/// What httpbin says it received, from `/get`, `/post`, `/put`, `/patch`, `/delete`, `/anything`
/// and `/headers`.
///
/// httpbin writes a field sent once as a string and a repeated field as a list; both are read
/// here as a list. Its `files` keeps only one file per name.
struct HttpbinEcho: Decodable, Sendable {
    /// The query string's fields.
    var args: [String: [String]]
    /// The form body's text fields (URL-encoded or multipart).
    var form: [String: [String]]
    /// The multipart body's files, as text.
    var files: [String: [String]]
    /// The raw body, when it was neither a form nor multipart.
    var data: String
    /// The request's headers, names as httpbin capitalizes them.
    var headers: [String: String]
    /// The request method (`/anything` only).
    var method: String?

    private enum CodingKeys: String, CodingKey {
        case args, form, files, data, headers, method
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        args = try container.decodeIfPresent([String: OneOrMany].self, forKey: .args)?.mapValues(\.values) ?? [:]
        form = try container.decodeIfPresent([String: OneOrMany].self, forKey: .form)?.mapValues(\.values) ?? [:]
        files = try container.decodeIfPresent([String: OneOrMany].self, forKey: .files)?.mapValues(\.values) ?? [:]
        data = try container.decodeIfPresent(String.self, forKey: .data) ?? ""
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        method = try container.decodeIfPresent(String.self, forKey: .method)
    }

    /// The value of a request header, matching its name without regard to case.
    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// A field httpbin wrote as a string (sent once) or as a list (repeated).
private struct OneOrMany: Decodable {
    var values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let single = try? container.decode(String.self) {
            values = [single]
        } else {
            values = try container.decode([String].self)
        }
    }
}
