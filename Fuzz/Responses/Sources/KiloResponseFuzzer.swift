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
    let events = EventStreamModel(input.body, limit: input.limit)
    check("ServerSentEventParser", events, cuts, input) {
        EventStreamModel.parsed($0, limit: input.limit)
    }
    if events.error == nil {
        let reconnected = EventStreamModel(input.body, limit: input.limit, after: events)
        check("ServerSentEventParser, after finish()", reconnected, [input.chunks], input) {
            EventStreamModel.parsed($0, limit: input.limit, again: true)
        }
    }
    let terminator = input.chunkSizes.count.isMultiple(of: 2) ? "[DONE]" : nil
    let skips = input.limit % 2 == 0
    check(
        "ServerSentEventDecoder",
        EventDecoderModel(events, terminator: terminator, skipsUndecodable: skips),
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
/// show the first ``WebServiceError/descriptionLimit`` characters of the text, escaped, with an
/// ellipsis when some were left out (``shown(_:)``), or the reason phrase for HTML; and that a `MediaType` is parsed from
/// exactly the values whose type and subtype are tokens.
private func checkDescriptions(_ input: StreamInput) {
    let error = WebServiceError(
        statusCode: 400,
        headers: ["Content-Type": input.contentType],
        body: Data(input.body)
    )
    let text = error.text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    let mediaType = MediaType(input.contentType)
    let isHTML = mediaType?.type == "text" && mediaType?.subtype == "html"
    let expected = text.isEmpty || isHTML ? "Bad Request" : shown(text)
    guard error.errorDescription == expected else {
        fail(
            "WebServiceError shows \(String(reflecting: error.errorDescription)), not \(String(reflecting: expected))",
            input
        )
    }
    struct Quoting: Error, CustomStringConvertible {
        var description: String
    }
    let quote = String(decoding: input.body, as: UTF8.self)
    let quoted = StreamElementError.undecodableJSON(line: 1, underlyingError: Quoting(description: quote))
    let expectedQuote = "Line 1 of the stream does not decode: " + shown(quote)
    guard quoted.localizedDescription == expectedQuote else {
        fail(
            "StreamElementError shows \(String(reflecting: quoted.localizedDescription)), "
                + "not \(String(reflecting: expectedQuote))",
            input
        )
    }
    checkMediaType(String(decoding: input.body.prefix(200), as: UTF8.self), input)
}

/// What a description shows of a text: its first ``WebServiceError/descriptionLimit`` characters,
/// CR, LF and tab as `\r`, `\n` and `\t`, any other that is not ``isPlain(_:)`` as `\u{…}` in
/// hexadecimal, and an ellipsis after them when the text is longer.
private func shown(_ text: String) -> String {
    let scalars = Array(text.unicodeScalars)
    var shown = ""
    for scalar in scalars.prefix(WebServiceError.descriptionLimit) {
        switch scalar {
        case "\r": shown += "\\r"
        case "\n": shown += "\\n"
        case "\t": shown += "\\t"
        case _ where !isPlain(scalar): shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        default: shown.unicodeScalars.append(scalar)
        }
    }
    return scalars.count > WebServiceError.descriptionLimit ? shown + "…" : shown
}

/// Checks that `MediaType` parses a value exactly when, up to its first `;` and without the
/// spaces and tabs around it, it is a token, `/` and a token, into them in lowercase.
private func checkMediaType(_ value: String, _ input: StreamInput) {
    var essence = value.split(separator: ";", omittingEmptySubsequences: false)[0]
    while essence.first == " " || essence.first == "\t" { essence.removeFirst() }
    while essence.last == " " || essence.last == "\t" { essence.removeLast() }
    let names = essence.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let isValid = names.count == 2 && isToken(names[0]) && isToken(names[1])
    let mediaType = MediaType(value)
    guard (mediaType != nil) == isValid,
        mediaType.map({ $0.type == names[0].lowercased() && $0.subtype == names[1].lowercased() }) ?? true
    else {
        fail("MediaType(\(String(reflecting: value))) is \(String(reflecting: mediaType))", input)
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
