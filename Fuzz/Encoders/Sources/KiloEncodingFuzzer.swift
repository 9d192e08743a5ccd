import Foundation
import KiloEncoding

/// libFuzzer's entry point: decodes the bytes into arguments and checks all three encoders.
///
/// Any broken property ends in `fatalError`, which libFuzzer reports as a crash and saves the
/// input for. See Fuzz/README.md.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    var generator = ArgumentGenerator(bytes)
    let arguments = generator.arguments()
    checkQueryAndForm(arguments)
    checkMultipart(arguments)
    return 0
}

private func fail(_ message: String, _ arguments: [String: Argument]) -> Never {
    fatalError("KiloEncoding fuzz: \(message)\n  arguments: \(String(reflecting: arguments))")
}

/// Checks the outcome is allowed; returns the output when the encoder succeeded and it must be
/// checked against `expectation.pairs`.
private func check<Output>(
    _ encoder: String,
    _ result: Result<Output, any Error>,
    _ expectation: Expectation,
    _ arguments: [String: Argument]
) -> Output? {
    switch result {
    case .failure(let error):
        if expectation.isUnspecified, error is ArgumentEncodingError { return nil }
        guard expectation.failures.contains(where: { $0.matches(error) }) else {
            fail(
                "\(encoder) threw \(String(reflecting: error)) (\(error.localizedDescription));"
                    + " expected \(describe(expectation))",
                arguments
            )
        }
        return nil
    case .success(let output):
        if expectation.isUnspecified { return nil }
        guard expectation.pairs != nil else {
            fail(
                "\(encoder) succeeded with \(String(reflecting: output)); expected \(describe(expectation))",
                arguments
            )
        }
        return output
    }
}

private func describe(_ expectation: Expectation) -> String {
    var outcomes = expectation.failures.map { "throw \($0)" }
    if let pairs = expectation.pairs {
        outcomes.append("pairs \(pairs)")
    }
    return outcomes.joined(separator: " or ")
}

// MARK: Query strings and form bodies

private func checkQueryAndForm(_ arguments: [String: Argument]) {
    let expectation = Expectation.query(arguments)
    let query = check("QueryEncoder", Result { try QueryEncoder().encode(arguments) }, expectation, arguments)
    let form = check("FormEncoder", Result { try FormEncoder().encode(arguments) }, expectation, arguments)
    guard let pairs = expectation.pairs, let query, let form else {
        if (query == nil) != (form == nil) {
            fail("QueryEncoder and FormEncoder disagree on success", arguments)
        }
        return
    }
    if form != Data(query.utf8) {
        fail(
            "the form body \(String(reflecting: String(decoding: form, as: UTF8.self))) is not the query"
                + " \(String(reflecting: query))",
            arguments
        )
    }
    if (try? QueryEncoder().encode(arguments)) != query {
        fail("QueryEncoder is not deterministic", arguments)
    }
    checkCharacters(query, arguments)

    // A strict split-and-decode gives back exactly the pairs' UTF-8 bytes...
    let decoded: [(name: [UInt8], value: [UInt8]?)] =
        query.isEmpty
        ? []
        : query.split(separator: "&", omittingEmptySubsequences: false).map { piece in
            let halves = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: percentDecoded(halves[0]), value: halves.count == 2 ? percentDecoded(halves[1]) : nil)
        }
    if decoded.count != pairs.count || !zip(decoded, pairs).allSatisfy({ $1.isDecoded(name: $0.name, value: $0.value) })
    {
        let texts = decoded.map {
            "\(String(decoding: $0.name, as: UTF8.self)): \($0.value.map { String(decoding: $0, as: UTF8.self) } as Any)"
        }
        fail("query \(String(reflecting: query)) decodes to \(texts); expected \(pairs)", arguments)
    }

    // ...and so does Foundation's parser, except that it drops a leading U+FEFF from what it decodes.
    var components = URLComponents()
    components.percentEncodedQuery = query
    guard let items = components.queryItems else {
        fail("URLComponents.queryItems is nil for \(String(reflecting: query))", arguments)
    }
    if items.count != pairs.count || !zip(items, pairs).allSatisfy({ $1.isParsedByFoundation($0) }) {
        let parsed = items.map { "\(String(reflecting: $0.name)): \(String(reflecting: $0.value))" }
        fail("URLComponents parses query \(String(reflecting: query)) to \(parsed); expected \(pairs)", arguments)
    }
}

extension ExpectedPair {
    func isDecoded(name decodedName: [UInt8], value decodedValue: [UInt8]?) -> Bool {
        guard decodedName == Array(name.utf8), let decodedValue else { return false }
        return matches(String(decoding: decodedValue, as: UTF8.self))
    }

