import Foundation
import KiloCore
import KiloTransport

/// libFuzzer's entry point: reads the bytes as a response body from a hostile server and checks
/// what Kilo makes of it: the streaming parsers against models of the whole body, however the
/// body is cut into chunks, and an error response's description.
///
/// Any broken property ends in `fatalError`, which libFuzzer reports as a crash and saves the
/// input for. See Fuzz/README.md.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = StreamInput(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    let cuts = [[Data(input.body)], input.chunks] + (input.bytewiseChunks.map { [$0] } ?? [])
    check("ServerSentEventParser", EventStreamModel(input.body, limit: input.limit), cuts, input) {
        EventStreamModel.parsed($0, limit: input.limit)
    }
    let terminator = input.chunkSizes.count.isMultiple(of: 2) ? "[DONE]" : nil
    let skips = input.limit % 2 == 0
    check(
        "ServerSentEventDecoder",
        EventDecoderModel(input.body, limit: input.limit, terminator: terminator, skipsUndecodable: skips),
        cuts,
        input
    ) {
        EventDecoderModel.parsed($0, limit: input.limit, terminator: terminator, skipsUndecodable: skips)
    }
    check("LineParser", TextLinesModel(input.body, limit: input.limit), cuts, input) {
        TextLinesModel.parsed($0, limit: input.limit)
    }
    check("JSONLinesParser", JSONLinesModel(input.body, limit: input.limit), cuts, input) {
        JSONLinesModel.parsed($0, limit: input.limit)
    }
    checkDescriptions(input)
    return 0
}

/// Checks that a parser fed the body in each way of cutting it gives what the model gives.
private func check<Outcome: Equatable>(
    _ parser: String,
    _ expected: Outcome,
    _ cuts: [[Data]],
    _ input: StreamInput,
    _ parse: ([Data]) -> Outcome
) {
    for chunks in cuts {
        let outcome = parse(chunks)
        guard outcome == expected else {
            fail(
                "\(parser), fed \(chunks.map(\.count)) bytes at a time, gave\n  \(String(reflecting: outcome))\n"
                    + "  expected\n  \(String(reflecting: expected))",
                input
            )
        }
    }
}

/// Checks that an error response's description, and a stream error's that quotes the server,
/// show no more than ``WebServiceError/descriptionLimit`` characters of the body, with nothing
/// that could break a log line, hide text or reorder it; and that a short plain text shows as
/// it is.
private func checkDescriptions(_ input: StreamInput) {
    let error = WebServiceError(
        statusCode: 400,
        headers: ["Content-Type": input.contentType],
        body: Data(input.body)
    )
    guard let description = error.errorDescription else {
        fail("WebServiceError has no description", input)
    }
    checkEscaped(description, "WebServiceError", input)
    if let text = error.text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
        text.unicodeScalars.count <= WebServiceError.descriptionLimit,
        text.unicodeScalars.allSatisfy(isPlain)
    {
        guard description == text else {
            fail("WebServiceError shows \(String(reflecting: description)) for \(String(reflecting: text))", input)
        }
    }
    struct Quoting: Error, CustomStringConvertible {
        var description: String
    }
    let quoted = StreamElementError.undecodableJSON(
        line: 1,
        underlyingError: Quoting(description: String(decoding: input.body, as: UTF8.self))
    )
    checkEscaped(quoted.localizedDescription, "StreamElementError", input)
    if let mediaType = MediaType(String(decoding: input.body.prefix(200), as: UTF8.self)) {
        guard mediaType.type == mediaType.type.lowercased(), mediaType.subtype == mediaType.subtype.lowercased(),
            isToken(mediaType.type), isToken(mediaType.subtype)
        else {
            fail("MediaType parsed \(String(reflecting: mediaType))", input)
        }
    }
}

/// Whether a text is an RFC 9110 `token`: one or more of ``!#$%&'*+-.^_`|~``, digits and ASCII letters.
private func isToken(_ text: String) -> Bool {
    let symbols = "!#$%&'*+-.^_`|~".unicodeScalars
    return !text.isEmpty
        && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || symbols.contains($0)
        }
}

private func checkEscaped(_ description: String, _ source: String, _ input: StreamInput) {
    // Each character of the text shows as at most 10 (`\u{10FFFF}`), and an ellipsis may follow.
    let longest = WebServiceError.descriptionLimit * 10 + 200
    guard description.unicodeScalars.count <= longest else {
        fail("\(source)'s description has \(description.unicodeScalars.count) characters", input)
    }
    if let scalar = description.unicodeScalars.first(where: { !isPlain($0) }) {
        fail(
            "\(source)'s description shows U+\(String(scalar.value, radix: 16, uppercase: true)) unescaped: "
                + String(reflecting: description),
            input
        )
    }
}

/// Whether a character may show as it is in a description: not a control character, a line or
/// paragraph separator, or one that reorders or hides text, except the joiners and variation
/// selectors that shape emoji and scripts.
private func isPlain(_ scalar: Unicode.Scalar) -> Bool {
    if scalar == "\u{200C}" || scalar == "\u{200D}" || ("\u{FE00}"..."\u{FE0F}").contains(scalar) {
        return true
    }
    let properties = scalar.properties
    switch properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator, .format:
        return false
    default:
        return !properties.isBidiControl && !properties.isDefaultIgnorableCodePoint
    }
}

private func fail(_ message: String, _ input: StreamInput) -> Never {
    fatalError(
        "Kilo response fuzz: \(message)\n  limit \(input.limit), chunk sizes \(input.chunkSizes), "
            + "Content-Type \(input.contentType)\n  body: \(String(reflecting: String(decoding: input.body, as: UTF8.self)))"
    )
}
