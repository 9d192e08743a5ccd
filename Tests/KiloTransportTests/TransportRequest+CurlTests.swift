import Foundation
import Testing

@testable import KiloTransport

@Suite struct TransportRequestCurlTests {
    private let url = URL(string: "https://example.com/items?page=2")!

    @Test func getSuppressesCurlsOwnFields() {
        let request = TransportRequest(method: .get, url: url)
        #expect(
            request.curlCommand() == """
                curl --globoff --request GET 'https://example.com/items?page=2' \\
                  -H 'Accept:' -H 'User-Agent:'
                """
        )
    }

    @Test func textBodyIsQuotedAndFieldsAreKept() {
        let request = TransportRequest(
            method: .post,
            url: url,
            headers: ["Content-Type": "application/json", "Accept": "application/json", "X-Empty": ""],
            body: .data(Data(#"{"a":"it's"}"#.utf8))
        )
        #expect(
            request.curlCommand() == """
                curl --globoff --request POST 'https://example.com/items?page=2' \\
                  -H 'Content-Type: application/json' \\
                  -H 'Accept: application/json' \\
                  -H 'X-Empty;' \\
                  -H 'User-Agent:' -H 'Expect:' \\
                  --data-binary '{"a":"it'\\''s"}'
                """
        )
    }

    @Test func binaryBodyIsWrittenByPrintf() {
        let body = Data([0x2D, 0x00, 0x0D, 0x0A, 0xFF, 0x25, 0x5C, 0x27]) + Data("é".utf8)
        let request = TransportRequest(
            method: .put,
            url: url,
            headers: ["Content-Type": "application/octet-stream"],
            body: .data(body)
        )
        #expect(
            request.curlCommand(redacting: .none) == """
                printf '\\055\\000\\r\\n\\377%%\\\\'\\''é' |
                curl --globoff --request PUT 'https://example.com/items?page=2' \\
                  -H 'Content-Type: application/octet-stream' \\
                  -H 'Accept:' -H 'User-Agent:' -H 'Expect:' \\
                  --data-binary @-
                """
        )
    }

    @Test func fieldsAreThoseTheTransportsSend() {
        let request = TransportRequest(
            method: .post,
            url: url,
            headers: ["content-length": "99", "Transfer-Encoding": "chunked", "X-Split": "a\r\nX-Injected: 1"],
            body: .data(Data("hi".utf8))
        )
        #expect(
            request.curlCommand() == """
                curl --globoff --request POST 'https://example.com/items?page=2' \\
                  -H 'Content-Type: application/octet-stream' \\
                  -H 'Accept:' -H 'User-Agent:' -H 'Expect:' \\
                  --data-binary 'hi'
                """
        )
    }

    @Test func fileBodyIsReadByCurl() {
        let request = TransportRequest(
            method: .post,
            url: url,
            headers: ["Content-Type": "text/plain"],
            body: .file(URL(fileURLWithPath: "/tmp/it's here.txt"))
        )
        #expect(request.curlCommand().hasSuffix(#"--data-binary '@/tmp/it'\''s here.txt'"#))
    }

    @Test func headMethodAndDotSegments() {
        let request = TransportRequest(method: .head, url: URL(string: "http://h/a/../b/.")!)
        #expect(request.curlCommand().hasPrefix("curl --globoff --head 'http://h/a/../b/.'"))
    }

    @Test func secretsAreRedactedByDefault() {
        let request = TransportRequest(
            method: .post,
            url: URL(string: "https://me:pw@example.com/login?api_key=k#token=t")!,
            headers: [
                "Authorization": "Bearer abc", "Cookie": "sid=s", "Content-Type": "application/x-www-form-urlencoded",
            ],
            body: .data(Data("user=u&password=p%27&password=again".utf8))
        )
        let command = request.curlCommand()
        for secret in ["pw", "=k", "abc", "sid=s", "=p%27", "again"] {
            #expect(!command.contains(secret), "\(secret) in \(command)")
        }
        #expect(command.contains("'https://REDACTED:REDACTED@example.com/login?api_key=REDACTED#token=REDACTED'"))
        #expect(command.contains("'Authorization: Bearer REDACTED'"))
        #expect(command.contains("--data-binary 'user=u&password=REDACTED&password=REDACTED'"))
        #expect(request.curlCommand(redacting: .none).contains("password=again"))
    }

    @Test func secretJSONMembersAreRedacted() {
        let request = TransportRequest(
            method: .post,
            url: url,
            headers: ["Content-Type": "application/vnd.api+json"],
            body: .data(Data(#"{"client_secret":"s3","name":"n"}"#.utf8))
        )
        #expect(request.curlCommand().hasSuffix(#"--data-binary '{"client_secret":"REDACTED","name":"n"}'"#))
    }

    @Test func secretMultipartPartsAreRedacted() throws {
        let body = Data(
            "--B\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nu\r\n--B\r\nContent-Disposition: form-data; name=\"api_key\"\r\n\r\nsecret\r\nvalue\r\n--B--\r\n"
                .utf8
        )
        let request = TransportRequest(
            method: .post,
            url: url,
            headers: ["Content-Type": "multipart/form-data; boundary=B"],
            body: .data(body)
        )
        let command = request.curlCommand()
        #expect(!command.contains("secret"))
        #expect(command.contains(#"name="api_key"\r\n\r\nREDACTED\r\n--B--\r\n'"#))
        #expect(command.contains(#"name="user"\r\n\r\nu\r\n"#))
    }

    @Test(arguments: [
        "plain", "it's", "$HOME `id` $(id) \\ \" ;&|<>*?[]{}~#!", "tab\there", "bell\u{7}", "esc\u{1B}[31m",
        "line\nfeed", "-n", "",
    ])
    func wordsReadBackExactly(text: String) throws {
        #expect(try shell("printf '%s' " + ShellQuoting.word(text)) == Data(text.utf8))
    }

    @Test func printfFormatsWriteEveryByte() throws {
        let bytes = Data((0...255).map { UInt8($0) } + Array("-%é'\\\u{2028}".utf8) + [0xE2, 0x82])
        #expect(try shell("printf " + ShellQuoting.printfFormat(bytes)) == bytes)
        #expect(try shell("printf " + ShellQuoting.printfFormat(Data("-x%d".utf8))) == Data("-x%d".utf8))
    }

    @Test func onlySafeTextIsQuotedAsItIs() {
        #expect(ShellQuoting.canBeQuoted(Data("a\nb\tc é".utf8)))
        #expect(!ShellQuoting.canBeQuoted(Data("a\r\nb".utf8)))
        #expect(!ShellQuoting.canBeQuoted(Data("@/etc/passwd".utf8)))
        #expect(!ShellQuoting.canBeQuoted(Data([0x61, 0xFF])))
        #expect(!ShellQuoting.canBeQuoted(Data(repeating: 0x61, count: 64 << 10 + 1)))
    }

    /// Runs `command` with `/bin/sh` (POSIX's shell; dash on Debian) and returns its output.
    private func shell(_ command: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}
