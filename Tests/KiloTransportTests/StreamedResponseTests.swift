import KiloTransport
import Testing

@Suite struct StreamedResponseTests {
    /// Cases: the headers, then the expected size.
    private static let cases: [(HTTPHeaders, Int64?)] = [
        (["Content-Length": "42"], 42),
        (["Content-Length": " \t42\t "], 42),
        (["Content-Length": "4 2"], nil),
        (["Content-Length": ""], nil),
        (["Content-Length": "  "], nil),
        (["Content-Length": "-"], nil),
        ([:], nil),
        (["Content-Length": "42", "Content-Encoding": " Identity "], 42),
        (["Content-Length": "42", "Content-Encoding": " "], 42),
        (["Content-Length": "42", "Content-Encoding": "gzip"], nil),
        (["Content-Length": "42", "Content-Encoding": "\tbr"], nil),
    ]

    @Test(arguments: cases)
    func theExpectedBodySizeIsTheLengthOfAnUncodedBody(headers: HTTPHeaders, size: Int64?) {
        #expect(StreamedResponse(statusCode: 200, headers: headers).expectedBodySize == size)
    }
}
