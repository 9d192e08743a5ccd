import NIOHTTP1
import Testing

@testable import KiloAsyncHTTPClient

/// Which `Content-Encoding` fields leave a body that the client would hand over still encoded,
/// without a network.
@Suite struct UndecodedContentCodingTests {
    /// What the client's decompressor decodes whole: a first gzip or deflate, in any case, with
    /// nothing after it but `identity`; or no coding at all.
    @Test(arguments: [
        [], [""], ["identity"], ["gzip"], ["GZip"], ["deflate"], ["gzip, identity"], ["gzip", "identity"],
    ])
    func aBodyTheClientDecodesIsHandedOver(fields: [String]) {
        #expect(UndecodedContentCoding(Self.headers(fields)) == nil)
    }

    /// Codings the client does not decode, alone or after one it does, or before it.
    @Test(arguments: [
        ["br"], ["zstd"], ["x-gzip"], ["compress"], ["x-bogus"], ["gzip, gzip"], ["identity, gzip"], ["gzip, br"],
        ["br, gzip"], ["gzip", "br"], [" , gzip"],
    ])
    func aBodyInACodingTheClientDoesNotDecodeIsRefused(fields: [String]) throws {
        let undecoded = try #require(UndecodedContentCoding(Self.headers(fields)))
        #expect(!undecoded.codings.isEmpty)
        #expect(!undecoded.description.contains("br"), "the server's text stays out of the description")
    }

    private static func headers(_ fields: [String]) -> HTTPHeaders {
        HTTPHeaders(fields.map { ("Content-Encoding", $0) })
    }
}
