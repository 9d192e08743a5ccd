import Foundation

/// Encodes arguments as a `multipart/form-data` body.
///
/// Each text value becomes a part of its own; each file URL becomes a file part, with a
/// `filename` and a `Content-Type` taken from the file's extension. Keys are sorted, so the same
/// arguments and boundary always produce the same bytes.
///
/// A part's name and file name are written inside quotes: a `"` in them is sent as `%22`, as
/// browsers do, a `\` as `\\` (an RFC 9110 quoted pair, which servers read back as one
/// backslash), and non-ASCII text as UTF-8. A carriage return or line feed in either would
/// break the part's headers, so it throws.
///
/// Use ``encode(_:)`` for a body in memory, or ``encode(_:toFile:)`` to stream a body of any
/// size to disk; both write the same bytes.
///
/// ```swift
/// let encoder = MultipartEncoder()
/// request.setValue(encoder.contentType, forHTTPHeaderField: "Content-Type")
/// request.httpBody = try encoder.encode(["title": "Trip", "photo": .file(photoURL)])
/// ```
public struct MultipartEncoder: Sendable {
    /// The string that separates parts.
    public let boundary: String

    /// The value of the `Content-Type` header for bodies this encoder makes, with its boundary.
    ///
    /// A boundary with a character that a header token cannot hold, such as the space, `:`, `=`
    /// or `?` that RFC 2046 allows in boundaries, is written as a quoted string, so that the
    /// server reads all of it.
    public var contentType: String {
        "multipart/form-data; boundary=\(Self.isToken(boundary) ? boundary : Self.quotedString(boundary))"
    }

    /// Creates a multipart encoder.
    ///
    /// - Parameter boundary: The string that separates parts. The default is random; pass a
    ///   fixed value in tests. One that RFC 2046 does not allow makes every encoding method throw
    ///   ``ArgumentEncodingError/invalidBoundary(_:)`` before it writes anything.
    public init(boundary: String = MultipartEncoder.makeBoundary()) {
        self.boundary = boundary
    }

