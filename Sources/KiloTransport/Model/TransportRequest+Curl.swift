import Foundation

extension TransportRequest {
    /// A `curl` command that sends this request, for a POSIX shell, redacted by default.
    ///
    /// Run unredacted (`redacting: .none`), the command sends what Kilo sends: the method, the
    /// URL as it is written (`--globoff`; `.` and `..` segments resolved, as `URLSession` does), each
    /// header field as Kilo's transports send it, and the body byte for byte. It turns off the
    /// fields curl would add on its own (`Accept`, `User-Agent`, `Expect`) unless the request
    /// sets them, and asks for no compression. As the transports do, it leaves out
    /// `Content-Length` and `Transfer-Encoding` (curl frames the body) and a value with a
    /// carriage return, line feed or NUL, and labels a body without a `Content-Type`
    /// `application/octet-stream`. A transport may add fields of its own, as
    /// `URLSession` adds its `User-Agent` and `Accept-Encoding`: those are not in the command.
    ///
    /// Every word is quoted so that no value can add shell syntax: in single quotes, or, when it
    /// holds a control character, as `"$(printf '…')"` with octal escapes. A body that is UTF-8 text without carriage
    /// returns or other control characters is written in single quotes; any other body (a
    /// multipart body, with its CR LF, or bytes that are not UTF-8) is written by `printf` in
    /// octal escapes and piped to `--data-binary @-`; a file body is read by curl from its path.
    ///
    /// ```swift
    /// let request = TransportRequest(method: .get, url: URL(string: "https://example.com/items?page=2")!)
    /// print(request.curlCommand())
    /// // curl --globoff --request GET 'https://example.com/items?page=2' \
    /// //   -H 'Accept:' -H 'User-Agent:'
    /// ```
    ///
    /// Redacted, the URL and the header fields are shown as ``Redaction`` shows them, and so are
    /// the fields of an `application/x-www-form-urlencoded` or `multipart/form-data` body (a
    /// secret part's contents replaced, a file's too) and the members of a JSON body
    /// (``Redaction/redact(json:)``); other bodies are shown as they are.
    ///
    /// - Parameter redaction: What to hide; ``Redaction/standard`` unless you pass
    ///   ``Redaction/none``.
    /// - Returns: The command, one argument group a line.
    public func curlCommand(redacting redaction: Redaction = .standard) -> String {
        var lines: [[String]] = []
        // No `--path-as-is`: curl resolves `.` and `..` segments as URLSession (libcurl on Linux)
        // does; a proxy's paths never carry any.
        var first = ["curl", "--globoff"]
        first += method == .head ? ["--head"] : ["--request", ShellQuoting.word(method.rawValue)]
        first.append(ShellQuoting.word(redaction.redact(url)))
        lines.append(first)
        // As Kilo's transports send them (`URLRequest(_:)`, `AsyncHTTPClientTransport`): no
        // framing field, which curl sets from the body, no value that cannot be sent, and a body
        // without a `Content-Type` labelled `application/octet-stream`.
        for field in headers where HTTPHeaders.canBeSent(field.value) && !Self.isFraming(field.name) {
            let value = redaction.redactedValue(field.value, forField: field.name)
            // `Name:` with nothing after it would remove the field: `Name;` sends it empty.
            let argument = value.isEmpty ? "\(field.name);" : "\(field.name): \(value)"
            lines.append(["-H", ShellQuoting.word(argument)])
        }
        if body != nil, headers["Content-Type"] == nil {
            lines.append(["-H", ShellQuoting.word("Content-Type: application/octet-stream")])
        }
        var suppressed = ["Accept", "User-Agent"]
        if body != nil {
            suppressed.append("Expect")
        }
        let unset = suppressed.filter { headers[$0] == nil }.flatMap { ["-H", ShellQuoting.word("\($0):")] }
        if !unset.isEmpty {
            lines.append(unset)
        }
        var input: String?
        switch body {
        case .data(let data):
            let shown = redaction.hidesNothing ? data : redactedBody(data, redaction)
            if ShellQuoting.canBeQuoted(shown) {
                lines.append(["--data-binary", ShellQuoting.singleQuoted(String(decoding: shown, as: UTF8.self))])
            } else {
                input = "printf " + ShellQuoting.printfFormat(shown) + " |"
                lines.append(["--data-binary", "@-"])
            }
        case .file(let file):
            lines.append(["--data-binary", ShellQuoting.word("@" + file.path)])
        case nil:
            break
        }
        let command = lines.map { $0.joined(separator: " ") }.joined(separator: " \\\n  ")
        return input.map { "\($0)\n" + command } ?? command
    }

    /// Whether `name` is `Content-Length` or `Transfer-Encoding`, in any case.
    private static func isFraming(_ name: String) -> Bool {
        let folded = HTTPHeaders.foldedName(name)
        return folded == "content-length" || folded == "transfer-encoding"
    }

    /// A form, JSON or multipart body with its secret fields' values hidden; any other body as it is.
    private func redactedBody(_ data: Data, _ redaction: Redaction) -> Data {
        let type = headers["Content-Type"]?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded"), let text = String(data: data, encoding: .utf8) {
            return Data(redaction.redact(query: text[...]).utf8)
        }
        if type.hasPrefix("application/json") || type.contains("+json") {
            return redaction.redact(json: data)
        }
        if type.hasPrefix("multipart/form-data"), let boundary = Self.boundary(in: headers["Content-Type"] ?? "") {
            return Self.redactedMultipart(data, boundary: boundary, redaction)
        }
        return data
    }

    /// The `boundary` parameter of a `multipart/form-data` media type, unquoted.
    private static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else {
                continue
            }
            let value = pair[1].trimmingCharacters(in: .whitespaces)
            return value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                ? String(value.dropFirst().dropLast()) : value
        }
        return nil
    }

    /// A multipart body with the contents of each part whose `name` is secret replaced, files
    /// included; the parts' headers kept.
    private static func redactedMultipart(_ data: Data, boundary: String, _ redaction: Redaction) -> Data {
        let delimiter = Data("\r\n--\(boundary)".utf8)
        let separator = Data("\r\n\r\n".utf8)
        // Read the body as if it began with a CR LF, so that every delimiter looks the same.
        let body = Data("\r\n".utf8) + data
        var result = Data()
        var start = body.startIndex
        while let next = body.range(of: delimiter, in: start..<body.endIndex) {
            let part = body[start..<next.lowerBound]
            if let headEnd = part.range(of: separator) {
                let head = String(decoding: part[..<headEnd.upperBound], as: UTF8.self)
                if let name = partName(in: head), redaction.isSecretName(name) {
                    result += part[..<headEnd.upperBound] + Data(redaction.replacement.utf8)
                } else {
                    result += part
                }
            } else {
                result += part
            }
            result += delimiter
            start = next.upperBound
        }
        result += body[start...]
        return Data(result.dropFirst(2))
    }

    /// The `name` parameter of a part's `Content-Disposition`.
    private static func partName(in head: String) -> String? {
        guard let range = head.range(of: "; name=\"") else { return nil }
        let rest = head[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