    /// Foundation's percent-decoding drops one leading U+FEFF, as `String(data:encoding:)` does.
    func isParsedByFoundation(_ item: URLQueryItem) -> Bool {
        guard isFoundationDecoding(item.name, of: name), let parsedValue = item.value else { return false }
        if matches(parsedValue) { return true }
        guard case .text(let text) = value else { return false }
        return isFoundationDecoding(parsedValue, of: text)
    }

    private func isFoundationDecoding(_ parsed: String, of expected: String) -> Bool {
        let bytes = Array(expected.utf8)
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        return Array(parsed.utf8) == (bytes.starts(with: byteOrderMark) ? Array(bytes.dropFirst(3)) : bytes)
    }
}

/// `%XX` becomes the byte XX; everything else stands for itself.
private func percentDecoded(_ text: Substring) -> [UInt8] {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
            let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
        else {
            bytes.append(byte)
            continue
        }
        bytes.append(value)
    }
    return bytes
}

/// Only RFC 3986 unreserved characters, `&`, `=`, and `%` followed by two upper-case hex digits.
private func checkCharacters(_ query: String, _ arguments: [String: Argument]) {
    let bytes = Array(query.utf8)
    let hex = Array("0123456789ABCDEF".utf8)
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "%") {
            guard index + 2 < bytes.count, hex.contains(bytes[index + 1]), hex.contains(bytes[index + 2]) else {
                fail("malformed percent escape at byte \(index) of \(String(reflecting: query))", arguments)
            }
            index += 3
            continue
        }
        let isAllowed =
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Array("-._~&=".utf8).contains(byte)
        if !isAllowed {
            fail("byte \(byte) at \(index) of \(String(reflecting: query)) must be percent-encoded", arguments)
        }
        index += 1
    }
}

// MARK: Multipart bodies

private func checkMultipart(_ arguments: [String: Argument]) {
    let boundary = ArgumentGenerator.boundary
    let expectation = Expectation.multipart(arguments)
    let result = Result { try MultipartEncoder(boundary: boundary).encode(arguments) }
    guard let body = check("MultipartEncoder", result, expectation, arguments).map(Array.init),
        let pairs = expectation.pairs
    else { return }

    let text = String(reflecting: String(decoding: body, as: UTF8.self))
    let opening = Array("--\(boundary)\r\n".utf8)
    let closing = Array("--\(boundary)--\r\n".utf8)
    guard body.starts(with: pairs.isEmpty ? closing : opening), body.ends(with: closing) else {
        fail(
            "multipart body \(text) does not start with \"--<boundary>\" and end with \"--<boundary>--\\r\\n\"",
            arguments
        )
    }
    let content = Array(body.dropLast(closing.count))
    let parts = content.split(separator: opening)
    let boundaryBytes = Array(boundary.utf8)
    let mentionsBoundary = pairs.contains { pair in
        guard case .text(let value) = pair.value else { return Array(pair.name.utf8).contains(boundaryBytes) }
        return Array(pair.name.utf8).contains(boundaryBytes) || Array(value.utf8).contains(boundaryBytes)
    }
    guard !mentionsBoundary else {
        // The boundary occurs in the content; the body is ambiguous by nature (that is why the
        // default boundary is random), so only count what must be there.
        if parts.count < pairs.count {
            fail("multipart body \(text) has \(parts.count) parts; expected at least \(pairs.count)", arguments)
        }
        return
    }
    guard parts.count == pairs.count, content.starts(with: pairs.isEmpty ? [] : opening) else {
        fail("multipart body \(text) has \(parts.count) parts; expected \(pairs.count): \(pairs)", arguments)
    }
    for (part, pair) in zip(parts, pairs) {
        // Every quote byte is escaped, even one a combining mark follows, so none ends the name,
        // and every backslash is doubled, so none escapes the closing quote.
        let quotedName = pair.name.utf8.flatMap { byte -> [UInt8] in
            switch byte {
            case UInt8(ascii: "\""): Array("%22".utf8)
            case UInt8(ascii: "\\"): Array("\\\\".utf8)
            default: [byte]
            }
        }
        let header =
            Array("Content-Disposition: form-data; name=\"".utf8) + quotedName + Array("\"\r\n\r\n".utf8)
        guard part.starts(with: header), part.ends(with: Array("\r\n".utf8)), part.count >= header.count + 2,
            pair.matches(String(decoding: part.dropFirst(header.count).dropLast(2), as: UTF8.self))
        else {
            let partText = String(reflecting: String(decoding: part, as: UTF8.self))
            fail("multipart part \(partText) does not carry \(pair)", arguments)
        }
    }
}

extension Array where Element == UInt8 {
    func contains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }

    /// The pieces between occurrences of `separator`, dropping the empty piece before a
    /// leading separator.
    func split(separator: [UInt8]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var start = 0
        var index = 0
        while index + separator.count <= count {
            if self[index..<(index + separator.count)].elementsEqual(separator) {
                if index > 0 { pieces.append(Array(self[start..<index])) }
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        if !isEmpty { pieces.append(Array(self[start...])) }
        return pieces
    }
}
