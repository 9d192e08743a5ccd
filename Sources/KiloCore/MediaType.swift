import Foundation

/// A parsed `Content-Type` value, such as `text/plain; charset=utf-8`.
///
/// Type, subtype and parameter names are compared without regard to case.
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The top-level type, lowercased: `text` in `text/plain`.
    public let type: String
    /// The subtype, lowercased: `plain` in `text/plain`.
    public let subtype: String
    /// The parameters, names lowercased and quotes removed from values.
    public let parameters: [String: String]

    /// Parses a `Content-Type` header value; fails if the value has no `type/subtype`.
    ///
    /// - Parameter string: The header value.
    public init?(_ string: String) {
        var pieces = string.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let essence = pieces.next() else { return nil }
        let names = essence.split(separator: "/", maxSplits: 1)
        guard names.count == 2 else { return nil }
        type = names[0].trimmingCharacters(in: .whitespaces).lowercased()
        subtype = names[1].trimmingCharacters(in: .whitespaces).lowercased()
        guard !type.isEmpty, !subtype.isEmpty else { return nil }
        var parameters: [String: String] = [:]
        while let piece = pieces.next() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            parameters[name] = value
        }
        self.parameters = parameters
    }

    /// Whether this is a `text/*` type.
    public var isText: Bool { type == "text" }

    /// Whether this is JSON: `application/json` or a `+json` suffix such as `application/problem+json`.
    public var isJSON: Bool {
        (type == "application" && subtype == "json") || subtype.hasSuffix("+json")
    }

    /// The string encoding named by the `charset` parameter, or `nil` when there is none or it
    /// is not one Foundation knows.
    public var charset: String.Encoding? {
        guard let name = parameters["charset"]?.lowercased() else { return nil }
        switch name {
        case "utf-8", "utf8": return .utf8
        case "us-ascii", "ascii": return .ascii
        case "iso-8859-1", "latin1", "iso8859-1": return .isoLatin1
        case "utf-16": return .utf16
        case "utf-16be": return .utf16BigEndian
        case "utf-16le": return .utf16LittleEndian
        case "windows-1252", "cp1252": return .windowsCP1252
        default: return nil
        }
    }

    /// The type as `type/subtype`, followed by its parameters in name order.
    public var description: String {
        ([type + "/" + subtype] + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
            .joined(separator: "; ")
    }
}
