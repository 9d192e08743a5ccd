import NIOHTTP1

/// A response body that the client would hand over with a content coding still on it, which the
/// transport reports as `URLError.cannotDecodeContentData` (see ``ClientBody``).
struct UndecodedContentCoding: Error, CustomStringConvertible {
    /// The codings the response names, in order, as the client reads them.
    let codings: [String]

    /// The codings of a response whose body the client would leave (partly) encoded, or `nil`
    /// when it decodes the body whole or hands over one coding it does not know.
    ///
    /// - Parameter headers: The response's header fields.
    init?(_ headers: NIOHTTP1.HTTPHeaders) {
        let codings = headers[canonicalForm: "Content-Encoding"].map { $0.lowercased() }
        guard let first = codings.first else { return nil }
        let isDecoded = Self.isDecodable(first)
        let left = codings.dropFirst(isDecoded ? 1 : 0).filter { $0 != "identity" }
        guard isDecoded ? !left.isEmpty : left.contains(where: Self.isDecodable) else { return nil }
        self.codings = codings
    }

    /// Says how many codings the response named, not what they are: they are the server's text.
    var description: String {
        "the body names \(codings.count) content codings, and the client decodes only the first"
    }

    /// Whether the client's decompressor decodes a coding that comes first.
    private static func isDecodable(_ coding: String) -> Bool {
        coding == "gzip" || coding == "deflate"
    }
}
