import Foundation

/// A streamed response's element that cannot be parsed: a line or event that is too long, a line
/// that is not UTF-8, or one that does not decode.
///
/// The streaming parsers (``LineParser``, ``ServerSentEventParser``, ``JSONLinesParser`` and
/// ``ServerSentEventDecoder``) throw it with the 1-based number of the stream's line at fault.
/// Compare with the static members; `==` compares the cause and the line, not the underlying
/// error, which need not be `Equatable`:
///
/// ```swift
/// do {
///     try parser.append(chunk) { record in … }
/// } catch let error as StreamElementError where error.isUndecodable {
///     print("line \(error.line):", error.underlyingError ?? error)
/// }
/// ```
public struct StreamElementError: Error, Sendable {
    private enum Code: Hashable, Sendable {
        case elementTooLong(limit: Int)
        case invalidUTF8
        case undecodableJSON
        case undecodableEvent
    }

    private let code: Code

    /// The 1-based number of the stream's line at fault: the line that went past the limit, that
    /// is not UTF-8, or that does not decode; for an event, its first line that is not a comment.
    public let line: Int

    /// The error that decoding threw (usually a `DecodingError`), for an element that does not
    /// decode; `nil` otherwise.
    public let underlyingError: (any Error)?

    private init(_ code: Code, line: Int, underlyingError: (any Error)? = nil) {
        self.code = code
        self.line = line
        self.underlyingError = underlyingError
    }

    /// A line, or an event (a server-sent event's type, last event ID and data together), is
    /// longer than the parser's limit.
    ///
    /// The parser throws as soon as the limit is passed, before it keeps more bytes, so a stream
    /// without line breaks cannot make it grow without bound.
    ///
    /// - Parameters:
    ///   - limit: The parser's limit, in bytes.
    ///   - line: The line that went past the limit.
    /// - Returns: The error.
    public static func elementTooLong(limit: Int, line: Int) -> StreamElementError {
        StreamElementError(.elementTooLong(limit: limit), line: line)
    }

    /// A line is not valid UTF-8 (``LineParser`` only: server-sent events replace invalid bytes with
    /// U+FFFD, as the standard says).
    ///
    /// - Parameter line: The line.
    /// - Returns: The error.
    public static func invalidUTF8(line: Int) -> StreamElementError {
        StreamElementError(.invalidUTF8, line: line)
    }

    /// A JSON Lines line does not decode as the expected type.
    ///
    /// - Parameters:
    ///   - line: The line.
    ///   - underlyingError: The error the decoder threw.
    /// - Returns: The error.
    public static func undecodableJSON(line: Int, underlyingError: any Error) -> StreamElementError {
        StreamElementError(.undecodableJSON, line: line, underlyingError: underlyingError)
    }

    /// A server-sent event's data does not decode as the expected type.
    ///
    /// - Parameters:
    ///   - line: The event's first line that is not a comment.
    ///   - underlyingError: The error the decoder threw.
    /// - Returns: The error.
    public static func undecodableEvent(line: Int, underlyingError: any Error) -> StreamElementError {
        StreamElementError(.undecodableEvent, line: line, underlyingError: underlyingError)
    }

    /// The limit that was passed, for an ``elementTooLong(limit:line:)`` error.
    public var limit: Int? {
        if case .elementTooLong(let limit) = code { return limit }
        return nil
    }

    /// Whether this error is an ``undecodableJSON(line:underlyingError:)`` or
    /// ``undecodableEvent(line:underlyingError:)`` error.
    public var isUndecodable: Bool {
        code == .undecodableJSON || code == .undecodableEvent
    }
}

extension StreamElementError: Hashable {
    /// Whether two errors have the same cause and line; their underlying errors are not compared.
    public static func == (lhs: StreamElementError, rhs: StreamElementError) -> Bool {
        lhs.code == rhs.code && lhs.line == rhs.line
    }

    /// Hashes the cause and the line.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(line)
    }
}

extension StreamElementError: LocalizedError {
    /// A sentence that names the line and the problem. The underlying error's description, which
    /// may quote the server's text (a key in its JSON, say), is escaped and cut short as a
    /// ``WebServiceError``'s text is.
    public var errorDescription: String? {
        let reason = underlyingError.map { ": " + WebServiceError.summary(of: String(describing: $0)) } ?? "."
        switch code {
        case .elementTooLong(let limit):
            return "Line \(line) of the stream goes past the limit of \(limit) bytes for one line or event."
        case .invalidUTF8:
            return "Line \(line) of the stream is not valid UTF-8."
        case .undecodableJSON:
            return "Line \(line) of the stream does not decode\(reason)"
        case .undecodableEvent:
            return "The event at line \(line) of the stream does not decode\(reason)"
        }
    }
}

extension StreamElementError: CustomStringConvertible {
    /// The cause, spelled as the static member that makes it, and the error's sentence: what
    /// `print(error)`, string interpolation and test failures show.
    ///
    /// For example, `StreamElementError.invalidUTF8(line: 3): Line 3 of the stream is not valid UTF-8.`
    public var description: String {
        let cause: String
        switch code {
        case .elementTooLong(let limit): cause = "elementTooLong(limit: \(limit), line: \(line))"
        case .invalidUTF8: cause = "invalidUTF8(line: \(line))"
        case .undecodableJSON: cause = "undecodableJSON(line: \(line))"
        case .undecodableEvent: cause = "undecodableEvent(line: \(line))"
        }
        return "StreamElementError.\(cause): \(errorDescription ?? "")"
    }
}
