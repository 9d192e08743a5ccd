import Foundation
import KiloEncoding
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct MultipartEncoderTests {
    private let encoder = MultipartEncoder(boundary: "B")
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The bytes of a text part, as the encoder writes them.
    private func textPart(_ name: String, _ value: String, boundary: String = "B") -> String {
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
    }

    /// The header of a file part, up to and including the blank line before the contents.
    private func fileHeader(_ name: String, filename: String, type: String) -> String {
        "--B\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(type)\r\n\r\n"
    }

    // MARK: Boundary and content type

    @Test func contentTypeIncludesTheBoundary() {
        #expect(encoder.boundary == "B")
        #expect(encoder.contentType == "multipart/form-data; boundary=B")
        let random = MultipartEncoder()
        #expect(random.contentType == "multipart/form-data; boundary=\(random.boundary)")
    }

    /// A boundary with a character that is not allowed in a token (RFC 2046 allows a space and
    /// `'()+,/:=?`) must be quoted in the header, or a server reads only the part before it.
    @Test(arguments: [
        ("a:b", "\"a:b\""), ("my boundary", "\"my boundary\""), ("(x)", "\"(x)\""), ("a=b?", "\"a=b?\""),
        ("a,b/c", "\"a,b/c\""), ("kilo-1_2.3+4'", "kilo-1_2.3+4'"),
    ])
    func boundaryIsQuotedInTheContentTypeWhenItIsNotAToken(boundary: String, parameter: String) {
        #expect(MultipartEncoder(boundary: boundary).contentType == "multipart/form-data; boundary=\(parameter)")
    }

    /// A boundary that RFC 2046 does not allow would make a body that servers cannot split, or a
    /// `Content-Type` that cannot name it: every way of encoding throws before it writes anything.
    @Test(arguments: [
        "", String(repeating: "b", count: 71), "a\r\nb", "a\nb", "a\"b", "a\\b", "ends with a space ", "caf\u{E9}",
        "a;b", "tab\there",
    ])
    func aBoundaryThatRFC2046DoesNotAllowIsRejected(boundary: String) throws {
        let encoder = MultipartEncoder(boundary: boundary)
        let error = ArgumentEncodingError.invalidBoundary(boundary)
        #expect(throws: error) { try encoder.encode(["a": "1"]) }
        #expect(throws: error) { try encoder.validate(["a": "1"]) }
        var chunks = 0
        #expect(throws: error) { try encoder.write(["a": "1"]) { _ in chunks += 1 } }
        #expect(chunks == 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-boundary-\(UUID().uuidString)")
        #expect(throws: error) { try encoder.encode(["a": "1"], toFile: file) }
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(error.key.isEmpty)
        #expect(error.localizedDescription.contains(String(reflecting: boundary)))
    }

    @Test(arguments: ["b", String(repeating: "b", count: 70), "a:b", "my boundary", "'()+_,-./:=?"])
    func aBoundaryThatRFC2046AllowsIsUsed(boundary: String) throws {
        let body = try MultipartEncoder(boundary: boundary).encode(["a": "1"])
        #expect(body.utf8Text == textPart("a", "1", boundary: boundary) + "--\(boundary)--\r\n")
    }

    @Test func madeBoundariesDiffer() {
        let boundaries = (0..<100).map { _ in MultipartEncoder.makeBoundary() }
        #expect(Set(boundaries).count == boundaries.count)
        #expect(MultipartEncoder().boundary != MultipartEncoder().boundary)
    }

    @Test func madeBoundariesAreValid() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
        for _ in 0..<100 {
            let boundary = MultipartEncoder.makeBoundary()
            #expect((1...70).contains(boundary.count), "\(boundary)")
            #expect(boundary.hasPrefix("kilo-") && boundary.count == 37, "\(boundary)")
            #expect(boundary.allSatisfy(allowed.contains), "\(boundary)")
        }
    }

    // MARK: Text parts

    @Test func emptyArgumentsGiveOnlyTheCloseDelimiter() throws {
        #expect(try encoder.encode([:]).utf8Text == "--B--\r\n")
        #expect(try encoder.encode(["a": .undefined, "b": []]).utf8Text == "--B--\r\n")
    }

    @Test func textArgumentsBecomeSortedTextParts() throws {
        let body = try encoder.encode(["title": "Trip", "count": 3, "ok": true])
        #expect(
            body.utf8Text == """
                --B\r
                Content-Disposition: form-data; name="count"\r
                \r
                3\r
                --B\r
                Content-Disposition: form-data; name="ok"\r
                \r
                true\r
                --B\r
                Content-Disposition: form-data; name="title"\r
                \r
                Trip\r
                --B--\r

                """
        )
    }

    @Test func valuesAreFormattedLikeEveryEncoder() throws {
        let arguments: [String: Argument] = [
            "d": .date(Date(timeIntervalSince1970: 1_700_000_000.123)), "f": 2.0, "h": 1.5, "n": false,
        ]
        let expected =
            textPart("d", "1700000000123") + textPart("f", "2.0") + textPart("h", "1.5")
            + textPart("n", "false") + "--B--\r\n"
        #expect(try encoder.encode(arguments).utf8Text == expected)
    }

    @Test func textIsSentRawNotPercentEncoded() throws {
        let value = "a b+c&d=e?/#% é 😀 \"quoted\"\r\nsecond line"
        #expect(try encoder.encode(["v": .string(value)]) == Data((textPart("v", value) + "--B--\r\n").utf8))
    }

    @Test func keysAreSortedByUTF8Bytes() throws {
        let body = try encoder.encode(["\u{212B}": 1, "ø": 2, "Z": 3, "a": 4])
        let expected =
            textPart("Z", "3") + textPart("a", "4") + textPart("ø", "2") + textPart("\u{212B}", "1")
            + "--B--\r\n"
        #expect(body == Data(expected.utf8))
    }

    @Test func longKeysAreSortedByUTF8BytesToo() throws {
        // Longer than 15 bytes, so these are stored on the heap rather than inline.
        let prefix = "a-long-field-name-"
        let keys = ["\u{212B}", "é", "Z", "2", "10", "1", "", "1é"].map { prefix + $0 }
        let body = try encoder.encode(Dictionary(uniqueKeysWithValues: keys.map { ($0, Argument.string($0)) }))
        let sorted = ["", "1", "10", "1é", "2", "Z", "é", "\u{212B}"].map { prefix + $0 }
        let expected = sorted.map { textPart($0, $0) }.joined() + "--B--\r\n"
        #expect(body == Data(expected.utf8))
    }

    @Test func arraysBecomeRepeatedPartsInOrder() throws {
        let body = try encoder.encode(["tag": ["b", "a", .undefined, "c"]])
        let expected = textPart("tag", "b") + textPart("tag", "a") + textPart("tag", "c") + "--B--\r\n"
        #expect(body.utf8Text == expected)
    }

    @Test func boundaryIsUsedAsGiven() throws {
        let encoder = MultipartEncoder(boundary: "kilo-123")
        #expect(
            try encoder.encode(["a": "1"]).utf8Text == textPart("a", "1", boundary: "kilo-123") + "--kilo-123--\r\n"
        )
    }

    @Test func quoteInANameIsPercentTwentyTwo() throws {
        let body = try encoder.encode(["say \"hi\"": "x"])
        #expect(body.utf8Text == textPart("say %22hi%22", "x") + "--B--\r\n")
    }

    /// A server reads a quoted name as an RFC 9110 quoted string, where a backslash escapes the
    /// next character: a raw one at the end would escape the closing quote.
    @Test func backslashInANameIsEscaped() throws {
        let body = try encoder.encode(["a\\b\\": "x", "c\\\\": "y"])
        #expect(body.utf8Text == textPart("a\\\\b\\\\", "x") + textPart("c\\\\\\\\", "y") + "--B--\r\n")
    }

    @Test func nonASCIINameIsRawUTF8() throws {
        let body = try encoder.encode(["prénom": "Zoë"])
        #expect(body == Data((textPart("prénom", "Zoë") + "--B--\r\n").utf8))
    }

    /// A quote followed by a combining mark is still a quote byte on the wire: it must not end
    /// the quoted parameter.
    @Test func aQuoteBeforeACombiningMarkIsPercentTwentyTwo() throws {
        let body = try MultipartEncoder(boundary: "B").encode(["a\"\u{301}b": "x"])
        #expect(body.utf8Text == textPart("a%22\u{301}b", "x") + "--B--\r\n")
        #expect(!body.utf8Text.contains("name=\"a\""))
    }

    @Test func quotesAmongNonASCIITextArePercentTwentyTwo() throws {
        let body = try encoder.encode(["é\"😀\"": "\"é\""])
        #expect(body == Data((textPart("é%22😀%22", "\"é\"") + "--B--\r\n").utf8))
    }

    // Every character for which `Character.isNewline` is true: LF, VT, FF, CR, CR-LF, NEL, LS and PS.
    @Test(arguments: [
        "a\rb", "a\nb", "a\r\nb", "\n", "end\r", "a\u{0B}b", "a\u{0C}b", "é\u{85}", "a\u{2028}b", "\u{2029}",
    ])
    func lineBreakInANameThrows(name: String) {
        #expect(throws: ArgumentEncodingError.lineBreakInName(name)) {
            try encoder.encode(["ok": "1", name: "x"])
        }
    }

    @Test func emptyKeyThrows() {
        #expect(throws: ArgumentEncodingError.emptyKey) {
            try encoder.encode(["": "x"])
        }
    }

    @Test func nonFiniteNumberThrowsWithItsKey() {
        #expect(throws: ArgumentEncodingError.nonFiniteNumber("x")) {
            try encoder.encode(["x": .number(.nan)])
        }
    }

    // MARK: File parts

    @Test func fileURLBecomesFilePart() throws {
        let file = try directory.makeFile(named: "notes.txt", text: "hello\nworld")
        let body = try encoder.encode(["doc": .file(file)])
        #expect(
            body.utf8Text == """
                --B\r
                Content-Disposition: form-data; name="doc"; filename="notes.txt"\r
                Content-Type: text/plain\r
                \r
                hello
                world\r
                --B--\r

                """
        )
    }

    @Test(arguments: [
        ("a.txt", "text/plain"), ("a.png", "image/png"), ("a.PNG", "image/png"), ("a.jpg", "image/jpeg"),
        ("a.json", "application/json"), ("a.pdf", "application/pdf"), ("a.unknownext", "application/octet-stream"),
        ("noextension", "application/octet-stream"), ("archive.tar.gz", "application/gzip"),
    ])
    func contentTypeComesFromTheExtension(filename: String, type: String) throws {
        let file = try directory.makeFile(named: filename, text: "x")
        let body = try encoder.encode(["f": .file(file)])
        #expect(body.utf8Text == fileHeader("f", filename: filename, type: type) + "x\r\n--B--\r\n")
    }

    @Test func binaryFileBytesArriveExactly() throws {
        var generator = SeededGenerator(seed: 1)
        let bytes = Data(generator.bytes(count: 1000) + [0x00, 0x0D, 0x0A, 0xFF])
        let file = try directory.makeFile(named: "blob.bin", contents: bytes)
        let body = try encoder.encode(["blob": .file(file)])
        let expected =
            Data(fileHeader("blob", filename: "blob.bin", type: "application/octet-stream").utf8)
            + bytes + Data("\r\n--B--\r\n".utf8)
        #expect(body == expected)
    }

    @Test func emptyFileGivesAnEmptyFilePart() throws {
        let file = try directory.makeFile(named: "empty.txt", contents: Data())
        let body = try encoder.encode(["f": .file(file)])
        #expect(body.utf8Text == fileHeader("f", filename: "empty.txt", type: "text/plain") + "\r\n--B--\r\n")
    }

    @Test func textAndFilePartsAreSortedTogether() throws {
        let file = try directory.makeFile(named: "p.png", text: "PNG")
        let body = try encoder.encode(["title": "Trip", "photo": .file(file), "album": 7])
        let expected =
            textPart("album", "7") + fileHeader("photo", filename: "p.png", type: "image/png")
            + "PNG\r\n" + textPart("title", "Trip") + "--B--\r\n"
        #expect(body.utf8Text == expected)
    }

    @Test func arrayOfFileURLsBecomesSeveralPartsWithTheSameName() throws {
        let first = try directory.makeFile(named: "2.txt", text: "two")
        let second = try directory.makeFile(named: "1.png", text: "one")
        let body = try encoder.encode(["files": [.file(first), .file(second), "caption"]])
        let expected =
            fileHeader("files", filename: "2.txt", type: "text/plain") + "two\r\n"
            + fileHeader("files", filename: "1.png", type: "image/png") + "one\r\n"
            + textPart("files", "caption") + "--B--\r\n"
        #expect(body.utf8Text == expected)
    }

    @Test func arrayOfFileURLsFromAnyBecomesSeveralParts() throws {
        let first = try directory.makeFile(named: "a.txt", text: "A")
        let second = try directory.makeFile(named: "b.txt", text: "B")
        let arguments = try Argument.arguments(from: ["files": [first, second]])
        let expected =
            fileHeader("files", filename: "a.txt", type: "text/plain") + "A\r\n"
            + fileHeader("files", filename: "b.txt", type: "text/plain") + "B\r\n" + "--B--\r\n"
        #expect(try encoder.encode(arguments).utf8Text == expected)
    }

    @Test func quoteInAFilenameIsPercentTwentyTwo() throws {
        let file = try directory.makeFile(named: "say \"hi\".txt", text: "x")
        let body = try encoder.encode(["a\"b": .file(file)])
        #expect(
            body.utf8Text == fileHeader("a%22b", filename: "say %22hi%22.txt", type: "text/plain") + "x\r\n--B--\r\n"
        )
    }

    @Test func backslashInAFilenameIsEscaped() throws {
        let file = try directory.makeFile(named: "back\\slash\\", text: "x")
        let body = try encoder.encode(["f": .file(file)])
        let header = fileHeader("f", filename: "back\\\\slash\\\\", type: "application/octet-stream")
        #expect(body.utf8Text == header + "x\r\n--B--\r\n")
    }

    @Test func nonASCIIFilenameIsRawUTF8() throws {
        let file = try directory.makeFile(named: "résumé 😀.txt", text: "cv")
        let body = try encoder.encode(["cv": .file(file)])
        let expected = fileHeader("cv", filename: "résumé 😀.txt", type: "text/plain") + "cv\r\n--B--\r\n"
        #expect(body == Data(expected.utf8))
    }

    @Test func filenameWithPercentAndSpacesIsSentAsOnDisk() throws {
        let file = try directory.makeFile(named: "100% done #1.txt", text: "x")
        let body = try encoder.encode(["f": .file(file)])
        #expect(body.utf8Text == fileHeader("f", filename: "100% done #1.txt", type: "text/plain") + "x\r\n--B--\r\n")
    }

    @Test(arguments: ["a\rb.txt", "a\nb.txt", "a\r\nb.txt", "a\u{0C}b.txt", "é\u{85}.txt", "a\u{2028}b.txt"])
    func lineBreakInAFilenameThrowsWithTheKey(filename: String) {
        // Checked before any file is read, so the file need not exist.
        let file = directory.url(for: filename)
        #expect(throws: ArgumentEncodingError.lineBreakInName("doc")) {
            try encoder.encode(["doc": .file(file)])
        }
    }

    @Test func largeFileArrivesExactly() throws {
        var generator = SeededGenerator(seed: 2)
        let bytes = Data(generator.bytes(count: 256 * 1024 * 3 + 12_345))
        let file = try directory.makeFile(named: "big.bin", contents: bytes)
        let body = try encoder.encode(["before": "1", "big": .file(file), "zafter": "2"])
        let expected =
            Data(textPart("before", "1").utf8)
            + Data(fileHeader("big", filename: "big.bin", type: "application/octet-stream").utf8) + bytes
            + Data(("\r\n" + textPart("zafter", "2") + "--B--\r\n").utf8)
        #expect(body.count == expected.count)
        #expect(body == expected)
    }

    // MARK: Unreadable files

    @Test func missingFileThrowsUnreadableFile() throws {
        let missing = directory.url(for: "missing.txt")
        let error = #expect(throws: ArgumentEncodingError.self) {
            try encoder.encode(["doc": .file(missing)])
        }
        #expect(error?.isUnreadableFile == true)
        #expect(error?.fileURL == missing)
        #expect(error?.key == "doc")
        #expect(error?.localizedDescription.contains(missing.path) == true)
    }

    @Test func directoryThrowsUnreadableFile() throws {
        let folder = try directory.makeDirectory(named: "folder")
        let error = #expect(throws: ArgumentEncodingError.self) {
            try encoder.encode(["doc": .file(folder)])
        }
        #expect(error?.isUnreadableFile == true)
        #expect(error?.fileURL == folder)
        #expect(error?.key == "doc")
    }

    /// A device never ends (`/dev/zero` would fill memory) or is empty, neither of which is a file
    /// part; the sink gives up after 8 MiB, so that the test fails rather than fills memory
    /// if the device is read.
    @Test(arguments: ["/dev/zero", "/dev/null"])
    func deviceThrowsUnreadableFileWithoutBeingRead(path: String) throws {
        struct ReadTooMuch: Error {}
        let device = URL(fileURLWithPath: path)
        var written = 0
        let error = #expect(throws: ArgumentEncodingError.self) {
            try encoder.write(["doc": .file(device)]) { chunk in
                written += chunk.count
                if written > 8 * 1024 * 1024 { throw ReadTooMuch() }
            }
        }
        #expect(error?.isUnreadableFile == true)
        #expect(error?.fileURL == device)
        #expect(throws: ArgumentEncodingError.self) { try encoder.validate(["doc": .file(device)]) }
    }

    /// Opening a named pipe waits for a writer, perhaps forever: it is rejected without being opened.
    @Test func namedPipeIsRejectedWithoutBeingOpened() throws {
        let pipe = directory.url(for: "pipe")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        // `#require`: were the check missing, `encode` below would wait forever.
        let error = try #require(throws: ArgumentEncodingError.self) { try encoder.validate(["doc": .file(pipe)]) }
        #expect(error.isUnreadableFile)
        #expect(throws: ArgumentEncodingError.self) { try encoder.encode(["doc": .file(pipe)]) }
    }

    @Test func symbolicLinkToAFileIsReadAndABrokenOneIsRejected() throws {
        let file = try directory.makeFile(named: "target.txt", text: "hi")
        let link = directory.url(for: "link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        try encoder.validate(["doc": .file(link)])
        #expect(String(decoding: try encoder.encode(["doc": .file(link)]), as: UTF8.self).contains("\r\n\r\nhi\r\n"))
        let broken = directory.url(for: "broken.txt")
        try FileManager.default.createSymbolicLink(at: broken, withDestinationURL: directory.url(for: "missing.txt"))
        #expect(throws: ArgumentEncodingError.self) { try encoder.validate(["doc": .file(broken)]) }
        #expect(throws: ArgumentEncodingError.self) { try encoder.encode(["doc": .file(broken)]) }
    }

    @Test func unreadableFileInAListNamesTheList() throws {
        let good = try directory.makeFile(named: "good.txt", text: "x")
        let missing = directory.url(for: "missing.txt")
        let error = #expect(throws: ArgumentEncodingError.self) {
            try encoder.encode(["docs": [.file(good), .file(missing)]])
        }
        #expect(error?.key == "docs")
        #expect(error?.fileURL == missing)
    }

    // MARK: Streaming

    @Test func writeChunksConcatenateToTheSameBytes() throws {
        var generator = SeededGenerator(seed: 3)
        let big = try directory.makeFile(named: "big.bin", contents: Data(generator.bytes(count: 256 * 1024 * 2 + 1)))
        let small = try directory.makeFile(named: "small.txt", text: "small")
        let arguments: [String: Argument] = ["a": "text", "big": .file(big), "list": [.file(small), 2], "z": 1.5]
        var chunks: [Data] = []
        try encoder.write(arguments) { chunks.append($0) }
        #expect(chunks.count > 1)
        #expect(chunks.reduce(Data(), +) == (try encoder.encode(arguments)))
    }

    @Test func writeChunksAreAtMostTheDocumentedSize() throws {
        var generator = SeededGenerator(seed: 4)
        let big = try directory.makeFile(named: "big.bin", contents: Data(generator.bytes(count: 256 * 1024 * 2 + 1)))
        let longText = String(repeating: "x", count: 300 * 1024)
        var sizes: [Int] = []
        try encoder.write(["big": .file(big), "long": .string(longText)]) { sizes.append($0.count) }
        // MultipartEncoder.write(_:to:) documents "chunks of at most 256 KiB".
        #expect(sizes.allSatisfy { $0 <= 256 * 1024 }, "chunk sizes: \(sizes)")
    }

    @Test func longTextArrivesExactlyInChunksAndInMemory() throws {
        let longText = String(repeating: "é😀 x", count: 60 * 1024)  // 480 KiB of UTF-8
        let arguments: [String: Argument] = ["a": "1", "long": .string(longText), "z\"": "2"]
        let parts = [textPart("a", "1"), textPart("long", longText), textPart("z%22", "2"), "--B--\r\n"]
        let expected = Data(parts.joined().utf8)
        var chunks: [Data] = []
        try encoder.write(arguments) { chunks.append($0) }
        #expect(chunks.count == 2)
        #expect(chunks.reduce(Data(), +) == expected)
        #expect(try encoder.encode(arguments) == expected)
    }

    @Test func writeStopsAtTheFirstErrorOutputThrows() {
        struct Stop: Error, Equatable {}
        var calls = 0
        #expect(throws: Stop()) {
            try encoder.write(["a": "1", "b": "2"]) { _ in
                calls += 1
                throw Stop()
            }
        }
        #expect(calls == 1)
    }

    @Test func encodeToFileWritesTheSameBytesAndReturnsTheCount() throws {
        var generator = SeededGenerator(seed: 5)
        let big = try directory.makeFile(named: "big.bin", contents: Data(generator.bytes(count: 256 * 1024 + 7)))
        let arguments: [String: Argument] = ["title": "Trip é", "big": .file(big), "n": [1, 2]]
        let target = directory.url(for: "body.multipart")
        let count = try encoder.encode(arguments, toFile: target)
        let written = try Data(contentsOf: target)
        let inMemory = try encoder.encode(arguments)
        #expect(written == inMemory)
        #expect(count == Int64(inMemory.count))
    }

    @Test func encodeToFileWritesQuotedAndNonASCIINamesAsInMemory() throws {
        let file = try directory.makeFile(named: "ré \"sumé\".txt", text: "cv")
        let arguments: [String: Argument] = ["cv\"é": .file(file), "prénom": "Zoë", "q\"": ["a\"b", 1]]
        let target = directory.url(for: "body.multipart")
        let count = try encoder.encode(arguments, toFile: target)
        let parts = [
            fileHeader("cv%22é", filename: "ré %22sumé%22.txt", type: "text/plain"), "cv\r\n",
            textPart("prénom", "Zoë"), textPart("q%22", "a\"b"), textPart("q%22", "1"), "--B--\r\n",
        ]
        let expected = Data(parts.joined().utf8)
        #expect(try Data(contentsOf: target) == expected)
        #expect(try encoder.encode(arguments) == expected)
        #expect(count == Int64(expected.count))
    }

    @Test func encodeToFileReplacesALongerExistingFile() throws {
        let target = try directory.makeFile(named: "body.multipart", contents: Data(repeating: 0x41, count: 10_000))
        let count = try encoder.encode(["a": "1"], toFile: target)
        let expected = Data((textPart("a", "1") + "--B--\r\n").utf8)
        #expect(try Data(contentsOf: target) == expected)
        #expect(count == Int64(expected.count))
    }

    @Test func encodeToFileWithNoArgumentsWritesTheCloseDelimiter() throws {
        let target = directory.url(for: "body.multipart")
        #expect(try encoder.encode([:], toFile: target) == 7)
        #expect(try Data(contentsOf: target) == Data("--B--\r\n".utf8))
    }

    /// A body file that cannot be made fails with the file system's reason, not an error that
    /// says nothing (`FileManager.createFile` only answers yes or no).
    @Test func encodeToFileInAMissingFolderThrowsTheReason() throws {
        let target = directory.url(for: "missing-folder").appendingPathComponent("body.multipart")
        let error = #expect(throws: CocoaError.self) { try encoder.encode(["a": "1"], toFile: target) }
        #expect(error?.code == .fileNoSuchFile)
    }

    @Test func encodeToFileRemovesTheTargetWhenAFileIsUnreadable() throws {
        let good = try directory.makeFile(named: "a.txt", text: "written before the failure")
        let missing = directory.url(for: "missing.txt")
        let target = directory.url(for: "body.multipart")
        let error = #expect(throws: ArgumentEncodingError.self) {
            try encoder.encode(["a": .file(good), "b": .file(missing)], toFile: target)
        }
        #expect(error?.isUnreadableFile == true)
        #expect(error?.fileURL == missing)
        #expect(!directory.fileExists(at: target))
    }

    @Test func encodeToFileRemovesTheTargetWhenADirectoryIsGiven() throws {
        let folder = try directory.makeDirectory(named: "folder")
        let target = directory.url(for: "body.multipart")
        let error = #expect(throws: ArgumentEncodingError.self) {
            try encoder.encode(["a": "1", "b": .file(folder)], toFile: target)
        }
        #expect(error?.isUnreadableFile == true)
        #expect(!directory.fileExists(at: target))
    }

    @Test func encodeToFileThrowsBeforeCreatingTheTargetForABadArgument() throws {
        let target = directory.url(for: "body.multipart")
        #expect(throws: ArgumentEncodingError.lineBreakInName("a\nb")) {
            try encoder.encode(["a\nb": "1"], toFile: target)
        }
        #expect(!directory.fileExists(at: target))
    }

    @Test func encodeToFileThrowsWhenTheTargetCannotBeCreated() throws {
        let target = directory.url(for: "no-such-folder/body.multipart")
        #expect(throws: (any Error).self) {
            try encoder.encode(["a": "1"], toFile: target)
        }
        #expect(!directory.fileExists(at: target))
    }
}