    /// Makes a random boundary that will not occur in any real content.
    ///
    /// - Returns: `kilo-` and 32 random hexadecimal digits (128 bits from the system's secure
    ///   generator), such as `kilo-3f2504e04f8911d39a0c0305e82c3301`.
    public static func makeBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = String(generator.next() as UInt64, radix: 16)
        let low = String(generator.next() as UInt64, radix: 16)
        return "kilo-" + String(repeating: "0", count: 16 - high.count) + high
            + String(repeating: "0", count: 16 - low.count) + low
    }

    /// Encodes arguments as a multipart body in memory.
    ///
    /// - Parameter arguments: The arguments to encode; ``Argument/file(_:)`` values are read now.
    /// - Returns: The body bytes.
    /// - Throws: ``ArgumentEncodingError`` for an empty key, a non-finite number, a date too far
    ///   from 1970 to send as milliseconds, a line break in a name or file name, a file that
    ///   cannot be read or is not a regular file (a directory, a device such as `/dev/zero`, a
    ///   named pipe), or a boundary that RFC 2046 does not allow.
    public func encode(_ arguments: [String: Argument]) throws -> Data {
        var body = Data()
        try write(arguments) { chunk in
            if body.isEmpty {
                body = chunk  // A body without files arrives as one chunk; keep it rather than copy it.
            } else {
                body.append(chunk)
            }
        }
        return body
    }

    /// Encodes arguments as a multipart body written to a file, reading each file argument in
    /// chunks so that memory use stays bounded whatever the files' sizes.
    ///
    /// The file is created or replaced. If encoding fails, it is removed. A file it creates gets
    /// the process's default permissions (with the usual umask, every user may read it), so write
    /// a body that holds private files into a directory that only you can read. (The streamed
    /// uploads of Kilo's `WebServiceProxy` write their own copy, readable by its owner only.)
    ///
    /// Send the file as the request body with this encoder's ``contentType``; the returned length
    /// is the body's `Content-Length`. `URLSession` streams the file and sets the length itself,
    /// whereas an `httpBodyStream` goes out chunked. Delete the file when the upload is done.
    ///
    /// ```swift
    /// let encoder = MultipartEncoder()
    /// try encoder.encode(["title": "Trip", "video": .file(videoURL)], toFile: bodyURL)
    /// var request = URLRequest(url: uploadURL)
    /// request.httpMethod = "POST"
    /// request.setValue(encoder.contentType, forHTTPHeaderField: "Content-Type")
    /// let (data, response) = try await URLSession.shared.upload(for: request, fromFile: bodyURL)
    /// ```
    ///
    /// - Parameters:
    ///   - arguments: The arguments to encode.
    ///   - fileURL: Where to write the body.
    /// - Returns: The number of bytes written.
    /// - Throws: ``ArgumentEncodingError`` as ``encode(_:)`` does, or the file system's error if
    ///   the body file cannot be written.
    @discardableResult
    public func encode(_ arguments: [String: Argument], toFile fileURL: URL) throws -> Int64 {
        let pairs = try validatedPairs(arguments)
        try Data().write(to: fileURL)  // creates or empties the file, or says why it cannot
        var written: Int64 = 0
        do {
            let handle = try FileHandle(forWritingTo: fileURL)
            defer { try? handle.close() }  // Closing after a completed write loses nothing.
            try write(pairs) { chunk in
                try handle.write(contentsOf: chunk)
                written += Int64(chunk.count)
            }
        } catch {
            try? FileManager.default.removeItem(at: fileURL)  // The half-written body is worthless.
            throw error
        }
        return written
    }

    /// Writes the body of `arguments` as a series of chunks.
    ///
    /// - Parameters:
    ///   - arguments: The arguments to encode.
    ///   - output: Receives the body's bytes in order, in chunks of at most 256 KiB.
    /// - Throws: ``ArgumentEncodingError``, or whatever `output` throws.
    public func write(_ arguments: [String: Argument], to output: (Data) throws -> Void) throws {
        try write(validatedPairs(arguments), to: output)
    }

    /// Checks that arguments can be encoded, without reading the files' contents: the same
    /// checks as ``encode(_:)``, and that each file is a regular file this process may read.
    ///
    /// Use it to reject bad input at once when the body itself is written later.
    ///
    /// - Parameter arguments: The arguments to check.
    /// - Throws: ``ArgumentEncodingError`` as ``encode(_:)`` does.
    public func validate(_ arguments: [String: Argument]) throws {
        for pair in try validatedPairs(arguments) {
            guard case .file(let url) = pair.value else { continue }
            try FileChunkReader.checkRegularFile(url, key: pair.name)
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw ArgumentEncodingError.unreadableFile(pair.name, url: url, reason: "The file is not readable.")
            }
        }
    }

    private func validatedPairs(_ arguments: [String: Argument]) throws -> [FlatArgument] {
        guard Self.isValidBoundary(boundary) else { throw ArgumentEncodingError.invalidBoundary(boundary) }
        let pairs = try FlatArgument.flatten(arguments)
        for pair in pairs {
            var hasLineBreak = Self.hasLineBreak(pair.name)
            if !hasLineBreak, case .file(let url) = pair.value {
                hasLineBreak = Self.hasLineBreak(url.lastPathComponent)
            }
            if hasLineBreak {
                throw ArgumentEncodingError.lineBreakInName(pair.name)
            }
        }
        return pairs
    }

    private func write(_ pairs: [FlatArgument], to output: (Data) throws -> Void) throws {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(estimatedSize(of: pairs))
        for pair in pairs {
            buffer.append(contentsOf: "--".utf8)
            buffer.append(contentsOf: boundary.utf8)
            buffer.append(contentsOf: "\r\nContent-Disposition: form-data; name=\"".utf8)
            buffer.append(contentsOf: Self.quoted(pair.name).utf8)
            switch pair.value {
            case .text(let text):
                buffer.append(contentsOf: "\"\r\n\r\n".utf8)
                buffer.append(contentsOf: text.utf8)
            case .file(let url):
                buffer.append(contentsOf: "\"; filename=\"".utf8)
                buffer.append(contentsOf: Self.quoted(url.lastPathComponent).utf8)
                buffer.append(contentsOf: "\"\r\nContent-Type: ".utf8)
                buffer.append(contentsOf: FileContentType.of(url).utf8)
                buffer.append(contentsOf: "\r\n\r\n".utf8)
                try Self.emit(buffer, to: output)
                buffer.removeAll(keepingCapacity: true)
                try FileChunkReader.read(url, key: pair.name, into: output)
            }
            buffer.append(contentsOf: "\r\n".utf8)
        }
        buffer.append(contentsOf: "--".utf8)
        buffer.append(contentsOf: boundary.utf8)
        buffer.append(contentsOf: "--\r\n".utf8)
        try Self.emit(buffer, to: output)
    }

    /// About the size of the body without its files' contents (exact for text parts, give or take
    /// escaped quotes), so that the buffer that collects it is allocated once.
    private func estimatedSize(of pairs: [FlatArgument]) -> Int {
        let delimiterSize = 2 + boundary.utf8.count  // "--" boundary
        var size = delimiterSize + 4  // The close delimiter, which ends in "--\r\n".
        for pair in pairs {
            // delimiter "\r\nContent-Disposition: form-data; name=\"" name "\"\r\n\r\n" text "\r\n"
            size += delimiterSize + 40 + pair.name.utf8.count + 5 + 2
            switch pair.value {
            case .text(let text):
                size += text.utf8.count
            case .file:
                size += 64  // The file name and content type; the buffer grows if they are longer.
            }
        }
        return size
    }

    /// Hands `buffer` to `output` in pieces of at most ``FileChunkReader/chunkSize`` bytes.
    private static func emit(_ buffer: [UInt8], to output: (Data) throws -> Void) throws {
        var start = 0
        repeat {
            let end = min(start + FileChunkReader.chunkSize, buffer.count)
            try output(Data(buffer[start..<end]))
            start = end
        } while start < buffer.count
    }

    /// Whether `boundary` is one that RFC 2046 allows: 1 to 70 of its `bchars` (ASCII letters and
    /// digits, `'()+_,-./:=?` and the space), not ending with a space.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let bytes = boundary.utf8
        guard (1...70).contains(bytes.count), bytes.last != UInt8(ascii: " ") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: "'()+_,-./:=? ".utf8.contains(byte)
            }
        }
    }

    /// Whether `text` is an RFC 9110 token, which a header parameter may hold without quotes.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// `text` as an RFC 9110 quoted string: in quotes, with each `"` and `\` escaped by a backslash.
    private static func quotedString(_ text: String) -> String {
        var quoted = "\""
        for character in text.unicodeScalars {
            if character == "\"" || character == "\\" {
                quoted.unicodeScalars.append("\\")
            }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }

    /// Whether `name` holds a line break, as `Character.isNewline` defines it: a line feed,
    /// vertical tab, form feed, carriage return, next line, line separator or paragraph separator.
    private static func hasLineBreak(_ name: String) -> Bool {
        // `Character.isNewline` looks at a character's first scalar, and each of these scalars
        // always starts a character of its own, so checking the scalars gives the same answer.
        name.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
            default: false
            }
        }
    }

    /// Escapes a name for a quoted header parameter: every `"` becomes `%22`, as the HTML
    /// standard's form encoder does, even one that a combining mark follows (a search by
    /// `Character` would miss that one, and leave a bare quote that ends the parameter early);
    /// every `\` becomes `\\`, as RFC 9110's quoted strings need, because servers (Werkzeug,
    /// Go, Django, Rack, busboy) read a backslash as escaping the next character, so that a raw one
    /// at the end would escape the closing quote.
    private static func quoted(_ name: String) -> String {
        let needsEscaping = name.utf8.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard needsEscaping else { return name }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(name.utf8.count + 8)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "\""): escaped.append(contentsOf: "%22".utf8)
            case UInt8(ascii: "\\"): escaped.append(contentsOf: "\\\\".utf8)
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }
}
