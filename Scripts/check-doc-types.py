#!/usr/bin/env python3
"""Checks that every type the prose names exists.

Reads README.md, CONTRIBUTING.md and Docs/*.md, takes each name in backticks that is spelled like
a Swift type (`BodyBuffer`, `WebServiceProxy.Limits`, `LimitError.unreadTooLarge` names
`LimitError`), and checks that Kilo's sources declare it (Sources/, Transports/*/Sources,
Benchmarks/Sources, Fuzz/*/Sources, Examples/), or that it is one of the platform's or a
dependency's types listed below. A type that was renamed or removed, and still named in the
docs, fails the check with the file and line that names it.

    python3 Scripts/check-doc-types.py
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "Docs").glob("*.md"))]
SOURCES = ["Sources", "Transports", "Benchmarks/Sources", "Fuzz", "Examples", "Tests"]

# Types of the platform, of Swift and of Kilo's dependencies that the docs name.
EXTERNAL = set("""
    Any AnyObject AsyncSequence AsyncStream AsyncThrowingStream Bool Character CheckedContinuation
    Codable CocoaError ContinuousClock Data Date DateFormatter Decodable DecodingError Dictionary
    DispatchQueue DispatchTime Double Encodable EncodingError Equatable Error FileHandle FileManager
    Float Hashable HTTPCookie HTTPCookieStorage HTTPURLResponse InputStream Int Int64 JSONDecoder
    JSONEncoder JSONSerialization LocalizedError MainActor Mutex NSError NSLock NSNull NSNumber
    Never Operation OperationQueue Optional POSIXError Progress ProcessInfo Result Sendable Set
    String Substring Task TaskGroup TimeInterval UInt UInt8 URL URLAuthenticationChallenge URLCache
    URLComponents URLCredential URLError URLProtocol URLQueryItem URLRequest URLResponse URLSession
    URLSessionConfiguration URLSessionDataDelegate URLSessionDataTask URLSessionDelegate
    URLSessionDownloadTask URLSessionTask URLSessionTaskDelegate URLSessionTaskMetrics
    URLSessionUploadTask UUID Void CancellationError Foundation FoundationNetworking Dispatch
    Synchronization XCTest Testing XCTestCase OSLog Logger
    HTTPClient HTTPClientRequest HTTPClientResponse HTTPClientError EventLoop EventLoopGroup
    NIOThreadPool NIODeadline ByteBuffer ChannelError NIOSSL NIOCore NIOHTTP1 NIOPosix
    NIOHTTPCompression TLSConfiguration AsyncHTTPClient SwiftNIO NIO Decimal NSDecimalNumber
    LosslessStringConvertible AnyHashable RawRepresentable OptionSet CustomStringConvertible
    NSUnderlyingErrorKey EventSource
""".split())

# Words of HTTP and of its fields that the docs put in backticks and that are no Swift types:
# header field names, cookie attributes, authentication schemes, /proc fields.
HTTP_WORDS = set("""
    Accept Authorization Basic Bearer Cookie Domain Location Secure HttpOnly Path Expires SameSite
    VmHWM VmRSS Retry-After Content-Type Content-Length Content-Encoding Transfer-Encoding
    Proxy-Authorization Set-Cookie Last-Event-ID Connection Host Range Referer Digest Expect
""".split())

DECLARATION = re.compile(
    r"\b(?:struct|class|enum|protocol|actor|typealias|associatedtype|case)\s+([A-Z][A-Za-z0-9_]*)"
)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
TYPE_NAME = re.compile(r"^(?:[a-z][A-Za-z0-9]*\.)?([A-Z][A-Za-z0-9]*)(?:[.<(].*)?$")
FENCE = re.compile(r"^\s*```")


def declared_types():
    names = set(re.findall(r'name: "([A-Za-z]+)"', (ROOT / "Package.swift").read_text(encoding="utf-8")))
    names.update(("Kilo", "KiloAsyncHTTPClient", "Package"))
    for folder in SOURCES:
        for path in (ROOT / folder).rglob("*.swift"):
            if ".build" in path.parts:
                continue
            names.update(DECLARATION.findall(path.read_text(encoding="utf-8", errors="replace")))
    return names


def named_types(path):
    """Yields (line number, name) for each type named in backticks outside code blocks."""
    in_code = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        for span in CODE_SPAN.findall(line):
            span = span.strip()
            if " " in span or "/" in span or span.startswith(("http", "-", ".")):
                continue
            match = TYPE_NAME.match(span)
            if match and not match.group(1).isupper():  # `GET`, `URL` and such are not types here
                yield number, match.group(1)


def main():
    declared = declared_types() | EXTERNAL | HTTP_WORDS
    missing = []
    for path in DOCS:
        for number, name in named_types(path):
            if name not in declared:
                missing.append(f"{path.relative_to(ROOT)}:{number}: `{name}` names no type in the sources")
    for line in missing:
        print("error: " + line, file=sys.stderr)
    if missing:
        return 1
    print(f"Every type named in {len(DOCS)} documents exists.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
