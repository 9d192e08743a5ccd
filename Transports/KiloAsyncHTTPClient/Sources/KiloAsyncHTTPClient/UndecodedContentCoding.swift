import NIOHTTP1

/// A response body that the client would hand over with a content coding still on it, which the
/// transport reports as `URLError.cannotDecodeContentData` (see ``ClientBody``).
struct UndecodedContentCoding: Error, CustomStringConvertible {
    /// The codings the response names, in order, as the client reads them.
    let codings: [String]

    /// The codings of a response whose body the client would hand over still (partly) encoded,
    /// or `nil` when it hands it over decoded.
    ///
    /// The client's decompressor (`NIOHTTPResponseDecompressor`) undoes the first coding a
    /// response names when that is `gzip` or `deflate`, and nothing else: not `x-gzip`, `br` or
    /// `zstd`, nor a second coding. `identity`, and an empty name, are no coding at all.
    ///
    /// - Parameter headers: The response's header fields.
    init?(_ headers: NIOHTTP1.HTTPHeaders) {
        let codings = headers[canonicalForm: "Content-Encoding"].map { $0.lowercased() }
        let left = codings.dropFirst(codings.first.map(Self.isDecoded) == true ? 1 : 0)
        guard left.contains(where: { !$0.isEmpty && $0 != "identity" }) else { return nil }
        self.codings = codings
    }

    /// Says how many codings the response named, not what they are: they are the server's text.
    var description: String {
        "the body names \(codings.count) content coding(s), and the client decodes only a first gzip or deflate"
    }

    /// Whether the client's decompressor decodes a coding that comes first (it compares the name,
    /// lowercased, exactly).
    private static func isDecoded(_ coding: String) -> Bool {
        coding == "gzip" || coding == "deflate"
    }
}
