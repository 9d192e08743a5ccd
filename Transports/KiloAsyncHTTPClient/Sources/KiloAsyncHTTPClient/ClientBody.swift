import AsyncHTTPClient
import Kilo
import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// A response's body as the transport reads it: the client's, except that a response with no
/// body by definition ends without an error even when its headers name a content encoding.
///
/// The client's decompressor expects compressed data after any `Content-Encoding: gzip` or
/// `deflate`, and fails a response that has none with
/// `NIOHTTPDecompression.ExtraDecompressionError.truncatedData`. But the answer to a `HEAD`, a
/// 1xx, 204 or 304, and one with `Content-Length: 0` has no body, whatever its headers say
/// (RFC 9110 §6.4.1): there is nothing to decompress, and `URLSession` returns such a response as
/// it is. A body that is not empty by definition and ends early still fails.
///
/// The decompressor undoes only the first coding a response names, and only gzip or deflate: a
/// body labelled `gzip, gzip` would arrive half decoded, and one labelled `identity, gzip`, `br`,
/// `zstd` or `x-gzip` not at all, each as if it were the body (an event stream in `br` ended with
/// no events and no error). Such a body fails with ``UndecodedContentCoding`` before its first
/// byte, however it is read (unless it is a followed redirect's, which is dropped unread).
///
/// The transport cannot ask a client whether it decompresses (`HTTPClient.configuration` is not
/// public), so it assumes that it does, as ``AsyncHTTPClientTransport/recommendedConfiguration``
/// and `HTTPClient.shared` have it do. From a client made without decompression, a body in
/// gzip or deflate arrives as sent; any other still fails.
struct ClientBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    private let body: HTTPClientResponse.Body
    private let isEmptyByDefinition: Bool
    /// The codings a body that is not empty would still carry, if it would carry any.
    private let undecoded: UndecodedContentCoding?

    /// The body of a response.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - method: The method of the request that received it.
    ///   - isDropped: Whether the body is read only to be dropped, as a redirect's is: then its
    ///     codings do not matter.
    init(of response: HTTPClientResponse, to method: KiloTransport.HTTPMethod, isDropped: Bool = false) {
        body = response.body
        let code = response.status.code
        isEmptyByDefinition =
            method == .head || (100..<200).contains(code) || code == 204 || code == 304
            || response.headers.first(name: "Content-Length").flatMap { Int64($0) } == 0
        undecoded = isEmptyByDefinition || isDropped ? nil : UndecodedContentCoding(response.headers)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(base: body.makeAsyncIterator(), isEmptyByDefinition: isEmptyByDefinition, undecoded: undecoded)
    }

    /// Produces the client's chunks.
    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let isEmptyByDefinition: Bool
        let undecoded: UndecodedContentCoding?

        mutating func next() async throws -> ByteBuffer? {
            if let undecoded {
                throw undecoded
            }
            do {
                return try await base.next()
            } catch let error as NIOHTTPDecompression.ExtraDecompressionError
                where error == .truncatedData && isEmptyByDefinition
            {
                return nil
            }
        }
    }
}
